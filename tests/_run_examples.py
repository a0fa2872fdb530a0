"""Run example scripts one after the other in this process, each in its own folder.

``python tests/_run_examples.py OUT_DIR SCRIPT...`` writes ``OUT_DIR/<name>.json`` per
script: its exit status, stdout, stderr and seconds. One interpreter for all of them
spares each its start-up (importing torch and transformers, loading the model), which
was most of an example's time in the test suite.
"""

import contextlib
import io
import json
import os
import runpy
import sys
import time
import traceback
import warnings
from pathlib import Path


def run_one(script, folder):
    """Run ``script`` as ``__main__`` with ``folder`` as working directory."""
    out, err = io.StringIO(), io.StringIO()
    status, start, cwd = 0, time.perf_counter(), os.getcwd()
    folder.mkdir(parents=True, exist_ok=True)
    os.chdir(folder)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
                warnings.catch_warnings():
            runpy.run_path(str(script), run_name="__main__")
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # report it as the script's failure, then go on
        status = 1
        err.write(traceback.format_exc())
    finally:
        os.chdir(cwd)
    return dict(status=status, stdout=out.getvalue(), stderr=err.getvalue(),
                seconds=time.perf_counter() - start)


def main(out_dir, *scripts):
    out_dir = Path(out_dir)
    for script in map(Path, scripts):
        sys.path.insert(0, str(script.parent))  # the examples import _shared
        result = run_one(script, out_dir / script.stem)
        (out_dir / f"{script.stem}.json").write_text(json.dumps(result))


if __name__ == "__main__":
    main(*sys.argv[1:])

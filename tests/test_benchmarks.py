"""Every script in ``benchmarks/`` imports against the package as it is and answers
``--help``, without the benchmarks' heavy optional dependencies."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(path.name for path in (ROOT / "benchmarks").glob("*.py")
                 if path.name != "_corpora.py")  # a module the scripts import


def test_the_scripts_are_found():
    assert {"reproduce.py", "bench_selection.py", "bench_embedder.py"} <= set(SCRIPTS)


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_script_answers_help(script):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    # faiss, sentence-transformers and BERTopic are imported where they are used: a
    # script's --help works without them.
    blocker = ("import sys\nfor name in ('faiss', 'sentence_transformers', 'bertopic'):\n"
               "    sys.modules[name] = None\n"
               f"sys.argv = [{script!r}, '--help']\n"
               f"sys.path.insert(0, '.')\n"
               f"import runpy\nrunpy.run_path({script!r}, run_name='__main__')\n")
    done = subprocess.run([sys.executable, "-c", blocker], cwd=ROOT / "benchmarks", env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "usage:" in done.stdout

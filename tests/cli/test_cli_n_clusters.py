"""The command line's ``--n-clusters``: "auto" by default, the choice in the summary, the
report and the plot."""

import json
import re

import numpy as np
import pytest
from conftest import TOPICS
from sklearn.utils import Bunch

from sklearn_shufdiv.__main__ import main
from sklearn_shufdiv._cli import _pipeline
from sklearn_shufdiv._cli._summary import k_uncertainty
from sklearn_shufdiv.cluster import choose_n_clusters, cluster_on_sphere
from sklearn_shufdiv.embedders._training import _head

TOPIC_NAMES = list(TOPICS)


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def docs(tmp_path, corpus):
    path = tmp_path / "docs.txt"
    path.write_text("\n".join(corpus[0][::3]) + "\n", encoding="utf-8")
    return path


def read_csv(path):
    return np.array([int(line.split(",")[1]) for line in path.read_text().split()[1:]])


def test_frozen_default_is_auto_on_the_embeddings(capsys, tmp_path, docs, tiny_bert_path,
                                                  monkeypatch):
    seen = []

    def spy(X, **kwargs):
        seen.append((np.array(X), kwargs))
        return choose_n_clusters(X, **kwargs)

    monkeypatch.setattr(_pipeline, "choose_n_clusters", spy)
    status, out, err = run(capsys, "cluster", docs, "-o", tmp_path / "o.csv", "--report",
                           tmp_path / "r.json", "--method", "frozen", "--model",
                           tiny_bert_path, "--max-length", 32, "--seed", 3)
    assert status == 0, err
    (embeddings, kwargs), = seen  # chosen once, on the documents' embeddings
    assert kwargs["random_state"] == 3
    k, scores = choose_n_clusters(embeddings, random_state=3)
    report = json.loads((tmp_path / "r.json").read_text())
    choice = report["n_clusters_choice"]
    assert report["n_clusters"] == choice["chosen"] == k
    assert choice["criterion"] == "modularity" and choice["runner_up"] == scores.runner_up
    assert choice["k"] == list(range(2, 16))  # below the 16 documents
    np.testing.assert_allclose(np.array(choice["score"], dtype=float), scores.score)
    np.testing.assert_array_equal(read_csv(tmp_path / "o.csv"),
                                  cluster_on_sphere(embeddings, k, random_state=3).labels)
    assert re.search(rf"^clusters:\s+{k} \(auto: chosen by modularity among 2 to 15; "
                     rf"runner-up {scores.runner_up}\)$", out, re.M)
    # The per-k table: every candidate, its score as in the report, two marks.
    table = out[out.index("number of clusters (each candidate's score):"):].splitlines()
    rows = {int(line.split()[0]): line for line in table[2:16]}
    assert sorted(rows) == list(range(2, 16))
    for candidate, score in zip(choice["k"], choice["score"], strict=True):
        text = "n/a" if score is None else f"{score:.4f}"
        assert rows[candidate].split()[1] == text
    assert rows[k].endswith("<- chosen") and rows[scores.runner_up].endswith("<- runner-up")


def test_auto_with_training_takes_the_embedders_choice(capsys, tmp_path, docs,
                                                       tiny_bert_path, monkeypatch):
    kept = {}
    make = _pipeline.make_embedder

    def spy(*args, **kwargs):
        kept["embedder"] = make(*args, **kwargs)
        return kept["embedder"]

    monkeypatch.setattr(_pipeline, "make_embedder", spy)
    status, out, err = run(capsys, "cluster", docs, "-o", tmp_path / "o.csv", "--report",
                           tmp_path / "r.json", "--plot", tmp_path / "map.png",
                           "--plot-projection", "pca", "--model", tiny_bert_path,
                           "--max-epochs", 1, "--batch-size", 8, "--max-length", 32)
    assert status == 0, err
    embedder = kept["embedder"]
    assert embedder.n_clusters == "auto"
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["n_clusters"] == embedder.n_clusters_
    assert report["n_clusters_choice"]["k"] == embedder.n_clusters_scores_.k.tolist()
    labels = read_csv(tmp_path / "o.csv")
    assert labels.max() < embedder.n_clusters_
    # The clusters are the epoch selection's, of the chosen number.
    row = [entry["epoch"] for entry in embedder.history_].index(embedder.best_epoch_)
    np.testing.assert_array_equal(labels, embedder.selection_labels_[row])
    assert (tmp_path / "map.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_given_number_is_used_as_it_is(capsys, tmp_path, docs, tiny_bert_path,
                                         monkeypatch):
    monkeypatch.setattr(_pipeline, "choose_n_clusters", None)  # never called
    status, out, err = run(capsys, "cluster", docs, "-k", 3, "-o", tmp_path / "o.csv",
                           "--report", tmp_path / "r.json", "--method", "frozen",
                           "--model", tiny_bert_path, "--max-length", 32)
    assert status == 0, err
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["n_clusters"] == 3 and report["n_clusters_choice"] is None
    assert re.search(r"^clusters:\s+3$", out, re.M) and "each candidate's score" not in out


@pytest.mark.parametrize("value, message", [("1", "below the minimum, 2"),
                                            ("many", "'many' is neither an integer nor auto")])
def test_bad_n_clusters(capsys, value, message):
    status, _, err = run(capsys, "cluster", "docs.txt", "-k", value, "-o", "x.csv")
    assert status == 2 and message in err and "-k/--n-clusters" in err


def test_auto_on_one_distinct_document_says_what_to_do(capsys, tmp_path, tiny_bert_path):
    docs = tmp_path / "docs.txt"
    docs.write_text("the same words here\n" * 4, encoding="utf-8")
    status, _, err = run(capsys, "cluster", docs, "-o", tmp_path / "o.csv", "--method",
                         "frozen", "--model", tiny_bert_path, "--max-length", 32,
                         "--lexical-weight", 0)
    assert status == 2
    assert "--n-clusters auto: " in err and "Give --n-clusters K." in err
    assert not (tmp_path / "o.csv").exists()


def _scores(score, score_std=None, chosen=4, runner_up=5):
    arrays = {"score": np.array(score, dtype=float)}
    if score_std is not None:
        arrays["score_std"] = np.array(score_std, dtype=float)
    return Bunch(k=np.arange(2, 2 + len(score)), criterion="stability", n_clusters=chosen,
                 runner_up=runner_up, **arrays)


def test_an_uncertain_k_is_said_in_words_naming_the_runner_up():
    # k = 2..6; the chosen 4 leads the runner-up 5 by less than the draws' spread.
    close = _scores([0.2, 0.5, 0.81, 0.79, 0.3], [0.05, 0.05, 0.04, 0.03, 0.05])
    text = k_uncertainty(close)
    assert text == ("uncertain: the runner-up, 5 clusters, scores 0.7900 against 0.8100 for "
                    "the chosen 4, a difference within the spread of the resampled scores; "
                    "compare both with --n-clusters 5")
    clear = _scores([0.2, 0.5, 0.81, 0.6, 0.3], [0.05, 0.05, 0.04, 0.03, 0.05])
    assert k_uncertainty(clear) == ""
    flat = _scores([0.50, 0.51, 0.52, 0.505, 0.5], [0.05] * 5)
    assert "show no clear number of clusters" in k_uncertainty(flat)
    # Without a spread, two scores within 2% of each other are as good as equal.
    assert k_uncertainty(_scores([0.2, 0.5, 1.0, 0.99, 0.3])).startswith(
        "uncertain: the runner-up, 5 clusters")
    assert k_uncertainty(_scores([0.2, 0.5, 1.0, 0.9, 0.3])) == ""
    # A criterion that reads its own choice as unsure is believed.
    unsure = _scores([0.2, 0.5, 1.0, 0.9, 0.3])
    unsure["uncertain"] = True
    assert k_uncertainty(unsure).startswith("uncertain: the stability criterion finds 4 "
                                            "clusters no surer than the runner-up, 5")


def test_the_summary_and_report_carry_the_caveat_of_an_uncertain_k(capsys, tmp_path, docs,
                                                                   tiny_bert_path,
                                                                   monkeypatch):
    def uncertain(X, **kwargs):
        return 3, _scores([0.2, 0.8, 0.79, 0.1], [0.05] * 4, chosen=3, runner_up=4)

    monkeypatch.setattr(_pipeline, "choose_n_clusters", uncertain)
    status, out, err = run(capsys, "cluster", docs, "-o", tmp_path / "o.csv", "--report",
                           tmp_path / "r.json", "--method", "frozen", "--model",
                           tiny_bert_path, "--max-length", 32, "--quiet")
    assert status == 0, err
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("clusters:"))
    assert lines[at + 1].strip().startswith("uncertain: the runner-up, 4 clusters")
    choice = json.loads((tmp_path / "r.json").read_text())["n_clusters_choice"]
    assert choice["uncertain"] == lines[at + 1].strip()


def test_the_default_method_on_a_cpu_decides_on_a_head(capsys, tmp_path, docs,
                                                        tiny_bert_path, monkeypatch):
    made = []
    make = _pipeline.make_embedder

    def spy(*args, **kwargs):
        made.append(make(*args, **kwargs))
        return made[-1]

    embedded = []
    fit_transform = _pipeline.fit_transform
    monkeypatch.setattr(_pipeline, "make_embedder", spy)
    monkeypatch.setattr(_pipeline, "fit_transform", lambda *a: embedded.append(
        fit_transform(*a)) or embedded[-1])
    monkeypatch.setattr(_head, "MIN_AGREEMENT", -1.0)  # a head whatever the agreement
    for method in ("shuffle-divide", "frozen"):
        status, out, err = run(capsys, "cluster", docs, "-k", 3, "-o",
                               tmp_path / f"{method}.csv", "--method", method, "--model",
                               tiny_bert_path, "--max-length", 32, "--device", "cpu")
        assert status == 0, err
    trained, frozen = made
    # Without encoder epochs, Shuffle & Divide gets the number of clusters, so that
    # head="auto" can decide; --method frozen is the untuned encoder, without a head.
    assert (trained.max_epochs_, trained.n_clusters, trained.head) == (0, 3, "auto")
    assert trained.head_reason_.startswith("head='auto': a LinearHead")
    assert trained.head_ is not None
    assert frozen.head is None and frozen.head_ is None and frozen.n_clusters is None
    # The clusters are those of the head's space, not the selection's of the encoder's.
    np.testing.assert_array_equal(
        read_csv(tmp_path / "shuffle-divide.csv"),
        cluster_on_sphere(embedded[0], 3, random_state=0).labels)

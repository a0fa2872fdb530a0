"""The embedders' ``n_clusters="auto"``: the number of clusters of the epoch selection and
of the cluster-aware objectives, chosen once on the untuned encoder's sample."""

import os

import numpy as np
import pytest
from conftest import SMALL, spy_training
from sklearn.base import clone

from sklearn_shufdiv.cluster import choose_n_clusters, cluster_centers, cluster_on_sphere
from sklearn_shufdiv.embedders import ShuffleDivideEmbedder
from sklearn_shufdiv.embedders._spaces._lexical import choose_lexical_weight, fuse
from sklearn_shufdiv.embedders._training import _engine, _selection

ONE_EPOCH = {**SMALL, "max_epochs": 1}


def spy_embed(monkeypatch):
    """Every sample embedding the selection computes, in order."""
    embedded = []
    embed = _engine.ContrastiveNet.embed

    def spy(net, texts, *args, **kwargs):
        out = embed(net, texts, *args, **kwargs)
        embedded.append(out)
        return out

    monkeypatch.setattr(_engine.ContrastiveNet, "embed", spy)
    return embedded


def test_auto_is_the_choice_on_the_untuned_sample(tiny_bert_path, corpus, monkeypatch):
    docs, _ = corpus
    embedded = spy_embed(monkeypatch)
    embedder = ShuffleDivideEmbedder(tiny_bert_path, n_clusters="auto", selection_sample_size=40,
                                     **ONE_EPOCH).fit(docs)
    sample = [docs[i] for i in embedder.selection_indices_]
    # The untuned encoder's embeddings of the sample (the selection's first embedding),
    # in the space transform returns at the fixed weight of the words.
    space = fuse(embedded[0], embedder.lexical_.transform(sample), 0.5)
    k, scores = choose_n_clusters(space, random_state=0)
    assert embedder.n_clusters_ == k and 2 <= k <= 30
    assert scores.criterion == "modularity" and embedder.n_clusters_scores_.runner_up == (
        scores.runner_up)
    np.testing.assert_array_equal(embedder.n_clusters_scores_.k, np.arange(2, 31))
    np.testing.assert_allclose(embedder.n_clusters_scores_.score, scores.score)
    # Every epoch's clustering has that many clusters: epoch 0's is the one of that space.
    np.testing.assert_array_equal(embedder.selection_labels_[0],
                                  cluster_on_sphere(space, k, random_state=0).labels)
    assert all(row.max() < k for row in embedder.selection_labels_)
    assert embedder.n_clusters == "auto"  # the parameter is left as given


def test_auto_equals_the_int_it_chose(tiny_bert_path, corpus):
    """With the chosen k given as an int, the fit is the same in all but the scores."""
    docs, _ = corpus
    auto = ShuffleDivideEmbedder(tiny_bert_path, n_clusters="auto", **ONE_EPOCH).fit(docs)
    again = ShuffleDivideEmbedder(tiny_bert_path, n_clusters="auto", **ONE_EPOCH).fit(docs)
    fixed = ShuffleDivideEmbedder(tiny_bert_path, n_clusters=auto.n_clusters_,
                                  **ONE_EPOCH).fit(docs)
    assert again.n_clusters_ == auto.n_clusters_ == fixed.n_clusters_
    np.testing.assert_array_equal(again.n_clusters_scores_.score, auto.n_clusters_scores_.score)
    assert fixed.n_clusters_scores_ is None
    assert [{k: v for k, v in row.items() if k != "duration"} for row in auto.history_] == [
        {k: v for k, v in row.items() if k != "duration"} for row in fixed.history_]
    np.testing.assert_array_equal(auto.selection_labels_, fixed.selection_labels_)
    np.testing.assert_array_equal(auto.transform(docs), fixed.transform(docs))
    np.testing.assert_array_equal(again.transform(docs), auto.transform(docs))


@pytest.mark.parametrize("n_clusters", [4, None])
def test_an_int_or_none_chooses_nothing(tiny_bert_path, corpus, monkeypatch, n_clusters):
    def refuse(*args, **kwargs):
        raise AssertionError("choose_n_clusters called")

    monkeypatch.setattr(_selection, "choose_n_clusters", refuse)
    docs, _ = corpus
    embedder = ShuffleDivideEmbedder(tiny_bert_path, n_clusters=n_clusters, **ONE_EPOCH).fit(docs)
    assert embedder.n_clusters_ == n_clusters and embedder.n_clusters_scores_ is None
    if n_clusters is not None:
        assert all(set(np.unique(row)) == set(range(4)) for row in embedder.selection_labels_)


def test_lexical_weight_auto_is_chosen_with_the_chosen_k(tiny_bert_path, corpus, monkeypatch):
    docs, _ = corpus
    embedded = spy_embed(monkeypatch)
    embedder = ShuffleDivideEmbedder(tiny_bert_path, n_clusters="auto", lexical_weight="auto",
                                     **ONE_EPOCH).fit(docs)
    lexical = embedder.lexical_.transform([docs[i] for i in embedder.selection_indices_])
    k, _ = choose_n_clusters(fuse(embedded[0], lexical, 0.5), random_state=0)
    assert embedder.n_clusters_ == k
    assert embedder.lexical_weight_ == choose_lexical_weight(embedded[0], lexical, k,
                                                             random_state=0)[0]


def test_cluster_aware_objective_trains_on_the_chosen_k(tiny_bert_path, corpus, monkeypatch):
    docs, _ = corpus
    seen, embedded = spy_training(monkeypatch)
    embedder = ShuffleDivideEmbedder(tiny_bert_path, n_clusters="auto", objective="prototype",
                                     lexical_weight=0, **ONE_EPOCH).fit(docs)
    k = embedder.n_clusters_
    assert k == choose_n_clusters(embedded[0], random_state=0)[0]
    sample = embedder.selection_indices_
    for epoch, _, labels, prototypes in seen:
        assert epoch == 1
        np.testing.assert_array_equal(labels[sample], embedder.selection_labels_[0])
        np.testing.assert_allclose(prototypes, cluster_centers(
            embedded[0], embedder.selection_labels_[0], k), rtol=1e-5, atol=1e-6)
        assert prototypes.shape[0] == k


def test_auto_resumes_from_a_checkpoint_with_its_choice(tiny_bert_path, corpus, tmp_path,
                                                        interrupt_at):
    docs, _ = corpus
    params = {**ONE_EPOCH, "max_epochs": 2, "n_clusters": "auto", "objective": "prototype"}
    whole = ShuffleDivideEmbedder(tiny_bert_path, **params).fit(docs)
    restore = interrupt_at(6 + 3)  # 6 batches an epoch: stop inside epoch 2
    with pytest.warns(RuntimeWarning, match="interrupted after 1 of 2 epochs"):
        ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=tmp_path, **params).fit(docs)
    restore()
    assert "epoch-1" in os.listdir(tmp_path)
    resumed = ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=tmp_path, **params).fit(docs)
    assert resumed.n_clusters_ == whole.n_clusters_
    assert set(resumed.n_clusters_scores_) == set(whole.n_clusters_scores_)
    for key, value in whole.n_clusters_scores_.items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(resumed.n_clusters_scores_[key], value)
        else:
            assert resumed.n_clusters_scores_[key] == value
    np.testing.assert_array_equal(resumed.transform(docs), whole.transform(docs))


def test_clone_keeps_auto_and_bad_values_are_refused(tiny_bert_path, corpus):
    embedder = ShuffleDivideEmbedder(tiny_bert_path, n_clusters="auto", **ONE_EPOCH)
    assert clone(embedder).get_params()["n_clusters"] == "auto"
    docs, _ = corpus
    for bad in ("automatic", 1):
        with pytest.raises(ValueError, match="n_clusters"):
            clone(embedder).set_params(n_clusters=bad).fit(docs)


def test_auto_on_one_distinct_document_says_what_to_do(tiny_bert_path):
    docs = ["The league won the cup. The coach was glad."] * 6
    embedder = ShuffleDivideEmbedder(tiny_bert_path, n_clusters="auto", lexical_weight=0,
                                     **{**ONE_EPOCH, "max_epochs": 0})
    with pytest.raises(ValueError, match=r"n_clusters='auto': .*1 distinct direction.*Give "
                                         r"n_clusters as an int"):
        embedder.fit(docs)

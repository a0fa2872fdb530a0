"""The objective parameter: NT-Xent, and the cluster-aware objectives that train on the
epoch selection's clusters (ProtoNCE's prototype term, cluster-aware negatives), their
pseudo-labels over-clustered or cut to their confident part."""

import numpy as np
import pytest
import torch
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV

from sklearn_shufdiv.cluster import cluster_centers, cluster_on_sphere, confident_labels
from sklearn_shufdiv.embedders import (
    ClusterNegatives,
    NTXent,
    ProtoNCE,
    ShuffleDivideEmbedder,
    nt_xent_loss,
    prototype_loss,
)
from sklearn_shufdiv.embedders._training import _engine
from sklearn_shufdiv.embedders._training._objectives import resolve_objective

SMALL = dict(max_epochs=2, batch_size=8, mini_batch_size=6, max_length=32, random_state=0,
             verbose=0, n_clusters=4)


# -- the values ------------------------------------------------------------------------
def test_names_are_default_instances_and_instances_are_values():
    assert resolve_objective("nt-xent") == NTXent()
    assert resolve_objective("prototype") == ProtoNCE()
    assert resolve_objective("cluster-negatives") == ClusterNegatives()
    given = ProtoNCE(weight=0.5, n_pseudo_clusters=7, fraction=0.5)
    resolved = resolve_objective(given)
    assert resolved == given and resolved is not given  # a fit does not touch the user's
    assert repr(given) == "ProtoNCE(weight=0.5, n_pseudo_clusters=7, fraction=0.5)"
    assert given.set_params(weight=2.0).weight == 2.0
    with pytest.raises(ValueError, match="Invalid parameter 'mode' for ProtoNCE"):
        given.set_params(mode="exclude")
    embedder = ShuffleDivideEmbedder(objective=ClusterNegatives("positive"))
    assert clone(embedder).get_params()["objective"] == ClusterNegatives("positive")
    assert embedder.get_params()["objective__mode"] == "positive"


def test_each_objective_builds_its_loss():
    generator = torch.Generator().manual_seed(4)
    views = torch.randn(6, 4, generator=generator)
    keys, groups = torch.arange(6) % 3, torch.tensor([0, 1, -1, 1, 0, -1])
    prototypes = torch.randn(2, 4, generator=generator)
    plain = float(nt_xent_loss(views, 0.3, keys))
    proto = float(prototype_loss(views, prototypes, groups, 0.3))
    assert float(NTXent().make_loss(0.3)(views, keys, groups, prototypes)) == pytest.approx(
        plain, rel=1e-6)  # the groups and prototypes are not read
    assert float(ProtoNCE(weight=0.7).make_loss(0.3)(views, keys, groups, prototypes)) == \
        pytest.approx(plain + 0.7 * proto, rel=1e-6)
    for mode in ("exclude", "positive"):
        loss = ClusterNegatives(mode).make_loss(0.3)(views, keys, groups, prototypes)
        assert float(loss) == pytest.approx(
            float(nt_xent_loss(views, 0.3, keys, groups, mode)), rel=1e-6)
    with pytest.raises(ValueError, match="prototype term needs"):
        ProtoNCE().make_loss(0.3)(views, keys)


@pytest.mark.parametrize("objective, params, match", [
    ("prototype", {"n_clusters": None}, r"objective=ProtoNCE\(.*needs n_clusters"),
    ("cluster-negatives", {"n_clusters": None},
     r"objective=ClusterNegatives\(.*needs n_clusters"),
    (ProtoNCE(n_pseudo_clusters=31), {"selection_sample_size": 30},
     "n_pseudo_clusters=31 is more clusters than the 30 documents.*selection_sample_size"),
    (ProtoNCE(weight=-1.0), {}, "'weight' parameter of objective=ProtoNCE"),
    (ProtoNCE(n_pseudo_clusters=1), {}, "'n_pseudo_clusters' parameter of objective="),
    (ClusterNegatives(fraction=0.0), {}, "'fraction' parameter of objective="),
    (ClusterNegatives(fraction=1.5), {}, "'fraction' parameter of objective="),
    (ClusterNegatives("drop"), {}, "'mode' parameter of objective=ClusterNegatives"),
    ("prototypes", {}, "'objective' parameter of ShuffleDivideEmbedder"),
])
def test_objectives_are_validated_at_fit(tiny_bert_path, corpus, objective, params, match):
    docs, _ = corpus
    with pytest.raises(ValueError, match=match):
        ShuffleDivideEmbedder(tiny_bert_path, objective=objective,
                              **{**SMALL, **params}).fit(docs)


def test_a_grid_search_reaches_the_objectives_parameters(tiny_bert_path, corpus):
    docs, _ = corpus
    everything = np.arange(len(docs))
    search = GridSearchCV(
        ShuffleDivideEmbedder(tiny_bert_path, objective=ProtoNCE(), **SMALL),
        {"objective__weight": [0.0, 1.0]}, scoring=lambda est, X, y=None: 0.0,
        cv=[(everything, everything)], refit=False).fit(docs)
    assert [p["objective__weight"] for p in search.cv_results_["params"]] == [0.0, 1.0]


# -- what the losses are trained on ----------------------------------------------------
def spy_training(monkeypatch):
    """What the loss sees each step (epoch, the batch's documents, pseudo-labels,
    prototypes) and every sample embedding the selection computed, in order."""
    seen, embedded = [], []
    batch_loss = _engine.ContrastiveNet.batch_loss
    embed = _engine.ContrastiveNet.embed

    def spy_loss(net, views, batch):
        prototypes = None if net.prototypes_ is None else net.prototypes_.numpy().copy()
        seen.append((len(net.history), batch.documents.copy(), net.pseudo_labels_.copy(),
                     prototypes))
        return batch_loss(net, views, batch)

    def spy_embed(net, texts, *args, **kwargs):
        out = embed(net, texts, *args, **kwargs)
        embedded.append(out)
        return out

    monkeypatch.setattr(_engine.ContrastiveNet, "batch_loss", spy_loss)
    monkeypatch.setattr(_engine.ContrastiveNet, "embed", spy_embed)
    return seen, embedded


def test_the_prototypes_are_the_previous_epochs_centers(tiny_bert_path, corpus, monkeypatch):
    docs, _ = corpus
    seen, embedded = spy_training(monkeypatch)
    embedder = ShuffleDivideEmbedder(tiny_bert_path, objective="prototype",
                                     selection_sample_size=30, **SMALL).fit(docs)
    assert embedder.objective_ == ProtoNCE() and embedder.objective == "prototype"
    assert {epoch for epoch, *_ in seen} == {1, 2}
    sample = embedder.selection_indices_
    outside = np.setdiff1d(np.arange(len(docs)), sample)
    for epoch, documents, labels, prototypes in seen:
        # Epoch e: the selection's clusters after epoch e - 1 (0: the untuned encoder)
        # and their centers in the encoder's space, from the sample's embeddings by that
        # epoch's weights; documents outside the sample have none (-1).
        np.testing.assert_array_equal(labels[sample], embedder.selection_labels_[epoch - 1])
        assert (labels[outside] == -1).all() and len(outside) == len(docs) - 30
        assert len(documents) % 2 == 0 and set(documents) <= set(range(len(docs)))
        expected = cluster_centers(embedded[epoch - 1], embedder.selection_labels_[epoch - 1],
                                   4)
        np.testing.assert_allclose(prototypes, expected, rtol=1e-5, atol=1e-6)
        assert prototypes.shape == (4, embedded[0].shape[1])
    # The sample is embedded once per epoch: the pseudo-labels take the selection's.
    assert len(embedded) == 3
    assert embedder.net_.prototypes_ is None and embedder.net_.pseudo_labels_ is None


@pytest.mark.parametrize("pseudo", [{"n_pseudo_clusters": 7}, {"fraction": 0.5},
                                    {"n_pseudo_clusters": 7, "fraction": 0.5}])
@pytest.mark.parametrize("Objective", [ProtoNCE, ClusterNegatives])
def test_pseudo_labels_over_cluster_and_keep_the_confident(tiny_bert_path, corpus,
                                                           monkeypatch, Objective, pseudo):
    docs, _ = corpus
    seen, embedded = spy_training(monkeypatch)
    # Words left out: the space clustered is the sample's embeddings themselves.
    embedder = ShuffleDivideEmbedder(tiny_bert_path, lexical_weight=0,
                                     objective=Objective(**pseudo),
                                     selection_sample_size=30, **SMALL).fit(docs)
    sample = embedder.selection_indices_
    k = pseudo.get("n_pseudo_clusters", 4)
    assert {epoch for epoch, *_ in seen} == {1, 2}
    for epoch, _, labels, prototypes in seen:
        # Epoch e trains on a k-cluster k-means (same seed) of epoch e - 1's sample
        # (with n_pseudo_clusters; else the selection's own), its confident half kept
        # (with fraction) ...
        expected = (cluster_on_sphere(embedded[epoch - 1], k, random_state=0).labels
                    if "n_pseudo_clusters" in pseudo
                    else embedder.selection_labels_[epoch - 1])
        if "fraction" in pseudo:
            expected = confident_labels(embedded[epoch - 1], expected, k, 0.5)
            assert 0 < (expected == -1).sum() < len(expected)
        np.testing.assert_array_equal(labels[sample], expected)
        assert (np.delete(labels, sample) == -1).all()
        if Objective is ProtoNCE:  # ... and on the centers of those labelled
            np.testing.assert_allclose(prototypes, cluster_centers(
                embedded[epoch - 1], expected, k), rtol=1e-5, atol=1e-6)
        else:
            assert prototypes is None
        if "n_pseudo_clusters" in pseudo:
            assert len(np.unique(labels[labels >= 0])) > 4
    # The selection itself still clusters into n_clusters.
    for labels in embedder.selection_labels_:
        assert set(np.unique(labels)) <= set(range(4))


@pytest.mark.parametrize("objective", ["prototype", "cluster-negatives",
                                       ClusterNegatives("positive")])
def test_cluster_aware_objectives_change_training(tiny_bert_path, corpus, objective):
    docs, _ = corpus
    plain = ShuffleDivideEmbedder(tiny_bert_path, **SMALL).fit(docs)
    aware = ShuffleDivideEmbedder(tiny_bert_path, objective=objective, **SMALL).fit(docs)
    losses = [row["train_loss"] for row in aware.history_[1:]]
    assert all(np.isfinite(losses))
    # Same seed, views and weights before epoch 1: only the loss differs. The prototype
    # term adds a positive cross-entropy.
    first, reference = losses[0], plain.history_[1]["train_loss"]
    if objective == "prototype":
        assert first > reference + 1e-3
    else:
        assert abs(first - reference) > 1e-4


def test_n_pseudo_clusters_equal_to_n_clusters_is_the_selections_clustering(tiny_bert_path,
                                                                             corpus):
    docs, _ = corpus
    default = ShuffleDivideEmbedder(tiny_bert_path, objective="prototype", **SMALL).fit(docs)
    same = ShuffleDivideEmbedder(tiny_bert_path, objective=ProtoNCE(n_pseudo_clusters=4),
                                 **SMALL).fit(docs)
    np.testing.assert_array_equal(same.transform(docs), default.transform(docs))
    # ProtoNCE(weight=0) is NT-Xent, trained on the same views.
    plain = ShuffleDivideEmbedder(tiny_bert_path, **SMALL).fit(docs)
    zero = ShuffleDivideEmbedder(tiny_bert_path, objective=ProtoNCE(weight=0.0),
                                 **SMALL).fit(docs)
    assert [row["train_loss"] for row in zero.history_] == [
        row["train_loss"] for row in plain.history_]

"""The objective parameter: NT-Xent, ProtoNCE's prototype term that trains on the epoch
selection's clusters (its pseudo-labels over-clustered or cut to their confident part),
and a new objective plugged in through the public protocol."""

import numpy as np
import pytest
import torch
from conftest import SMALL, spy_training
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV

from sklearn_shufdiv.cluster import cluster_centers, cluster_on_sphere, confident_labels
from sklearn_shufdiv.embedders import (
    NTXent,
    Objective,
    ProtoNCE,
    ShuffleDivideEmbedder,
)
from sklearn_shufdiv.embedders._training._loss import nt_xent_loss, prototype_loss
from sklearn_shufdiv.embedders._training._objectives import resolve_objective

CLUSTERED = {**SMALL, "n_clusters": 4}


# -- the values ------------------------------------------------------------------------
def test_names_are_default_instances_and_instances_are_values():
    assert resolve_objective("nt-xent") == NTXent()
    assert resolve_objective("prototype") == ProtoNCE()
    given = ProtoNCE(weight=0.5, n_pseudo_clusters=7, fraction=0.5)
    resolved = resolve_objective(given)
    assert resolved == given and resolved is not given  # a fit does not touch the user's
    assert repr(given) == "ProtoNCE(weight=0.5, n_pseudo_clusters=7, fraction=0.5)"
    assert given.set_params(weight=2.0).weight == 2.0
    with pytest.raises(ValueError, match="Invalid parameter 'mode' for ProtoNCE"):
        given.set_params(mode="exclude")
    embedder = ShuffleDivideEmbedder(objective=ProtoNCE(fraction=0.5))
    assert clone(embedder).get_params()["objective"] == ProtoNCE(fraction=0.5)
    assert embedder.get_params()["objective__fraction"] == 0.5


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
    with pytest.raises(ValueError, match="prototype term needs"):
        ProtoNCE().make_loss(0.3)(views, keys)


@pytest.mark.parametrize("objective, params, match", [
    ("prototype", {"n_clusters": None}, r"objective=ProtoNCE\(.*needs n_clusters"),
    (ProtoNCE(n_pseudo_clusters=31), {"selection_sample_size": 30},
     "n_pseudo_clusters=31 is more clusters than the 30 documents.*selection_sample_size"),
    (ProtoNCE(weight=-1.0), {}, "'weight' parameter of objective=ProtoNCE"),
    (ProtoNCE(n_pseudo_clusters=1), {}, "'n_pseudo_clusters' parameter of objective="),
    (ProtoNCE(fraction=0.0), {}, "'fraction' parameter of objective="),
    (ProtoNCE(fraction=1.5), {}, "'fraction' parameter of objective="),
    ("cluster-negatives", {}, "'objective' parameter of ShuffleDivideEmbedder"),
    ("prototypes", {}, "'objective' parameter of ShuffleDivideEmbedder"),
])
def test_objectives_are_validated_at_fit(tiny_bert_path, corpus, objective, params, match):
    docs, _ = corpus
    with pytest.raises(ValueError, match=match):
        ShuffleDivideEmbedder(tiny_bert_path, objective=objective,
                              **{**CLUSTERED, **params}).fit(docs)


def test_a_grid_search_reaches_the_objectives_parameters(tiny_bert_path, corpus):
    docs, _ = corpus
    everything = np.arange(len(docs))
    search = GridSearchCV(
        ShuffleDivideEmbedder(tiny_bert_path, objective=ProtoNCE(), **CLUSTERED),
        {"objective__weight": [0.0, 1.0]}, scoring=lambda est, X, y=None: 0.0,
        cv=[(everything, everything)], refit=False).fit(docs)
    assert [p["objective__weight"] for p in search.cv_results_["params"]] == [0.0, 1.0]


# -- what the losses are trained on ----------------------------------------------------
def test_the_prototypes_are_the_previous_epochs_centers(tiny_bert_path, corpus, monkeypatch):
    docs, _ = corpus
    seen, embedded = spy_training(monkeypatch)
    embedder = ShuffleDivideEmbedder(tiny_bert_path, objective="prototype",
                                     selection_sample_size=30, **CLUSTERED).fit(docs)
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
def test_pseudo_labels_over_cluster_and_keep_the_confident(tiny_bert_path, corpus,
                                                           monkeypatch, pseudo):
    docs, _ = corpus
    seen, embedded = spy_training(monkeypatch)
    # Words left out: the space clustered is the sample's embeddings themselves.
    embedder = ShuffleDivideEmbedder(tiny_bert_path, lexical_weight=0,
                                     objective=ProtoNCE(**pseudo),
                                     selection_sample_size=30, **CLUSTERED).fit(docs)
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
        # ... and on the centers of those labelled.
        np.testing.assert_allclose(prototypes, cluster_centers(
            embedded[epoch - 1], expected, k), rtol=1e-5, atol=1e-6)
        if "n_pseudo_clusters" in pseudo:
            assert len(np.unique(labels[labels >= 0])) > 4
    # The selection itself still clusters into n_clusters.
    for labels in embedder.selection_labels_:
        assert set(np.unique(labels)) <= set(range(4))


def test_the_prototype_term_changes_training(tiny_bert_path, corpus):
    docs, _ = corpus
    plain = ShuffleDivideEmbedder(tiny_bert_path, **CLUSTERED).fit(docs)
    aware = ShuffleDivideEmbedder(tiny_bert_path, objective="prototype", **CLUSTERED).fit(docs)
    losses = [row["train_loss"] for row in aware.history_[1:]]
    assert all(np.isfinite(losses))
    # Same seed, views and weights before epoch 1: only the loss differs. The prototype
    # term adds a positive cross-entropy.
    assert losses[0] > plain.history_[1]["train_loss"] + 1e-3


class AlignmentLoss(torch.nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, views, keys=None, groups=None, prototypes=None):
        first, second = views.chunk(2)  # view i and view i + N are a pair
        return self.scale * (1 - torch.cosine_similarity(first, second)).mean()


class Alignment(Objective):
    """A new objective through the public protocol: the mean cosine distance of each view
    to its partner, times ``scale``; no negatives."""

    def __init__(self, scale=1.0):
        self.scale = scale

    def make_loss(self, temperature):
        return AlignmentLoss(self.scale)


def test_a_new_objective_plugs_in_through_the_protocol(tiny_bert_path, corpus):
    docs, _ = corpus
    one_epoch = {**SMALL, "max_epochs": 1}
    embedder = ShuffleDivideEmbedder(tiny_bert_path, objective=Alignment(2.0),
                                     **one_epoch).fit(docs)
    assert embedder.objective_ == Alignment(2.0)
    assert embedder.objective_ is not embedder.objective
    assert clone(embedder).get_params()["objective__scale"] == 2.0
    # Its loss is what the engine trained on: in [0, 2 * scale], and not NT-Xent's.
    plain = ShuffleDivideEmbedder(tiny_bert_path, **one_epoch).fit(docs)
    loss = embedder.history_[-1]["train_loss"]
    assert 0 <= loss <= 4 and loss != plain.history_[-1]["train_loss"]


def test_n_pseudo_clusters_equal_to_n_clusters_is_the_selections_clustering(tiny_bert_path,
                                                                             corpus):
    docs, _ = corpus
    default = ShuffleDivideEmbedder(tiny_bert_path, objective="prototype", **CLUSTERED).fit(docs)
    same = ShuffleDivideEmbedder(tiny_bert_path, objective=ProtoNCE(n_pseudo_clusters=4),
                                 **CLUSTERED).fit(docs)
    np.testing.assert_array_equal(same.transform(docs), default.transform(docs))
    # ProtoNCE(weight=0) is NT-Xent, trained on the same views.
    plain = ShuffleDivideEmbedder(tiny_bert_path, **CLUSTERED).fit(docs)
    zero = ShuffleDivideEmbedder(tiny_bert_path, objective=ProtoNCE(weight=0.0),
                                 **CLUSTERED).fit(docs)
    assert [row["train_loss"] for row in zero.history_] == [
        row["train_loss"] for row in plain.history_]

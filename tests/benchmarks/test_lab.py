"""The benchmarks' lab plugs its variants into the embedders through the public protocols:
cluster-aware negatives as an ``objective``, the own-space silhouette as a ``selection``,
and the weights of any number of views, dense or sparse."""

import importlib
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
import torch
from conftest import SMALL
from sklearn.base import clone

from sklearn_shufdiv.cluster import cluster_on_sphere
from sklearn_shufdiv.embedders import Candidate, ShuffleDivideEmbedder
from sklearn_shufdiv.exceptions import InvalidParameterError
from sklearn_shufdiv.metrics import cosine_silhouette

BENCHMARKS = str(Path(__file__).resolve().parents[2] / "benchmarks")
CLUSTERED = {**SMALL, "n_clusters": 4}


@pytest.fixture(scope="module")
def lab():
    """The lab's modules, imported as the scripts import them (from ``benchmarks/``)."""
    sys.path.insert(0, BENCHMARKS)
    try:
        yield {name: importlib.import_module(f"lab.{name}")
               for name in ("objectives", "criteria", "views", "internals")}
    finally:
        sys.path.remove(BENCHMARKS)


# -- cluster-aware negatives -----------------------------------------------------------
def test_cluster_negatives_loss_leaves_the_anchors_cluster_out(lab):
    ClusterNegatives = lab["objectives"].ClusterNegatives
    nt_xent_loss = lab["internals"].nt_xent_loss
    generator = torch.Generator().manual_seed(4)
    views = torch.randn(6, 4, generator=generator)
    keys, groups = torch.arange(6) % 3, torch.tensor([0, 1, -1, 1, 0, -1])
    for mode in ("exclude", "positive"):
        loss = ClusterNegatives(mode).make_loss(0.3)(views, keys, groups, None)
        assert float(loss) == pytest.approx(
            float(nt_xent_loss(views, 0.3, keys, groups, mode)), rel=1e-6)
        assert float(loss) != pytest.approx(float(nt_xent_loss(views, 0.3, keys)))


@pytest.mark.parametrize("params, fit_params, match", [
    ({}, {"n_clusters": None}, r"objective=ClusterNegatives\(.*needs n_clusters"),
    ({"mode": "drop"}, {}, "mode must be one of"),
    ({"fraction": 0.0}, {}, r"fraction must be in \(0, 1\]"),
    ({"n_pseudo_clusters": 31}, {"selection_sample_size": 30}, "n_pseudo_clusters must be"),
])
def test_cluster_negatives_are_validated_at_fit(lab, tiny_bert_path, corpus, params,
                                                fit_params, match):
    objective = lab["objectives"].ClusterNegatives(**params)
    with pytest.raises(ValueError, match=match):
        ShuffleDivideEmbedder(tiny_bert_path, objective=objective,
                              **{**CLUSTERED, **fit_params}).fit(corpus[0])


def test_cluster_negatives_plug_in_as_an_objective(lab, tiny_bert_path, corpus):
    ClusterNegatives = lab["objectives"].ClusterNegatives
    docs, _ = corpus
    embedder = ShuffleDivideEmbedder(tiny_bert_path, objective=ClusterNegatives("positive"),
                                     **CLUSTERED)
    assert clone(embedder).get_params()["objective"] == ClusterNegatives("positive")
    assert embedder.get_params()["objective__mode"] == "positive"
    plain = ShuffleDivideEmbedder(tiny_bert_path, **CLUSTERED).fit(docs)
    embedder.fit(docs)
    losses = [row["train_loss"] for row in embedder.history_[1:]]
    # Same seed, views and weights before epoch 1: only the loss differs.
    assert all(np.isfinite(losses))
    assert abs(losses[0] - plain.history_[1]["train_loss"]) > 1e-4
    assert embedder.objective_ == ClusterNegatives("positive")


# -- the own-space silhouette ----------------------------------------------------------
def test_the_silhouette_criterion_is_the_packages_silhouette(lab):
    SilhouetteCriterion = lab["criteria"].SilhouetteCriterion
    points = np.random.default_rng(0).normal(size=(60, 5))
    candidate = Candidate(2, points, cluster_on_sphere(points, 3))
    assert SilhouetteCriterion().score(candidate, None) == cosine_silhouette(
        candidate.clustering.unit, candidate.labels)
    one_cluster = Candidate(0, points, cluster_on_sphere(points, 3))
    one_cluster.clustering.labels = np.zeros(len(points), dtype=int)
    assert SilhouetteCriterion().score(one_cluster, None) == -1.0  # undefined: the worst


def test_the_scripts_names_give_selection_values(lab):
    criteria = lab["criteria"]
    assert isinstance(criteria.criterion("silhouette"), criteria.SilhouetteCriterion)
    assert criteria.criterion("untuned-silhouette") == "untuned-silhouette"
    assert criteria.resolve("silhouette").name == "silhouette"
    with pytest.raises(ValueError, match="selection='own'"):
        criteria.criterion("own")


def test_the_silhouette_criterion_plugs_in_as_a_selection(lab, tiny_bert_path, corpus):
    docs, _ = corpus
    embedder = ShuffleDivideEmbedder(tiny_bert_path,
                                     selection=lab["criteria"].criterion("silhouette"),
                                     **CLUSTERED).fit(docs)
    scores = [row["silhouette"] for row in embedder.history_]
    assert embedder.best_epoch_ == int(np.argmax(scores))


# -- any number of views, dense or sparse ----------------------------------------------
@pytest.fixture
def topics():
    rng = np.random.default_rng(0)
    topic = np.repeat([0, 1, 2], 30)
    informative = np.eye(3)[topic] + 0.3 * rng.normal(size=(90, 3))
    noise = rng.normal(size=(90, 3))
    return informative, noise


def unit(rows):
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_sparse_views_join_and_graph_as_dense_ones(lab, topics):
    views = lab["views"]
    informative, noise = topics
    joined = views.join_views([informative, sp.csr_matrix(noise)], [0.5, 0.5])
    assert sp.issparse(joined)
    np.testing.assert_allclose(joined.toarray(), np.hstack([unit(informative) * np.sqrt(0.5),
                                                            unit(noise) * np.sqrt(0.5)]))
    np.testing.assert_array_equal(views.neighbor_graph(sp.csr_matrix(noise), 5).toarray(),
                                  views.neighbor_graph(noise, 5).toarray())


def test_three_views_noise_gets_nothing(lab, topics):
    informative, noise = topics
    other = informative @ np.random.default_rng(5).normal(size=(3, 3))
    weights, scores = lab["views"].choose_view_weights([informative, noise, other], 3)
    assert len(scores) == 15  # multiples of 0.25 summing to 1
    assert weights[1] == 0.0


def test_two_views_by_default_are_the_packages_candidates(lab, topics):
    informative, noise = topics
    weights, scores = lab["views"].choose_view_weights([informative, noise], 3)
    expected = lab["internals"].choose_view_weights(
        [informative, noise], 3, [(round(1 - w / 10, 1), w / 10) for w in range(10)])
    assert (weights, scores) == expected


def test_bad_views_are_refused(lab, topics):
    choose_view_weights, join_views = lab["views"].choose_view_weights, lab["views"].join_views
    informative, noise = topics
    with pytest.raises(ValueError, match="at least 2 views"):
        choose_view_weights([informative], 3)
    with pytest.raises(ValueError, match="different numbers of rows"):
        choose_view_weights([informative, noise[:50]], 3)
    with pytest.raises(ValueError, match="rows of 2 weights"):
        choose_view_weights([informative, noise], 3, candidates=[(0.2, 0.3, 0.5)])
    with pytest.raises(ValueError, match="summing to 1"):
        choose_view_weights([informative, noise], 3, candidates=[(0.2, 0.3)])
    with pytest.raises(ValueError, match="n_neighbors=90"):
        choose_view_weights([informative, noise], 3, n_neighbors=90)
    with pytest.raises(InvalidParameterError, match="n_clusters"):
        choose_view_weights([informative, noise], 1)
    with pytest.raises(ValueError, match="2 views but 1 weights"):
        join_views([informative, noise], [1.0])

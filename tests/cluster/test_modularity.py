"""``k_selection="modularity"``: the neighbour graph, its modularity, and the plateau's most
stable k, through the public search."""

import numpy as np
import pytest
from conftest import blobs_on_sphere

from sklearn_shufdiv.cluster import SphericalKMeans, choose_n_clusters
from sklearn_shufdiv.cluster._modularity import Modularity
from sklearn_shufdiv.utils._graph import modularity, neighbor_graph


def test_neighbor_graph_is_symmetric_without_self_loops():
    X, _ = blobs_on_sphere(3, 20, 8, 0.3, 0)
    graph = neighbor_graph(X, n_neighbors=5)
    assert (graph != graph.T).nnz == 0
    assert graph.diagonal().sum() == 0
    assert (np.asarray(graph.sum(axis=1)).ravel() >= 5).all()


def test_neighbor_graph_rejects_too_many_neighbours():
    with pytest.raises(ValueError, match="n_neighbors=4 must be an integer in \\[1, 3\\]"):
        neighbor_graph(np.eye(4), n_neighbors=4)


def test_modularity_prefers_the_partition_that_follows_the_graph():
    X, blob = blobs_on_sphere(3, 30, 8, 0.3, 1)
    graph = neighbor_graph(X, 10)
    shuffled = np.random.default_rng(0).permutation(blob)
    assert modularity(graph, blob) > 0.5 > modularity(graph, shuffled)
    assert modularity(graph, np.zeros(len(blob), dtype=int)) == pytest.approx(0.0)


@pytest.mark.parametrize("n_blobs, per_blob, k_range, slack", [(3, 60, (2, 8), 0),
                                                              (20, 30, (14, 26), 1)])
def test_modularity_finds_coarse_and_fine_blobs(n_blobs, per_blob, k_range, slack):
    # On 20 blobs one partition run per k can split a blob: the choice is within one.
    X, _ = blobs_on_sphere(n_blobs, per_blob, 32, 0.3, 3)
    k, scores = choose_n_clusters(X, k_range=k_range, k_selection="modularity",
                                  random_state=0)
    assert abs(k - n_blobs) <= slack
    assert scores.criterion == "modularity"
    assert len(scores.modularity) == k_range[1] - k_range[0] + 1
    on_plateau = np.isfinite(scores.score)
    assert on_plateau[list(scores.k).index(k)]


def test_modularity_is_the_default_and_flags_a_space_without_clusters():
    X = np.random.default_rng(4).normal(size=(300, 16))
    k, scores = choose_n_clusters(X, k_range=(2, 9), random_state=0)
    assert scores.criterion == "modularity"
    assert scores.uncertain
    assert scores.runner_up is not None and scores.runner_up != k


@pytest.mark.parametrize("n_blobs, per_blob", [(3, 6), (5, 6), (8, 6), (3, 40), (5, 40)])
def test_trivially_separable_blobs_give_their_number(n_blobs, per_blob):
    X = (np.repeat(np.eye(10)[:n_blobs], per_blob, 0)
         + 0.05 * np.random.default_rng(0).standard_normal((n_blobs * per_blob, 10)))
    assert choose_n_clusters(X, random_state=0)[0] == n_blobs
    assert SphericalKMeans("auto", random_state=0).fit(X).n_clusters_ == n_blobs


def test_modularity_is_reproducible():
    X, _ = blobs_on_sphere(4, 100, 16, 0.5, 5)
    first = choose_n_clusters(X, k_range=(2, 7), sample_size=200, random_state=7)
    again = choose_n_clusters(X, k_range=(2, 7), sample_size=200, random_state=7)
    assert first[0] == again[0]
    np.testing.assert_array_equal(first[1].modularity, again[1].modularity)


@pytest.mark.parametrize("params, message", [
    ({"n_repeats": 1}, "n_repeats"),
    ({"n_neighbors": 0}, "n_neighbors"),
    ({"tolerance": 1.5}, "tolerance"),
])
def test_modularity_rejects_bad_parameters(params, message):
    X, _ = blobs_on_sphere(2, 50, 8, 0.3, 6)
    with pytest.raises(ValueError, match=message):
        choose_n_clusters(X, k_range=(2, 4), k_selection=Modularity(**params))

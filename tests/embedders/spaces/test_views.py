"""The weight of the LSA space beside the encoder's, chosen without labels: two dense
views joined, their neighbour graphs and the modularity that scores a weighting."""

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_shufdiv import SphericalKMeans, clustering_accuracy
from sklearn_shufdiv.embedders._spaces._lexical import fuse
from sklearn_shufdiv.embedders._spaces._views import choose_view_weights, join_views
from sklearn_shufdiv.utils._graph import modularity, neighbor_graph

#: Candidates of two views: the second's weight 0, 0.1, ..., 0.9.
TWO_VIEWS = [(round(1 - w / 10, 1), w / 10) for w in range(10)]


def unit(rows):
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def direct_graph(rows, n_neighbors):
    """Each row's most similar others by cosine, one at a time, then either direction."""
    cos = unit(rows) @ unit(rows).T
    n = len(rows)
    graph = np.zeros((n, n))
    for i in range(n):
        others = [j for j in np.argsort(-cos[i]) if j != i][:n_neighbors]
        graph[i, others] = 1
    return np.maximum(graph, graph.T)


def direct_modularity(graph, labels):
    """``1/(2m) sum_ij [A_ij - k_i k_j / (2m)] [c_i == c_j]``, pair by pair."""
    graph = np.asarray(graph)
    degree = graph.sum(axis=1)
    two_m = degree.sum()
    total = 0.0
    for i in range(len(labels)):
        for j in range(len(labels)):
            if labels[i] == labels[j]:
                total += graph[i, j] - degree[i] * degree[j] / two_m
    return total / two_m


@pytest.fixture
def topics():
    """90 documents of 3 topics; an informative view, a noise view, and two views that
    each merge a different pair of topics."""
    rng = np.random.default_rng(0)
    topic = np.repeat([0, 1, 2], 30)
    informative = np.eye(3)[topic] + 0.3 * rng.normal(size=(90, 3))
    noise = rng.normal(size=(90, 3))
    merges_12 = np.eye(3)[np.where(topic == 2, 1, topic)] + 0.2 * rng.normal(size=(90, 3))
    merges_01 = np.eye(3)[np.where(topic == 0, 1, topic)] + 0.2 * rng.normal(size=(90, 3))
    return topic, informative, noise, merges_12, merges_01


def test_join_views_is_fuse_with_two_views(topics):
    _, informative, noise, *_ = topics
    lsa = unit(noise)
    for w in (0.0, 0.3, 0.9):
        np.testing.assert_allclose(join_views([informative, lsa], [1 - w, w]),
                                   fuse(informative, lsa, w)[:, :3 + 3 * (w > 0)], atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(join_views([informative, noise], [0.2, 0.8]),
                                              axis=1), 1)


@pytest.mark.parametrize("n_neighbors", [1, 5, 12])
def test_neighbor_graph_against_direct(n_neighbors):
    rows = np.random.default_rng(1).normal(size=(40, 6))
    expected = direct_graph(rows, n_neighbors)
    np.testing.assert_array_equal(neighbor_graph(rows, n_neighbors).toarray(), expected)
    with pytest.raises(ValueError, match="n_neighbors=40"):
        neighbor_graph(rows, 40)


def test_neighbor_graph_blocks_of_many_rows():
    rows = np.random.default_rng(2).normal(size=(2100, 4))  # more than one block of 2048
    graph = neighbor_graph(rows, 3)
    for i in (0, 2047, 2048, 2099):
        cos = unit(rows) @ unit(rows[i:i + 1])[0]
        cos[i] = -np.inf
        assert set(np.argsort(-cos)[:3]) <= set(graph[i].indices)
    assert (graph != graph.T).nnz == 0 and graph.diagonal().sum() == 0


def test_graph_modularity_against_direct_and_networkx():
    nx = pytest.importorskip("networkx")
    rng = np.random.default_rng(3)
    rows = rng.normal(size=(30, 4))
    graph = neighbor_graph(rows, 4)
    labels = rng.integers(0, 3, size=30)
    value = modularity(graph, labels)
    assert value == pytest.approx(direct_modularity(graph.toarray(), labels))
    network = nx.from_scipy_sparse_array(graph)
    communities = [set(np.flatnonzero(labels == c)) for c in np.unique(labels)]
    assert value == pytest.approx(nx.community.modularity(network, communities))
    assert modularity(sp.csr_matrix((5, 5)), np.zeros(5, dtype=int)) == 0.0


def test_scores_against_direct_computation(topics):
    _, informative, noise, *_ = topics
    candidates = [(1.0, 0.0), (0.6, 0.4), (0.2, 0.8)]
    weights, scores = choose_view_weights([informative, noise], 3, candidates=candidates,
                                          n_neighbors=5, random_state=1, n_init=3)
    graphs = [direct_graph(informative, 5), direct_graph(noise, 5)]
    for candidate in candidates:
        joined = np.hstack([unit(informative) * np.sqrt(candidate[0]),
                            unit(noise) * np.sqrt(candidate[1])])
        labels = SphericalKMeans(3, n_init=3, random_state=1).fit(joined).labels_
        assert scores[candidate] == pytest.approx(
            sum(direct_modularity(g, labels) for g in graphs))
    assert weights == max(scores, key=scores.get)


@pytest.mark.parametrize("noise_first", [False, True])
def test_a_noise_view_gets_its_least_weight(topics, noise_first):
    _, informative, noise, *_ = topics
    views = [noise, informative] if noise_first else [informative, noise]
    weights, scores = choose_view_weights(views, 3, TWO_VIEWS)
    candidates = list(scores)
    least = min(c[0 if noise_first else 1] for c in candidates)
    assert weights[0 if noise_first else 1] == least
    # Not a tie broken by order: the informative view alone beats the noise's best.
    assert scores[weights] > max(s for c, s in scores.items() if c[0 if noise_first else 1] > 0.5)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_two_informative_views_both_count(seed):
    """Two views of the same 4 topics with independent noise: the chosen weighting gives
    both views weight and clusters better than either view alone."""
    rng = np.random.default_rng(seed)
    topic = np.repeat(np.arange(4), 40)
    centers = rng.normal(size=(4, 10))
    first = centers[topic] + rng.normal(size=(160, 10))
    second = centers[topic] @ rng.normal(size=(10, 10)) + 3.0 * rng.normal(size=(160, 10))
    weights, scores = choose_view_weights([first, second], 4, TWO_VIEWS)
    assert min(weights) > 0

    def accuracy(w):
        joined = join_views([first, second], w)
        return clustering_accuracy(topic, SphericalKMeans(4, random_state=0).fit(joined).labels_)

    assert accuracy(weights) > max(accuracy((1.0, 0.0)), accuracy((0.1, 0.9)))
    assert scores[weights] > max(scores[(1.0, 0.0)], scores[(0.1, 0.9)])

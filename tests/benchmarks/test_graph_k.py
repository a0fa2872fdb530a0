"""The lab's research around ``k_selection="modularity"``: the greedy merge curve, the rule on
a sample with its own k range, and the weight of the words chosen with k."""

import importlib
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import blobs_on_sphere

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
graph_k = importlib.import_module("lab.graph_k")
internals = importlib.import_module("lab.internals")
choose_n_clusters_by_modularity = graph_k.choose_n_clusters_by_modularity
choose_view_weight_and_k = graph_k.choose_view_weight_and_k
merge_curve = graph_k.merge_curve
modularity, neighbor_graph = internals.modularity, internals.neighbor_graph


def test_merge_curve_ends_at_the_modularity_of_each_merge():
    X, blob = blobs_on_sphere(3, 30, 8, 0.3, 2)
    graph = neighbor_graph(X, 10)
    over = blob * 2 + np.arange(len(blob)) % 2  # each blob cut in two
    curve = merge_curve(graph, over)
    assert sorted(curve) == list(range(1, 7))
    assert curve[6] == pytest.approx(modularity(graph, over))
    assert max(curve, key=curve.get) == 3
    assert curve[3] == pytest.approx(modularity(graph, blob))
    assert curve[1] == pytest.approx(0.0)


def test_modularity_criterion_is_reproducible_and_samples():
    X, _ = blobs_on_sphere(4, 100, 16, 0.5, 5)
    first = choose_n_clusters_by_modularity(X, range(2, 8), sample_size=200, random_state=7)
    again = choose_n_clusters_by_modularity(X, range(2, 8), sample_size=200, random_state=7)
    assert first.sample_size == 200
    assert (first.k, first.modularity) == (again.k, again.modularity)


@pytest.mark.parametrize("params, message", [
    ({"k_range": [1, 3]}, "k_range"),
    ({"k_range": [2, 500]}, "k_range"),
    ({"n_repeats": 1}, "n_repeats"),
    ({"tolerance": 1.5}, "tolerance"),
])
def test_modularity_criterion_rejects_bad_parameters(params, message):
    X, _ = blobs_on_sphere(2, 50, 8, 0.3, 6)
    with pytest.raises(ValueError, match=message):
        choose_n_clusters_by_modularity(X, **{"k_range": range(2, 5), **params})


def _join(first, second, weight):
    unit = [v / np.linalg.norm(v, axis=1, keepdims=True) for v in (first, second)]
    return np.hstack([np.sqrt(1 - weight) * unit[0], np.sqrt(weight) * unit[1]])


@pytest.mark.parametrize("informative", ["encoded", "lexical"])
def test_weight_and_k_follow_the_view_with_the_clusters(informative):
    clustered, blob = blobs_on_sphere(4, 50, 16, 0.3, 7)
    noise = np.random.default_rng(8).normal(size=clustered.shape)
    encoded, lexical = ((clustered, noise) if informative == "encoded" else (noise, clustered))
    result = choose_view_weight_and_k(encoded, lexical, _join, k_range=range(2, 8),
                                      random_state=0)
    assert result.k == 4
    assert result.weight <= 0.3 if informative == "encoded" else result.weight >= 0.7
    assert set(result.weight_scores) == {i / 10 for i in range(11)}


def test_weight_and_k_reject_views_of_different_documents():
    with pytest.raises(ValueError, match="encoded has 10 rows but lexical 9"):
        choose_view_weight_and_k(np.ones((10, 2)), np.ones((9, 2)), _join)


def test_weight_and_k_reject_an_unknown_criterion():
    with pytest.raises(ValueError, match="weight_criterion='best'"):
        choose_view_weight_and_k(np.ones((10, 2)), np.ones((10, 2)), _join,
                                 weight_criterion="best")

"""Tests of the number of clusters without labels: choose_n_clusters and n_clusters="auto"."""

import itertools
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score, silhouette_score
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_shufdiv.cluster import SphericalKMeans, choose_n_clusters, spherical_kmeans
from sklearn_shufdiv.cluster import _k_criteria as criteria
from sklearn_shufdiv.cluster._lloyd import LloydResult
from sklearn_shufdiv.cluster._n_clusters import K_SELECTIONS, count_distinct_rows

CRITERIA = list(K_SELECTIONS)


def sphere_blobs(n_clusters, n_samples=240, n_features=12, spread=0.05, seed=0):
    """Rows around ``n_clusters`` orthogonal directions (well separated), random lengths."""
    rng = np.random.default_rng(seed)
    directions = np.linalg.qr(rng.standard_normal((n_features, n_clusters)))[0].T
    labels = np.arange(n_samples) % n_clusters
    X = directions[labels] + spread * rng.standard_normal((n_samples, n_features))
    return X * rng.uniform(0.5, 2.0, size=(n_samples, 1)), labels


def unit(X):
    return X / np.linalg.norm(X, axis=1, keepdims=True)


@pytest.mark.parametrize("n_clusters", [3, 5, 8])
@pytest.mark.parametrize("k_selection", CRITERIA)
def test_each_criterion_finds_well_separated_blobs(n_clusters, k_selection):
    X, truth = sphere_blobs(n_clusters)
    k, scores = choose_n_clusters(X, k_range=(2, 10), k_selection=k_selection, random_state=0)
    assert k == n_clusters == scores.n_clusters
    assert scores.criterion == k_selection
    np.testing.assert_array_equal(scores.k, np.arange(2, 11))
    assert scores.score.shape == (9,) and np.isfinite(scores.score).all()
    model = SphericalKMeans("auto", k_range=(2, 10), k_selection=k_selection,
                            random_state=0).fit(X)
    assert model.n_clusters_ == n_clusters
    assert adjusted_rand_score(truth, model.labels_) == 1


def self_tuning_eigenvalues(X, n):
    """Textbook: Zelnik-Manor and Perona's affinity, normalised Laplacian, all eigenvalues."""
    U = unit(X)
    distance = np.sqrt(np.maximum(((U[:, None] - U[None]) ** 2).sum(-1), 0))
    scale = np.sort(distance, axis=1)[:, 7]  # column 0 is the point itself
    affinity = np.exp(-distance**2 / np.outer(scale, scale))
    degree = affinity.sum(axis=1)
    laplacian = np.eye(len(X)) - affinity / np.sqrt(np.outer(degree, degree))
    return np.linalg.eigvalsh(laplacian)[:n]


@pytest.mark.parametrize("n_clusters", [3, 5, 8])
def test_eigengap_is_that_of_the_self_tuning_laplacian(n_clusters):
    X, _ = sphere_blobs(n_clusters, n_samples=120)
    k, scores = choose_n_clusters(X, k_range=(2, 10), k_selection="eigengap", random_state=0)
    expected = self_tuning_eigenvalues(X, 11)
    np.testing.assert_allclose(scores.eigenvalues, expected, atol=1e-8)
    np.testing.assert_allclose(scores.score, np.diff(expected)[1:], atol=1e-8)
    assert k == np.argmax(np.diff(expected)[1:]) + 2 == n_clusters


def test_integer_weights_are_repeated_rows():
    X, _ = sphere_blobs(4, n_samples=60, spread=0.2)
    weights = np.random.default_rng(0).integers(1, 4, size=len(X))
    repeated = np.repeat(X, weights, axis=0)
    for k_selection in ("eigengap", "silhouette", "stability"):
        k_w, by_weight = choose_n_clusters(X, sample_weight=weights, k_range=(2, 6),
                                           k_selection=k_selection, random_state=0)
        k_r, by_rows = choose_n_clusters(repeated, k_range=(2, 6), k_selection=k_selection,
                                         random_state=0)
        assert k_w == k_r
        np.testing.assert_allclose(by_weight.score, by_rows.score, atol=1e-8)


def fixed_paths(paths):
    """A stand-in for ``cluster_path`` that returns the given label vectors in turn."""
    calls = iter(paths)

    def cluster_path(X, inv_norm, weights, ks, random_state, warm=True, verbose=0):
        results = []
        for labels in next(calls):
            sums = np.zeros((labels.max() + 1, X.shape[1]))
            np.add.at(sums, labels, unit(np.asarray(X)) * weights[:, None])
            centers = unit(sums)
            similarity = (unit(np.asarray(X)) * centers[labels]).sum(axis=1)
            results.append(LloydResult(centers, labels, float(weights @ (1 - similarity)), 1,
                                       sums, similarity))
        return results
    return cluster_path


def test_silhouette_is_the_cosine_silhouette_of_each_clustering(monkeypatch):
    X, truth = sphere_blobs(3, n_samples=90, spread=0.3)
    rng = np.random.default_rng(0)
    paths = [truth, (truth + (rng.random(90) < 0.2)) % 4, rng.integers(0, 5, size=90)]
    ks = np.array([3, 4, 5])
    sample = criteria.Sample(*_validated(X), 2000, np.random.RandomState(0))
    order = sample.rows  # the sample keeps the rows in its own order
    monkeypatch.setattr(criteria, "cluster_path", fixed_paths([[p[order] for p in paths]]))
    arrays, k = criteria.silhouette(sample, ks, np.random.RandomState(0))
    expected = [silhouette_score(X[order], p[order], metric="cosine") for p in paths]
    np.testing.assert_allclose(arrays["score"], expected, atol=1e-10)
    assert k == 3


def _validated(X, weights=None):
    from sklearn_shufdiv.cluster._numerics import scaled_rows

    X, inv_norm = scaled_rows(np.asarray(X, dtype=np.float64))
    return X, inv_norm, np.ones(len(X)) if weights is None else weights


def test_disagreement_is_the_best_matching_by_brute_force():
    rng = np.random.default_rng(0)
    for k in (2, 3, 4):
        a, b, w = rng.integers(k, size=50), rng.integers(k, size=50), rng.uniform(size=50)
        best = max(w[np.array(perm)[a] == b].sum() for perm in itertools.permutations(range(k)))
        assert criteria._disagreement(a, b, w, k) == pytest.approx(1 - best / w.sum())
    # Random labellings into k classes disagree on about 1 - 1/k of the rows (a bit less:
    # the best matching profits from chance).
    for k in (2, 5):
        random = criteria._random_disagreement(5000, k, np.random.RandomState(0))
        assert 1 - 1 / k - 0.05 < random < 1 - 1 / k


def test_stability_is_one_where_halves_agree_and_normalised_by_random_labels():
    X, _ = sphere_blobs(4, n_samples=200)
    _, scores = choose_n_clusters(X, k_range=(2, 6), k_selection="stability", random_state=0)
    assert scores.score[2] == 1.0 and scores.score_std[2] == 0.0  # k = 4
    assert (scores.score[[0, 1, 3, 4]] < 1).all()


def test_gap_rule_and_values(monkeypatch):
    X, _ = sphere_blobs(5, n_samples=150)
    k, scores = choose_n_clusters(X, k_range=(2, 9), k_selection="gap", random_state=0)
    holds = scores.score[:-1] >= scores.score[1:] - scores.score_std[1:]
    assert k == scores.k[np.argmax(holds)] == 5
    model = SphericalKMeans(5, random_state=0).fit(X)
    assert scores.log_inertia[3] == pytest.approx(np.log(model.inertia_), rel=1e-6)
    # The reference sets fill the box of the principal components: their objective at
    # k = 5 is far above that of five tight blobs.
    assert scores.score[3] > 1


def test_fitted_attributes_and_function():
    X, _ = sphere_blobs(3)
    model = SphericalKMeans("auto", k_range=(2, 6), random_state=0).fit(X)
    assert model.n_clusters_ == 3 and model.cluster_centers_.shape == (3, X.shape[1])
    assert np.unique(model.labels_).size == 3 and model.transform(X).shape == (len(X), 3)
    scores = model.n_clusters_scores_
    assert set(scores) >= {"k", "score", "criterion", "n_clusters", "runner_up"}
    assert scores.k.tolist() == [2, 3, 4, 5, 6] and scores.n_clusters == 3
    second = scores.k[np.argsort(scores.score)[-2]]
    assert scores.runner_up == second != 3
    centers, labels, inertia = spherical_kmeans(X, "auto", k_range=(2, 6), random_state=0)
    np.testing.assert_array_equal(labels, model.labels_)
    assert inertia == model.inertia_
    fixed = SphericalKMeans(3, random_state=0).fit(X)
    assert fixed.n_clusters_ == 3 and fixed.n_clusters_scores_ is None


def test_int_n_clusters_ignores_the_search_parameters():
    X, _ = sphere_blobs(3, spread=0.4)
    plain = SphericalKMeans(4, random_state=0).fit(X)
    other = SphericalKMeans(4, k_range=(5, 9), k_selection="gap", random_state=0).fit(X)
    np.testing.assert_array_equal(plain.labels_, other.labels_)
    np.testing.assert_array_equal(plain.cluster_centers_, other.cluster_centers_)


@pytest.mark.parametrize("k_selection", CRITERIA)
def test_same_random_state_same_choice_and_labels(k_selection):
    X, _ = sphere_blobs(4, n_samples=300, spread=0.35)
    first, second = (SphericalKMeans("auto", k_range=(2, 8), k_selection=k_selection,
                                     random_state=np.random.RandomState(7)).fit(X)
                     for _ in range(2))
    assert first.n_clusters_ == second.n_clusters_
    np.testing.assert_array_equal(first.labels_, second.labels_)
    np.testing.assert_array_equal(first.n_clusters_scores_.score,
                                  second.n_clusters_scores_.score)


def test_large_input_is_sampled_and_sparse_input_agrees():
    X, _ = sphere_blobs(5, n_samples=3000)
    k, scores = choose_n_clusters(X, k_range=(2, 8), sample_size=500, random_state=0)
    assert k == 5
    k_sparse, sparse = choose_n_clusters(sp.csr_matrix(X), k_range=(2, 8), sample_size=500,
                                         random_state=0)
    assert k_sparse == 5
    np.testing.assert_allclose(sparse.score, scores.score, atol=1e-8)
    assert choose_n_clusters(sp.csr_matrix(X), k_range=(2, 8), k_selection="gap",
                             sample_size=300, random_state=0)[0] == 5


def test_clone_and_get_params():
    model = SphericalKMeans("auto", k_range=(3, 7), k_selection="eigengap", random_state=2)
    copy = clone(model)
    assert copy.get_params() == model.get_params()
    assert copy.get_params()["k_range"] == (3, 7)
    assert copy.set_params(k_selection="gap").k_selection == "gap"


@pytest.mark.parametrize("k_range, match", [
    ((), r"k_range must be a pair"),
    ((3,), r"k_range must be a pair"),
    ((2.0, 4), r"k_range must be a pair"),
    ((5, 3), r"k_range=\(5, 3\) must satisfy 2 <= min <= max"),
    ((1, 4), r"k_range=\(1, 4\) must satisfy 2 <= min <= max"),
    ((2, 7), r"k_range=\(2, 7\) goes beyond the 6 distinct samples"),
])
def test_bad_k_range_raises(k_range, match):
    X = np.vstack([np.eye(6), np.eye(6)[:2]])  # 8 rows, 6 distinct
    with pytest.raises(ValueError, match=match):
        SphericalKMeans("auto", k_range=k_range).fit(X)
    with pytest.raises(ValueError, match=match):
        choose_n_clusters(X, k_range=k_range)


def test_default_k_range_is_capped_by_distinct_rows():
    X = np.repeat(np.eye(5), 10, axis=0) + 0.01 * np.random.default_rng(0).random((50, 5))
    assert choose_n_clusters(X[:4], random_state=0)[1].k.tolist() == [2, 3, 4]
    copies = np.repeat(np.eye(3), 20, axis=0)  # 60 rows, 3 distinct
    assert choose_n_clusters(copies, random_state=0)[1].k.tolist() == [2, 3]
    with pytest.raises(ValueError, match="at least 2 distinct"):
        SphericalKMeans("auto").fit(np.ones((5, 3)))


def test_count_distinct_rows_dense_and_sparse():
    X = np.array([[1.0, 0], [1.0, 0], [2.0, 0], [0, 0], [0, -0.0], [0, 3.0]])
    mass = np.array([1, 1, 1, 1, 1, 0.0])
    assert count_distinct_rows(X, mass) == 3  # [1, 0], [2, 0], [0, 0]
    assert count_distinct_rows(sp.csr_matrix(X), mass) == 3


def test_fewer_directions_than_the_smallest_candidate_warn():
    X = np.array([[1.0, 0], [2.0, 0], [3.0, 0], [0, 1.0], [0, 2.0]])  # 5 rows, 2 directions
    with pytest.warns(ConvergenceWarning, match="only 2 distinct directions") as record:
        model = SphericalKMeans("auto", k_range=(3, 4), random_state=0).fit(X)
    assert record[0].filename == __file__
    assert model.n_clusters_ in (3, 4) and np.unique(model.labels_).size == 2


def test_partial_fit_chooses_on_the_first_batch():
    X, _ = sphere_blobs(3, n_samples=300)
    model = SphericalKMeans("auto", k_range=(2, 6), random_state=0)
    first = model.partial_fit(X[:150]).n_clusters_scores_
    expected = choose_n_clusters(X[:150], k_range=(2, 6), random_state=0)
    assert model.n_clusters_ == expected[0] == 3
    np.testing.assert_array_equal(first.score, expected[1].score)
    model.partial_fit(X[150:])  # later batches keep the choice
    assert model.n_clusters_ == 3 and model.n_clusters_scores_ is first
    assert model.cluster_centers_.shape[0] == 3


def test_auto_with_given_centers_or_bad_parameters_raises():
    X, _ = sphere_blobs(3)
    with pytest.raises(ValueError, match="init as an array"):
        SphericalKMeans("auto", init=X[:3]).fit(X)
    with pytest.raises(ValueError, match="'k_selection' parameter"):
        SphericalKMeans("auto", k_selection="elbow").fit(X)
    with pytest.raises(ValueError, match="'n_clusters' parameter"):
        SphericalKMeans("many").fit(X)


def test_verbose_shows_progress(capsys):
    X, _ = sphere_blobs(3, n_samples=60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        choose_n_clusters(X, k_range=(2, 4), verbose=1, random_state=0)
        assert "splits:" in capsys.readouterr().err
        choose_n_clusters(X, k_range=(2, 4), k_selection="silhouette", random_state=0)
        assert capsys.readouterr().err == ""
        choose_n_clusters(X, k_range=(2, 4), k_selection="silhouette", verbose=1,
                          random_state=0)
        assert "k:" in capsys.readouterr().err


@parametrize_with_checks([SphericalKMeans("auto", n_init=1, k_range=None)])
def test_sklearn_estimator_checks_with_auto(estimator, check):
    check(estimator)

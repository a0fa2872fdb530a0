"""Tests of spherical k-means: the function, the estimator and its edge cases."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score
from sklearn.metrics.pairwise import cosine_distances
from sklearn.utils import shuffle
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_shufdiv.cluster import SphericalKMeans, _lloyd, spherical_kmeans
from sklearn_shufdiv.cluster._seeding import DEFAULT_N_INIT


def directions(n_samples=300, n_features=10, n_clusters=4, spread=0.3, seed=0):
    """Rows around ``n_clusters`` random directions, with random positive lengths."""
    rng = np.random.default_rng(seed)
    centers = rng.standard_normal((n_clusters, n_features))
    centers /= np.linalg.norm(centers, axis=1, keepdims=True)
    labels = rng.integers(n_clusters, size=n_samples)
    X = centers[labels] + spread * rng.standard_normal((n_samples, n_features))
    return X * rng.uniform(0.5, 3.0, size=(n_samples, 1)), labels


def mean_cosine(X, centers, labels):
    unit = X / np.linalg.norm(X, axis=1, keepdims=True)
    centers = centers / np.linalg.norm(centers, axis=1, keepdims=True)
    return np.mean(np.sum(unit * centers[labels], axis=1))


# One run per fit, as scikit-learn's own checks set a small n_init: the checks are about
# the API, and the default's 10 runs would triple this module's time.
@parametrize_with_checks([SphericalKMeans(n_init=1)])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dtype_is_preserved(dtype):
    X, _ = directions()
    model = SphericalKMeans(4, random_state=0).fit(X.astype(dtype))
    assert model.cluster_centers_.dtype == dtype
    assert model.transform(X.astype(dtype)).dtype == dtype
    np.testing.assert_allclose(np.linalg.norm(model.cluster_centers_, axis=1), 1, rtol=1e-5)


@pytest.mark.parametrize("threads", [1, 3])
def test_sparse_and_dense_agree(threads, monkeypatch):
    monkeypatch.setattr(_lloyd, "_n_threads", lambda: threads)
    monkeypatch.setattr(_lloyd, "_PARALLEL_NNZ", 0)  # split sparse products over threads
    X, _ = directions()
    X[X < 0.2] = 0  # make it genuinely sparse
    dense = SphericalKMeans(4, random_state=0).fit(X)
    sparse = SphericalKMeans(4, random_state=0).fit(sp.csr_matrix(X))
    np.testing.assert_array_equal(dense.labels_, sparse.labels_)
    np.testing.assert_allclose(dense.cluster_centers_, sparse.cluster_centers_, atol=1e-12)
    assert dense.inertia_ == pytest.approx(sparse.inertia_)
    np.testing.assert_allclose(dense.transform(X), sparse.transform(sp.csr_array(X)))


@pytest.mark.parametrize("seed", range(3))
def test_integer_weights_equal_repeated_rows(seed):
    X, _ = directions(n_samples=60, seed=seed)
    weights = np.random.default_rng(seed).integers(0, 4, size=X.shape[0])
    repeated = SphericalKMeans(5, random_state=seed).fit(np.repeat(X, weights, axis=0))
    X_w, weights_w = shuffle(X, weights, random_state=seed)
    weighted = SphericalKMeans(5, random_state=seed).fit(X_w, sample_weight=weights_w)
    np.testing.assert_allclose(weighted.cluster_centers_, repeated.cluster_centers_)
    assert weighted.inertia_ == pytest.approx(repeated.inertia_)


def test_scaling_rows_or_weights_changes_nothing():
    X, _ = directions()
    weights = np.random.default_rng(0).uniform(0.1, 2, size=X.shape[0])
    reference = SphericalKMeans(4, random_state=0).fit(X, sample_weight=weights)
    rescaled = SphericalKMeans(4, random_state=0).fit(X * 7.0, sample_weight=weights * 4)
    np.testing.assert_array_equal(reference.labels_, rescaled.labels_)
    np.testing.assert_allclose(reference.cluster_centers_, rescaled.cluster_centers_)
    assert rescaled.inertia_ == pytest.approx(4 * reference.inertia_)


def test_zero_rows_go_to_cluster_zero_and_move_nothing():
    X, _ = directions()
    with_zeros = np.vstack([np.zeros((3, X.shape[1])), X, np.zeros((2, X.shape[1]))])
    init = SphericalKMeans(4, random_state=0).fit(X).cluster_centers_
    plain = SphericalKMeans(4, init=init).fit(X)
    model = SphericalKMeans(4, init=init).fit(with_zeros)
    np.testing.assert_allclose(model.cluster_centers_, plain.cluster_centers_)
    np.testing.assert_array_equal(model.labels_[[0, 1, 2, -2, -1]], 0)
    np.testing.assert_array_equal(model.labels_[3:-2], plain.labels_)
    assert model.inertia_ == pytest.approx(plain.inertia_ + 5)
    np.testing.assert_array_equal(model.transform(np.zeros((1, X.shape[1]))), 1)
    assert model.predict(sp.csr_matrix((1, X.shape[1]))) == [0]


def test_only_zero_rows_raise():
    with pytest.raises(ValueError, match="zero vectors"):
        SphericalKMeans(2).fit(np.zeros((5, 3)))
    with pytest.raises(ValueError, match="zero vectors"):  # non-zero rows have zero weight
        SphericalKMeans(2).fit([[0, 0], [1, 0], [0, 0]], sample_weight=[1, 0, 1])


def test_too_many_clusters_raise():
    with pytest.raises(ValueError, match="n_samples=3 should be >= n_clusters=5"):
        SphericalKMeans(5).fit(np.eye(3))
    with pytest.raises(ValueError, match="n_samples=3 should be >= n_clusters=5"):
        SphericalKMeans(5).partial_fit(np.eye(3))


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_values_raise(bad):
    X, _ = directions(n_samples=20)
    X[3, 2] = bad
    with pytest.raises(ValueError, match="NaN|infinity"):
        SphericalKMeans(2).fit(X)
    with pytest.raises(ValueError, match="NaN|infinity"):
        spherical_kmeans(sp.csr_matrix(X), 2)


def test_bad_sample_weights_raise():
    X, _ = directions(n_samples=20)
    with pytest.raises(ValueError, match="non-negative"):
        SphericalKMeans(2).fit(X, sample_weight=-np.ones(20))
    with pytest.raises(ValueError, match="non-zero"):
        SphericalKMeans(2).fit(X, sample_weight=0)
    with pytest.raises(ValueError, match="shape"):
        SphericalKMeans(2).fit(X, sample_weight=np.ones(19))


@pytest.mark.parametrize(
    "params, match",
    [({"n_clusters": 0}, "'n_clusters' parameter of SphericalKMeans must be an int"),
     ({"init": "kmeans"}, "'init' parameter"), ({"tol": -1.0}, "'tol' parameter"),
     ({"n_init": 0}, "'n_init' parameter"), ({"max_iter": 2.5}, "'max_iter' parameter")],
)
def test_invalid_parameters_raise(params, match):
    with pytest.raises(ValueError, match=match):
        SphericalKMeans(**params).fit(np.eye(3))


def test_array_init_is_used_and_checked():
    X, truth = directions()
    init = np.vstack([X[truth == j][0] for j in range(4)])
    model = SphericalKMeans(4, init=init, max_iter=1).fit(X)
    unit = X / np.linalg.norm(X, axis=1, keepdims=True)
    first = (unit @ init.T / np.linalg.norm(init, axis=1)).argmax(axis=1)
    means = np.vstack([unit[first == j].sum(axis=0) for j in range(4)])
    np.testing.assert_allclose(
        model.cluster_centers_, means / np.linalg.norm(means, axis=1, keepdims=True))
    with pytest.raises(ValueError, match="shape of the initial centers"):
        SphericalKMeans(3, init=init).fit(X)
    with pytest.raises(ValueError, match="all-zero rows"):
        SphericalKMeans(4, init=np.zeros_like(init)).fit(X)
    with pytest.warns(RuntimeWarning, match="only one init"):
        SphericalKMeans(4, init=init, n_init=3).fit(X)


def test_empty_cluster_is_reseeded():
    X = np.abs(directions()[0])  # all rows in the positive orthant
    init = np.vstack([X[:3], -np.ones((1, X.shape[1]))])  # the last center attracts nothing
    model = SphericalKMeans(4, init=init).fit(X)
    assert np.unique(model.labels_).size == 4


@pytest.mark.parametrize("init", ["k-means++", "random"])
@pytest.mark.parametrize(
    "X, k, n_directions",
    [(np.array([[1.0, 0.0]] * 5 + [[0.0, 1.0]] * 5), 5, 2),  # sizes were [0, 0, 0, 5, 5]
     (np.ones((3, 4)), 3, 1),  # every label was 0, without a word
     (np.array([[1.0, 0.0], [2.0, 0.0], [0.0, 3.0], [0.0, 0.0]]), 3, 2)],  # multiples, zeros
)
def test_fewer_distinct_directions_than_clusters_warn(X, k, n_directions, init):
    match = f"only {n_directions} distinct directions"
    with pytest.warns(ConvergenceWarning, match=match) as record:
        model = SphericalKMeans(k, init=init, random_state=0).fit(X)
    assert record[0].filename == __file__  # the warning points at the call of fit
    assert np.unique(model.labels_).size == n_directions
    np.testing.assert_allclose(np.linalg.norm(model.cluster_centers_, axis=1), 1)
    assert model.inertia_ == pytest.approx(np.count_nonzero(~X.any(axis=1)), abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_duplicates_are_no_reason_for_empty_clusters(seed):
    # Many copies of a few rows, and exactly n_clusters directions: random seeding draws
    # copies of one row as two centers, and the re-seeding must still fill every cluster.
    rows = np.array([[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0], [1.0, 1.0, 1.0]])
    X = np.repeat(rows, [20, 20, 1, 1], axis=0)
    duplicated = np.vstack([rows[0], rows[0], rows[1], rows[1]])
    for model in (SphericalKMeans(4, init="random", random_state=seed),
                  SphericalKMeans(4, init=duplicated)):
        with warnings.catch_warnings():
            warnings.simplefilter("error", ConvergenceWarning)
            model.fit(X)
        assert np.unique(model.labels_).size == 4
        assert model.inertia_ == pytest.approx(0, abs=1e-12)


@pytest.mark.parametrize("dtype, huge, tiny", [(np.float64, 1e308, 1e-200),
                                               (np.float32, 1e38, 1e-30)])
def test_rows_of_extreme_norm_keep_their_direction(dtype, huge, tiny):
    # A row of 1e308 gave inertia_ = nan; a row of 1e-200 was taken for an all-zero row.
    X, _ = directions(n_samples=60)
    X = np.abs(X).astype(dtype)
    init = X[:4]
    reference = SphericalKMeans(4, init=init).fit(X)
    extreme = X.copy()
    extreme[5] = huge  # every entry: the norm overflows
    extreme[6] = X[6] * (tiny / X[6].max())  # the squares underflow
    given = extreme.copy()
    model = SphericalKMeans(4, init=init).fit(extreme)
    np.testing.assert_array_equal(extreme, given)  # X is not rescaled in place
    expected = SphericalKMeans(4, init=init).fit(np.vstack([X[:5], np.ones((1, 10), dtype),
                                                            X[6:]]))
    assert np.isfinite(model.inertia_)
    assert model.inertia_ == pytest.approx(expected.inertia_, rel=1e-5)
    np.testing.assert_array_equal(model.labels_, expected.labels_)
    np.testing.assert_allclose(model.transform(extreme[[5, 6]]),
                               expected.transform(np.vstack([np.ones(10), X[6]])), atol=1e-5)
    assert model.labels_[6] == reference.labels_[6]
    for data in (sp.csr_matrix(extreme), extreme):
        assert model.predict(data)[6] == reference.labels_[6]
        assert np.isfinite(SphericalKMeans(4, random_state=0).fit(data).inertia_)


def test_reproducible_with_random_state():
    X, _ = directions()
    first = SphericalKMeans(4, init="random", random_state=3).fit(X)
    second = SphericalKMeans(4, init="random", random_state=3).fit(X)
    np.testing.assert_array_equal(first.cluster_centers_, second.cluster_centers_)
    np.testing.assert_array_equal(first.labels_, second.labels_)


def test_transform_predict_score_are_consistent():
    X, _ = directions()
    model = SphericalKMeans(4, random_state=0).fit(X)
    distances = model.transform(X)
    np.testing.assert_allclose(distances, cosine_distances(X, model.cluster_centers_),
                               atol=1e-12)
    np.testing.assert_array_equal(model.predict(X), distances.argmin(axis=1))
    np.testing.assert_array_equal(model.predict(X), model.labels_)
    assert model.score(X) == pytest.approx(-model.inertia_)
    assert model.inertia_ == pytest.approx(distances.min(axis=1).sum())
    np.testing.assert_array_equal(model.fit_predict(X), model.labels_)
    np.testing.assert_allclose(model.fit_transform(X), distances)


def test_default_is_the_best_of_default_n_init_runs(capsys):
    X, _ = directions(n_samples=200, n_clusters=6, spread=0.6)
    gained = False
    for seed in range(2):
        default = SphericalKMeans(6, random_state=seed, verbose=1).fit(X)
        assert capsys.readouterr().out.count("Initialization complete") == DEFAULT_N_INIT
        explicit = SphericalKMeans(6, n_init=DEFAULT_N_INIT, random_state=seed).fit(X)
        assert default.inertia_ == explicit.inertia_
        assert spherical_kmeans(X, 6, random_state=seed)[2] == explicit.inertia_
        one = SphericalKMeans(6, n_init=1, random_state=seed).fit(X)
        assert default.inertia_ <= one.inertia_
        gained |= default.inertia_ < one.inertia_ - 1e-9
    assert DEFAULT_N_INIT > 1 and gained  # on this data one run misses the best optimum


def test_given_centers_run_once_without_a_warning():
    X, _ = directions()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = SphericalKMeans(4, init=X[:4], verbose=0).fit(X)
    reference = SphericalKMeans(4, init=X[:4], n_init=1).fit(X)
    np.testing.assert_array_equal(model.labels_, reference.labels_)


def test_function_matches_estimator():
    X, _ = directions()
    centers, labels, inertia, n_iter = spherical_kmeans(X, 4, random_state=0,
                                                        return_n_iter=True)
    model = SphericalKMeans(4, random_state=0).fit(X)
    np.testing.assert_array_equal(centers, model.cluster_centers_)
    np.testing.assert_array_equal(labels, model.labels_)
    assert (inertia, n_iter) == (model.inertia_, model.n_iter_)


def reference_spherical_kmeans(X, centers, max_iter=300, tol=1e-4):
    """Textbook spherical Lloyd iterations: full products, means recomputed each time."""
    unit = X / np.linalg.norm(X, axis=1, keepdims=True)
    previous = None
    for _ in range(max_iter):
        labels = (unit @ centers.T).argmax(axis=1)
        if previous is not None and np.array_equal(labels, previous):
            break
        sums = np.vstack([unit[labels == j].sum(axis=0) for j in range(len(centers))])
        new = sums / np.linalg.norm(sums, axis=1, keepdims=True)
        shift, centers, previous = ((new - centers) ** 2).sum(), new, labels
        if shift <= tol:
            break
    return centers, (unit @ centers.T).argmax(axis=1)


@pytest.mark.parametrize("sparse", [False, True])
def test_same_result_as_textbook_iterations(sparse):
    X, _ = make_blobs(3000, 8, centers=6, cluster_std=2.5, random_state=0)
    init = X[:6] / np.linalg.norm(X[:6], axis=1, keepdims=True)
    model = SphericalKMeans(6, init=init, tol=1e-8).fit(sp.csr_matrix(X) if sparse else X)
    centers, labels = reference_spherical_kmeans(X, init, tol=1e-8)
    assert model.n_iter_ > 5  # enough iterations for the bounds to skip rows
    np.testing.assert_array_equal(model.labels_, labels)
    np.testing.assert_allclose(model.cluster_centers_, centers, atol=1e-10)


def textbook_with_objective_test(X, centers, tol, max_iter=300):
    """Textbook iterations that also stop when the objective falls by at most tol of itself.

    Returns the labels, the number of iterations and the rule that stopped them."""
    unit = X / np.linalg.norm(X, axis=1, keepdims=True)
    previous_labels, previous_objective, rule = None, np.inf, "max_iter"
    for n_iter in range(1, max_iter + 1):  # noqa: B007 (returned)
        labels = (unit @ centers.T).argmax(axis=1)
        if previous_labels is not None and np.array_equal(labels, previous_labels):
            rule = "labels"
            break
        sums = np.vstack([unit[labels == j].sum(axis=0) for j in range(len(centers))])
        new = sums / np.linalg.norm(sums, axis=1, keepdims=True)
        shift, centers, previous_labels = ((new - centers) ** 2).sum(), new, labels
        objective = len(X) - np.linalg.norm(sums, axis=1).sum()  # sum of 1 - cos
        if shift <= tol:
            rule = "shift"
            break
        if previous_objective - objective <= tol * objective:
            rule = "objective"
            break
        previous_objective = objective
    return (unit @ centers.T).argmax(axis=1), n_iter, rule


def test_runs_stop_when_the_objective_falls_by_at_most_tol():
    X, _ = make_blobs(3000, 8, centers=6, cluster_std=4.0, random_state=0)
    init = X[:6] / np.linalg.norm(X[:6], axis=1, keepdims=True)
    labels, n_iter, rule = textbook_with_objective_test(X, init, tol=1e-4)
    assert rule == "objective"
    model = SphericalKMeans(6, init=init, tol=1e-4).fit(X)
    assert model.n_iter_ == n_iter < SphericalKMeans(6, init=init, tol=0).fit(X).n_iter_
    np.testing.assert_array_equal(model.labels_, labels)
    unit = X / np.linalg.norm(X, axis=1, keepdims=True)
    assert model.inertia_ == pytest.approx(
        (1 - (unit * model.cluster_centers_[labels]).sum(axis=1)).sum())


def test_blocked_products_give_the_same_result(monkeypatch):
    X, _ = directions(n_samples=2000)
    whole = SphericalKMeans(4, random_state=0).fit(X)
    monkeypatch.setattr(_lloyd, "_BLOCK_ENTRIES", 1024)  # blocks of 256 rows
    assert len(_lloyd.row_blocks(X.shape[0], 4)) == 8
    for data in (X, sp.csr_matrix(X)):
        blocked = SphericalKMeans(4, random_state=0).fit(data)
        np.testing.assert_array_equal(blocked.labels_, whole.labels_)
        np.testing.assert_allclose(blocked.cluster_centers_, whole.cluster_centers_, atol=1e-12)


def test_objective_not_worse_than_kmeans_on_unit_rows():
    X, _ = make_blobs(3000, 16, centers=12, cluster_std=3.0, random_state=0)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    ours = SphericalKMeans(12, n_init=10, random_state=0).fit(X)
    theirs = KMeans(12, n_init=10, random_state=0).fit(X)
    assert mean_cosine(X, ours.cluster_centers_, ours.labels_) >= mean_cosine(
        X, theirs.cluster_centers_, theirs.labels_) - 1e-4


def test_partial_fit_matches_full_batch_on_separated_data():
    X, truth = directions(n_samples=2000, n_clusters=5, spread=0.1, seed=1)
    full = SphericalKMeans(5, random_state=0).fit(X)
    assert adjusted_rand_score(truth, full.labels_) == 1
    online = SphericalKMeans(5, random_state=0)
    for _ in range(3):
        for batch in np.array_split(shuffle(X, random_state=0), 10):
            online.partial_fit(sp.csr_matrix(batch))
    assert online.n_steps_ == 30
    assert adjusted_rand_score(full.labels_, online.predict(X)) == 1
    np.testing.assert_allclose(np.linalg.norm(online.cluster_centers_, axis=1), 1)
    with pytest.raises(ValueError, match="features"):
        online.partial_fit(X[:, :-1])


def test_partial_fit_continues_a_fit():
    X, _ = directions(n_samples=500, spread=0.1)
    model = SphericalKMeans(4, random_state=0).fit(X)
    before = model.cluster_centers_.copy()
    model.partial_fit(X)  # the same data again: the mean directions do not move
    np.testing.assert_allclose(model.cluster_centers_, before, atol=1e-12)


def test_verbose_prints_iterations(capsys):
    X, _ = directions()
    SphericalKMeans(4, random_state=0, verbose=1).fit(X)
    out = capsys.readouterr().out
    assert "Initialization complete" in out and "Iteration 0, inertia" in out
    assert "Converged at iteration" in out


def test_pandas_feature_names_and_set_output():
    pd = pytest.importorskip("pandas")
    X, _ = directions()
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    model = SphericalKMeans(3, random_state=0).set_output(transform="pandas").fit(frame)
    np.testing.assert_array_equal(model.feature_names_in_, frame.columns)
    out = model.transform(frame)
    assert list(out.columns) == ["sphericalkmeans0", "sphericalkmeans1", "sphericalkmeans2"]
    assert list(model.get_feature_names_out()) == list(out.columns)

"""The studied criteria of the number of clusters (benchmarks/lab/k_criteria.py): each is
its textbook formula and plugs into ``choose_n_clusters`` through the public protocol."""

import itertools
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import sphere_blobs, unit
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score, silhouette_score

from sklearn_shufdiv.cluster import SphericalKMeans, _k_sample, choose_n_clusters
from sklearn_shufdiv.cluster._k_sample import Sample
from sklearn_shufdiv.cluster._lloyd import LloydResult
from sklearn_shufdiv.cluster._stability import _table

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from lab import k_criteria as lab  # noqa: E402

C = lab.CRITERIA
CRITERIA = [name for name in C if name != "stability"]


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
    k, scores = choose_n_clusters(X, k_range=(2, 10), k_selection=C["eigengap"], random_state=0)
    expected = self_tuning_eigenvalues(X, 11)
    np.testing.assert_allclose(scores.eigenvalues, expected, atol=1e-8)
    np.testing.assert_allclose(scores.score, np.diff(expected)[1:], atol=1e-8)
    assert k == np.argmax(np.diff(expected)[1:]) + 2 == n_clusters


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


@pytest.mark.parametrize("n_clusters", [3, 5, 8])
def test_silhouette_is_the_cosine_silhouette_of_each_clustering(monkeypatch, n_clusters):
    U, paths, sample = _three_paths(monkeypatch, n_clusters=n_clusters)
    ks = np.arange(n_clusters, n_clusters + 3)
    arrays, k = lab.silhouette(sample, ks, np.random.RandomState(0))
    expected = [silhouette_score(U, p, metric="cosine") for p in paths]
    np.testing.assert_allclose(arrays["score"], expected, atol=1e-10)
    assert k == n_clusters


def _validated(X, weights=None):
    from sklearn_shufdiv.cluster._numerics import scaled_rows

    X, inv_norm = scaled_rows(np.asarray(X, dtype=np.float64))
    return X, inv_norm, np.ones(len(X)) if weights is None else weights


def test_gap_rule_and_values(monkeypatch):
    X, _ = sphere_blobs(5, n_samples=150)
    k, scores = choose_n_clusters(X, k_range=(2, 9), k_selection=C["gap"], random_state=0)
    holds = scores.score[:-1] >= scores.score[1:] - scores.score_std[1:]
    assert k == scores.k[np.argmax(holds)] == 5
    model = SphericalKMeans(5, random_state=0).fit(X)
    assert scores.log_inertia[3] == pytest.approx(np.log(model.inertia_), rel=1e-6)
    # The reference sets fill the box of the principal components: their objective at
    # k = 5 is far above that of five tight blobs.
    assert scores.score[3] > 1


def _three_paths(monkeypatch, n_paths=1, n_clusters=3):
    """Blobs, a sample of them, and three fixed clusterings as its path: the blobs
    (``k = n_clusters``), a perturbed one with one more cluster, and a random one with two
    more."""
    n = 30 * n_clusters
    X, truth = sphere_blobs(n_clusters, n_samples=n, spread=0.3)
    rng = np.random.default_rng(0)
    paths = [truth, (truth + (rng.random(n) < 0.2)) % (n_clusters + 1),
             rng.integers(0, n_clusters + 2, size=n)]
    sample = Sample(*_validated(X), 2000, np.random.RandomState(0))
    paths = [p[sample.rows] for p in paths]
    monkeypatch.setattr(_k_sample, "cluster_path", fixed_paths([paths] * n_paths))
    return unit(X[sample.rows]), paths, sample


@pytest.mark.parametrize("n_clusters", [3, 5, 8])
def test_calinski_harabasz_and_davies_bouldin_are_their_cosine_forms(monkeypatch, n_clusters):
    U, paths, sample = _three_paths(monkeypatch, n_paths=2, n_clusters=n_clusters)
    ks = np.arange(n_clusters, n_clusters + 3)
    mean = U.sum(axis=0)
    total = (1 - U @ (mean / np.linalg.norm(mean))).sum()
    expected_ch, expected_db = [], []
    for labels in paths:
        centers = np.array([unit(U[labels == j].sum(axis=0)[None])[0]
                            for j in range(labels.max() + 1)])
        within = (1 - (U * centers[labels]).sum(axis=1)).sum()
        k = len(centers)
        expected_ch.append(((total - within) / (k - 1)) / (within / (len(U) - k)))
        spread = [np.mean(1 - U[labels == j] @ centers[j]) for j in range(k)]
        expected_db.append(np.mean([
            max((spread[i] + spread[j]) / (1 - centers[i] @ centers[j])
                for j in range(k) if j != i) for i in range(k)]))
    arrays, k = lab.calinski_harabasz(sample, ks, np.random.RandomState(0))
    np.testing.assert_allclose(arrays["score"], expected_ch, rtol=1e-8)
    assert k == ks[np.argmax(expected_ch)] == n_clusters
    arrays, k = lab.davies_bouldin(sample, ks, np.random.RandomState(0))
    np.testing.assert_allclose(arrays["score"], expected_db, rtol=1e-8)
    assert k == ks[np.argmin(expected_db)] == n_clusters


def levina_bickel(U, low=10, high=20):
    """Textbook: Levina and Bickel's estimate, inverses averaged over points (MacKay and
    Ghahramani), then averaged over the number of neighbours."""
    from sklearn.neighbors import NearestNeighbors

    distance = NearestNeighbors(n_neighbors=high + 1).fit(U).kneighbors(U)[0][:, 1:]
    log_t = np.log(distance)
    return np.mean([1 / np.mean(log_t[:, k - 1] - log_t[:, :k - 1].mean(axis=1))
                    for k in range(low, high + 1)])


@pytest.mark.parametrize("n_clusters", [3, 5, 8])
def test_jump_is_sugar_and_james_with_the_intrinsic_dimension(n_clusters):
    X, _ = sphere_blobs(n_clusters, n_samples=200, spread=0.1)
    k, scores = choose_n_clusters(X, k_range=(2, 10), k_selection=C["jump"], random_state=0)
    U = unit(X)
    assert scores.intrinsic_dimension == pytest.approx(levina_bickel(U), rel=1e-6)
    assert scores.power == pytest.approx(scores.intrinsic_dimension / 2)
    one = (1 - U @ unit(U.sum(axis=0)[None])[0]).sum()
    distortion = np.concatenate([[one], scores.inertia]) / (len(X) - np.arange(1, 11))
    jumps = distortion[1:] ** -scores.power - distortion[:-1] ** -scores.power
    np.testing.assert_allclose(scores.score / scores.score.max(), jumps / jumps.max(),
                               rtol=1e-6, atol=1e-12)
    assert k == n_clusters == np.argmax(jumps) + 2
    model = SphericalKMeans(n_clusters, random_state=0).fit(X)
    assert scores.inertia[n_clusters - 2] == pytest.approx(model.inertia_, rel=1e-6)
    # From k = 3 on, the first jump is from the objective at k = 2.
    _, later = choose_n_clusters(X, k_range=(3, 10), k_selection=C["jump"], random_state=0)
    assert later.inertia.size == 8 and later.score.size == 8
    two = SphericalKMeans(2, random_state=0).fit(X).inertia_ / (len(X) - 2)
    lifted = np.concatenate([[two], later.inertia / (len(X) - np.arange(3, 11))]
                            ) ** -later.power
    expected = np.diff(lifted)  # the first uses the best of 10 runs at k = 2: close only
    np.testing.assert_allclose(later.score[1:] / later.score[1:].max(),
                               expected[1:] / expected[1:].max(), rtol=1e-6)
    assert later.score[0] / later.score[1:].max() == pytest.approx(
        expected[0] / expected[1:].max(), rel=0.2)


def test_intrinsic_dimension_follows_the_data_and_skips_a_rows_own_copies():
    rng = np.random.default_rng(0)
    flat = np.hstack([rng.standard_normal((400, 3)), np.zeros((400, 8)), np.full((400, 1), 8.0)])
    doubled = np.vstack([flat, flat])
    dims = [choose_n_clusters(data, k_range=(2, 4), k_selection=C["jump"],
                              random_state=0)[1].intrinsic_dimension
            for data in (flat, doubled)]
    assert 2.5 < dims[0] < 3.5  # a 3-dimensional patch of the sphere
    # Every row twice: a row's own copy is no neighbour (a zero distance would give an
    # infinite log ratio), its neighbours' copies are.
    assert np.isfinite(dims[1]) and dims[1] == pytest.approx(dims[0], rel=0.1)
    wide = np.hstack([rng.standard_normal((400, 8)), np.zeros((400, 3)), np.full((400, 1), 8.0)])
    assert choose_n_clusters(wide, k_range=(2, 4), k_selection=C["jump"], random_state=0
                             )[1].intrinsic_dimension > 6


@pytest.mark.parametrize("n_clusters", [3, 5, 8])
def test_bic_is_that_of_the_von_mises_fisher_mixture(monkeypatch, n_clusters):
    from scipy.stats import vonmises_fisher

    U, paths, sample = _three_paths(monkeypatch, n_clusters=n_clusters)
    n, d = U.shape
    expected_bic, expected_icl = [], []
    for labels in paths:
        k = labels.max() + 1
        means = [unit(U[labels == j].sum(axis=0)[None])[0] for j in range(k)]
        # One concentration: the pooled dispersion over the n - k degrees of freedom.
        r = 1 - sum((1 - U[labels == j] @ means[j]).sum() for j in range(k)) / (n - k)
        kappa = r * (d - r**2) / (1 - r**2)
        joint = np.array([np.mean(labels == j) * vonmises_fisher(means[j], kappa).pdf(U)
                          for j in range(k)]).T
        mixture = joint.sum(axis=1)
        posterior = joint / mixture[:, None]
        n_parameters = k * (d - 1) + 1 + (k - 1)  # directions on the sphere, kappa, shares
        value = -2 * np.log(mixture).sum() + n_parameters * np.log(n)
        expected_bic.append(value)
        expected_icl.append(value - 2 * (posterior * np.log(posterior)).sum())
    ks = np.arange(n_clusters, n_clusters + 3)
    arrays, k = lab.bic(sample, ks, np.random.RandomState(0))
    np.testing.assert_allclose(arrays["score"], expected_bic, rtol=1e-8)
    np.testing.assert_allclose(arrays["icl"], expected_icl, rtol=1e-8)
    assert k == n_clusters == ks[np.argmin(expected_bic)]


def test_log_bessel_is_exact_and_its_expansion_close():
    import mpmath

    order = 241.0  # d = 484, the order of the package's fused embeddings
    x = np.array([0.5, 5.0, 50.0, 500.0, 5000.0])
    exact = np.array([float(mpmath.log(mpmath.besseli(order, v))) for v in x])
    np.testing.assert_allclose(lab.log_bessel_i(order, x), exact, rtol=1e-6)
    assert scipy_underflows(order, x[:2])  # the first two need the expansion
    np.testing.assert_allclose(lab.log_bessel_i(2.5, x), [
        float(mpmath.log(mpmath.besseli(2.5, v))) for v in x], rtol=1e-10)


def scipy_underflows(order, x):
    from scipy.special import ive

    return bool((ive(order, x) < 1e-250).all())


def test_prediction_strength_counts_pairs_by_brute_force():
    rng = np.random.default_rng(0)
    for k in (2, 3, 5):
        own, given = rng.integers(k, size=40), rng.integers(k, size=40)
        weights = rng.integers(1, 4, size=40)
        own_rows, given_rows = np.repeat(own, weights), np.repeat(given, weights)
        shares = []
        for j in range(k):
            members = np.flatnonzero(own_rows == j)
            if members.size > 1:
                pairs = [(a, b) for a in members for b in members if a != b]
                shares.append(np.mean([given_rows[a] == given_rows[b] for a, b in pairs]))
            elif members.size == 1:  # predicted if no other row is given its center
                shares.append(float(np.sum(given_rows == given_rows[members[0]]) == 1))
        table = _table(own, given, weights.astype(float), k)
        assert lab._strength(table) == pytest.approx(min(shares))
    # Singleton clusters: one given a center of its own, one sharing its center.
    own, given = np.array([0, 0, 1, 2]), np.array([0, 0, 1, 1])
    assert lab._strength(_table(own, given, np.ones(4), 3)) == 0.0
    assert lab._strength(_table(own[:3], given[:3], np.ones(3), 3)) == 1.0


def test_prediction_strength_rule():
    X, _ = sphere_blobs(4, n_samples=200)
    k, scores = choose_n_clusters(X, k_range=(2, 8), k_selection=C["prediction_strength"],
                                  random_state=0)
    assert scores.score[2] == 1.0  # k = 4: every pair of a cluster predicted together
    assert k == scores.k[np.flatnonzero(scores.score >= 0.8)[-1]] == 4
    # No k strong enough: the strongest.
    noise = np.random.default_rng(0).standard_normal((300, 12))
    k, weak = choose_n_clusters(noise, k_range=(6, 9), k_selection=C["prediction_strength"],
                                random_state=0)
    assert (weak.score < 0.8).all() and k == weak.k[np.argmax(weak.score)]


def test_ambiguous_share_by_brute_force():
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 3, size=(6, 30)).astype(np.int32)
    labels[rng.random(labels.shape) < 0.3] = -1
    ambiguous, pairs = 0, 0
    for a, b in itertools.combinations(range(30), 2):
        both = (labels[:, a] >= 0) & (labels[:, b] >= 0)
        if both.any():
            consensus = np.mean(labels[both, a] == labels[both, b])
            ambiguous += 0.1 < consensus < 0.9
            pairs += 1
    assert lab._ambiguous_share(labels) == pytest.approx(ambiguous / pairs)


def test_pac_is_zero_at_well_separated_clusters():
    X, _ = sphere_blobs(5, n_samples=200)
    k, scores = choose_n_clusters(X, k_range=(2, 8), k_selection=C["pac"], random_state=0)
    assert scores.score[3] == 0 and k == 5
    assert (scores.score[[0, 1, 2]] > 0).all()
    assert scores.runner_up == scores.k[np.argsort(scores.score, kind="stable")[1]]


@pytest.mark.parametrize("n_clusters", [3, 5])
@pytest.mark.parametrize("k_selection", CRITERIA)
def test_each_criterion_finds_well_separated_blobs(n_clusters, k_selection):
    X, truth = sphere_blobs(n_clusters)
    k, scores = choose_n_clusters(X, k_range=(2, 10), k_selection=C[k_selection], random_state=0)
    assert k == n_clusters == scores.n_clusters
    assert scores.criterion == k_selection
    np.testing.assert_array_equal(scores.k, np.arange(2, 11))
    # Modularity scores the candidates on its plateau (NaN off it), and each k's modularity.
    scored = scores.modularity if k_selection == "modularity" else scores.score
    assert scores.score.shape == (9,) and np.isfinite(scored).all()
    model = SphericalKMeans("auto", k_range=(2, 10), k_selection=C[k_selection],
                            random_state=0).fit(X)
    assert model.n_clusters_ == n_clusters
    assert adjusted_rand_score(truth, model.labels_) == 1


@pytest.mark.parametrize("k_selection", CRITERIA)
def test_each_criterion_on_few_distinct_rows(k_selection):
    X = np.repeat(np.eye(6) + 0.01, 3, axis=0)  # 18 rows, 6 distinct directions
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        k, scores = choose_n_clusters(X, k_range=(2, 5), k_selection=C[k_selection],
                                      random_state=0)
    assert 2 <= k <= 5 and scores.score.shape == (4,)
    assert scores.runner_up in range(2, 6) and scores.runner_up != k


def test_integer_weights_are_repeated_rows():
    X, _ = sphere_blobs(4, n_samples=60, spread=0.2)
    weights = np.random.default_rng(0).integers(1, 4, size=len(X))
    repeated = np.repeat(X, weights, axis=0)
    for k_selection in set(CRITERIA) - {"gap"}:
        k_w, by_weight = choose_n_clusters(X, sample_weight=weights, k_range=(2, 6),
                                           k_selection=C[k_selection], random_state=0)
        k_r, by_rows = choose_n_clusters(repeated, k_range=(2, 6), k_selection=C[k_selection],
                                         random_state=0)
        assert k_w == k_r
        np.testing.assert_allclose(by_weight.score, by_rows.score, atol=1e-8)


def test_eigengap_with_as_many_candidates_as_rows_names_k_range():
    X = np.random.default_rng(0).random((10, 4))
    k, scores = choose_n_clusters(X, k_selection=C["eigengap"], random_state=0)
    assert scores.k.max() == 9 and 2 <= k <= 9
    with pytest.raises(ValueError, match=r"pass k_range=\(2, 8\) or less, or raise sample_size"):
        choose_n_clusters(X, k_range=(2, 9), k_selection=C["eigengap"],
                          sample_size=9, random_state=0)


def small_blobs(n_blobs, n_per_blob):
    """``n_blobs`` tight blobs around basis directions of R^10, ``n_per_blob`` rows each."""
    rng = np.random.default_rng(0)
    return (np.repeat(np.eye(10)[:n_blobs], n_per_blob, 0)
            + 0.05 * rng.standard_normal((n_blobs * n_per_blob, 10)))


@pytest.mark.parametrize("n_blobs", [3, 5, 8])
def test_prediction_strength_finds_small_well_separated_blobs(n_blobs):
    # Halves of a few rows per blob: at large k most clusters are single rows.
    X = small_blobs(n_blobs, 6)
    k, _ = choose_n_clusters(X, k_selection=C["prediction_strength"], random_state=0)
    assert k == n_blobs


@pytest.mark.parametrize("name", ["bic", "jump"])
@pytest.mark.parametrize(("n_blobs", "n_per_blob", "k_range"), [
    (3, 40, None), (5, 40, None), (8, 6, None), (3, 6, None), (5, 6, None), (3, 40, (2, 6))])
def test_bic_and_jump_find_well_separated_blobs(name, n_blobs, n_per_blob, k_range):
    # As k grows the clusters shrink to a few rows and their dispersion towards 0.
    X = small_blobs(n_blobs, n_per_blob)
    k, _ = choose_n_clusters(X, k_range=k_range, k_selection=C[name], random_state=0)
    assert k == n_blobs

"""Where spherical k-means starts: k-means++, random rows or given centers.

See ``_numerics`` for the conventions (inverse row norms folded into products). Random
choices are made so that a sample of integer weight ``w`` behaves exactly like ``w``
repeated samples and sample order does not matter (see ``_canonical_order``).
"""

import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_array

from ._numerics import blas_controller, scaled_rows

#: Products with at most this many entries of X run on one BLAS thread.
_SMALL_PRODUCT_ENTRIES = 2**23

#: Runs of ``n_init="auto"``, the default, with ``init="k-means++"`` or ``"random"``: the
#: best objective of 10 seeded runs is kept. Chosen by ``benchmarks/bench_kmeans_restarts.py``
#: (see :class:`SphericalKMeans`, ``n_init``); every clustering the package runs for a user
#: uses it.
DEFAULT_N_INIT = 10


def _canonical_order(X):
    """An order of the rows that depends only on their values, not on their positions.

    Rows are sorted by their projection on a fixed random direction, so identical rows are
    adjacent and a shuffled or repeated dataset yields the same cumulative masses: drawing
    with one uniform number through these cumulative masses picks the same point whether a
    sample has weight ``w`` or is repeated ``w`` times.
    """
    direction = np.random.default_rng(20240617).standard_normal(X.shape[1]).astype(X.dtype)
    return np.argsort(np.asarray(X @ direction).ravel(), kind="stable")


def _draw(mass, order, uniforms):
    """Indices drawn with probability proportional to ``mass`` by inverse transform."""
    ordered = mass[order]
    cumulative = np.cumsum(ordered)
    picks = np.searchsorted(cumulative, uniforms * cumulative[-1], side="right")
    last_positive = np.flatnonzero(ordered > 0)[-1]
    return order[np.minimum(picks, last_positive)]


def kmeans_plusplus(X, inv_norm, weights, n_clusters, random_state, n_local_trials=None):
    """Greedy k-means++ on the sphere, with distances ``1 - cos`` from dot products.

    As in scikit-learn's ``kmeans_plusplus``, each new center is the best of
    ``2 + log(n_clusters)`` candidates drawn with probability proportional to
    ``weight * distance to the closest center``. Zero rows and zero weights are never drawn.
    The draws are made on a weighted systematic sample of ``seeding_sample_size`` draws
    (rows with their multiplicities): a pass over all of X is memory-bound and would cost
    as much as a Lloyd iteration, while the sample follows the same law and fits in cache.
    """
    mass = weights * (inv_norm > 0)
    size = seeding_sample_size(n_clusters)
    rows, counts = _systematic_sample(mass, _canonical_order(X), size, random_state)
    X, inv_norm, mass = X[rows], inv_norm[rows], counts.astype(X.dtype)
    n_trials = n_local_trials or 2 + int(np.log(n_clusters))
    small = X.shape[0] * X.shape[1] <= _SMALL_PRODUCT_ENTRIES
    with blas_controller().limit(limits=1 if small else None, user_api="blas"):
        return _greedy_kmeans_plusplus(X, inv_norm, mass, _canonical_order(X), n_clusters,
                                       random_state, n_trials)


def seeding_sample_size(n_clusters):
    """Number of rows k-means++ seeding looks at: 256 per cluster, at least 4096."""
    return max(4096, 256 * n_clusters)


def _systematic_sample(mass, order, size, random_state):
    """``size`` draws at evenly spaced points of the cumulative masses: (rows, counts)."""
    cumulative = np.cumsum(mass[order])
    points = (random_state.uniform() + np.arange(size)) * (cumulative[-1] / size)
    picks = np.searchsorted(cumulative, points, side="right")
    last_positive = np.flatnonzero(mass[order] > 0)[-1]
    return np.unique(order[np.minimum(picks, last_positive)], return_counts=True)


def _greedy_kmeans_plusplus(X, inv_norm, mass, order, n_clusters, random_state, n_trials):
    centers = np.empty((n_clusters, X.shape[1]), dtype=X.dtype)
    first = _draw(mass, order, random_state.uniform(size=1))
    centers[0] = _unit_rows_at(X, inv_norm, first)[0]
    closest = np.maximum(1 - _cosines(X, inv_norm, centers[:1])[:, 0], 0)
    for c in range(1, n_clusters):
        potential = mass * closest
        if not potential.any():  # every point already is a center: draw by weight alone
            potential = mass
        candidates = _draw(potential, order, random_state.uniform(size=n_trials))
        candidate_rows = _unit_rows_at(X, inv_norm, candidates)
        distances = np.maximum(1 - _cosines(X, inv_norm, candidate_rows), 0)
        np.minimum(distances, closest[:, None], out=distances)
        best = np.argmin(mass @ distances)
        closest = distances[:, best]
        centers[c] = candidate_rows[best]
    return centers


def _unit_rows_at(X, inv_norm, indices):
    """The rows ``indices`` of X on the unit sphere, dense (their inverse norms applied)."""
    rows = X[indices]
    rows = rows.toarray() if sp.issparse(rows) else np.asarray(rows)
    return rows * inv_norm[indices, None]


def _cosines(X, inv_norm, centers):
    """Cosine of every row of X (a small sample) to every center."""
    return np.asarray(X @ centers.T) * inv_norm[:, None]


def random_centers(X, inv_norm, weights, n_clusters, random_state):
    """Centers at rows drawn without replacement with probability proportional to weight."""
    mass = (weights * (inv_norm > 0)).astype(np.float64)
    replace = np.count_nonzero(mass) < n_clusters
    chosen = random_state.choice(X.shape[0], n_clusters, replace=replace, p=mass / mass.sum())
    return _unit_rows_at(X, inv_norm, chosen)


def check_init(init, n_clusters, n_features, dtype):
    """Given initial centers, checked and normalised, in ``dtype``."""
    centers = check_array(init, dtype=dtype, copy=True, input_name="init")
    if centers.shape != (n_clusters, n_features):
        raise ValueError(
            f"The shape of the initial centers {centers.shape} does not match "
            f"(n_clusters, n_features) = {(n_clusters, n_features)}."
        )
    centers, inv_norm = scaled_rows(centers)
    if not (inv_norm > 0).all():
        raise ValueError("The initial centers must not contain all-zero rows.")
    return centers * inv_norm[:, None]


def initial_centers(X, inv_norm, weights, n_clusters, init, random_state):
    """Seed ``n_clusters`` unit centers by ``init``: "k-means++", "random" or an array."""
    if isinstance(init, str) and init == "k-means++":
        return kmeans_plusplus(X, inv_norm, weights, n_clusters, random_state)
    if isinstance(init, str):
        return random_centers(X, inv_norm, weights, n_clusters, random_state)
    return check_init(init, n_clusters, X.shape[1], X.dtype)


def resolve_n_init(n_init, init):
    """``"auto"``: DEFAULT_N_INIT runs for k-means++ or random seeding, 1 for given centers."""
    given_centers = not isinstance(init, str)
    if n_init == "auto":
        return 1 if given_centers else DEFAULT_N_INIT
    if given_centers and n_init != 1:
        warnings.warn(
            "Explicit initial center position passed: performing only one init in "
            f"SphericalKMeans instead of n_init={n_init}.",
            RuntimeWarning,
            stacklevel=4,
        )
        return 1
    return n_init

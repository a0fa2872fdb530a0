"""Products and seeding of spherical k-means, on validated input.

Conventions shared with ``_spherical_kmeans_lloyd``:

- Rows of ``X`` (dense C-ordered array or CSR matrix) are never normalised in place. Each
  row's inverse norm is carried in ``inv_norm`` (0 for an all-zero row) and folded into the
  products: ``cos(x, c) = (x @ c) * inv_norm`` and a centroid is the normalised sum of
  ``weight * inv_norm * x``. An all-zero row therefore has cosine 0 to every centroid and
  adds nothing to any centroid.
- ``centers`` are unit rows in the dtype of ``X``; the running per-cluster sums are float64.
- Products are taken over blocks of rows whose score matrix ``X_block @ centers.T`` holds at
  most ``_BLOCK_ENTRIES`` entries, so memory stays bounded whatever ``n_samples``.
- Random choices are made so that a sample of integer weight ``w`` behaves exactly like
  ``w`` repeated samples and sample order does not matter (see ``_canonical_order``).
"""

import functools
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.sparse as sp
from threadpoolctl import ThreadpoolController

_BLOCK_ENTRIES = 2**21  # entries of one block of scores X[rows] @ centers.T
_SMALL_PRODUCT_ENTRIES = 2**23  # products with a smaller X use one BLAS thread
_PARALLEL_NNZ = 2**17  # sparse products with more non-zeros are split over threads


def inverse_row_norms(X):
    """1 / ||x|| for each row of X, and 0 for an all-zero row."""
    if sp.issparse(X):
        squares = np.asarray(X.multiply(X).sum(axis=1)).ravel()
    else:
        squares = np.einsum("ij,ij->i", X, X)
    norms = np.sqrt(squares)
    overflow = np.flatnonzero(np.isinf(norms))
    if overflow.size:  # huge entries: rescale before squaring
        rows = np.abs(_dense_rows(X, overflow)).astype(np.float64)
        scale = rows.max(axis=1)
        norms[overflow] = scale * np.linalg.norm(rows / scale[:, None], axis=1)
    inv_norm = np.zeros(X.shape[0], dtype=X.dtype)
    nonzero = norms > 0
    inv_norm[nonzero] = 1.0 / norms[nonzero]
    return inv_norm


def row_blocks(n_samples, n_clusters):
    """Slices of rows such that a block of scores has at most _BLOCK_ENTRIES entries."""
    step = max(256, _BLOCK_ENTRIES // max(n_clusters, 1))
    return [slice(start, min(start + step, n_samples)) for start in range(0, n_samples, step)]


def _rows(X, block):
    """X[block] for a slice or an index array, without a copy when the slice is all of X."""
    whole = isinstance(block, slice) and block.start == 0 and block.stop >= X.shape[0]
    return X if whole else X[block]


def _dense_rows(X, indices):
    rows = X[indices]
    return rows.toarray() if sp.issparse(rows) else np.asarray(rows)


@functools.cache
def _blas_controller():
    return ThreadpoolController()


def _blas_threads_for(X):
    """One BLAS thread for products with a small X: threads would wait more than compute.

    (Waking BLAS threads for many small products is slow, and much slower on a busy host.)
    """
    small = X.shape[0] * X.shape[1] <= _SMALL_PRODUCT_ENTRIES
    return _blas_controller().limit(limits=1 if small else None, user_api="blas")


def _n_threads():
    """Threads for sparse products: as many as BLAS may use (respects threadpool_limits)."""
    blas = _blas_controller().select(user_api="blas").lib_controllers
    return max([lib.num_threads for lib in blas] + [1])


@functools.cache
def _executor(n_threads):
    return ThreadPoolExecutor(n_threads, thread_name_prefix="spherical_kmeans")


def scores(X, centers):
    """``X @ centers.T`` as a dense array.

    A large sparse product is split by rows over threads (scipy releases the GIL in it);
    a small dense one runs on one BLAS thread.
    """
    n_threads = _n_threads() if sp.issparse(X) and X.nnz > _PARALLEL_NNZ else 1
    if n_threads == 1:
        with _blas_threads_for(X):
            return np.asarray(X @ centers.T)
    starts = np.searchsorted(X.indptr, np.linspace(0, X.nnz, n_threads + 1)[1:-1])
    bounds = np.concatenate([[0], starts, [X.shape[0]]])
    centers_t = np.ascontiguousarray(centers.T)
    parts = _executor(n_threads).map(
        lambda start, stop: np.asarray(X[start:stop] @ centers_t), bounds[:-1], bounds[1:]
    )
    return np.vstack(list(parts))


def unit_rows(X, inv_norm, indices):
    """The rows ``indices`` of X scaled to unit length, as a dense array."""
    return _dense_rows(X, indices) * inv_norm[indices, None]


def cosines(X, inv_norm, centers):
    """Cosine similarity of every row of X to every center, shape (n_samples, n_centers)."""
    return scores(X, centers) * inv_norm[:, None]


def assign(X, inv_norm, centers):
    """Label of the most similar center for each row, and that cosine similarity."""
    n_samples = X.shape[0]
    labels = np.empty(n_samples, dtype=np.int32)
    best = np.empty(n_samples, dtype=X.dtype)
    for block in row_blocks(n_samples, centers.shape[0]):
        block_scores = scores(_rows(X, block), centers)
        labels[block] = block_scores.argmax(axis=1)
        best[block] = block_scores[np.arange(labels[block].size), labels[block]] * inv_norm[block]
    return labels, best


def normalize_sums(sums, dtype):
    """Unit rows of ``sums`` in ``dtype``; rows of norm 0 come back as zeros."""
    norms = np.linalg.norm(sums, axis=1)
    centers = np.zeros(sums.shape, dtype=dtype)
    nonzero = norms > 0
    centers[nonzero] = sums[nonzero] / norms[nonzero, None]
    return centers, nonzero


# -- seeding -----------------------------------------------------------------------------


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
    with _blas_threads_for(X):
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
    centers[0] = unit_rows(X, inv_norm, first)[0]
    closest = np.maximum(1 - cosines(X, inv_norm, centers[:1])[:, 0], 0)
    for c in range(1, n_clusters):
        potential = mass * closest
        if not potential.any():  # every point already is a center: draw by weight alone
            potential = mass
        candidates = _draw(potential, order, random_state.uniform(size=n_trials))
        candidate_rows = unit_rows(X, inv_norm, candidates)
        distances = np.maximum(1 - cosines(X, inv_norm, candidate_rows), 0)
        np.minimum(distances, closest[:, None], out=distances)
        best = np.argmin(mass @ distances)
        closest = distances[:, best]
        centers[c] = candidate_rows[best]
    return centers


def random_centers(X, inv_norm, weights, n_clusters, random_state):
    """Centers at rows drawn without replacement with probability proportional to weight."""
    mass = (weights * (inv_norm > 0)).astype(np.float64)
    replace = np.count_nonzero(mass) < n_clusters
    chosen = random_state.choice(X.shape[0], n_clusters, replace=replace, p=mass / mass.sum())
    return unit_rows(X, inv_norm, chosen)


def farthest_points(X, inv_norm, weights, similarity, n_points):
    """Farthest-first traversal from the current assignment, as unit rows.

    The first point is the one least similar to its center; each next one is the farthest
    from its center and from the points already taken, so duplicates are never taken twice.
    """
    distance = 1 - similarity.astype(np.float64)
    distance[(weights == 0) | (inv_norm == 0)] = -np.inf
    points = np.empty((n_points, X.shape[1]), dtype=X.dtype)
    for p in range(n_points):
        points[p] = unit_rows(X, inv_norm, [int(np.argmax(distance))])[0]
        np.minimum(distance, 1 - cosines(X, inv_norm, points[p : p + 1])[:, 0], out=distance)
    return points

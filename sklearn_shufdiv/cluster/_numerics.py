"""Small numerics (and the sample-weight check) shared by the seeding, the iterations and
the estimator.

Conventions of the package's spherical k-means, on validated input:

- Rows of ``X`` (dense C-ordered array or CSR matrix) are never normalised in place. Each
  row's inverse norm is carried in ``inv_norm`` (0 for an all-zero row) and folded into the
  products: ``cos(x, c) = (x @ c) * inv_norm`` and a centroid is the normalised sum of
  ``weight * inv_norm * x``. An all-zero row therefore has cosine 0 to every centroid and
  adds nothing to any centroid. :func:`scaled_rows` gives both, dividing the rows whose
  squared norm over- or underflows by their largest entry first (only directions matter).
- ``centers`` are unit rows in the dtype of ``X``; the running per-cluster sums are float64.
- Products are taken over blocks of rows whose score matrix ``X_block @ centers.T`` holds at
  most ``_BLOCK_ENTRIES`` entries, so memory stays bounded whatever ``n_samples``.
"""

import functools
from concurrent.futures import ThreadPoolExecutor
from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_array
from threadpoolctl import ThreadpoolController

_BLOCK_ENTRIES = 2**21  # entries of one block of scores X[rows] @ centers.T
_SMALL_PRODUCT_ENTRIES = 2**23  # products with a smaller X use one BLAS thread
_PARALLEL_NNZ = 2**17  # sparse products with more non-zeros are split over threads


def check_sample_weight(sample_weight, n_samples, dtype):
    """Weights of the rows: None (all 1), a number, or an array; finite, non-negative."""
    if sample_weight is None:
        return np.ones(n_samples, dtype=dtype)
    if isinstance(sample_weight, Real):
        weights = np.full(n_samples, sample_weight, dtype=dtype)
    else:
        weights = check_array(
            sample_weight, ensure_2d=False, dtype=dtype, input_name="sample_weight"
        )
        if weights.ndim != 1 or weights.shape[0] != n_samples:
            raise ValueError(
                f"sample_weight.shape == {weights.shape}, expected ({n_samples},)!"
            )
    if not np.isfinite(weights).all() or (weights < 0).any():
        raise ValueError("sample_weight must be finite and non-negative.")
    if not weights.any():
        raise ValueError("Sample weights must contain at least one non-zero number.")
    return weights


def _row_squares(X):
    if sp.issparse(X):
        return np.asarray(X.multiply(X).sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", X, X)


def scaled_rows(X):
    """``(X, inv_norm)``: X, or a copy with its extreme rows rescaled, and 1 / ||x||.

    A row whose squared norm overflows (entries beyond about ``1e154`` in float64) or
    underflows (below about ``1e-154``) would get an infinite or a zero norm, hence NaN
    scores or a row taken for all-zero. Such rows, and only they, are divided by their
    largest absolute entry in a copy of X: their directions, all that spherical k-means
    uses, do not change, and X itself is never written to. ``inv_norm`` is 0 for an
    all-zero row.

    Examples
    --------
    >>> X, inv_norm = scaled_rows(np.array([[3.0, 4.0], [1e300, 1e300], [0.0, 0.0]]))
    >>> X[1], inv_norm.round(4)
    (array([1., 1.]), array([0.2   , 0.7071, 0.    ]))
    """
    squares = _row_squares(X)
    suspect = np.flatnonzero(~(squares >= np.finfo(X.dtype).tiny) | np.isinf(squares))
    if suspect.size:
        scale = np.abs(_dense_rows(X, suspect)).max(axis=1, initial=0)
        extreme, scale = suspect[scale > 0], scale[scale > 0]  # not all-zero rows
        if extreme.size:
            X = _divide_rows(X, extreme, scale)
            squares[extreme] = _row_squares(X[extreme])
    inv_norm = np.zeros(X.shape[0], dtype=X.dtype)
    nonzero = squares > 0
    inv_norm[nonzero] = 1.0 / np.sqrt(squares[nonzero])
    return X, inv_norm


def _divide_rows(X, rows, divisors):
    """A copy of X whose ``rows`` are divided by ``divisors`` (not multiplied by their
    inverses, which overflow for subnormal divisors)."""
    X = X.copy()
    if sp.issparse(X):
        per_row = np.ones(X.shape[0], dtype=X.dtype)
        per_row[rows] = divisors
        X.data /= np.repeat(per_row, np.diff(X.indptr))
    else:
        X[rows] /= divisors[:, None]
    return X


def row_blocks(n_samples, n_clusters):
    """Slices of rows such that a block of scores has at most _BLOCK_ENTRIES entries."""
    step = max(256, _BLOCK_ENTRIES // max(n_clusters, 1))
    return [slice(start, min(start + step, n_samples)) for start in range(0, n_samples, step)]


def rows_of(X, block):
    """X[block] for a slice or an index array, without a copy when the slice is all of X."""
    whole = isinstance(block, slice) and block.start == 0 and block.stop >= X.shape[0]
    return X if whole else X[block]


def _dense_rows(X, indices):
    rows = X[indices]
    return rows.toarray() if sp.issparse(rows) else np.asarray(rows)


@functools.cache
def _blas_controller():
    return ThreadpoolController()


def blas_threads_for(X):
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
        with blas_threads_for(X):
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
        block_scores = scores(rows_of(X, block), centers)
        labels[block] = block_scores.argmax(axis=1)
        best[block] = block_scores[np.arange(labels[block].size), labels[block]] * inv_norm[block]
    return labels, best


def inertia(weights, similarity):
    """``sum(weights * (1 - similarity))``, accumulated in float64 whatever the dtype."""
    return float(weights.astype(np.float64, copy=False) @ (1 - similarity.astype(np.float64)))


def normalize_sums(sums, dtype):
    """Unit rows of ``sums`` in ``dtype``; rows of norm 0 come back as zeros."""
    norms = np.linalg.norm(sums, axis=1)
    centers = np.zeros(sums.shape, dtype=dtype)
    nonzero = norms > 0
    centers[nonzero] = sums[nonzero] / norms[nonzero, None]
    return centers, nonzero

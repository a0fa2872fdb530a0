"""The rows as spherical k-means reads them: validated weights and inverse row norms.

Conventions of the package's spherical k-means, on validated input:

- Rows of ``X`` (dense C-ordered array or CSR matrix) are never normalised in place. Each
  row's inverse norm is carried in ``inv_norm`` (0 for an all-zero row) and folded into the
  products: ``cos(x, c) = (x @ c) * inv_norm`` and a centroid is the normalised sum of
  ``weight * inv_norm * x``. An all-zero row therefore has cosine 0 to every centroid and
  adds nothing to any centroid. :func:`scaled_rows` gives both, dividing the rows whose
  squared norm over- or underflows by their largest entry first (only directions matter).
- ``centers`` are unit rows in the dtype of ``X``; the running per-cluster sums are float64.
- The products of rows and centers are those of the iterations (``_lloyd``); seeding
  (``_seeding``) works on a small sample with plain products.
"""

import functools
from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_array
from threadpoolctl import ThreadpoolController


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


def check_rows(X, inv_norm, weights, n_clusters):
    """Raise where there is nothing to cluster, or fewer rows than clusters."""
    if n_clusters != "auto" and X.shape[0] < n_clusters:
        raise ValueError(f"n_samples={X.shape[0]} should be >= n_clusters={n_clusters}.")
    if not (weights * inv_norm).any():
        raise ValueError("All samples with a non-zero sample weight are zero vectors: their "
                         "cosine similarity is undefined, so there is nothing to cluster.")


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
        scale = np.abs(dense_rows(X, suspect)).max(axis=1, initial=0)
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


def dense_rows(X, indices):
    """``X[indices]`` as a dense array."""
    rows = X[indices]
    return rows.toarray() if sp.issparse(rows) else np.asarray(rows)


@functools.cache
def _blas_controller():
    return ThreadpoolController()


@functools.cache
def blas_controller():
    """The one controller of the BLAS threads (finding the libraries is slow)."""
    return ThreadpoolController()

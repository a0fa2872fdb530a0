"""The iterations of spherical k-means: assignment products, Lloyd passes, empty clusters,
the mini-batch step.

See ``_numerics`` for the conventions (inverse row norms folded into products, float64
cluster sums). Products are taken over blocks of rows whose score matrix
``X_block @ centers.T`` holds at most ``_BLOCK_ENTRIES`` entries, so memory stays bounded
whatever ``n_samples``.
"""

import functools
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.sparsefuncs import sparse_matmul_to_dense

from ._numerics import blas_controller, dense_rows

_BLOCK_ENTRIES = 2**21  # entries of one block of scores X[rows] @ centers.T
_SMALL_PRODUCT_ENTRIES = 2**23  # products with a smaller X use one BLAS thread
_PARALLEL_NNZ = 2**17  # sparse products with more non-zeros are split over threads


def row_blocks(n_samples, n_clusters):
    """Slices of rows such that a block of scores has at most _BLOCK_ENTRIES entries."""
    step = max(256, _BLOCK_ENTRIES // max(n_clusters, 1))
    return [slice(start, min(start + step, n_samples)) for start in range(0, n_samples, step)]


def rows_of(X, block):
    """X[block] for a slice or an index array, without a copy when the slice is all of X."""
    whole = isinstance(block, slice) and block.start == 0 and block.stop >= X.shape[0]
    return X if whole else X[block]


def blas_threads_for(X):
    """One BLAS thread for products with a small X: threads would wait more than compute.

    (Waking BLAS threads for many small products is slow, and much slower on a busy host.)
    """
    small = X.shape[0] * X.shape[1] <= _SMALL_PRODUCT_ENTRIES
    return blas_controller().limit(limits=1 if small else None, user_api="blas")


def _n_threads():
    """Threads for sparse products: as many as BLAS may use (respects threadpool_limits)."""
    blas = blas_controller().select(user_api="blas").lib_controllers
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


def same_direction_tol(dtype):
    """Cosine distances up to this are rounding: the two unit vectors are the same."""
    return 64 * np.finfo(dtype).eps


class LloydResult(NamedTuple):
    """Outcome of one seeded run of Lloyd iterations."""

    centers: np.ndarray
    labels: np.ndarray
    inertia: float
    n_iter: int
    sums: np.ndarray
    similarity: np.ndarray  # cosine of each row to its center


def _moves(new, old, moved, weights, n_clusters):
    """Sparse (n_clusters, n_rows) matrix: +w into the new cluster, -w out of the old one."""
    leaving = moved[old[moved] >= 0]
    rows = np.concatenate([new[moved], old[leaving]])
    cols = np.concatenate([moved, leaving])
    data = np.concatenate([weights[moved], -weights[leaving]])
    return sp.csr_array((data, (rows, cols)), shape=(n_clusters, new.shape[0]))


@dataclass
class Partition:
    """The state of a Lloyd run, per row and per cluster.

    labels : the cluster of each row (-1 before the first pass).
    sums : float64 sum of ``sample_weight * x / ||x||`` over the rows of each cluster.
    similarity : cosine of each row to its center; between two evaluations of a row, a lower
        bound (a center that moves by ``delta`` changes a cosine by at most ``delta``).
    margin : lower bound of the cosine to the own center minus the cosine to the next best.
    """

    labels: np.ndarray
    sums: np.ndarray
    similarity: np.ndarray
    margin: np.ndarray

    @classmethod
    def empty(cls, n_samples, centers):
        return cls(np.full(n_samples, -1, dtype=np.int32), np.zeros(centers.shape),
                   np.zeros(n_samples, dtype=centers.dtype),
                   np.zeros(n_samples, dtype=centers.dtype))

    def rows_to_rescore(self, shifts):
        """Loosen the bounds after centers moved by ``shifts``; rows whose label may change.

        Returns None (meaning all rows) when more than half of them may change.
        """
        own = shifts[self.labels]
        self.similarity -= own
        self.margin -= own + shifts.max()
        rows = np.flatnonzero(self.margin <= 64 * np.finfo(self.margin.dtype).eps)
        return None if rows.size > self.labels.size // 2 else rows


def assign_and_accumulate(X, inv_norm, row_weights, centers, part, rows=None):
    """Assign ``rows`` (all rows if None) to their most similar center; update ``part``.

    Rows whose label changed are moved between the cluster sums of ``part`` (with weights
    ``row_weights = sample_weight / ||x||``); other rows cost nothing beyond their scores,
    so a pass costs little more than the product ``X[rows] @ centers.T``. Returns the number
    of rows whose label changed.
    """
    n_clusters = centers.shape[0]
    if rows is None:
        blocks = row_blocks(X.shape[0], n_clusters)
    else:
        blocks = [rows[block] for block in row_blocks(rows.size, n_clusters)]
    n_changed = 0
    for block in blocks:
        data = rows_of(X, block)
        block_scores = scores(data, centers)
        new = block_scores.argmax(axis=1).astype(np.int32)
        best = block_scores[np.arange(new.size), new]
        block_scores[np.arange(new.size), new] = -np.inf
        gap = best - block_scores.max(axis=1) if n_clusters > 1 else np.full(new.size, np.inf)
        with np.errstate(invalid="ignore"):  # zero rows: gap 0 or inf, times 0
            part.margin[block] = np.where(inv_norm[block] > 0, gap * inv_norm[block], np.inf)
        part.similarity[block] = best * inv_norm[block]
        old = part.labels[block]
        moved = np.flatnonzero(new != old)
        if moved.size:
            moves = _moves(new, old, moved, row_weights[block], n_clusters)
            if sp.issparse(data):
                part.sums += sparse_matmul_to_dense(moves, data.tocsr())
            else:
                part.sums += moves @ data
            part.labels[block] = new
            n_changed += moved.size
    return n_changed


def lloyd(X, inv_norm, weights, centers, *, max_iter, tol, verbose=0):
    """Lloyd iterations from ``centers`` until converged: no label changes, the centers
    shift by at most ``tol`` (sum of squares), or the objective falls by at most ``tol``
    times its value.

    The objective of the labels and of the centers computed from them is exact and free:
    ``sum(weights) - sum(||sums||)`` (a unit center ``s / ||s||`` has cosine sum ``||s||``
    with its rows). After the first passes, only the rows whose bounds (see
    ``Partition``) allow a change of label are scored again, as in Hamerly's algorithm;
    the last pass scores every row, so the labels and inertia returned are exact for the
    returned centers. A cluster left empty is re-seeded at the farthest point (see
    :func:`reseed_empty`). Returns a ``LloydResult``.
    """
    n_samples, n_clusters = X.shape[0], centers.shape[0]
    mass = weights * (inv_norm > 0)
    weighted_inv_norm = weights * inv_norm
    part = Partition.empty(n_samples, centers)
    rows, message = None, "maximum number of iterations reached"
    total, previous = float(weights.astype(np.float64).sum()), np.inf
    for n_iter in range(1, max_iter + 1):
        n_changed = assign_and_accumulate(X, inv_norm, weighted_inv_norm, centers, part, rows)
        if verbose:
            scored = n_samples if rows is None else rows.size
            print(f"Iteration {n_iter - 1}, inertia {inertia(weights, part.similarity):.6g}"
                  f"{' (upper bound)' if rows is not None else ''}, {scored} rows scored, "
                  f"{n_changed} labels changed.")
        empty = np.bincount(part.labels, weights=mass, minlength=n_clusters) == 0
        part.sums[empty] = 0  # drop rounding residue left by rows that moved out
        new_centers, nonempty = normalize_sums(part.sums, X.dtype)
        n_reseeded = 0
        if not nonempty.all():
            n_reseeded = reseed_empty(X, inv_norm, weights, centers, part, rows, new_centers,
                                      ~nonempty)
            if verbose:
                print(f"{np.count_nonzero(~nonempty)} empty clusters, {n_reseeded} re-seeded.")
        if n_changed == 0 and n_reseeded == 0:
            message = "strict convergence"
            break
        shifts = np.linalg.norm(new_centers - centers, axis=1)
        centers = new_centers
        if n_reseeded == 0 and shifts @ shifts <= tol:
            message = f"center shift {shifts @ shifts:.3g} within tolerance {tol:.3g}"
            break
        objective = total - np.linalg.norm(part.sums, axis=1).sum()
        if n_reseeded == 0 and previous - objective <= tol * objective:
            message = f"objective {objective:.6g} fell by at most {tol:.3g} of itself"
            break
        previous = objective
        rows = part.rows_to_rescore(shifts)
    if verbose:
        print(f"Converged at iteration {n_iter - 1}: {message}.")
    if rows is not None or message != "strict convergence":
        assign_and_accumulate(X, inv_norm, weighted_inv_norm, centers, part)
    return LloydResult(centers, part.labels, inertia(weights, part.similarity), n_iter,
                       part.sums, part.similarity)


def reseed_empty(X, inv_norm, weights, centers, part, rows, new_centers, empty):
    """Put the empty clusters' new centers at the farthest points; return how many.

    The points are taken by farthest-first traversal (:func:`farthest_points`) from the
    exact cosine of each row to its center (recomputed when the last pass scored only some
    rows, whose ``part.similarity`` is then a bound). Clusters for which no point is left
    away from every center (X has fewer distinct directions than clusters) keep their
    previous center.
    """
    similarity = part.similarity if rows is None else assign(X, inv_norm, centers)[1]
    empty = np.flatnonzero(empty)
    points = farthest_points(X, inv_norm, weights, similarity, empty.size)
    new_centers[empty[: len(points)]] = points
    new_centers[empty[len(points):]] = centers[empty[len(points):]]
    return len(points)


def farthest_points(X, inv_norm, weights, similarity, n_points):
    """Up to ``n_points`` unit rows, by farthest-first traversal from the assignment.

    The first point is the one least similar to its center (``similarity`` is each row's
    cosine to its center); each next one is the farthest from its center and from the
    points already taken. Only points away from all of those (beyond rounding) are taken,
    so fewer come back when X has too few distinct directions, and never a duplicate.
    """
    distance = 1 - similarity.astype(np.float64)
    distance[(weights == 0) | (inv_norm == 0)] = -np.inf
    points = []
    for _ in range(n_points):
        farthest = int(np.argmax(distance))
        if not distance[farthest] > same_direction_tol(X.dtype):
            break
        points.append(dense_rows(X, [farthest])[0] * inv_norm[farthest])
        np.minimum(distance, 1 - cosines(X, inv_norm, points[-1][None])[:, 0], out=distance)
    return np.array(points, dtype=X.dtype).reshape(len(points), X.shape[1])


def warn_if_clusters_missing(labels, similarity, mass, n_clusters, dtype):
    """ConvergenceWarning (as KMeans') when fewer than n_clusters clusters hold a row.

    Called by ``fit`` on its best run (the stack level points at the caller of fit).
    """
    n_found = np.count_nonzero(np.bincount(labels, weights=mass, minlength=n_clusters))
    if n_found == n_clusters:
        return
    if np.all(1 - similarity[mass > 0] <= same_direction_tol(dtype)):
        # Every row is on one of the n_found centers: that is all the directions there are.
        cause = (f"X has only {n_found} distinct directions (rows that are positive "
                 "multiples of one another count once; all-zero rows and rows of weight 0 "
                 "not at all), so the other clusters are empty and their centers repeat")
    else:
        cause = "the last iteration emptied them; raise max_iter or tol"
    warnings.warn(f"Number of distinct clusters ({n_found}) found smaller than n_clusters "
                  f"({n_clusters}): {cause}.", ConvergenceWarning, stacklevel=4)


def minibatch_step(X, inv_norm, weights, centers, sums):
    """Online update from one batch, as MiniBatchKMeans does, then renormalise.

    The batch is assigned to ``centers`` and added to ``sums`` (running weighted sum of the
    unit rows assigned to each cluster, updated in place). MiniBatchKMeans moves a center to
    the running mean of its rows; here each center becomes the normalised running sum, which
    is the direction of that mean. Clusters that never received weight keep their center.
    """
    labels, _ = assign(X, inv_norm, centers)
    n_clusters = centers.shape[0]
    one_hot = sp.csr_array(
        (weights * inv_norm, (labels, np.arange(X.shape[0]))), shape=(n_clusters, X.shape[0])
    )
    if sp.issparse(X):
        sums += sparse_matmul_to_dense(one_hot, X.tocsr())
    else:
        sums += one_hot @ X
    new_centers, nonempty = normalize_sums(sums, X.dtype)
    centers[nonempty] = new_centers[nonempty]
    return centers

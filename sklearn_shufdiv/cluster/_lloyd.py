"""The iterations of spherical k-means: Lloyd passes, empty clusters, the mini-batch step.

See ``_numerics`` for the conventions (inverse row norms folded into products, float64
cluster sums, bounded blocks of rows).
"""

import warnings
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.sparsefuncs import sparse_matmul_to_dense

from ._numerics import assign, inertia, normalize_sums, row_blocks, rows_of, scores
from ._seeding import farthest_points, initial_centers, same_direction_tol


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


def best_of_runs(X, inv_norm, weights, n_clusters, init, n_init, random_state, *, max_iter,
                 tol, verbose=0):
    """The ``LloydResult`` of lowest inertia among ``n_init`` seeded runs.

    A run replaces the best one only if its inertia is lower beyond rounding (a few units
    in the last place of X's dtype), so that runs reaching one optimum with permuted
    labels cannot swap places with the last bits of X.
    """
    tie, best = 8 * np.finfo(X.dtype).eps, None
    for run in range(n_init):
        centers = initial_centers(X, inv_norm, weights, n_clusters, init, random_state)
        if verbose:
            print(f"Initialization complete (run {run + 1}).")
        result = lloyd(X, inv_norm, weights, centers, max_iter=max_iter, tol=tol,
                       verbose=verbose)
        if best is None or result.inertia < best.inertia * (1 - tie):
            best = result
    return best


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

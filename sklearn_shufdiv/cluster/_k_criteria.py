"""The label-free criteria that choose the number of clusters, on a weighted sample.

Every criterion works on a :class:`Sample` of the rows: at most ``sample_size`` draws with
probability proportional to weight (a weighted systematic sample, so that an integer
weight ``w`` is the same as ``w`` repeated rows), kept as distinct rows with their counts.
A criterion returns its per-candidate arrays (``"score"`` first) and the chosen ``k``.

- ``eigengap``: the normalised Laplacian of the self-tuning affinity (Zelnik-Manor and
  Perona, 2004: ``exp(-d_ij^2 / (s_i s_j))``, ``s_i`` the distance to the 7th neighbour),
  one partial eigendecomposition; ``k`` maximises ``lambda_{k+1} - lambda_k``.
- ``silhouette``: the cosine silhouette of a spherical k-means clustering of the sample
  at each ``k`` (warm-started from ``k - 1``); ``k`` maximises it.
- ``stability``: Lange et al. (2004): the sample is split in two halves; each half is
  clustered (one k-means++ run for each ``k``), one half's centers label the other, and
  the disagreement with the other's own clustering (best matching of labels) is divided
  by that of random labellings; ``k`` maximises ``1 - normalised instability``, averaged
  over splits and both directions.
- ``gap``: the gap statistic of Tibshirani, Walther and Hastie (2001) in spherical form:
  ``log W_k`` of reference sets drawn uniformly in the box of the sample's principal
  components, projected on the sphere, minus ``log W_k`` of the sample (``W_k``: the
  spherical k-means objective); ``k`` is the smallest with ``gap(k) >= gap(k+1) - s_{k+1}``.
"""

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment
from scipy.sparse.linalg import eigsh
from tqdm.auto import tqdm

from ..metrics import cosine_silhouette
from ._lloyd import lloyd
from ._numerics import assign, cosines, scaled_rows, unit_rows
from ._seeding import _canonical_order, _draw, _systematic_sample, kmeans_plusplus

#: Neighbour whose distance sets a point's scale in the self-tuning affinity (Zelnik-Manor
#: and Perona, 2004).
SCALE_NEIGHBOR = 7
#: Splits of the sample for ``stability``, and random labellings to normalise it by.
N_SPLITS, N_RANDOM_LABELLINGS = 5, 20
#: Reference sets of the gap statistic.
N_REFERENCES = 5
_MAX_ITER, _TOL = 300, 1e-4


class Sample:
    """At most ``size`` draws of the rows of mass ``weights * (row != 0)``, as distinct rows.

    ``rows``: their indices in X, in the canonical order of ``_seeding`` (so that
    resampling treats a row of weight ``w`` as ``w`` repeated rows); ``X``, ``inv_norm``:
    those rows; ``weights``: how many times each was drawn. With a total weight below
    ``size`` (integer weights: every unit of weight is drawn once), or with fractional
    weights summing to fewer than the number of rows (each row once), nothing is left out.
    """

    def __init__(self, X, inv_norm, weights, size, random_state):
        mass = weights * (inv_norm > 0)
        n_draws = min(size, max(int(np.ceil(mass.sum() - 1e-9)), np.count_nonzero(mass)))
        order = _canonical_order(X)
        rows, counts = _systematic_sample(mass, order, n_draws, random_state)
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        canonical = np.argsort(rank[rows], kind="stable")  # copies of a row side by side
        self.rows, counts = rows[canonical], counts[canonical]
        self.X, self.inv_norm = X[self.rows], inv_norm[self.rows]
        self.weights = counts.astype(X.dtype)
        self._cosine = None

    @property
    def cosine(self):
        """Cosine of every pair of sample rows (float64, exactly 1 on the diagonal)."""
        if self._cosine is None:
            gram = self.X @ self.X.T
            gram = gram.toarray() if sp.issparse(gram) else gram
            inv = self.inv_norm.astype(np.float64)
            self._cosine = np.clip(gram * inv[:, None] * inv[None, :], -1, 1)
            np.fill_diagonal(self._cosine, 1.0)
        return self._cosine

    def draws(self):
        """The sample as a multiset: each row's index repeated by its count."""
        return np.repeat(np.arange(self.rows.size), self.weights.astype(np.int64))


def cluster_path(X, inv_norm, weights, ks, random_state, warm=True, verbose=0):
    """Spherical k-means of the rows for each ``k`` of ``ks`` (consecutive).

    One run is seeded by k-means++; with ``warm``, from the second ``k`` on, another
    starts from the previous ``k``'s centers and one more, drawn as k-means++ draws it
    (best of ``2 + log k`` candidates, with probability proportional to weight times the
    distance to the closest center). Returns the ``LloydResult`` of lowest inertia for
    each ``k``.
    """
    mass = weights * (inv_norm > 0)
    order, results = _canonical_order(X), []
    for k in tqdm(ks, desc="k", disable=not verbose, leave=False):
        starts = [kmeans_plusplus(X, inv_norm, weights, k, random_state)]
        if results and warm:
            starts.append(np.vstack([results[-1].centers, _next_center(
                X, inv_norm, mass, order, results[-1], k, random_state)]))
        runs = [lloyd(X, inv_norm, weights, c, max_iter=_MAX_ITER, tol=_TOL) for c in starts]
        results.append(min(runs, key=lambda run: run.inertia))
    return results


def _next_center(X, inv_norm, mass, order, previous, k, random_state):
    closest = np.maximum(1 - previous.similarity.astype(np.float64), 0)
    potential = mass * closest
    if not potential.any():
        potential = mass
    candidates = _draw(potential, order, random_state.uniform(size=2 + int(np.log(k))))
    rows = unit_rows(X, inv_norm, candidates)
    distance = np.maximum(1 - cosines(X, inv_norm, rows), 0)
    best = np.argmin(mass @ np.minimum(distance, closest[:, None]))
    return rows[best][None]


def eigengap(sample, ks, random_state, verbose=0):
    """Eigengaps ``lambda_{k+1} - lambda_k`` of the self-tuning affinity's Laplacian."""
    distance2 = np.maximum(2 - 2 * sample.cosine, 0)
    scale = _local_scale(distance2, sample.weights.astype(np.float64))
    outer = np.outer(scale, scale)
    affinity = np.exp(-np.divide(distance2, outer, out=np.full_like(distance2, np.inf),
                                 where=outer > 0))
    affinity[distance2 == 0] = 1.0
    root = np.sqrt(sample.weights.astype(np.float64))
    root = root / np.sqrt(affinity @ sample.weights.astype(np.float64))
    normalized = affinity * root[:, None] * root[None, :]
    eigenvalues = 1 - _top_eigenvalues(normalized, ks[-1] + 1, random_state)
    gaps = eigenvalues[ks] - eigenvalues[ks - 1]
    return {"score": gaps, "eigenvalues": eigenvalues}, int(ks[np.argmax(gaps)])


def _local_scale(distance2, weights):
    """Distance to the ``SCALE_NEIGHBOR``-th other point, copies counted by weight."""
    m = distance2.shape[0]
    nearest = min(SCALE_NEIGHBOR + 1, m)  # weights >= 1: within the nearest 8 rows
    index = np.argpartition(distance2, nearest - 1, axis=1)[:, :nearest]
    near = np.take_along_axis(distance2, index, axis=1)
    order = np.argsort(near, axis=1, kind="stable")
    near, index = np.take_along_axis(near, order, 1), np.take_along_axis(index, order, 1)
    counted = weights[index] - (index == np.arange(m)[:, None])  # the point itself once
    reached = np.cumsum(counted, axis=1) >= min(SCALE_NEIGHBOR, weights.sum() - 1)
    first = np.where(reached.any(axis=1), reached.argmax(axis=1), nearest - 1)
    return np.sqrt(near[np.arange(m), first])


def _top_eigenvalues(matrix, n, random_state):
    """The ``n`` largest eigenvalues of a symmetric matrix, in decreasing order."""
    m = matrix.shape[0]
    if m <= max(200, 3 * n):
        values = scipy.linalg.eigh(matrix, eigvals_only=True, subset_by_index=[m - n, m - 1])
    else:
        values = eigsh(matrix, k=n, which="LA", return_eigenvectors=False,
                       v0=random_state.uniform(-1, 1, m))
    return np.sort(values)[::-1]


def silhouette(sample, ks, random_state, verbose=0):
    """Cosine silhouette of the sample's clustering at each ``k`` (NaN counts as -1)."""
    results = cluster_path(sample.X, sample.inv_norm, sample.weights, ks, random_state,
                           verbose=verbose)
    draws = sample.draws()
    distance = np.maximum(1 - sample.cosine, 0)
    np.fill_diagonal(distance, 0)
    if draws.size != sample.rows.size:
        distance = distance[np.ix_(draws, draws)]
    scores = np.array([cosine_silhouette(distance, result.labels[draws], metric="precomputed")
                       for result in results])
    scores = np.where(np.isnan(scores), -1.0, scores)
    return {"score": scores, "inertia": _inertias(results)}, int(ks[np.argmax(scores)])


def _inertias(results):
    return np.array([result.inertia for result in results])


def stability(sample, ks, random_state, verbose=0):
    """Lange et al.'s normalised stability, ``1 - instability / random instability``.

    Each split gives two measures: the first half's centers label the second half, and
    the second's label the first. A ``k`` above the draws of a half scores NaN
    (never chosen, unless no ``k`` can be scored: then the smallest).
    """
    draws = sample.draws()
    per_transfer = []
    for _ in tqdm(range(N_SPLITS), desc="splits", disable=not verbose, leave=False):
        shuffled = random_state.permutation(draws)
        halves = [np.bincount(half, minlength=sample.rows.size)
                  for half in np.array_split(shuffled, 2)]
        fits = [_half_path(sample, counts, ks, random_state) for counts in halves]
        for (rows, paths, counts), (_, other, _) in (fits, fits[::-1]):
            per_transfer.append([
                _disagreement(assign(sample.X[rows], sample.inv_norm[rows], b.centers)[0],
                              a.labels, counts[rows].astype(np.float64), k)
                if k <= min(half.sum() for half in halves) else np.nan
                for a, b, k in zip(paths, other, ks, strict=True)])
    random = np.array([_random_disagreement(int(halves[1].sum()), k, random_state)
                       for k in ks])
    normalised = 1 - np.array(per_transfer) / random
    scores = normalised.mean(axis=0)
    chosen = ks[np.nanargmax(scores)] if np.isfinite(scores).any() else ks[0]
    return {"score": scores, "score_std": normalised.std(axis=0)}, int(chosen)


def _half_path(sample, counts, ks, random_state):
    rows = np.flatnonzero(counts)
    return rows, cluster_path(sample.X[rows], sample.inv_norm[rows],
                              counts[rows].astype(sample.X.dtype), ks, random_state,
                              warm=False), counts


def _disagreement(predicted, labels, weights, k):
    """Weighted share of rows whose labels differ under the best matching of clusters."""
    table = np.zeros((k, k))
    np.add.at(table, (predicted, labels), weights)
    rows, cols = linear_sum_assignment(table, maximize=True)
    return 1 - table[rows, cols].sum() / weights.sum()


def _random_disagreement(n, k, random_state):
    """Mean disagreement of two uniform random labellings of ``n`` rows into ``k``."""
    ones = np.ones(n)
    return float(np.mean([
        _disagreement(random_state.randint(k, size=n), random_state.randint(k, size=n), ones,
                      k) for _ in range(N_RANDOM_LABELLINGS)]))


def gap(sample, ks, random_state, verbose=0):
    """Spherical gap statistic; ``score`` is the gap, ``score_std`` its ``s_k``."""
    weights = sample.weights
    log_w = np.log(np.maximum(_inertias(
        cluster_path(sample.X, sample.inv_norm, weights, ks, random_state, verbose=verbose)),
        1e-300))
    coordinates = _coordinates(sample)
    center = weights @ coordinates / weights.sum()
    _, _, axes = np.linalg.svd((coordinates - center) * np.sqrt(weights)[:, None],
                               full_matrices=False)
    projected = (coordinates - center) @ axes.T
    low, high = projected.min(axis=0), projected.max(axis=0)
    reference_logs = []
    for _ in tqdm(range(N_REFERENCES), desc="references", disable=not verbose, leave=False):
        reference = random_state.uniform(low, high, size=projected.shape) @ axes + center
        reference, inv_norm = scaled_rows(reference.astype(sample.X.dtype))
        inertias = _inertias(cluster_path(reference, inv_norm, weights, ks, random_state,
                                          warm=False))
        reference_logs.append(np.log(np.maximum(inertias, 1e-300)))
    reference_logs = np.array(reference_logs)
    gaps = reference_logs.mean(axis=0) - log_w
    spread = reference_logs.std(axis=0) * np.sqrt(1 + 1 / N_REFERENCES)
    holds = gaps[:-1] >= gaps[1:] - spread[1:]
    chosen = int(ks[np.argmax(holds)]) if holds.any() else int(ks[-1])
    return {"score": gaps, "score_std": spread, "log_inertia": log_w}, chosen


def _coordinates(sample):
    """The sample's unit rows as dense coordinates (an exact basis of their span if sparse)."""
    if not sp.issparse(sample.X):
        return sample.X.astype(np.float64) * sample.inv_norm[:, None].astype(np.float64)
    values, vectors = np.linalg.eigh(sample.cosine)
    keep = values > values.max() * 1e-10
    return vectors[:, keep] * np.sqrt(values[keep])


#: The criteria by name.
CRITERIA = {"eigengap": eigengap, "silhouette": silhouette, "stability": stability,
            "gap": gap}

"""What every criterion of the number of clusters works on (a weighted sample of the rows,
and its spherical k-means clusterings for a range of ``k``), and what a criterion is:
:class:`NClustersCriterion`.

The sample is at most ``sample_size`` draws with probability proportional to weight (a
weighted systematic sample, so that an integer weight ``w`` is the same as ``w`` repeated
rows), kept as distinct rows with their counts. :func:`cluster_path` clusters it (or a
part of it) for consecutive ``k``, each ``k`` warm-started from the previous one.
"""

import numpy as np
import scipy.sparse as sp
from tqdm.auto import tqdm

from ._lloyd import lloyd
from ._seeding import (
    _canonical_order,
    _cosines,
    _draw,
    _systematic_sample,
    _unit_rows_at,
    kmeans_plusplus,
)

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
        """Cosine of every pair of sample rows (float64 throughout, so that rows of the same
        direction have cosine 1 to rounding; exactly 1 on the diagonal)."""
        if self._cosine is None:
            X = self.X.astype(np.float64)
            gram = X @ X.T
            gram = gram.toarray() if sp.issparse(gram) else np.asarray(gram)
            inv = 1 / np.sqrt(np.diag(gram))
            self._cosine = np.clip(gram * inv[:, None] * inv[None, :], -1, 1)
            np.fill_diagonal(self._cosine, 1.0)
        return self._cosine

    def clusterings(self, ks, random_state, warm=True, verbose=0):
        """Spherical k-means of the sample for each ``k`` of ``ks`` (see :func:`cluster_path`)."""
        return cluster_path(self.X, self.inv_norm, self.weights, ks, random_state, warm=warm,
                            verbose=verbose)

    def draws(self):
        """The sample as a multiset: each row's index repeated by its count."""
        return np.repeat(np.arange(self.rows.size), self.weights.astype(np.int64))

    def one_cluster_inertia(self):
        """The spherical k-means objective at ``k = 1``: ``sum w (1 - cos(x, mean direction))``."""
        weights = self.weights.astype(np.float64)
        total = np.asarray(self.X.T @ (weights * self.inv_norm.astype(np.float64))).ravel()
        norm = np.linalg.norm(total)
        return float(weights.sum() - norm)  # sum w cos(x, total / |total|) = |total|


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
    rows = _unit_rows_at(X, inv_norm, candidates)
    distance = np.maximum(1 - _cosines(X, inv_norm, rows), 0)
    best = np.argmin(mass @ np.minimum(distance, closest[:, None]))
    return rows[best][None]


def inertias(results):
    """The objective of each clustering of a path."""
    return np.array([result.inertia for result in results])


class NClustersCriterion:
    """How ``n_clusters="auto"`` scores its candidates and chooses one; subclass it.

    The ``k_selection`` parameter of :class:`SphericalKMeans` and
    :func:`choose_n_clusters` takes a name of a built-in criterion or an instance of a
    subclass, which defines :meth:`choose`. The search calls it once, on a weighted
    sample of the rows.

    Attributes
    ----------
    name : str
        The criterion's name, given back as ``scores.criterion`` (None: the class name).
    greater_is_better : bool
        Whether a larger ``score`` is better (it ranks the runner-up; NaN ranks last).

    Examples
    --------
    A criterion that takes the largest candidate (of no use, but short):

    >>> import numpy as np
    >>> from sklearn_shufdiv.cluster import NClustersCriterion, choose_n_clusters
    >>> class Largest(NClustersCriterion):
    ...     name = "largest"
    ...
    ...     def choose(self, sample, ks, random_state, verbose=0):
    ...         return {"score": ks.astype(float)}, int(ks[-1])
    >>> X = np.random.default_rng(0).standard_normal((20, 3))
    >>> k, scores = choose_n_clusters(X, k_range=(2, 4), k_selection=Largest())
    >>> k, scores.criterion, scores.runner_up
    (4, 'largest', 3)
    """

    name = None
    greater_is_better = True

    def choose(self, sample, ks, random_state, verbose=0):
        """Score each candidate ``k`` of ``ks`` and choose one.

        Parameters
        ----------
        sample : Sample
            At most ``sample_size`` weighted draws of the rows, kept as distinct rows:
            ``sample.X`` (the rows, dense or CSR, never normalised: only their
            directions count), ``sample.inv_norm`` (their inverse norms),
            ``sample.weights`` (how many times each was drawn), ``sample.cosine`` (their
            pairwise cosines), ``sample.draws()`` (each row's index repeated by its
            count) and ``sample.clusterings(ks, random_state)`` (a spherical k-means of
            the sample for each ``k``, with ``labels``, ``centers`` and ``inertia``).
        ks : ndarray of int
            The candidates, consecutive and increasing, at least two.
        random_state : RandomState
            Draw all randomness from it.
        verbose : int, default=0
            Whether to show progress.

        Returns
        -------
        scores : dict of str to ndarray
            ``"score"`` (one value per candidate) and any other arrays aligned with
            ``ks`` (or numbers) worth returning.
        k : int
            The chosen candidate.
        """
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}()"

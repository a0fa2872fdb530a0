"""``k_selection="modularity"``: the number of clusters from the neighbour graph's modularity.

A partition of documents is good where it cuts few of the pairs of near neighbours: its
modularity (Newman, 2006) on the graph joining each row to its ``n_neighbors`` nearest
by cosine is the fraction of those pairs inside a cluster, minus the fraction clusters
of those sizes would hold by chance. Too few clusters leave unrelated rows together;
too many cut neighbourhoods apart, so the modularity rises to the corpus' grain and then
levels off. The plateau holds the candidates, and the most stable of them is chosen.
"""

from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.metrics import adjusted_rand_score
from tqdm.auto import tqdm

from ..utils._graph import modularity, neighbor_graph
from ._k_sample import NClustersCriterion
from ._lloyd import lloyd
from ._numerics import scaled_rows
from ._seeding import kmeans_plusplus

#: How far below the greatest modularity a k may be and still be a candidate (a share of
#: it), chosen leaving each benchmark corpus out (``benchmarks/bench_auto.py``).
MODULARITY_TOLERANCE = 0.1
#: Agreement (adjusted Rand index) of a k's repeated partitions below which the choice is
#: called uncertain.
CONFIDENT_AGREEMENT = 0.8


def _agreement(partitions):
    """Mean and standard error of the adjusted Rand index of every pair of partitions."""
    values = [adjusted_rand_score(a, b) for i, a in enumerate(partitions)
              for b in partitions[i + 1:]]
    return float(np.mean(values)), float(np.std(values) / np.sqrt(len(values)))


def _one_run(X, inv_norm, weights, k, seed):
    """The labels of one seeded spherical k-means run (``SphericalKMeans(k, n_init=1,
    random_state=seed)``)."""
    random_state = np.random.RandomState(seed)
    centers = kmeans_plusplus(X, inv_norm, weights, k, random_state)
    return lloyd(X, inv_norm, weights, centers, max_iter=300, tol=1e-4).labels


def plateau_choice(unit, ks, random_state, *, n_neighbors=20, n_repeats=3,
                   tolerance=MODULARITY_TOLERANCE, verbose=0):
    """The modularity plateau's most stable ``k`` on the unit rows ``unit``.

    Each ``k`` is clustered ``n_repeats`` times (one seeded spherical k-means run each,
    drawn from ``random_state``); ``modularity[k]`` is the mean modularity of its
    partitions on the rows' neighbour graph (``n_neighbors``, at most a quarter of the
    rows), ``stability[k]`` the mean and standard error
    of their agreement. The candidates are every ``k`` from the first whose modularity is
    within ``tolerance`` (a share) of the greatest; the chosen is the most stable of
    them, ``uncertain`` where its partitions agree below :data:`CONFIDENT_AGREEMENT` or
    the runner-up's stability is within two standard errors of its own.
    """
    # A graph of as many neighbours as a small sample has rows joins everything: at most a
    # quarter of the rows keeps it local (unchanged from 80 rows on).
    graph = neighbor_graph(unit, max(1, min(n_neighbors, len(unit) // 4)))
    unit, inv_norm = scaled_rows(unit)
    weights = np.ones(len(unit), dtype=unit.dtype)
    seeds = random_state.randint(np.iinfo(np.int32).max, size=n_repeats)
    mean_q, stability = {}, {}
    for k in tqdm(ks, desc="modularity", unit="k", disable=not verbose, leave=False):
        # Every k is seeded alike (common random numbers), so the curve compares the ks
        # rather than the draws: one k-means++ start and Lloyd's passes per seed.
        partitions = [_one_run(unit, inv_norm, weights, k, seed) for seed in seeds]
        mean_q[k] = float(np.mean([modularity(graph, labels) for labels in partitions]))
        stability[k] = _agreement(partitions)
    best_q = max(mean_q.values())
    floor = min(k for k in ks if mean_q[k] >= best_q - tolerance * abs(best_q))
    candidates = sorted((k for k in ks if k >= floor), key=lambda k: (-stability[k][0], k))
    k, runner_up = candidates[0], (candidates[1] if len(candidates) > 1 else None)
    agree, error = stability[k]
    uncertain = agree < CONFIDENT_AGREEMENT or (
        runner_up is not None
        and stability[runner_up][0] >= agree - 2 * max(error, stability[runner_up][1]))
    return dict(k=int(k), runner_up=runner_up, uncertain=bool(uncertain),
                candidates=sorted(candidates), modularity=mean_q, stability=stability)


class Modularity(NClustersCriterion):
    """The most stable number of clusters on the plateau of the neighbour graph's modularity.

    Each candidate ``k`` is clustered ``n_repeats`` times and scored by the mean
    modularity of its partitions on the graph joining each sampled row to its
    ``n_neighbors`` nearest by cosine. The candidates within ``tolerance`` of the greatest
    modularity, from the first such ``k`` on, form a plateau; the chosen ``k`` is the one
    whose repeated partitions agree most. ``scores.score`` is that agreement (adjusted
    Rand index; NaN off the plateau), ``scores.score_std`` its standard error,
    ``scores.modularity`` each ``k``'s mean modularity, ``scores.uncertain`` whether the
    runner-up is within noise of the choice or the chosen partitions disagree.

    Parameters
    ----------
    n_neighbors : int, default=20
        Neighbours of each row in the graph.
    n_repeats : int, default=3
        Partitions of each ``k``; at least 2, since the stability compares them.
    tolerance : float in (0, 1), default=0.1
        The plateau: a mean modularity at least ``1 - tolerance`` times the greatest.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_shufdiv.cluster import choose_n_clusters
    >>> rng = np.random.default_rng(0)
    >>> X = np.repeat(rng.normal(size=(4, 16)), 100, axis=0) + 0.1 * rng.normal(size=(400, 16))
    >>> k, scores = choose_n_clusters(X, k_range=(2, 8), k_selection="modularity",
    ...                               random_state=0)
    >>> k, bool(scores.uncertain)
    (4, False)
    """

    name = "modularity"

    def __init__(self, n_neighbors=20, n_repeats=3, tolerance=MODULARITY_TOLERANCE):
        self.n_neighbors = n_neighbors
        self.n_repeats = n_repeats
        self.tolerance = tolerance

    def __repr__(self):
        return (f"Modularity(n_neighbors={self.n_neighbors!r}, n_repeats={self.n_repeats!r}, "
                f"tolerance={self.tolerance!r})")

    def choose(self, sample, ks, random_state, verbose=0):
        if not isinstance(self.n_neighbors, Integral) or self.n_neighbors < 1:
            raise ValueError(f"Modularity(n_neighbors={self.n_neighbors!r}): give an integer "
                             "of at least 1.")
        if not isinstance(self.n_repeats, Integral) or self.n_repeats < 2:
            raise ValueError(f"Modularity(n_repeats={self.n_repeats!r}): give an integer of "
                             "at least 2, since the stability compares the partitions.")
        if not 0 < self.tolerance < 1:
            raise ValueError(f"Modularity(tolerance={self.tolerance!r}): give a share in "
                             "(0, 1).")
        draws = sample.draws()
        rows = sample.X[draws]
        rows = rows.toarray() if sp.issparse(rows) else np.asarray(rows)
        unit = rows.astype(np.float64) * sample.inv_norm[draws, None].astype(np.float64)
        scored = [int(k) for k in ks if k < len(unit)]
        if not scored:  # too few draws to partition: nothing scored, the search says so
            nothing = np.full(len(ks), np.nan)
            return {"score": nothing, "score_std": nothing, "modularity": nothing}, int(ks[0])
        choice = plateau_choice(unit, scored, random_state, n_neighbors=self.n_neighbors,
                                n_repeats=self.n_repeats, tolerance=self.tolerance,
                                verbose=verbose)

        def per_k(value, plateau_only=False):
            return np.array([value(int(k)) if int(k) in choice["modularity"]
                             and (not plateau_only or int(k) in choice["candidates"])
                             else np.nan for k in ks])

        return {"score": per_k(lambda k: choice["stability"][k][0], plateau_only=True),
                "score_std": per_k(lambda k: choice["stability"][k][1], plateau_only=True),
                "modularity": per_k(lambda k: choice["modularity"][k]),
                "uncertain": choice["uncertain"]}, choice["k"]

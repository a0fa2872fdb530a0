"""The default criterion of the number of clusters: the stability of split samples.

Lange et al. (2004). The sample is split in two halves; each half is clustered (one
k-means++ run for each ``k``), one half's centers label the other, and the disagreement
with the other's own clustering (best matching of labels) is divided by that of random
labellings; ``k`` maximises ``1 - normalised instability``, averaged over splits and both
directions. :func:`split_tables` gives the contingency tables of the splits, which other
criteria of the same splits can read.
"""

import numpy as np
from scipy.optimize import linear_sum_assignment
from tqdm.auto import tqdm

from ._k_sample import NClustersCriterion, cluster_path
from ._lloyd import assign

#: Splits of the sample, and random labellings to normalise stability by.
N_SPLITS, N_RANDOM_LABELLINGS = 5, 20


def split_tables(sample, ks, random_state, verbose=0):
    """Contingency tables of each split of the sample in halves, in both directions.

    Returns ``(tables, half_draws)``: ``tables[t][i]`` is the ``k x k`` table, for
    ``k = ks[i]``, of a half's own clusters (rows) against the clusters the other half's
    centers give its rows (columns), weighted by draws; None where ``k`` exceeds the draws
    of a half. ``half_draws``: the draws of the second half of the last split.
    """
    draws = sample.draws()
    tables = []
    for _ in tqdm(range(N_SPLITS), desc="splits", disable=not verbose, leave=False):
        shuffled = random_state.permutation(draws)
        halves = [np.bincount(half, minlength=sample.rows.size)
                  for half in np.array_split(shuffled, 2)]
        fits = [_half_path(sample, counts, ks, random_state) for counts in halves]
        smallest = min(half.sum() for half in halves)
        for (rows, own, counts), (_, other, _) in (fits, fits[::-1]):
            given = [assign(sample.X[rows], sample.inv_norm[rows], fit.centers)[0]
                     for fit in other]
            tables.append([
                _table(fit.labels, labels, counts[rows].astype(np.float64), k)
                if k <= smallest else None
                for fit, labels, k in zip(own, given, ks, strict=True)])
    return tables, int(halves[1].sum())


def _half_path(sample, counts, ks, random_state):
    rows = np.flatnonzero(counts)
    return rows, cluster_path(sample.X[rows], sample.inv_norm[rows],
                              counts[rows].astype(sample.X.dtype), ks, random_state,
                              warm=False), counts


def _table(own, given, weights, k):
    table = np.zeros((k, k))
    np.add.at(table, (own, given), weights)
    return table


def _mismatch(table):
    """Weighted share of rows off the best matching of the table's rows and columns."""
    rows, cols = linear_sum_assignment(table, maximize=True)
    return 1 - table[rows, cols].sum() / table.sum()


def _disagreement(predicted, labels, weights, k):
    """Weighted share of rows whose labels differ under the best matching of clusters."""
    return _mismatch(_table(predicted, labels, weights, k))


def _random_disagreement(n, k, random_state):
    """Mean disagreement of two uniform random labellings of ``n`` rows into ``k``."""
    ones = np.ones(n)
    return float(np.mean([
        _disagreement(random_state.randint(k, size=n), random_state.randint(k, size=n), ones,
                      k) for _ in range(N_RANDOM_LABELLINGS)]))


class Stability(NClustersCriterion):
    """Lange et al.'s normalised stability, ``1 - instability / random instability``.

    ``scores.score`` is its mean over the splits and ``scores.score_std`` its spread. A
    ``k`` above the draws of a half scores NaN and is never chosen.
    """

    name = "stability"

    def choose(self, sample, ks, random_state, verbose=0):
        tables, half_draws = split_tables(sample, ks, random_state, verbose)
        instability = np.array([[np.nan if t is None else _mismatch(t) for t in per_k]
                                for per_k in tables])
        random = np.array([_random_disagreement(half_draws, k, random_state) for k in ks])
        normalised = 1 - instability / random
        score = normalised.mean(axis=0)
        chosen = ks[np.nanargmax(score)] if np.isfinite(score).any() else ks[0]
        return {"score": score, "score_std": normalised.std(axis=0)}, int(chosen)

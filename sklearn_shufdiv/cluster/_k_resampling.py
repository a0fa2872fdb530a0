"""Criteria of the number of clusters that cluster resamples of the sample and compare.

- ``stability``: Lange et al. (2004). The sample is split in two halves; each half is
  clustered (one k-means++ run for each ``k``), one half's centers label the other, and
  the disagreement with the other's own clustering (best matching of labels) is divided
  by that of random labellings; ``k`` maximises ``1 - normalised instability``, averaged
  over splits and both directions.
- ``prediction_strength``: Tibshirani and Walther (2005), on the same splits: for each
  cluster of a half's own clustering, the share of its pairs of rows that the other half's
  centers also put together; the strength of ``k`` is the smallest share over clusters,
  averaged over splits and directions; ``k`` is the largest whose strength is at least
  ``PREDICTION_STRENGTH_THRESHOLD`` (0.8, the paper's), else the strongest.
- ``pac``: consensus clustering (Monti et al., 2003) scored by the proportion of ambiguous
  clustering (Senbabaoglu et al., 2014): ``N_RESAMPLES`` resamples of 80% of the draws are
  clustered; the consensus of two draws is the share of the resamples holding both that
  put them together; ``k`` minimises the share of pairs whose consensus lies strictly
  between 0.1 and 0.9.
"""

import numpy as np
from scipy.optimize import linear_sum_assignment
from tqdm.auto import tqdm

from ._k_sample import cluster_path
from ._numerics import assign

#: Splits of the sample for ``stability`` and ``prediction_strength``, and random
#: labellings to normalise stability by.
N_SPLITS, N_RANDOM_LABELLINGS = 5, 20
#: Tibshirani and Walther's threshold of prediction strength (they advise 0.8 to 0.9).
PREDICTION_STRENGTH_THRESHOLD = 0.8
#: Resamples of ``pac``, the share of the draws each holds (Monti et al.'s 80%), the most
#: draws it looks at, and the consensus values that count as ambiguous (Senbabaoglu et
#: al.'s interval).
N_RESAMPLES, RESAMPLE_SHARE, CONSENSUS_DRAWS = 10, 0.8, 1000
AMBIGUOUS = (0.1, 0.9)


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


def _strength(table):
    """Smallest share, over the table's rows (clusters of 2 draws or more), of their pairs
    that share a column."""
    size = table.sum(axis=1)
    kept = size > 1
    if not kept.any():
        return np.nan
    pairs = (table * (table - 1)).sum(axis=1)
    return float(np.min(pairs[kept] / (size[kept] * (size[kept] - 1))))


def _split_scores(sample, ks, random_state, verbose):
    """Per candidate: normalised stability, its spread, and prediction strength."""
    tables, half_draws = split_tables(sample, ks, random_state, verbose)
    nan = np.nan
    instability = np.array([[nan if t is None else _mismatch(t) for t in per_k]
                            for per_k in tables])
    strength = np.array([[nan if t is None else _strength(t) for t in per_k]
                         for per_k in tables])
    random = np.array([_random_disagreement(half_draws, k, random_state) for k in ks])
    normalised = 1 - instability / random
    return {"stability": normalised.mean(axis=0), "stability_std": normalised.std(axis=0),
            "prediction_strength": strength.mean(axis=0)}


def stability(sample, ks, random_state, verbose=0):
    """Lange et al.'s normalised stability, ``1 - instability / random instability``.

    A ``k`` above the draws of a half scores NaN (never chosen, unless no ``k`` can be
    scored: then the smallest). Also returns the prediction strength of the same splits.
    """
    scores = _split_scores(sample, ks, random_state, verbose)
    score = scores["stability"]
    chosen = ks[np.nanargmax(score)] if np.isfinite(score).any() else ks[0]
    return {"score": score, "score_std": scores["stability_std"],
            "prediction_strength": scores["prediction_strength"]}, int(chosen)


def prediction_strength(sample, ks, random_state, verbose=0):
    """Tibshirani and Walther's prediction strength: the largest ``k`` of strength at least
    ``PREDICTION_STRENGTH_THRESHOLD``, else the strongest (the smallest ``k`` if none can be
    scored). Also returns the normalised stability of the same splits."""
    scores = _split_scores(sample, ks, random_state, verbose)
    score = scores["prediction_strength"]
    strong = np.flatnonzero(np.nan_to_num(score, nan=-1) >= PREDICTION_STRENGTH_THRESHOLD)
    if strong.size:
        chosen = ks[strong[-1]]
    else:
        chosen = ks[np.nanargmax(score)] if np.isfinite(score).any() else ks[0]
    return {"score": score, "stability": scores["stability"]}, int(chosen)


def pac(sample, ks, random_state, verbose=0):
    """Proportion of ambiguous clustering of the consensus matrix (smallest wins).

    At most ``CONSENSUS_DRAWS`` draws of the sample are looked at; a ``k`` above the
    distinct rows of a resample scores NaN (never chosen, unless none can be scored: then
    the smallest).
    """
    draws = random_state.permutation(sample.draws())[:CONSENSUS_DRAWS]
    m = draws.size
    n_kept = max(int(round(RESAMPLE_SHARE * m)), 1)
    labels = np.full((N_RESAMPLES, ks.size, m), -1, dtype=np.int32)
    fewest = np.inf
    for h in tqdm(range(N_RESAMPLES), desc="resamples", disable=not verbose, leave=False):
        kept = random_state.choice(m, n_kept, replace=False)
        counts = np.bincount(draws[kept], minlength=sample.rows.size)
        rows = np.flatnonzero(counts)
        fewest = min(fewest, rows.size)
        path = cluster_path(sample.X[rows], sample.inv_norm[rows],
                            counts[rows].astype(sample.X.dtype), ks, random_state)
        position = np.searchsorted(rows, draws[kept])
        for i, fit in enumerate(path):
            labels[h, i, kept] = fit.labels[position]
    score = np.array([_ambiguous_share(labels[:, i]) if k <= fewest else np.nan
                      for i, k in enumerate(ks)])
    chosen = ks[np.nanargmin(score)] if np.isfinite(score).any() else ks[0]
    return {"score": score}, int(chosen)


def _ambiguous_share(labels):
    """Share of pairs of draws (held together at least once) of ambiguous consensus."""
    held = (labels >= 0).astype(np.float32)
    together = np.zeros((labels.shape[1],) * 2, dtype=np.float32)
    for row in labels:
        together += (row[:, None] == row[None, :]) & (row >= 0)[:, None]
    both = held.T @ held
    upper = np.triu_indices(labels.shape[1], 1)
    both, together = both[upper], together[upper]
    consensus = together[both > 0] / both[both > 0]
    low, high = AMBIGUOUS
    return float(np.mean((consensus > low) & (consensus < high))) if consensus.size else np.nan

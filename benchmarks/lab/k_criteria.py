"""The studied criteria of the number of clusters, as values of ``k_selection``.

The package builds in only the criterion its user guide recommends (``"stability"``); the
others studied by ``bench_n_clusters.py`` live here, each an
:class:`~sklearn_shufdiv.cluster.NClustersCriterion` that ``choose_n_clusters`` and
``SphericalKMeans`` take as ``k_selection``, so that every figure of
``benchmarks/README.md`` can be reproduced::

    from lab.k_criteria import CRITERIA
    choose_n_clusters(X, k_selection=CRITERIA["jump"], random_state=0)

They are kept to reproduce those tables, not recommended: ``eigengap``, ``jump`` and
``bic`` read ``sample_weight`` as counts (weights of 10 on every row are ten copies of each
row).

Resampling:

- ``prediction_strength``: Tibshirani and Walther (2005), on the splits of the built-in
  stability: for each cluster of a half's own clustering, the share of its pairs of rows
  that the other half's centers also put together (a cluster of one row has no pair: it
  scores 1 if no other row of its half is given its center, else 0); the strength of ``k``
  is the smallest share over clusters, averaged over splits and directions; ``k`` is the
  largest whose strength is at least ``PREDICTION_STRENGTH_THRESHOLD`` (0.8, the paper's),
  else the strongest.
- ``pac``: consensus clustering (Monti et al., 2003) scored by the proportion of ambiguous
  clustering (Senbabaoglu et al., 2014): ``N_RESAMPLES`` resamples of 80% of the draws are
  clustered; the consensus of two draws is the share of the resamples holding both that
  put them together; ``k`` minimises the share of pairs whose consensus lies strictly
  between 0.1 and 0.9.

One clustering of the sample per ``k`` (``k`` warm-started from ``k - 1``; distances are
cosine distances ``1 - cos``):

- ``silhouette``: the cosine silhouette; ``k`` maximises it.
- ``calinski_harabasz``: Calinski and Harabasz's ratio in cosine form,
  ``((W_1 - W_k) / (k - 1)) / (W_k / (n - k))`` with ``W_k`` the spherical k-means
  objective (``W_1``: one cluster around the mean direction); ``k`` maximises it.
- ``davies_bouldin``: Davies and Bouldin's index in cosine form, the mean over clusters of
  the largest ``(s_i + s_j) / (1 - cos(c_i, c_j))`` (``s``: the mean distance of a
  cluster's rows to its center); ``k`` minimises it.
- ``jump``: Sugar and James (2003): the distortion ``d_k = W_k / (n - k)`` (the ``k``
  fitted centers' degrees of freedom taken out, so that it does not collapse as clusters
  shrink to a few rows) raised to ``-Y``, ``Y = p / 2`` with ``p`` the sample's intrinsic
  dimension (Levina and Bickel's maximum likelihood estimate from the 10th to 20th nearest
  neighbours, averaged as MacKay and Ghahramani advise); ``k`` maximises the jump
  ``d_k^-Y - d_{k-1}^-Y``.
- ``bic``: the Bayesian information criterion of a mixture of von Mises-Fisher
  distributions (spherical k-means is its hard-assignment limit, Banerjee et al. 2005)
  with the clustering's centers as mean directions, the cluster shares as weights and one
  concentration shared by the clusters (Banerjee et al.'s approximation), from the pooled
  dispersion with the fitted directions' degrees of freedom taken out (Pelleg and Moore's
  x-means variance, 2000); parameters are counted on the sphere (``d - 1`` per mean
  direction, one concentration, ``k - 1`` shares); ``k`` minimises it.
  The integrated completed likelihood (ICL) is returned beside it.

Others:

- ``eigengap``: the normalised Laplacian of the self-tuning affinity (Zelnik-Manor and
  Perona, 2004: ``exp(-d_ij^2 / (s_i s_j))``, ``s_i`` the distance to the 7th neighbour),
  one partial eigendecomposition; ``k`` maximises ``lambda_{k+1} - lambda_k``.
- ``gap``: the gap statistic of Tibshirani, Walther and Hastie (2001) in spherical form:
  ``log W_k`` of reference sets drawn uniformly in the box of the sample's principal
  components, projected on the sphere, minus ``log W_k`` of the sample; ``k`` is the
  smallest with ``gap(k) >= gap(k+1) - s_{k+1}``.
"""

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from scipy.sparse.linalg import eigsh
from scipy.special import ive
from tqdm.auto import tqdm

from sklearn_shufdiv.cluster import NClustersCriterion
from sklearn_shufdiv.cluster._k_sample import cluster_path, inertias
from sklearn_shufdiv.cluster._lloyd import cosines
from sklearn_shufdiv.cluster._numerics import scaled_rows
from sklearn_shufdiv.cluster._stability import split_tables
from sklearn_shufdiv.metrics import cosine_silhouette

#: Tibshirani and Walther's threshold of prediction strength (they advise 0.8 to 0.9).
PREDICTION_STRENGTH_THRESHOLD = 0.8
#: Resamples of ``pac``, the share of the draws each holds (Monti et al.'s 80%), the most
#: draws it looks at, and the consensus values that count as ambiguous (Senbabaoglu et
#: al.'s interval).
N_RESAMPLES, RESAMPLE_SHARE, CONSENSUS_DRAWS = 10, 0.8, 1000
AMBIGUOUS = (0.1, 0.9)
#: Neighbours of the intrinsic dimension's estimate (Levina and Bickel's 10 to 20).
ID_NEIGHBORS = (10, 20)
#: Neighbour whose distance sets a point's scale in the self-tuning affinity.
SCALE_NEIGHBOR = 7
#: Reference sets of the gap statistic.
N_REFERENCES = 5


def prediction_strength(sample, ks, random_state, verbose=0):
    """Tibshirani and Walther's prediction strength: the largest ``k`` of strength at least
    ``PREDICTION_STRENGTH_THRESHOLD``, else the strongest (the smallest ``k`` if none can be
    scored)."""
    tables, _ = split_tables(sample, ks, random_state, verbose)
    score = np.array([[np.nan if t is None else _strength(t) for t in per_k]
                      for per_k in tables]).mean(axis=0)
    strong = np.flatnonzero(np.nan_to_num(score, nan=-1) >= PREDICTION_STRENGTH_THRESHOLD)
    if strong.size:
        chosen = ks[strong[-1]]
    else:
        chosen = ks[np.nanargmax(score)] if np.isfinite(score).any() else ks[0]
    return {"score": score}, int(chosen)


def _strength(table):
    """Smallest share, over the table's non-empty rows, of their pairs of draws that share a
    column; a row of a single draw has no pair, and its claim is that the draw stands
    apart: it scores 1 when its column holds no other draw, else 0."""
    size = table.sum(axis=1)
    kept = size > 0
    if not kept.any():
        return np.nan
    pairs = (table * (table - 1)).sum(axis=1)
    alone = (table * (table.sum(axis=0) == 1)).sum(axis=1)
    share = np.divide(pairs, size * (size - 1), out=alone, where=size > 1)
    return float(np.min(share[kept]))


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

def silhouette(sample, ks, random_state, verbose=0):
    """Cosine silhouette of the sample's clustering at each ``k`` (NaN counts as -1)."""
    results = sample.clusterings(ks, random_state, verbose=verbose)
    draws = sample.draws()
    distance = np.maximum(1 - sample.cosine, 0)
    np.fill_diagonal(distance, 0)
    if draws.size != sample.rows.size:
        distance = distance[np.ix_(draws, draws)]
    scores = np.array([cosine_silhouette(distance, result.labels[draws], metric="precomputed")
                       for result in results])
    scores = np.where(np.isnan(scores), -1.0, scores)
    return {"score": scores, "inertia": inertias(results)}, int(ks[np.argmax(scores)])


def calinski_harabasz(sample, ks, random_state, verbose=0):
    """Cosine Calinski-Harabasz ratio (largest wins; a zero objective counts as infinite)."""
    within = inertias(sample.clusterings(ks, random_state, verbose=verbose))
    n, total = float(sample.weights.sum()), sample.one_cluster_inertia()
    with np.errstate(divide="ignore", invalid="ignore"):
        score = ((total - within) / (ks - 1)) / (within / np.maximum(n - ks, 1e-300))
    score = np.where(within <= 0, np.inf, score)
    return {"score": score, "inertia": within}, int(ks[np.nanargmax(score)])


def davies_bouldin(sample, ks, random_state, verbose=0):
    """Cosine Davies-Bouldin index (smallest wins)."""
    results = sample.clusterings(ks, random_state, verbose=verbose)
    score = np.array([_davies_bouldin(result, sample.weights) for result in results])
    chosen = ks[np.nanargmin(score)] if np.isfinite(score).any() else ks[0]
    return {"score": score, "inertia": inertias(results)}, int(chosen)


def _davies_bouldin(result, weights):
    k = result.centers.shape[0]
    weights = weights.astype(np.float64)
    size = np.bincount(result.labels, weights, minlength=k)
    present = size > 0
    if present.sum() < 2:
        return np.nan
    spread = np.bincount(result.labels, weights * (1 - result.similarity.astype(np.float64)),
                         minlength=k)[present] / size[present]
    centers = result.centers[present].astype(np.float64)
    separation = np.maximum(1 - centers @ centers.T, 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = (spread[:, None] + spread[None, :]) / separation
    np.fill_diagonal(ratio, -np.inf)
    return float(np.nan_to_num(ratio, nan=np.inf).max(axis=1).mean())


def jump(sample, ks, random_state, verbose=0):
    """Sugar and James's jump of the transformed distortion (largest wins)."""
    if ks[0] > 2:
        results = sample.clusterings(np.arange(ks[0] - 1, ks[-1] + 1), random_state,
                                      verbose=verbose)
        within = inertias(results)
    else:
        within = np.concatenate([[sample.one_cluster_inertia()],
                                 inertias(sample.clusterings(ks, random_state, verbose=verbose))])
    counted = np.arange(ks[0] - 1, ks[-1] + 1)
    dimension = intrinsic_dimension(sample)
    power = dimension / 2
    with np.errstate(divide="ignore"):
        log_d = np.log(np.maximum(within, 0) / (float(sample.weights.sum()) - counted))
    transformed = -power * log_d
    finite = transformed[np.isfinite(transformed)]
    top = finite.max() if finite.size else 0.0
    with np.errstate(invalid="ignore"):
        lifted = np.exp(transformed - top)  # d_k^-Y up to one common factor
        score = lifted[1:] - lifted[:-1]
    score = np.nan_to_num(score, nan=-np.inf)
    return {"score": score, "inertia": within[1:], "intrinsic_dimension": dimension,
            "power": power}, int(ks[np.argmax(score)])


def intrinsic_dimension(sample, neighbors=ID_NEIGHBORS):
    """Levina and Bickel's estimate on the sample's draws.

    Chord distances ``sqrt(2 - 2 cos)`` from each row to the nearest draws of other
    directions (copies of a row count as draws; a row's own direction is skipped); for each
    ``k`` of ``neighbors``, the inverse estimate ``mean_j log(T_k / T_j)`` is averaged over
    the draws and inverted, and the estimates are averaged over ``k``. With fewer draws,
    fewer neighbours; 1.0 when fewer than 2 draws of other directions.
    """
    distance = np.sqrt(np.maximum(2 - 2 * sample.cosine, 0))
    distance[distance <= 1e-6] = np.inf
    weights = sample.weights.astype(np.float64)
    available = int(np.min(np.where(np.isfinite(distance), weights, 0).sum(axis=1)))
    high = min(neighbors[1], available)
    if high < 2:
        return 1.0
    low = max(min(neighbors[0], high), 2)
    index = np.argpartition(distance, high - 1, axis=1)[:, :high]  # holds the nearest draws
    near = np.take_along_axis(distance, index, axis=1)
    order = np.argsort(near, axis=1, kind="stable")
    near = np.take_along_axis(near, order, axis=1)
    reached = np.cumsum(weights[np.take_along_axis(index, order, axis=1)], axis=1)
    log_t = np.log(np.stack([near[np.arange(len(near)), np.argmax(reached >= j, axis=1)]
                             for j in range(1, high + 1)], axis=1))
    estimates = [1 / max(weights @ (log_t[:, k - 1] - log_t[:, :k - 1].mean(axis=1))
                         / weights.sum(), 1e-12)
                 for k in range(low, high + 1)]
    return float(np.mean(estimates))


def bic(sample, ks, random_state, verbose=0):
    """BIC of the von Mises-Fisher mixture of each clustering (smallest wins)."""
    results = sample.clusterings(ks, random_state, verbose=verbose)
    values = np.array([_vmf_bic(sample, result) for result in results])
    score, icl = values[:, 0], values[:, 1]
    return {"score": score, "icl": icl, "inertia": inertias(results)}, int(
        ks[np.nanargmin(score)])


def _vmf_bic(sample, result):
    """``(BIC, ICL)`` of the mixture fitted to one clustering of the sample.

    One concentration for all clusters, from the pooled dispersion with the degrees of
    freedom of the ``k`` fitted directions taken out, ``1 - r = W_k / (n - k)`` (Pelleg and
    Moore's x-means variance); parameters: ``k`` mean directions on the sphere (``d - 1``
    each), one concentration and ``k - 1`` shares.
    """
    weights = sample.weights.astype(np.float64)
    n, d, k = weights.sum(), sample.X.shape[1], result.centers.shape[0]
    size = np.bincount(result.labels, weights, minlength=k)
    present = size > 0
    k = int(present.sum())
    kappa = vmf_concentration(1 - result.inertia / max(n - k, 1e-12), d)
    cos = cosines(sample.X, sample.inv_norm, result.centers[present]).astype(np.float64)
    log_joint = (np.log(size[present] / n) + vmf_log_normalizer(kappa, d))[None] + cos * kappa
    top = log_joint.max(axis=1, keepdims=True)
    log_density = top[:, 0] + np.log(np.exp(log_joint - top).sum(axis=1))
    posterior = np.exp(log_joint - log_density[:, None])
    entropy = -(posterior * np.log(np.maximum(posterior, 1e-300))).sum(axis=1)
    n_parameters = k * (d - 1) + 1 + (k - 1)
    value = -2 * weights @ log_density + n_parameters * np.log(n)
    return value, value + 2 * weights @ entropy


def vmf_concentration(resultant, d):
    """Banerjee et al.'s approximation of the concentration from the mean resultant length."""
    r = np.clip(resultant, 1e-12, 1 - 1e-12)
    return r * (d - r**2) / (1 - r**2)


def vmf_log_normalizer(kappa, d):
    """``log C_d(kappa)``, the von Mises-Fisher density's normalising constant on the unit
    sphere of R^d: ``kappa^(d/2-1) / ((2 pi)^(d/2) I_{d/2-1}(kappa))``."""
    order = d / 2 - 1
    return order * np.log(kappa) - d / 2 * np.log(2 * np.pi) - log_bessel_i(order, kappa)


def log_bessel_i(order, x):
    """``log I_order(x)``: from scipy's scaled Bessel function, or where it underflows
    (a high order, a small ``x``), from Debye's uniform expansion (relative error
    ``O(1 / order)``)."""
    scaled = ive(order, x)
    usable = np.isfinite(scaled) & (scaled > 1e-250)
    direct = np.log(np.where(usable, scaled, 1.0)) + x
    if usable.all() or order <= 0:
        return direct
    z = x / order
    root = np.sqrt(1 + z * z)
    debye = (-0.5 * np.log(2 * np.pi * order) + order * (root + np.log(z / (1 + root)))
             - 0.5 * np.log(root))
    return np.where(usable, direct, debye)

def eigengap(sample, ks, random_state, verbose=0):
    """Eigengaps ``lambda_{k+1} - lambda_k`` of the self-tuning affinity's Laplacian."""
    if ks[-1] >= sample.rows.size:
        raise ValueError(
            f"eigengap compares the gaps after each k, so k_range's max must be below the "
            f"{sample.rows.size} distinct rows of the sample: pass k_range=({ks[0]}, "
            f"{sample.rows.size - 1}) or less, or raise sample_size.")
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


def gap(sample, ks, random_state, verbose=0):
    """Spherical gap statistic; ``score`` is the gap, ``score_std`` its ``s_k``."""
    weights = sample.weights
    log_w = np.log(np.maximum(inertias(
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
        objective = inertias(cluster_path(reference, inv_norm, weights, ks, random_state,
                                          warm=False))
        reference_logs.append(np.log(np.maximum(objective, 1e-300)))
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




def _class(name, function, greater_is_better=True):
    return type(name, (NClustersCriterion,), {
        "__doc__": function.__doc__, "__module__": __name__, "name": function.__name__,
        "greater_is_better": greater_is_better, "choose": staticmethod(function)})


PredictionStrength = _class("PredictionStrength", prediction_strength)
PAC = _class("PAC", pac, greater_is_better=False)
Silhouette = _class("Silhouette", silhouette)
CalinskiHarabasz = _class("CalinskiHarabasz", calinski_harabasz)
DaviesBouldin = _class("DaviesBouldin", davies_bouldin, greater_is_better=False)
Jump = _class("Jump", jump)
BIC = _class("BIC", bic, greater_is_better=False)
Eigengap = _class("Eigengap", eigengap)
Gap = _class("Gap", gap)

#: Every criterion of the study, by name, as a value of ``k_selection`` (the built-ins
#: ``"modularity"`` and ``"stability"`` by their names).
CRITERIA = {"modularity": "modularity", "stability": "stability",
            "prediction_strength": PredictionStrength(),
            "pac": PAC(), "silhouette": Silhouette(), "calinski_harabasz": CalinskiHarabasz(),
            "davies_bouldin": DaviesBouldin(), "jump": Jump(), "bic": BIC(),
            "eigengap": Eigengap(), "gap": Gap()}

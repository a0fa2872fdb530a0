"""Criteria of the number of clusters read off one clustering of the sample per ``k``.

Each runs :func:`cluster_path` once on the sample (``k`` warm-started from ``k - 1``) and
scores each clustering; all distances are cosine distances ``1 - cos``.

- ``silhouette``: the cosine silhouette; ``k`` maximises it.
- ``calinski_harabasz``: Calinski and Harabasz's ratio in cosine form,
  ``((W_1 - W_k) / (k - 1)) / (W_k / (n - k))`` with ``W_k`` the spherical k-means
  objective (``W_1``: one cluster around the mean direction); ``k`` maximises it.
- ``davies_bouldin``: Davies and Bouldin's index in cosine form, the mean over clusters of
  the largest ``(s_i + s_j) / (1 - cos(c_i, c_j))`` (``s``: the mean distance of a
  cluster's rows to its center); ``k`` minimises it.
- ``jump``: Sugar and James (2003): the distortion ``d_k = W_k / n`` raised to ``-Y``,
  ``Y = p / 2`` with ``p`` the sample's intrinsic dimension (Levina and Bickel's maximum
  likelihood estimate from the 10th to 20th nearest neighbours, averaged as MacKay and
  Ghahramani advise); ``k`` maximises the jump ``d_k^-Y - d_{k-1}^-Y``.
- ``bic``: the Bayesian information criterion of a mixture of von Mises-Fisher
  distributions (spherical k-means is its hard-assignment limit, Banerjee et al. 2005)
  with the clustering's centers as mean directions, one concentration per cluster
  (Banerjee et al.'s approximation) and weights the cluster shares; ``k`` minimises it.
  The integrated completed likelihood (ICL, the BIC plus twice the entropy of the
  posterior memberships) is returned beside it.
"""

import numpy as np
from scipy.special import ive

from ..metrics import cosine_silhouette
from ._k_sample import cluster_path, inertias
from ._numerics import cosines

#: Neighbours of the intrinsic dimension's estimate (Levina and Bickel's 10 to 20).
ID_NEIGHBORS = (10, 20)


def _path(sample, ks, random_state, verbose):
    return cluster_path(sample.X, sample.inv_norm, sample.weights, ks, random_state,
                        verbose=verbose)


def silhouette(sample, ks, random_state, verbose=0):
    """Cosine silhouette of the sample's clustering at each ``k`` (NaN counts as -1)."""
    results = _path(sample, ks, random_state, verbose)
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
    within = inertias(_path(sample, ks, random_state, verbose))
    n, total = float(sample.weights.sum()), sample.one_cluster_inertia()
    with np.errstate(divide="ignore", invalid="ignore"):
        score = ((total - within) / (ks - 1)) / (within / np.maximum(n - ks, 1e-300))
    score = np.where(within <= 0, np.inf, score)
    return {"score": score, "inertia": within}, int(ks[np.nanargmax(score)])


def davies_bouldin(sample, ks, random_state, verbose=0):
    """Cosine Davies-Bouldin index (smallest wins)."""
    results = _path(sample, ks, random_state, verbose)
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
        results = _path(sample, np.arange(ks[0] - 1, ks[-1] + 1), random_state, verbose)
        within = inertias(results)
    else:
        within = np.concatenate([[sample.one_cluster_inertia()],
                                 inertias(_path(sample, ks, random_state, verbose))])
    dimension = intrinsic_dimension(sample)
    power = dimension / 2
    with np.errstate(divide="ignore"):
        log_d = np.log(np.maximum(within, 0) / float(sample.weights.sum()))
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
    results = _path(sample, ks, random_state, verbose)
    values = np.array([_vmf_bic(sample, result) for result in results])
    score, icl = values[:, 0], values[:, 1]
    return {"score": score, "icl": icl, "inertia": inertias(results)}, int(
        ks[np.nanargmin(score)])


def _vmf_bic(sample, result):
    """``(BIC, ICL)`` of the mixture fitted to one clustering of the sample."""
    weights = sample.weights.astype(np.float64)
    n, d, k = weights.sum(), sample.X.shape[1], result.centers.shape[0]
    size = np.bincount(result.labels, weights, minlength=k)
    present = size > 0
    resultant = np.linalg.norm(result.sums[present], axis=1) / size[present]
    kappa = vmf_concentration(resultant, d)
    cos = cosines(sample.X, sample.inv_norm, result.centers[present]).astype(np.float64)
    log_joint = (np.log(size[present] / n) + vmf_log_normalizer(kappa, d))[None] + cos * kappa
    top = log_joint.max(axis=1, keepdims=True)
    log_density = top[:, 0] + np.log(np.exp(log_joint - top).sum(axis=1))
    posterior = np.exp(log_joint - log_density[:, None])
    entropy = -(posterior * np.log(np.maximum(posterior, 1e-300))).sum(axis=1)
    n_parameters = present.sum() * (d + 1) - 1  # means on the sphere, concentrations, shares
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

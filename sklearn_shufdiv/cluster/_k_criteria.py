"""The label-free criteria that choose the number of clusters, and their registry.

Every criterion works on a :class:`~._k_sample.Sample` of the rows and returns its
per-candidate arrays (``"score"`` first) and the chosen ``k``. Those that cluster resamples
(``stability``, ``prediction_strength``, ``pac``) are in ``_k_resampling``; those read off
one clustering of the sample per ``k`` (``silhouette``, ``calinski_harabasz``,
``davies_bouldin``, ``jump``, ``bic``) in ``_k_indices``; here:

- ``eigengap``: the normalised Laplacian of the self-tuning affinity (Zelnik-Manor and
  Perona, 2004: ``exp(-d_ij^2 / (s_i s_j))``, ``s_i`` the distance to the 7th neighbour),
  one partial eigendecomposition; ``k`` maximises ``lambda_{k+1} - lambda_k``.
- ``gap``: the gap statistic of Tibshirani, Walther and Hastie (2001) in spherical form:
  ``log W_k`` of reference sets drawn uniformly in the box of the sample's principal
  components, projected on the sphere, minus ``log W_k`` of the sample (``W_k``: the
  spherical k-means objective); ``k`` is the smallest with ``gap(k) >= gap(k+1) - s_{k+1}``.
"""

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from scipy.sparse.linalg import eigsh
from tqdm.auto import tqdm

from ._k_indices import bic, calinski_harabasz, davies_bouldin, jump, silhouette
from ._k_resampling import pac, prediction_strength, stability
from ._k_sample import cluster_path, inertias
from ._numerics import scaled_rows

#: Neighbour whose distance sets a point's scale in the self-tuning affinity (Zelnik-Manor
#: and Perona, 2004).
SCALE_NEIGHBOR = 7
#: Reference sets of the gap statistic.
N_REFERENCES = 5


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


#: The criteria by name.
CRITERIA = {"stability": stability, "prediction_strength": prediction_strength, "pac": pac,
            "silhouette": silhouette, "calinski_harabasz": calinski_harabasz,
            "davies_bouldin": davies_bouldin, "jump": jump, "bic": bic,
            "eigengap": eigengap, "gap": gap}
#: The criteria whose ``score`` is smallest at their best.
SMALLER_WINS = frozenset({"pac", "davies_bouldin", "bic"})

"""Clustering on the unit sphere, the helpers every part of the package shares.

- :func:`unit_rows`: rows divided by their norms;
- :func:`cluster_on_sphere`: the one clustering of a sample (the embedders' epoch
  selection, the weight of the words, the command line): spherical k-means with the
  estimator's restarts, as a :class:`SphereClustering` that can replay its runs;
- :func:`cluster_centers`: the unit mean direction of each cluster;
- :func:`confident_labels`: the part of each cluster nearest its own center;
- :func:`clustering_stability`: how reproducible a clustering is across seeds.
"""

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from sklearn.metrics import adjusted_rand_score

from ._seeding import DEFAULT_N_INIT
from ._spherical_kmeans import SphericalKMeans

__all__ = ["SphereClustering", "cluster_centers", "cluster_on_sphere", "clustering_stability",
           "confident_labels", "unit_rows"]


def unit_rows(X):
    """``X`` with each row divided by its L2 norm (a zero row stays zero), in its dtype.

    Examples
    --------
    >>> import numpy as np
    >>> unit_rows(np.array([[3.0, 4.0], [0.0, 0.0]])).tolist()
    [[0.6, 0.8], [0.0, 0.0]]
    """
    return X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1e-12)


def _n_runs(n_init):
    # SphericalKMeans' n_init="auto" is DEFAULT_N_INIT runs with its k-means++ seeding.
    return DEFAULT_N_INIT if n_init == "auto" else n_init


@dataclass
class SphereClustering:
    """A spherical k-means clustering of ``unit`` (rows of norm 1) and how to replay its runs.

    ``labels`` and ``inertia`` are those of ``SphericalKMeans(n_clusters, n_init=n_init,
    random_state=seed)``: the run of lowest inertia. :attr:`runs` replays the runs one by
    one (the same random stream), only when asked for.
    """

    unit: np.ndarray = field(repr=False)
    n_clusters: int
    seed: int
    n_init: object
    labels: np.ndarray = field(repr=False)
    inertia: float

    @cached_property
    def runs(self):
        """``(labels, inertias)`` of every k-means run: arrays of shape (n_runs, n) and
        (n_runs,), in the order they ran; the chosen run is the first of least inertia."""
        stream = np.random.RandomState(self.seed)
        fits = [SphericalKMeans(self.n_clusters, n_init=1, random_state=stream).fit(self.unit)
                for _ in range(_n_runs(self.n_init))]
        return (np.vstack([fit.labels_ for fit in fits]),
                np.array([fit.inertia_ for fit in fits]))


def cluster_on_sphere(X, n_clusters, random_state=0, n_init=None):
    """Cluster the rows of ``X`` by direction with :class:`SphericalKMeans`.

    ``SphericalKMeans(n_clusters, random_state=random_state)`` on the unit rows, with the
    estimator's default number of restarts unless ``n_init`` is given.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Rows are normalised first (spherical k-means compares directions).
    n_clusters : int
    random_state : int, default=0
    n_init : int, "auto" or None, default=None
        None: the estimator's default.

    Returns
    -------
    clustering : SphereClustering
        ``labels``, ``inertia``, ``unit`` (the normalised rows) and ``runs``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.1], [2.0, 0.0], [0.0, 1.0], [0.1, 3.0]])
    >>> cluster_on_sphere(X, 2).labels.tolist() in ([0, 0, 1, 1], [1, 1, 0, 0])
    True
    """
    unit = unit_rows(X)
    if n_init is None:
        n_init = SphericalKMeans(n_clusters).n_init
    kmeans = SphericalKMeans(n_clusters, n_init=n_init, random_state=random_state).fit(unit)
    return SphereClustering(unit, n_clusters, random_state, n_init, kmeans.labels_,
                            float(kmeans.inertia_))


def cluster_centers(X, labels, n_clusters):
    """The unit mean direction of each cluster's L2-normalised rows of ``X``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    labels : ndarray of shape (n_samples,)
        Cluster indices in ``[0, n_clusters)``; -1 (no cluster) is left out.
    n_clusters : int

    Returns
    -------
    centers : ndarray of shape (n_clusters, n_features), float32
        Unit rows; a zero row for an empty cluster.

    Examples
    --------
    >>> import numpy as np
    >>> cluster_centers(np.array([[2.0, 0.0], [0.0, 3.0], [1.0, 1.0]]),
    ...                 np.array([0, 0, 1]), 3).round(3).tolist()
    [[0.707, 0.707], [0.707, 0.707], [0.0, 0.0]]
    """
    unit = unit_rows(X)
    labels = np.asarray(labels)
    known = labels >= 0
    sums = np.zeros((n_clusters, unit.shape[1]))
    np.add.at(sums, labels[known], unit[known])
    norms = np.linalg.norm(sums, axis=1, keepdims=True)
    return (sums / np.maximum(norms, 1e-12)).astype(np.float32)


def confident_labels(X, labels, n_clusters, fraction):
    """``labels`` with only the most confident ``fraction`` of each cluster kept, -1 else.

    A row's confidence is its margin: its cosine similarity to its own cluster's center
    (:func:`cluster_centers`) minus that to the nearest other center. Each cluster keeps
    its ``ceil(fraction * size)`` rows of largest margin (ties: the first rows), so that
    no cluster loses all its members.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    labels : ndarray of shape (n_samples,)
        Cluster indices in ``[0, n_clusters)``.
    n_clusters : int
    fraction : float in (0, 1]

    Returns
    -------
    labels : ndarray of shape (n_samples,)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.6, 0.4], [0.0, 1.0], [0.3, 0.7]])
    >>> confident_labels(X, np.array([0, 0, 1, 1]), 2, 0.5).tolist()
    [0, -1, 1, -1]
    """
    labels = np.asarray(labels)
    similarities = unit_rows(X) @ cluster_centers(X, labels, n_clusters).T
    rows = np.arange(len(labels))
    own = similarities[rows, labels].copy()
    similarities[rows, labels] = -np.inf
    margin = own - similarities.max(axis=1)
    kept = np.full_like(labels, -1)
    for k in range(n_clusters):
        members = np.flatnonzero(labels == k)
        best = np.argsort(-margin[members], kind="stable")[:int(np.ceil(fraction * len(members)))]
        kept[members[best]] = k
    return kept


def clustering_stability(X, n_clusters, seed=0, n_clusterings=5, first=None):
    """How reproducible the spherical k-means clustering of ``X`` is.

    The mean adjusted Rand index over all pairs of ``n_clusterings`` clusterings by
    :func:`cluster_on_sphere` (each the best of the estimator's restarts) with the seeds
    ``seed``, ``seed + 1``, ...: 1 when every seed finds the same partition.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    n_clusters : int
    seed : int, default=0
    n_clusterings : int, default=5
        At least 2.
    first : ndarray of shape (n_samples,) or None, default=None
        The labels of seed ``seed``'s clustering, if already computed.

    Returns
    -------
    stability : float

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])
    >>> float(clustering_stability(X, 2))
    1.0
    """
    runs = [cluster_on_sphere(X, n_clusters, seed).labels if first is None else first]
    runs += [cluster_on_sphere(X, n_clusters, seed + i).labels
             for i in range(1, n_clusterings)]
    return float(np.mean([adjusted_rand_score(runs[i], runs[j])
                          for i in range(n_clusterings) for j in range(i + 1, n_clusterings)]))

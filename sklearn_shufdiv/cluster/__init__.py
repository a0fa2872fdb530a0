"""Clustering on the unit sphere: spherical k-means and the number of clusters.

- :class:`SphericalKMeans`, the estimator, and :func:`spherical_kmeans`, a thin wrapper
  of it; ``SphericalKMeans(n_clusters="auto")`` chooses the number of clusters without
  labels by :func:`choose_n_clusters`, whose ``k_selection`` takes a built-in name or an
  :class:`NClustersCriterion`;
- the helpers on the unit sphere that the rest of the package shares: :func:`unit_rows`,
  :func:`cluster_on_sphere` (a seeded clustering of a sample that can replay its runs,
  :class:`SphereClustering`), :func:`cluster_centers`, :func:`confident_labels` and
  :func:`clustering_stability`.
"""

from ._k_sample import NClustersCriterion
from ._n_clusters import choose_n_clusters
from ._sphere import (
    SphereClustering,
    cluster_centers,
    cluster_on_sphere,
    clustering_stability,
    confident_labels,
    unit_rows,
)
from ._spherical_kmeans import SphericalKMeans, spherical_kmeans

__all__ = ["NClustersCriterion", "SphereClustering", "SphericalKMeans", "choose_n_clusters",
           "cluster_centers", "cluster_on_sphere", "clustering_stability", "confident_labels",
           "spherical_kmeans", "unit_rows"]

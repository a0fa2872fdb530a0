"""Clustering on the unit sphere: spherical k-means.

- :class:`SphericalKMeans`, the estimator (in ``_spherical_kmeans``), and
  :func:`spherical_kmeans`, a thin wrapper of it;
- ``DEFAULT_N_INIT``: the number of k-means runs of ``n_init="auto"``, the default (10,
  measured by ``benchmarks/bench_kmeans_restarts.py``);
- the helpers on the unit sphere that the rest of the package shares (in ``_sphere``):
  :func:`unit_rows`, :func:`cluster_on_sphere` (a seeded clustering of a sample that can
  replay its runs, :class:`SphereClustering`), :func:`cluster_centers`,
  :func:`confident_labels` and :func:`clustering_stability`;
- how it works, by what the code does: seeding (``_seeding``: k-means++, random rows,
  farthest points for empty clusters), iterations (``_lloyd``: Lloyd passes, the mini-batch
  step) and the small numerics they share (``_numerics``: inverse row norms, blocked
  products);
- :func:`choose_n_clusters` (in ``_n_clusters``): the number of clusters without labels, by
  the criteria of ``_k_criteria``; ``SphericalKMeans(n_clusters="auto")`` uses it.
"""

from ._n_clusters import choose_n_clusters
from ._seeding import DEFAULT_N_INIT
from ._sphere import (
    SphereClustering,
    cluster_centers,
    cluster_on_sphere,
    clustering_stability,
    confident_labels,
    unit_rows,
)
from ._spherical_kmeans import SphericalKMeans, spherical_kmeans

__all__ = ["DEFAULT_N_INIT", "SphereClustering", "SphericalKMeans", "choose_n_clusters",
           "cluster_centers", "cluster_on_sphere", "clustering_stability", "confident_labels",
           "spherical_kmeans", "unit_rows"]

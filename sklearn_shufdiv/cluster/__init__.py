"""Clustering on the unit sphere: spherical k-means.

- :class:`SphericalKMeans`, the estimator (in ``_spherical_kmeans``), and
  :func:`spherical_kmeans`, a thin wrapper of it;
- ``DEFAULT_N_INIT``: the number of k-means runs of ``n_init="auto"``, the default (10,
  measured by ``benchmarks/bench_kmeans_restarts.py``);
- how it works, by what the code does: seeding (``_seeding``: k-means++, random rows,
  farthest points for empty clusters), iterations (``_lloyd``: Lloyd passes, the mini-batch
  step) and the small numerics they share (``_numerics``: inverse row norms, blocked
  products).
"""

from ._spherical_kmeans import DEFAULT_N_INIT, SphericalKMeans, spherical_kmeans

__all__ = ["DEFAULT_N_INIT", "SphericalKMeans", "spherical_kmeans"]

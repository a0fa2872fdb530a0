"""Clustering on the unit sphere: spherical k-means.

- :class:`SphericalKMeans`, the estimator (in ``_spherical_kmeans``), and
  :func:`spherical_kmeans`, a thin wrapper of it;
- how it works, by what the code does: seeding (``_seeding``: k-means++, random rows,
  farthest points for empty clusters), iterations (``_lloyd``: Lloyd passes, the mini-batch
  step) and the small numerics they share (``_numerics``: inverse row norms, blocked
  products).
"""

from ._spherical_kmeans import SphericalKMeans, spherical_kmeans

__all__ = ["SphericalKMeans", "spherical_kmeans"]

"""Clustering on the unit sphere: spherical k-means."""

from ._spherical_kmeans import SphericalKMeans, spherical_kmeans

__all__ = ["SphericalKMeans", "spherical_kmeans"]

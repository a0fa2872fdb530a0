"""Clustering long documents without labels, the scikit-learn way.

Fine-tune a transformer encoder contrastively on the corpus itself (Shuffle & Divide, or
TF-IDF nearest-neighbour positives), embed the documents, cluster them with spherical
k-means, and score the clustering with or without labels.
"""

from .cluster import SphericalKMeans, spherical_kmeans
from .embedders import ShuffleDivideEmbedder, TfidfPositiveEmbedder
from .metrics import (
    clustering_accuracy,
    clustering_accuracy_scorer,
    make_silhouette_scorer,
    silhouette_scorer,
)

__version__ = "0.1.0.dev0"

__all__ = [
    "ShuffleDivideEmbedder",
    "SphericalKMeans",
    "TfidfPositiveEmbedder",
    "clustering_accuracy",
    "clustering_accuracy_scorer",
    "make_silhouette_scorer",
    "silhouette_scorer",
    "spherical_kmeans",
]

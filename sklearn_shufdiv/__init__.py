"""Clustering long documents without labels, the scikit-learn way.

Fine-tune a transformer encoder contrastively on the corpus itself (Shuffle & Divide, or
TF-IDF nearest-neighbour positives), embed the documents, cluster them with spherical
k-means, and score the clustering with or without labels.

The public names are imported lazily, on first use (a module-level ``__getattr__``, as
scikit-learn and SciPy do): ``import sklearn_shufdiv`` imports neither torch nor
transformers, so the command line's ``--help`` answers at once.
"""

import importlib

__version__ = "0.1.0.dev0"

#: public name -> the subpackage that defines it
_PUBLIC = {
    "ShuffleDivideEmbedder": "embedders",
    "SphericalKMeans": "cluster",
    "TfidfPositiveEmbedder": "embedders",
    "clustering_accuracy": "metrics",
    "clustering_accuracy_scorer": "metrics",
    "make_silhouette_scorer": "metrics",
    "silhouette_scorer": "metrics",
    "spherical_kmeans": "cluster",
}
_SUBPACKAGES = ("cluster", "datasets", "embedders", "inspection", "metrics", "utils")

__all__ = sorted(_PUBLIC)


def __getattr__(name):
    if name in _PUBLIC:
        value = getattr(importlib.import_module(f".{_PUBLIC[name]}", __name__), name)
    elif name in _SUBPACKAGES:
        value = importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # the next access does not come here
    return value


def __dir__():
    return sorted([*globals(), *_PUBLIC, *_SUBPACKAGES])

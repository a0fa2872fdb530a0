"""Clustering long documents without labels, the scikit-learn way."""

__version__ = "0.1.0.dev0"

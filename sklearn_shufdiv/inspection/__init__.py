"""What each cluster is about: its top terms and its most representative documents.

- :func:`class_tfidf`: a class-based TF-IDF (c-TF-IDF, as BERTopic computes it): one
  row of term weights per cluster, from the counts of the cluster's documents;
- :func:`cluster_top_terms`: the highest-weighted terms of each cluster;
- :func:`representative_documents`: the documents closest to each cluster's centroid.

The command line prints both in its summary and writes them to ``--report``.
"""

from ._describe import class_tfidf, cluster_top_terms, representative_documents

__all__ = ["class_tfidf", "cluster_top_terms", "representative_documents"]

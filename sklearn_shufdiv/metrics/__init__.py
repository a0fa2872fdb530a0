"""Metrics and scorers for clusterings: accuracy against labels, silhouette without.

With labels:

- :func:`clustering_accuracy`: accuracy under the best one-to-one matching of
  clusters to classes; :func:`match_clusters_to_classes`: that matching, as a dict;
- ``clustering_accuracy_scorer``: the same as a scorer; needs ``y``.

Without labels:

- ``silhouette_scorer`` and :func:`make_silhouette_scorer`: the silhouette of the
  clusters in the space the clusterer sees (for a Pipeline,
  ``pipeline[:-1].transform(X)``), or with ``make_silhouette_scorer(space=...)`` in one
  fixed space for every candidate (needed when the candidates change the space, as an
  embedder's ``max_epochs`` does); -1.0 when undefined;
- :func:`cosine_silhouette`: the silhouette of given labels (NaN when undefined),
  which the scorers, the embedders' epoch selection and the command line all use.

Several scores at once:

- :func:`make_clustering_scorers`: one scorer giving the scores of several of the
  above from a single pass through the pipeline (one embedding of the documents per
  candidate of a grid search, instead of one per scorer).

Scorers are callables ``scorer(estimator, X, y=None) -> float`` for ``scoring=`` in
:class:`~sklearn.model_selection.GridSearchCV` and
:func:`~sklearn.model_selection.cross_validate`.

Examples
--------
Tune a clustering pipeline without labels: a grid search scored by silhouette, on a
single split that trains and scores on all the data.

>>> import numpy as np
>>> from sklearn.cluster import KMeans
>>> from sklearn.datasets import make_blobs
>>> from sklearn.decomposition import TruncatedSVD
>>> from sklearn.model_selection import GridSearchCV
>>> from sklearn.pipeline import make_pipeline
>>> from sklearn_shufdiv.metrics import clustering_accuracy, silhouette_scorer
>>> X, y = make_blobs(n_samples=300, centers=6 * np.eye(3, 8), random_state=0)
>>> pipe = make_pipeline(TruncatedSVD(n_components=4, random_state=0),
...                      KMeans(n_init=4, random_state=0))
>>> all_idx = np.arange(len(X))
>>> search = GridSearchCV(pipe, {"kmeans__n_clusters": [2, 3, 4, 5]},
...                       scoring=silhouette_scorer, cv=[(all_idx, all_idx)]).fit(X)
>>> search.best_params_
{'kmeans__n_clusters': 3}
>>> clustering_accuracy(y, search.predict(X))
1.0
"""

from ._accuracy import clustering_accuracy, match_clusters_to_classes
from ._multi_scorer import make_clustering_scorers
from ._scorers import clustering_accuracy_scorer, make_silhouette_scorer, silhouette_scorer
from ._silhouette import cosine_silhouette

__all__ = [
    "clustering_accuracy",
    "clustering_accuracy_scorer",
    "cosine_silhouette",
    "make_clustering_scorers",
    "make_silhouette_scorer",
    "match_clusters_to_classes",
    "silhouette_scorer",
]

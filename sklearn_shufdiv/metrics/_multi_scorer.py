"""Several clustering scores of one fitted candidate from one pass through its pipeline.

Given as a dict, ``scoring={"a": scorer_a, "b": scorer_b}``, scikit-learn calls each
scorer on its own, and each one computes the clusters again: for a pipeline that embeds
documents, one embedding of all the documents per scorer. The scorer made here computes
the clusterer's space and the clusters once per call and gives every score from them.
"""

from ..utils._param_validation import validate_params
from ._scorers import (
    _clusterer_space_and_labels,
    _ClusteringAccuracyScorer,
    _SilhouetteScorer,
)

__all__ = ["make_clustering_scorers"]

#: The scorers that can score clusters computed once for all of them.
_SHARING = (_ClusteringAccuracyScorer, _SilhouetteScorer)


class _ClusteringScorers:
    """Scorer returning a dict of scores; made by :func:`make_clustering_scorers`.

    Examples
    --------
    >>> from sklearn_shufdiv.metrics import make_clustering_scorers, silhouette_scorer
    >>> make_clustering_scorers({"silhouette": silhouette_scorer})
    make_clustering_scorers({'silhouette': make_silhouette_scorer(metric='cosine', \
sample_size=None, random_state=None)})
    """

    def __init__(self, scorers):
        self.scorers = scorers

    def __call__(self, estimator, X, y=None):
        """Every score of ``estimator``'s clusters for ``X``.

        Parameters
        ----------
        estimator : object
            A fitted clusterer, or a Pipeline ending in one.

        X : array-like or sparse matrix of shape (n_samples, ...)
            The data to cluster.

        y : array-like of shape (n_samples,), default=None
            True class labels, for the scorers that need them.

        Returns
        -------
        scores : dict
            The score of each scorer, by the names given.
        """
        if any(isinstance(scorer, _SHARING) for scorer in self.scorers.values()):
            Xt, labels = _clusterer_space_and_labels(estimator, X)
        scores = {}
        for name, scorer in self.scorers.items():
            if isinstance(scorer, _SHARING):
                scores[name] = scorer._score(X, Xt, labels, y)
            else:
                scores[name] = scorer(estimator, X, y)
        return scores

    def __repr__(self):
        return f"make_clustering_scorers({self.scorers!r})"


@validate_params({"scorers": [dict]})
def make_clustering_scorers(scorers):
    """Make one scorer that gives several scores of a clustering from one pass.

    ``scoring={"silhouette": silhouette_scorer, "acc": clustering_accuracy_scorer}``
    in a grid search makes each scorer compute the clusters of ``X`` on its own: for a
    pipeline that embeds documents, every scorer embeds all of them again.
    ``scoring=make_clustering_scorers({...})`` with the same dict gives the same scores
    from a single pass: the clusterer's space, ``pipeline[:-1].transform(X)``, and the
    clusters are computed once per candidate and shared by this package's scorers
    (:data:`silhouette_scorer`, :func:`make_silhouette_scorer`,
    :data:`clustering_accuracy_scorer`). Nothing is kept between calls, so a refitted
    estimator is never scored from stale clusters.

    Parameters
    ----------
    scorers : dict of str to callable
        The scores to compute, by name: each value a scorer
        ``scorer(estimator, X, y=None) -> float``. Scorers from other packages are
        welcome, but are called as they are (each computes the clusters again).

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y=None) -> dict``: the score of each scorer by its
        name. Given as ``scoring=`` to :class:`~sklearn.model_selection.GridSearchCV`,
        the results hold ``mean_test_<name>`` for each name, and ``refit`` takes the
        name to choose by.

    See Also
    --------
    make_silhouette_scorer : The silhouette, in the clusterer's space or a fixed one.
    clustering_accuracy_scorer : The accuracy against true labels.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.cluster import KMeans
    >>> from sklearn.datasets import make_blobs
    >>> from sklearn.decomposition import TruncatedSVD
    >>> from sklearn.model_selection import GridSearchCV
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn_shufdiv.metrics import (
    ...     clustering_accuracy_scorer, make_clustering_scorers, silhouette_scorer)
    >>> X, y = make_blobs(n_samples=300, centers=6 * np.eye(3, 8), random_state=0)
    >>> pipe = make_pipeline(TruncatedSVD(n_components=4, random_state=0),
    ...                      KMeans(n_init=4, random_state=0))
    >>> scoring = make_clustering_scorers({"silhouette": silhouette_scorer,
    ...                                    "acc": clustering_accuracy_scorer})
    >>> all_idx = np.arange(len(X))
    >>> search = GridSearchCV(pipe, {"kmeans__n_clusters": [2, 3, 4]}, scoring=scoring,
    ...                       refit="silhouette", cv=[(all_idx, all_idx)]).fit(X, y)
    >>> search.best_params_
    {'kmeans__n_clusters': 3}
    >>> search.cv_results_["mean_test_acc"].round(2)
    array([0.67, 1.  , 0.85])
    """
    if not scorers:
        raise ValueError(
            "make_clustering_scorers: scorers is empty; give at least one, e.g. "
            "{'silhouette': silhouette_scorer}.")
    for name, scorer in scorers.items():
        if not isinstance(name, str):
            raise TypeError(
                f"make_clustering_scorers: the names of scorers must be str (they become "
                f"the keys of the scores); got {name!r}.")
        if not callable(scorer):
            raise TypeError(
                f"make_clustering_scorers: scorers[{name!r}] must be a scorer, a callable "
                f"scorer(estimator, X, y=None); got {scorer!r}.")
    return _ClusteringScorers(dict(scorers))

"""Scorers for clusterers and pipelines ending in one.

A scorer is a callable ``scorer(estimator, X, y=None) -> float``, greater is better,
usable as ``scoring=`` in :class:`~sklearn.model_selection.GridSearchCV`,
:func:`~sklearn.model_selection.cross_validate` and friends.

``clustering_accuracy_scorer``
    Needs the true labels ``y``: the :func:`clustering_accuracy` of the estimator's
    clusters for ``X``.

``silhouette_scorer``, ``make_silhouette_scorer(...)``
    Needs no labels: the silhouette of the clusters in the space the clusterer sees.
    With a single split that trains and scores on all the data,
    ``cv=[(all_idx, all_idx)]``, it lets a grid search tune a clustering pipeline
    without any labels (see :func:`make_silhouette_scorer`).

Cluster labels for ``X`` come from the estimator's ``predict`` (a Pipeline has one
when its last step does). Transductive clusterers without ``predict``
(:class:`~sklearn.cluster.AgglomerativeClustering`, :class:`~sklearn.cluster.DBSCAN`,
...) are scored from the ``labels_`` they got in ``fit``, which is only meaningful
when ``X`` is the data they were fitted on, as with ``cv=[(all_idx, all_idx)]``;
a length mismatch raises an error.
"""

import pickle

import joblib
import numpy as np
from sklearn.base import clone
from sklearn.pipeline import Pipeline

from ..utils._param_validation import HasMethods, validate_params
from ._accuracy import clustering_accuracy
from ._silhouette import SILHOUETTE_PARAMETERS, cosine_silhouette

__all__ = ["clustering_accuracy_scorer", "make_silhouette_scorer", "silhouette_scorer"]

#: Score given by the silhouette scorers when the silhouette is undefined: fewer than
#: 2 clusters, or as many clusters as samples (in the sample scored). It is the worst
#: silhouette, so a grid search moves on to other candidates instead of failing.
UNDEFINED_SILHOUETTE = -1.0


def _n_samples(X):
    return X.shape[0] if hasattr(X, "shape") else len(X)


def _labels_from_fit(clusterer, n_samples):
    """The ``labels_`` of a clusterer without ``predict``, checked against ``X``."""
    labels = getattr(clusterer, "labels_", None)
    if labels is None:
        raise TypeError(
            f"Cannot get cluster labels from {clusterer!r}: it has neither a predict "
            "method nor a labels_ attribute. Is it a fitted clusterer (or a Pipeline "
            "ending in one)?"
        )
    labels = np.asarray(labels)
    if labels.shape[0] != n_samples:
        raise ValueError(
            f"{type(clusterer).__name__} has no predict method, so it is scored from the "
            f"labels_ it got in fit, which cover {labels.shape[0]} samples, but X has "
            f"{n_samples}. Such transductive clusterers can only be scored on the data "
            "they were fitted on: in a grid search, use a single split that trains and "
            "scores on all the data, cv=[(all_idx, all_idx)]."
        )
    return labels


def _predict_labels(estimator, X):
    """Cluster labels of ``X``: ``estimator.predict(X)``, else the fitted ``labels_``."""
    if hasattr(estimator, "predict"):
        return estimator.predict(X)
    clusterer = estimator[-1] if isinstance(estimator, Pipeline) else estimator
    return _labels_from_fit(clusterer, _n_samples(X))


def _clusterer_space_and_labels(estimator, X):
    """The data the final clusterer sees, and its cluster labels."""
    if isinstance(estimator, Pipeline):
        clusterer = estimator[-1]
        Xt = estimator[:-1].transform(X) if len(estimator) > 1 else X
    else:
        clusterer, Xt = estimator, X
    if hasattr(clusterer, "predict"):
        labels = clusterer.predict(Xt)
    else:
        labels = _labels_from_fit(clusterer, _n_samples(Xt))
    return Xt, np.asarray(labels).reshape(-1)


class _ClusteringAccuracyScorer:
    """Scorer: :func:`clustering_accuracy` of an estimator's clusters against ``y``.

    Use the ready instance ``clustering_accuracy_scorer``. Cluster labels come from
    ``estimator.predict(X)``, or for clusterers without ``predict`` from their
    fitted ``labels_`` (``X`` must then be the training data).

    See Also
    --------
    clustering_accuracy : The metric.
    sklearn.metrics.make_scorer : ``make_scorer(clustering_accuracy)`` scores the
        same for clusterers with ``predict`` (but needs ``y`` as a positional
        argument, and fails on clusterers without ``predict``).

    Examples
    --------
    >>> from sklearn.cluster import KMeans
    >>> from sklearn.datasets import make_blobs
    >>> from sklearn.model_selection import cross_validate
    >>> from sklearn_shufdiv.metrics import clustering_accuracy_scorer
    >>> X, y = make_blobs(n_samples=150, centers=3, random_state=0)
    >>> kmeans = KMeans(n_clusters=3, n_init=4, random_state=0).fit(X)
    >>> round(clustering_accuracy_scorer(kmeans, X, y), 2)
    0.91
    >>> scores = cross_validate(kmeans, X, y, cv=3, scoring=clustering_accuracy_scorer)
    >>> bool(scores["test_score"].min() > 0.8)
    True
    """

    def __call__(self, estimator, X, y=None, sample_weight=None):
        """Clustering accuracy of ``estimator``'s clusters for ``X`` against ``y``.

        Parameters
        ----------
        estimator : object
            A fitted clusterer, or a Pipeline ending in one.

        X : array-like or sparse matrix of shape (n_samples, ...)
            The data to cluster.

        y : array-like of shape (n_samples,)
            True class labels. Required: a ValueError says so when it is missing.

        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights passed on to :func:`clustering_accuracy`.

        Returns
        -------
        score : float
            The clustering accuracy, in ``(0, 1]``.
        """
        if y is None:  # before the clusters are computed
            self._score(X, None, None, y)
        labels = _predict_labels(estimator, X)
        return self._score(X, None, labels, y, sample_weight=sample_weight)

    def _score(self, X, Xt, labels, y, sample_weight=None):
        """The score of given cluster ``labels`` of ``X``; ``Xt`` is not needed."""
        if y is None:
            raise ValueError(
                "clustering_accuracy_scorer needs the true labels y. To score a "
                "clustering without labels, use silhouette_scorer."
            )
        return clustering_accuracy(y, labels, sample_weight=sample_weight)

    def __repr__(self):
        return "clustering_accuracy_scorer"

    def __reduce__(self):
        # Unpickle to the module's instance.
        return "clustering_accuracy_scorer"


class _SilhouetteScorer:
    """Scorer: silhouette of a clustering, in the clusterer's space or in a fixed one.

    Made by :func:`make_silhouette_scorer`, which documents the parameters.

    Examples
    --------
    >>> from sklearn_shufdiv.metrics import make_silhouette_scorer
    >>> make_silhouette_scorer(sample_size=1000, random_state=0)
    make_silhouette_scorer(metric='cosine', sample_size=1000, random_state=0)
    """

    def __init__(self, metric="cosine", sample_size=None, random_state=None, space=None):
        self.metric = metric
        self.sample_size = sample_size
        self.random_state = random_state
        self.space = space
        self._fitted_space = None  # (fingerprint of the space and X, its rows for X)

    def _fixed_space(self, X):
        """The rows of ``space`` for ``X``: the array itself, or a clone of the
        transformer fitted on ``X`` (once per distinct ``X`` and parameters of the
        transformer, remembered)."""
        n_samples = _n_samples(X)
        if not hasattr(self.space, "fit_transform"):
            rows = self.space
            if _n_samples(rows) != n_samples:
                raise ValueError(
                    f"make_silhouette_scorer: space has {_n_samples(rows)} rows but X has "
                    f"{n_samples} samples. An array given as space must hold the rows of "
                    "the very samples scored: in a grid search, use a single split that "
                    "trains and scores on all the data, cv=[(all_idx, all_idx)], or give "
                    "a transformer (fitted on X by the scorer) instead.")
            return rows
        # What a clone of the space depends on: its class and parameters (set_params on
        # the scorer's space, or another space assigned, fits again), and the data.
        try:
            key = joblib.hash((type(self.space), self.space.get_params(deep=True), X))
        except (pickle.PicklingError, TypeError, AttributeError):
            key = None  # parameters that cannot be fingerprinted (a lambda): fit every time
        if key is None or self._fitted_space is None or self._fitted_space[0] != key:
            self._fitted_space = (key, clone(self.space).fit_transform(X))
        return self._fitted_space[1]

    def __call__(self, estimator, X, y=None):
        """Silhouette of ``estimator``'s clusters for ``X``; ``y`` is ignored.

        Parameters
        ----------
        estimator : object
            A fitted clusterer, or a Pipeline ending in one.

        X : array-like or sparse matrix of shape (n_samples, ...)
            The data to cluster.

        y : None
            Ignored: accepted for the scorer protocol.

        Returns
        -------
        score : float
            The mean silhouette coefficient, in ``[-1, 1]``, or
            ``UNDEFINED_SILHOUETTE`` (-1.0) when fewer than 2 clusters, or as many
            clusters as samples, are scored.

        Examples
        --------
        >>> from sklearn.cluster import KMeans
        >>> from sklearn.datasets import make_blobs
        >>> from sklearn_shufdiv.metrics import silhouette_scorer
        >>> X, _ = make_blobs(n_samples=100, centers=[[5, 0], [0, 5]], random_state=0)
        >>> kmeans = KMeans(n_clusters=2, n_init=4, random_state=0).fit(X)
        >>> round(silhouette_scorer(kmeans, X), 2)
        0.96
        >>> silhouette_scorer(KMeans(n_clusters=1, n_init=1).fit(X), X)  # undefined
        -1.0
        """
        Xt, labels = _clusterer_space_and_labels(estimator, X)
        return self._score(X, Xt, labels)

    def _score(self, X, Xt, labels, y=None):
        """The score of given cluster ``labels`` of ``X``, whose rows in the clusterer's
        space are ``Xt``."""
        if self.space is not None:
            Xt = self._fixed_space(X)
        score = cosine_silhouette(Xt, labels, metric=self.metric,
                                  sample_size=self.sample_size, random_state=self.random_state)
        return UNDEFINED_SILHOUETTE if np.isnan(score) else score

    def __repr__(self):
        space = "" if self.space is None else (
            f", space={type(self.space).__name__}" + ("(...)" if hasattr(
                self.space, "fit_transform") else f" of shape {np.shape(self.space)}"))
        return (
            f"make_silhouette_scorer(metric={self.metric!r}, "
            f"sample_size={self.sample_size!r}, random_state={self.random_state!r}{space})"
        )

    def __getstate__(self):
        # A pickled scorer (one per process of a parallel search) refits its space.
        return {**self.__dict__, "_fitted_space": None}


@validate_params({**SILHOUETTE_PARAMETERS,
                  "space": [None, HasMethods(["fit_transform"]), "array-like",
                            "sparse matrix"]})
def make_silhouette_scorer(metric="cosine", sample_size=None, random_state=None, space=None):
    """Make a scorer: silhouette of a clustering, without labels.

    The scorer, ``scorer(estimator, X, y=None) -> float``, computes the cluster labels
    of ``X`` and their silhouette (:func:`sklearn.metrics.silhouette_score`) in one of
    two spaces:

    - ``space=None``: the space the clusterer sees. For a Pipeline ending in a
      clusterer, the output of all the steps but the last, ``pipeline[:-1].transform(X)``;
      for a bare clusterer, ``X`` itself. Suited to comparing clusterers of one space
      (``n_clusters``, the clustering algorithm).
    - ``space`` given: one fixed space for every candidate. Needed to compare
      candidates that change the space itself, such as an embedder's ``max_epochs``:
      contrastive training tightens the space it produces, which raises the silhouette
      of any clustering of it, good or bad, so the first way favours the longest
      training. Scored in one space, each candidate is judged by its partition alone.
      ``space`` is a transformer, such as the untuned embedder
      ``ShuffleDivideEmbedder(model, max_epochs=0)`` (what the embedders' epoch
      selection, ``selection="untuned-silhouette"``, scores in); the scorer fits a clone
      of it on ``X`` once and reuses its output for every candidate scored on the same
      ``X`` (a parallel search fits it once per process). Or an array of the space's
      rows for the samples scored.

    Labels come from the clusterer's ``predict``; clusterers without ``predict``
    are scored from their fitted ``labels_``, so ``X`` must then be the data they
    were fitted on. Every distinct label is a cluster (noise labels such as ``-1``
    included). The silhouette is undefined with a single cluster, or with as many
    clusters as samples: the scorer then returns -1.0, the worst silhouette, rather
    than raising, so that a grid search goes on with the other candidates.

    Parameters
    ----------
    metric : str or callable, default="cosine"
        Distance metric, as for :func:`sklearn.metrics.silhouette_score`. Cosine
        suits (unnormalised) text embeddings and spherical k-means.

    sample_size : int, default=None
        If given, the silhouette is computed on a random sample of this many points,
        which bounds its quadratic cost on large data. None uses all points.

    random_state : int, RandomState instance or None, default=None
        Draws the sample when ``sample_size`` is set. An int gives the same sample
        on every call (the sample :func:`sklearn.metrics.silhouette_score` draws
        with the same arguments).

    space : None, transformer or array-like of shape (n_samples, n_features), \
            default=None
        Where the silhouette is computed: None, the clusterer's own space; a
        transformer (unfitted: the scorer fits a clone on ``X``); or the rows of a
        fixed space for the ``X`` scored.

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y=None) -> float``; ``y`` is ignored.

    See Also
    --------
    silhouette_scorer : The scorer with the default parameters.
    sklearn.metrics.silhouette_score : The silhouette coefficient.

    Notes
    -----
    Clustering is transductive: a grid search trains and scores on all the data, with
    a single split ``cv=[(all_idx, all_idx)]``. With ``refit=True`` (the default),
    :class:`~sklearn.model_selection.GridSearchCV` fits the best candidate once more
    on all the data after the search, one more training of an embedder. To choose an
    embedder's ``max_epochs``, its own epoch selection (``n_clusters`` set) scores
    every epoch of a single fit in the untuned space and keeps the chosen weights: one
    training in all, instead of one per candidate plus the refit.

    Examples
    --------
    A grid search over the number of SVD components: each candidate clusters a
    different space. In its own space, one component scores best (a 1-d space splits
    cleanly whatever the split); in a fixed space, the data standardised, the
    candidate that finds the blobs wins.

    >>> import numpy as np
    >>> from sklearn.cluster import KMeans
    >>> from sklearn.decomposition import PCA
    >>> from sklearn.model_selection import GridSearchCV
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_shufdiv.metrics import clustering_accuracy, make_silhouette_scorer
    >>> rng = np.random.RandomState(0)
    >>> y = np.repeat([0, 1, 2], 50)
    >>> X = np.hstack([4 * np.eye(3)[y] + rng.normal(size=(150, 3)),
    ...                rng.uniform(-5, 5, size=(150, 1))])  # a wide dimension, no blobs
    >>> pipe = make_pipeline(PCA(random_state=0),
    ...                      KMeans(n_clusters=3, n_init=4, random_state=0))
    >>> grid = {"pca__n_components": [1, 4]}
    >>> all_idx = np.arange(len(X))
    >>> own = make_silhouette_scorer(metric="euclidean")
    >>> fixed = make_silhouette_scorer(metric="euclidean", space=StandardScaler())
    >>> for scorer in (own, fixed):
    ...     search = GridSearchCV(pipe, grid, scoring=scorer, cv=[(all_idx, all_idx)]).fit(X)
    ...     print(search.best_params_, round(clustering_accuracy(y, search.predict(X)), 2))
    {'pca__n_components': 1} 0.39
    {'pca__n_components': 4} 0.99
    """
    return _SilhouetteScorer(metric=metric, sample_size=sample_size, random_state=random_state,
                             space=space)


#: Scorer: the clustering accuracy of an estimator's clusters against ``y``
#: (see :class:`_ClusteringAccuracyScorer`).
clustering_accuracy_scorer = _ClusteringAccuracyScorer()

#: Scorer: cosine silhouette of a clustering in the space the clusterer sees, on all
#: samples; ``make_silhouette_scorer()`` (see :func:`make_silhouette_scorer`).
silhouette_scorer = make_silhouette_scorer()

"""Spherical k-means: k-means with cosine similarity, as an estimator and a function."""

from numbers import Integral, Real

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    ClusterMixin,
    TransformerMixin,
)
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from ..utils._param_validation import Interval, Options, fit_context, validate_params
from ._lloyd import assign, cosines, inertia, lloyd, minibatch_step, warn_if_clusters_missing
from ._n_clusters import DEFAULT_K_SELECTION, K_PARAMETERS, select_n_clusters
from ._numerics import check_rows, check_sample_weight, scaled_rows
from ._seeding import initial_centers, resolve_n_init

_PARAMETER_CONSTRAINTS = {
    "n_clusters": [Interval(Integral, 1, None, closed="left"), Options({"auto"})],
    **K_PARAMETERS,
    "init": [Options({"k-means++", "random"}), "array-like"],
    "n_init": [Options({"auto"}), Interval(Integral, 1, None, closed="left")],
    "max_iter": [Interval(Integral, 1, None, closed="left")],
    "tol": [Interval(Real, 0, None, closed="left")],
    "verbose": [Interval(Integral, 0, None, closed="left"), "boolean"],
    "random_state": ["random_state"],
}


class SphericalKMeans(ClassNamePrefixFeaturesOutMixin, TransformerMixin, ClusterMixin,
                      BaseEstimator):
    """K-means with cosine similarity (spherical k-means).

    Rows and centroids live on the unit sphere: each row is assigned to the centroid of
    largest cosine similarity, and each centroid is the normalised (weighted) mean of the
    unit rows assigned to it. Suited to TF-IDF vectors and text embeddings. Dense and CSR
    input; float32 stays float32. :meth:`partial_fit` gives mini-batch learning for data
    that does not fit in memory. :func:`spherical_kmeans` is the same as a function.

    Edge cases: only the direction of a row matters (rows of huge or tiny norm are
    rescaled in a copy, never in X). An all-zero row (an empty document) has cosine 0 to
    every centroid, so it goes to cluster 0 with distance 1 and never moves a centroid. A
    cluster left empty is re-seeded at the row farthest from its centroid; when X has fewer
    distinct directions than ``n_clusters``, some clusters stay empty and a
    :class:`~sklearn.exceptions.ConvergenceWarning` says so, as :class:`~sklearn.cluster.
    KMeans` does for fewer distinct points. ``n_clusters > n_samples``, NaN or infinite
    values, negative or all-zero weights raise a ValueError.

    Parameters
    ----------
    n_clusters : int or "auto", default=8
        Number of clusters, or "auto": the one of ``k_range`` that ``k_selection``
        chooses without labels (see :func:`choose_n_clusters`, which says what it costs).
    init : {"k-means++", "random"} or array-like of shape (n_clusters, n_features), \
            default="k-means++"
        Seeding: greedy k-means++ with cosine distances ``1 - cos`` (as scikit-learn's
        ``kmeans_plusplus``, with dot products instead of Euclidean distances), rows drawn
        with probability proportional to weight, or given centers (normalised here).
    n_init : "auto" or int, default="auto"
        Number of seeded runs; the one of lowest inertia (the objective: no labels) is
        kept. "auto" is 10 runs for "k-means++" and "random", and 1
        for given centers: one run is a lottery on document embeddings, and the gain
        levels off at 10 (``benchmarks/results/kmeans_restarts.md``); with 10 or more
        clusters, raise ``n_init`` if time allows.
    max_iter : int, default=300
        Maximum number of iterations per run.
    tol : float, default=1e-4
        Convergence when, between two iterations, the inertia falls by at most ``tol``
        times its value, or the sum of squared shifts of the unit centroids is at most
        tol; a run also stops when no label changes. (scikit-learn's KMeans compares
        the centers' shift to ``tol`` times the mean variance of the features.)
    k_range : pair of int (min, max), default=None
        Candidates of ``n_clusters="auto"``, both included; None: 2 to 30, capped below
        the number of distinct directions. Ignored for an int ``n_clusters``.
    k_selection : "stability" or NClustersCriterion, default="stability"
        Criterion of ``n_clusters="auto"`` (see :func:`choose_n_clusters`).
    verbose : int, default=0
        Print the inertia at each iteration.
    random_state : int, RandomState instance or None, default=None
        Seeds the initialisation (and the choice of ``n_clusters="auto"``). Pass an int
        for reproducible results.

    Attributes
    ----------
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        Unit-norm centroids, in the dtype of the training data.
    labels_ : ndarray of shape (n_samples,)
        Cluster of each training row (of the last batch after :meth:`partial_fit`).
    inertia_ : float
        Sum of ``sample_weight * (1 - cos(row, its centroid))`` over the training rows (over
        the last batch after :meth:`partial_fit`).
    n_iter_ : int
        Number of iterations of the best run (set by :meth:`fit`).
    n_clusters_ : int
        Number of clusters: ``n_clusters``, or the one chosen by "auto".
    n_clusters_scores_ : :class:`~sklearn.utils.Bunch` or None
        With "auto", the scores of every candidate, arrays aligned with
        ``n_clusters_scores_.k``, ready to plot (as :func:`choose_n_clusters` returns
        them); None for an int ``n_clusters``.
    n_steps_ : int
        Number of :meth:`partial_fit` calls since the model was seeded.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during fit, when X has string column names.

    See Also
    --------
    spherical_kmeans : The same as a function.
    sklearn.cluster.KMeans : Euclidean k-means.

    Notes
    -----
    Each iteration is one pass over blocks of rows of X: the product ``X_block @ centers.T``
    gives the labels, and only the rows whose label changed are moved between the cluster
    sums. Once few labels change, a Hamerly-style bound (a center moving by ``delta``
    changes a cosine by at most ``delta``) limits the product to the rows whose label may
    change; the last pass scores all rows, so the result is that of plain Lloyd iterations.
    Rows are never normalised in place (their inverse norms are folded into the products).
    The k-means++ seeding draws from a weighted systematic sample of
    ``max(4096, 256 * n_clusters)`` rows, so that it costs about one iteration; draws are
    made so that an integer weight ``w`` gives exactly the result of ``w`` repeated rows.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_shufdiv.cluster import SphericalKMeans
    >>> X = np.array([[1.0, 0.1], [2.0, 0.0], [0.1, 1.0], [0.0, 3.0]])
    >>> skm = SphericalKMeans(n_clusters=2, random_state=0).fit(X)
    >>> skm.labels_[0] == skm.labels_[1] != skm.labels_[2] == skm.labels_[3]
    np.True_
    >>> np.sort(skm.transform([[3.0, 0.0]]).round(2))  # cosine distances to the centroids
    array([[0.  , 0.95]])
    >>> np.array_equal(skm.predict([[5.0, 1.0], [0.0, 1.0]]), skm.labels_[[0, 2]])
    True
    >>> SphericalKMeans("auto", k_range=(2, 3), random_state=0).fit(X).n_clusters_
    2
    """

    _parameter_constraints = _PARAMETER_CONSTRAINTS

    def __init__(self, n_clusters=8, *, init="k-means++", n_init="auto", max_iter=300,
                 tol=1e-4, k_range=None, k_selection=DEFAULT_K_SELECTION, verbose=0,
                 random_state=None):
        self.n_clusters = n_clusters
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.k_range = k_range
        self.k_selection = k_selection
        self.verbose = verbose
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

    @property
    def _n_features_out(self):
        return self.cluster_centers_.shape[0]

    def _validate_X(self, X, *, reset):
        """Validated X, with extreme rows rescaled (in a copy), and its inverse row norms."""
        X = validate_data(self, X, accept_sparse="csr", dtype=[np.float64, np.float32],
                          order="C", reset=reset)
        return scaled_rows(X)

    def _n_clusters(self, X, inv_norm, weights, random_state):
        """``(n_clusters_, n_clusters_scores_)``: the given int, or the search's choice."""
        return select_n_clusters(X, inv_norm, weights, n_clusters=self.n_clusters,
                                 init=self.init, k_range=self.k_range,
                                 k_selection=self.k_selection, random_state=random_state,
                                 verbose=self.verbose)

    @fit_context()
    def fit(self, X, y=None, sample_weight=None):
        """Compute the clustering: the best of ``n_init`` seeded runs.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training rows; only their direction matters.
        y : Ignored
            Not used, present for API consistency.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; weight ``w`` is equivalent to ``w`` repeated rows.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        X, inv_norm = self._validate_X(X, reset=True)
        weights = check_sample_weight(sample_weight, X.shape[0], X.dtype)
        check_rows(X, inv_norm, weights, self.n_clusters)
        random_state = check_random_state(self.random_state)
        self.n_clusters_, self.n_clusters_scores_ = self._n_clusters(
            X, inv_norm, weights, random_state)
        best, tie = None, 8 * np.finfo(X.dtype).eps
        for run in range(resolve_n_init(self.n_init, self.init)):
            centers = initial_centers(X, inv_norm, weights, self.n_clusters_, self.init,
                                      random_state)
            if self.verbose:
                print(f"Initialization complete (run {run + 1}).")
            result = lloyd(X, inv_norm, weights, centers, max_iter=self.max_iter, tol=self.tol,
                           verbose=self.verbose)
            # Replace the best run only beyond rounding (a few units in the last place), so
            # that runs reaching one optimum with permuted labels do not swap places.
            if best is None or result.inertia < best.inertia * (1 - tie):
                best = result
        warn_if_clusters_missing(best.labels, best.similarity, weights * (inv_norm > 0),
                                  self.n_clusters_, X.dtype)
        self.cluster_centers_, self.labels_, self._sums = best.centers, best.labels, best.sums
        self.inertia_, self.n_iter_, self.n_steps_ = best.inertia, best.n_iter, 0
        return self

    @fit_context()
    def partial_fit(self, X, y=None, sample_weight=None):
        """Update the clustering with one mini-batch (online spherical k-means).

        The first call seeds the centroids with ``init`` on that batch (with
        ``n_clusters="auto"``, it also chooses their number on that batch alone: make it
        a representative one, or choose on a sample with :func:`choose_n_clusters` and
        pass an int). Each call assigns
        the batch to the current centroids, adds it to running per-cluster sums and
        weights (as MiniBatchKMeans does) and renormalises the sums into centroids.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            One batch of rows.
        y : Ignored
            Not used, present for API consistency.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights of the batch rows.

        Returns
        -------
        self : object
            Updated estimator.
        """
        first_call = not hasattr(self, "cluster_centers_")
        X, inv_norm = self._validate_X(X, reset=first_call)
        weights = check_sample_weight(sample_weight, X.shape[0], X.dtype)
        if first_call:
            check_rows(X, inv_norm, weights, self.n_clusters)
            random_state = check_random_state(self.random_state)
            self.n_clusters_, self.n_clusters_scores_ = self._n_clusters(
                X, inv_norm, weights, random_state)
            self.cluster_centers_ = initial_centers(X, inv_norm, weights, self.n_clusters_,
                                                    self.init, random_state)
            self._sums = np.zeros(self.cluster_centers_.shape, dtype=np.float64)
            self.n_steps_ = 0
        centers = self.cluster_centers_.astype(X.dtype)  # a copy: later batches may differ
        self.cluster_centers_ = minibatch_step(X, inv_norm, weights, centers, self._sums)
        self.labels_, similarity = assign(X, inv_norm, self.cluster_centers_)
        self.inertia_ = inertia(weights, similarity)
        self.n_steps_ += 1
        return self

    def predict(self, X):
        """Return the index of the most similar centroid of each row.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to assign; all-zero rows go to cluster 0.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            Cluster index of each row.
        """
        check_is_fitted(self)
        X, inv_norm = self._validate_X(X, reset=False)
        return assign(X, inv_norm, self._centers_like(X))[0]

    def transform(self, X):
        """Return the cosine distance ``1 - cos`` of each row to each centroid.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to transform; an all-zero row is at distance 1 from every centroid.

        Returns
        -------
        distances : ndarray of shape (n_samples, n_clusters)
            Cosine distances, in [0, 2].
        """
        check_is_fitted(self)
        X, inv_norm = self._validate_X(X, reset=False)
        return 1 - cosines(X, inv_norm, self._centers_like(X))

    def _centers_like(self, X):
        return self.cluster_centers_.astype(X.dtype, copy=False)

    def score(self, X, y=None, sample_weight=None):
        """Opposite of the inertia of X on the fitted centroids (larger is better).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to score.
        y : Ignored
            Not used, present for API consistency.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights.

        Returns
        -------
        score : float
            ``-sum(sample_weight * (1 - cos(row, nearest centroid)))``.
        """
        check_is_fitted(self)
        X, inv_norm = self._validate_X(X, reset=False)
        weights = check_sample_weight(sample_weight, X.shape[0], X.dtype)
        _, similarity = assign(X, inv_norm, self._centers_like(X))
        return -inertia(weights, similarity)


@validate_params({"X": ["array-like", "sparse matrix"], "sample_weight": ["array-like", Real, None],
                  "return_n_iter": ["boolean"], **_PARAMETER_CONSTRAINTS})
def spherical_kmeans(X, n_clusters, *, sample_weight=None, init="k-means++", n_init="auto",
                     max_iter=300, tol=1e-4, k_range=None, k_selection=DEFAULT_K_SELECTION,
                     verbose=0, random_state=None, return_n_iter=False):
    """Cluster the rows of X by cosine similarity (spherical k-means).

    A thin wrapper of :class:`SphericalKMeans`, as :func:`sklearn.cluster.k_means` is of
    :class:`~sklearn.cluster.KMeans`: ``SphericalKMeans(n_clusters, ...).fit(X,
    sample_weight=sample_weight)``, whose documentation says what each parameter does.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Data; only the direction of each row matters.
    n_clusters : int or "auto"
        Number of clusters (at most n_samples), or "auto" to choose it.
    sample_weight : array-like of shape (n_samples,) or float, default=None
        Non-negative weights; weight ``w`` is equivalent to ``w`` repeated rows.
    init : {"k-means++", "random"} or array-like of shape (n_clusters, n_features), \
            default="k-means++"
        Seeding.
    n_init : "auto" or int, default="auto"
        Number of seeded runs, the one of lowest inertia kept; "auto" is
        10 runs (measured, see :class:`SphericalKMeans`), or 1 for given
        centers.
    max_iter : int, default=300
        Maximum number of Lloyd iterations per run.
    tol : float, default=1e-4
        Convergence when the inertia falls by at most tol of itself, or the sum of
        squared shifts of the unit centroids is at most tol.
    k_range : pair of int (min, max), default=None
        Candidates of "auto" (None: 2 to 30, capped below the distinct directions).
    k_selection : "stability" or NClustersCriterion, default="stability"
        Criterion of "auto" (see :func:`choose_n_clusters`).
    verbose : int, default=0
        Print the inertia at each iteration.
    random_state : int, RandomState instance or None, default=None
        Seeds the initialisation.
    return_n_iter : bool, default=False
        Whether to also return the number of iterations of the best run.

    Returns
    -------
    centers : ndarray of shape (n_clusters, n_features)
        Unit-norm centroids, in the dtype of X (float32 stays float32).
    labels : ndarray of shape (n_samples,)
        Index of the most similar centroid of each row.
    inertia : float
        Sum over rows of ``sample_weight * (1 - cos(row, its centroid))``.
    n_iter : int
        Number of iterations of the best run; only if ``return_n_iter`` is True.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_shufdiv.cluster import spherical_kmeans
    >>> X = np.array([[1.0, 0.1], [2.0, 0.0], [0.1, 1.0], [0.0, 3.0]])
    >>> centers, labels, inertia = spherical_kmeans(X, n_clusters=2, random_state=0)
    >>> labels[0] == labels[1] != labels[2] == labels[3]
    np.True_
    >>> np.linalg.norm(centers, axis=1)
    array([1., 1.])
    """
    model = SphericalKMeans(n_clusters, init=init, n_init=n_init, max_iter=max_iter, tol=tol,
                            k_range=k_range, k_selection=k_selection, verbose=verbose,
                            random_state=random_state)
    model.fit(X, sample_weight=sample_weight)
    out = (model.cluster_centers_, model.labels_, model.inertia_)
    return out + (model.n_iter_,) if return_n_iter else out

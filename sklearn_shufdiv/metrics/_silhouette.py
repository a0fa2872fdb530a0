"""The cosine silhouette of a clustering: the one place the package computes it.

The epoch selection of the embedders, the silhouette scorers and the command line's
summary all score a clustering by this function, so that they agree to the last digit.
"""

from numbers import Integral

import numpy as np
from sklearn.metrics import silhouette_score
from sklearn.utils import check_array, check_consistent_length, check_random_state

from ..utils._param_validation import Interval, validate_params

__all__ = ["cosine_silhouette"]

#: Constraints of the silhouette's parameters, shared with ``make_silhouette_scorer``.
SILHOUETTE_PARAMETERS = {
    "metric": [str, "callable"],
    "sample_size": [Interval(Integral, 2, None), None],
    "random_state": ["random_state"],
}


# Not prefer_skip_nested_validation: silhouette_score checks the metric's name itself.
@validate_params({"X": ["array-like", "sparse matrix"], "labels": ["array-like"],
                  **SILHOUETTE_PARAMETERS}, prefer_skip_nested_validation=False)

def cosine_silhouette(X, labels, *, metric="cosine", sample_size=None, random_state=None):
    """Mean silhouette coefficient of a clustering; NaN where it is undefined.

    A thin wrapper of :func:`sklearn.metrics.silhouette_score` that returns NaN instead
    of raising when the silhouette is undefined (fewer than 2 clusters, or as many
    clusters as samples, in the sample scored), so that a caller decides what an
    undefined score means (the scorers give -1.0, the worst silhouette; the command
    line prints "n/a").

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The points that were clustered (or a precomputed distance matrix with
        ``metric="precomputed"``): an array, a list of rows, a DataFrame, or a sparse
        matrix of any format.
    labels : array-like of shape (n_samples,)
        Their clusters.
    metric : str or callable, default="cosine"
        Distance metric, as for :func:`sklearn.metrics.silhouette_score`.
    sample_size : int >= 2, default=None
        Score a random sample of this many points (the silhouette costs quadratic time);
        None, or a value of at least ``n_samples``, scores all of them.
    random_state : int, RandomState instance or None, default=None
        Draws the sample.

    Returns
    -------
    silhouette : float
        In ``[-1, 1]``, or NaN when undefined.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_shufdiv.metrics import cosine_silhouette
    >>> X = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])
    >>> round(cosine_silhouette(X, [0, 0, 1, 1]), 3)
    0.993
    >>> cosine_silhouette(X, [0, 0, 0, 0])
    nan
    """
    labels = np.asarray(labels).reshape(-1)
    n_samples = labels.shape[0]
    if sample_size is not None and sample_size < n_samples:
        # The sample silhouette_score(..., sample_size, random_state) would draw.
        indices = check_random_state(random_state).permutation(n_samples)[:sample_size]
        if not hasattr(X, "iloc"):
            # Rows of lists, tuples and every sparse format are taken from an array or
            # a CSR matrix (COO and DIA cannot be indexed).
            X = check_array(X, accept_sparse="csr", input_name="X")
        check_consistent_length(X, labels)
        X = X.iloc[indices] if hasattr(X, "iloc") else X[indices]
        if metric == "precomputed":
            X = X.iloc[:, indices] if hasattr(X, "iloc") else X[:, indices]
        labels = labels[indices]
    if not 2 <= np.unique(labels).shape[0] < labels.shape[0]:
        return float("nan")
    return float(silhouette_score(X, labels, metric=metric))

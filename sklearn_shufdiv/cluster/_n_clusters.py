"""The number of clusters without labels: :func:`choose_n_clusters`.

``SphericalKMeans(n_clusters="auto")`` calls the same search on its validated input
(:func:`select_n_clusters`); anything that needs a number of clusters and has none (an
embedder, the command line) calls :func:`choose_n_clusters` on its embeddings and reads
the chosen ``k`` and the per-candidate scores it returns.
"""

from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.utils import Bunch, check_array, check_random_state

from ..utils._param_validation import Interval, Options, validate_params
from ._k_criteria import CRITERIA, SMALLER_WINS
from ._k_sample import Sample
from ._numerics import check_sample_weight, scaled_rows

__all__ = ["DEFAULT_K_RANGE", "DEFAULT_K_SELECTION", "K_SELECTIONS", "choose_n_clusters"]

#: The criteria ``k_selection`` takes.
K_SELECTIONS = ("stability", "prediction_strength", "pac", "silhouette", "calinski_harabasz",
                "davies_bouldin", "jump", "bic", "eigengap", "gap")
#: The criterion used unless another is named.
DEFAULT_K_SELECTION = "stability"
#: Candidates of ``k_range=None``: 2 to 30, capped by the number of distinct samples.
DEFAULT_K_RANGE = (2, 30)
#: Draws of the sample the criteria work on.
DEFAULT_SAMPLE_SIZE = 2000

#: Constraints of the search's parameters, shared with ``SphericalKMeans``.
K_PARAMETERS = {
    "k_range": ["array-like", None],
    "k_selection": [Options(set(K_SELECTIONS))],
}


def count_distinct_rows(X, mass):
    """Number of distinct rows of X among those of positive ``mass``."""
    rows = np.flatnonzero(mass > 0)
    if sp.issparse(X):
        X = X[rows].tocsr()
        X.sum_duplicates()
        X.eliminate_zeros()
        return len({(X.indices[a:b].tobytes(), X.data[a:b].tobytes())
                    for a, b in zip(X.indptr[:-1], X.indptr[1:], strict=True)})
    X = np.ascontiguousarray(X[rows])
    X = X + 0.0  # -0.0 and 0.0 alike
    return np.unique(X.view(np.dtype((np.void, X.dtype.itemsize * X.shape[1])))).size


def resolve_k_range(k_range, n_distinct):
    """``(low, high)``: the checked candidates, inclusive.

    ``None`` is ``DEFAULT_K_RANGE`` capped by ``n_distinct``, the number of distinct
    samples (rows of positive weight, not all zero); a given pair must lie in
    ``[2, n_distinct]``.
    """
    if k_range is None:
        if n_distinct < 2:
            raise ValueError(
                f"n_samples={n_distinct} distinct sample(s): choosing the number of clusters "
                "(k_range from 2) needs at least 2 distinct non-zero rows of positive weight.")
        return DEFAULT_K_RANGE[0], min(DEFAULT_K_RANGE[1], n_distinct)
    pair = np.asarray(k_range, dtype=object).ravel()
    if pair.size != 2 or not all(isinstance(v, Integral) and not isinstance(v, bool)
                                 for v in pair):
        raise ValueError(f"k_range must be a pair of integers (min, max), both included; "
                         f"got {k_range!r}.")
    low, high = int(pair[0]), int(pair[1])
    if low < 2 or high < low:
        raise ValueError(f"k_range=({low}, {high}) must satisfy 2 <= min <= max: the "
                         "candidates are min, min + 1, ..., max, and one cluster is no choice.")
    if high > n_distinct:
        raise ValueError(f"k_range=({low}, {high}) goes beyond the {n_distinct} distinct "
                         f"samples (rows of positive weight, not all zero, duplicates counted "
                         f"once): lower its max to at most {n_distinct}.")
    return low, high


def select_n_clusters(X, inv_norm, weights, *, k_range=None, k_selection=DEFAULT_K_SELECTION,
                      sample_size=DEFAULT_SAMPLE_SIZE, random_state=None, verbose=0):
    """The search on validated input (see :func:`choose_n_clusters`): ``(k, scores)``."""
    low, high = resolve_k_range(k_range, count_distinct_rows(X, weights * (inv_norm > 0)))
    random_state = check_random_state(random_state)
    ks = np.arange(low, high + 1)
    if low == high:
        return low, Bunch(k=ks, score=np.full(1, np.nan), criterion=k_selection,
                          n_clusters=low, runner_up=None)
    sample = Sample(X, inv_norm, weights, sample_size, random_state)
    arrays, chosen = CRITERIA[k_selection](sample, ks, random_state, verbose)
    best_first = arrays["score"] if k_selection in SMALLER_WINS else -arrays["score"]
    ranked = ks[np.argsort(np.nan_to_num(best_first, nan=np.inf), kind="stable")]
    runner_up = int(next(k for k in ranked if k != chosen))
    return chosen, Bunch(k=ks, **arrays, criterion=k_selection, n_clusters=chosen,
                         runner_up=runner_up)


@validate_params({"X": ["array-like", "sparse matrix"], "sample_weight": ["array-like", None],
                  "sample_size": [Interval(Integral, 2, None, closed="left")],
                  "random_state": ["random_state"],
                  "verbose": [Interval(Integral, 0, None, closed="left"), "boolean"],
                  **K_PARAMETERS}, prefer_skip_nested_validation=True)
def choose_n_clusters(X, *, k_range=None, k_selection=DEFAULT_K_SELECTION, sample_weight=None,
                      sample_size=DEFAULT_SAMPLE_SIZE, random_state=None, verbose=0):
    """Choose the number of spherical k-means clusters of X without labels.

    Each candidate ``k`` of ``k_range`` is scored by one label-free criterion on a
    weighted sample of at most ``sample_size`` rows, and the criterion's rule picks one.
    This is what ``SphericalKMeans(n_clusters="auto")`` does before its fit.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Rows; only their direction matters.
    k_range : pair of int (min, max), default=None
        The candidates ``min, min + 1, ..., max`` (both included, ``2 <= min``, ``max`` at
        most the number of distinct rows). None: 2 to 30, capped by the number of
        distinct rows.
    k_selection : {"stability", "prediction_strength", "pac", "silhouette", \
            "calinski_harabasz", "davies_bouldin", "jump", "bic", "eigengap", "gap"}, \
            default="stability"
        The criterion. Resampling: "stability" (Lange et al.'s normalised stability of
        clusterings of split samples), "prediction_strength" (Tibshirani and Walther's;
        the largest ``k`` of strength 0.8) and "pac" (the proportion of ambiguous pairs
        of the consensus matrix, smallest wins). One clustering per ``k``: "silhouette"
        (cosine), "calinski_harabasz", "davies_bouldin" (smallest wins), "jump" (Sugar
        and James, with the estimated intrinsic dimension) and "bic" (of a von
        Mises-Fisher mixture, smallest wins). "eigengap" (of the self-tuning affinity's
        normalised Laplacian) and "gap" (Tibshirani et al.'s gap statistic). How each
        fares on document embeddings: ``benchmarks/results/n_clusters.md``.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights; weight ``w`` is equivalent to ``w`` repeated rows.
    sample_size : int, default=2000
        Draws (with probability proportional to weight) of the sample scored.
    random_state : int, RandomState instance or None, default=None
        Seeds the sample and the clusterings. Pass an int for reproducible results.
    verbose : int, default=0
        Show a progress bar over the candidates.

    Returns
    -------
    n_clusters : int
        The chosen number of clusters.
    scores : :class:`~sklearn.utils.Bunch`
        Arrays aligned with ``scores.k`` (the candidates), ready to plot:
        ``scores.score`` (the criterion's value; for "gap", ``scores.score_std`` holds
        ``s_k``; for "stability", its spread over splits), and per criterion
        ``eigenvalues`` (the smallest ``max + 1`` Laplacian eigenvalues, for "eigengap")
        or ``inertia`` / ``log_inertia`` (the sample's objective at each ``k``); also
        ``scores.criterion``, ``scores.n_clusters`` and ``scores.runner_up`` (the other
        ``k`` of best score; None with one candidate). Criteria sharing their splits
        return each other's scores ("stability" and "prediction_strength"); "jump" adds
        ``intrinsic_dimension`` and ``power``, "bic" the ``icl``.

    Notes
    -----
    Cost, for a sample of ``m = min(sample_size, n_samples)`` rows and candidates up to
    ``K``: "eigengap" builds one ``m x m`` affinity and takes ``K + 1`` eigenvalues (the
    cheapest); "silhouette" runs one spherical k-means per candidate on the sample, each
    warm-started from the previous one's centers, plus one silhouette from the sample's
    distance matrix ("calinski_harabasz", "davies_bouldin", "jump" and "bic" the same
    clusterings, "jump" also the ``m x m`` distances for the intrinsic dimension);
    "stability" and "prediction_strength" cluster two halves of the sample for each of 5
    splits; "pac" clusters 10 resamples of 80% of at most 1,000 draws; "gap" the sample
    and 5 reference sets. None grows with ``n_samples``
    beyond one pass to draw the sample and to count distinct rows.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_shufdiv.cluster import choose_n_clusters
    >>> rng = np.random.default_rng(0)
    >>> directions = np.eye(6)[:4]
    >>> X = np.repeat(directions, 50, axis=0) + 0.05 * rng.standard_normal((200, 6))
    >>> k, scores = choose_n_clusters(X, k_range=(2, 8), random_state=0)
    >>> k, scores.k.tolist()
    (4, [2, 3, 4, 5, 6, 7, 8])
    """
    X = check_array(X, accept_sparse="csr", dtype=[np.float64, np.float32], order="C")
    X, inv_norm = scaled_rows(X)
    weights = check_sample_weight(sample_weight, X.shape[0], X.dtype)
    return select_n_clusters(X, inv_norm, weights, k_range=k_range, k_selection=k_selection,
                             sample_size=sample_size, random_state=random_state,
                             verbose=verbose)

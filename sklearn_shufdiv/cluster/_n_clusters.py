"""The number of clusters without labels: :func:`choose_n_clusters`.

``SphericalKMeans(n_clusters="auto")`` calls the same search on its validated input
(:func:`select_n_clusters`); anything that needs a number of clusters and has none (an
embedder, the command line) calls :func:`choose_n_clusters` on its embeddings and reads
the chosen ``k`` and the per-candidate scores it returns.
"""

import warnings
from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.utils import Bunch, check_array, check_random_state

from ..utils._param_validation import Interval, Options, validate_params
from ._k_sample import NClustersCriterion, Sample
from ._modularity import Modularity
from ._numerics import check_sample_weight, scaled_rows
from ._stability import Stability

__all__ = ["DEFAULT_K_RANGE", "DEFAULT_K_SELECTION", "K_SELECTIONS", "choose_n_clusters"]

#: The built-in criteria of ``k_selection``, by name: the one registry of them.
K_SELECTIONS = {"modularity": Modularity, "stability": Stability}
#: The criterion used unless another is given.
DEFAULT_K_SELECTION = "modularity"
#: Candidates of ``k_range=None``: 2 to 30, capped below the number of distinct directions.
DEFAULT_K_RANGE = (2, 30)
#: Draws of the sample the criteria work on.
DEFAULT_SAMPLE_SIZE = 2000
#: Decimals of the unit rows that tell two directions apart, per dtype.
_DIRECTION_DECIMALS = {np.dtype(np.float64): 9, np.dtype(np.float32): 5}

#: Constraints of the search's parameters, shared with ``SphericalKMeans``.
K_PARAMETERS = {
    "k_range": ["array-like", None],
    "k_selection": [Options(set(K_SELECTIONS)), NClustersCriterion],
}


def resolve_k_selection(k_selection):
    """The :class:`NClustersCriterion` that ``k_selection`` gives: a built-in's by its name,
    or the instance given."""
    return K_SELECTIONS[k_selection]() if isinstance(k_selection, str) else k_selection


def count_distinct_directions(X, inv_norm, mass):
    """Number of distinct directions of the rows of positive ``mass`` (rows that are
    positive multiples of one another count once)."""
    rows = np.flatnonzero(mass > 0)
    decimals = _DIRECTION_DECIMALS[X.dtype]
    if sp.issparse(X):
        X = X[rows].tocsr()
        X.sum_duplicates()
        X.data = np.round(X.data * np.repeat(inv_norm[rows], np.diff(X.indptr)), decimals)
        X.eliminate_zeros()
        return len({(X.indices[a:b].tobytes(), X.data[a:b].tobytes())
                    for a, b in zip(X.indptr[:-1], X.indptr[1:], strict=True)})
    unit = np.round(X[rows] * inv_norm[rows, None], decimals) + 0.0  # -0.0 and 0.0 alike
    unit = np.ascontiguousarray(unit)
    return np.unique(unit.view(np.dtype((np.void, unit.dtype.itemsize * unit.shape[1])))).size


def resolve_k_range(k_range, n_distinct):
    """``(low, high)``: the checked candidates, inclusive.

    A ``k`` of at least ``n_distinct``, the number of distinct directions (of rows of
    positive weight, not all zero), puts every direction in a cluster of its own: no
    criterion can tell that from over-fitting, so it is never a candidate. ``None`` is
    ``DEFAULT_K_RANGE`` capped at ``n_distinct - 1``; a given pair must lie in
    ``[2, n_distinct - 1]``.
    """
    if k_range is None:
        if n_distinct < 3:
            raise ValueError(
                f"X has {n_distinct} distinct direction(s) (rows of positive weight, not all "
                "zero; rows that are positive multiples of one another count once): "
                "choosing the number of clusters needs at least 3, as k must stay below "
                "the number of directions.")
        return DEFAULT_K_RANGE[0], min(DEFAULT_K_RANGE[1], n_distinct - 1)
    pair = np.asarray(k_range, dtype=object).ravel()
    if pair.size != 2 or not all(isinstance(v, Integral) and not isinstance(v, bool)
                                 for v in pair):
        raise ValueError(f"k_range must be a pair of integers (min, max), both included; "
                         f"got {k_range!r}.")
    low, high = int(pair[0]), int(pair[1])
    if low < 2 or high < low:
        raise ValueError(f"k_range=({low}, {high}) must satisfy 2 <= min <= max: the "
                         "candidates are min, min + 1, ..., max, and one cluster is no choice.")
    if high >= n_distinct:
        raise ValueError(f"k_range=({low}, {high}) reaches the {n_distinct} distinct "
                         f"directions of X (rows of positive weight, not all zero; rows that "
                         f"are positive multiples of one another count once), where each "
                         f"would be a cluster of its own: lower its max to at most "
                         f"{n_distinct - 1}.")
    return low, high


def warn_if_weights_are_scaled(mass, sample_size):
    """Warn where fractional weights make the sample depend on their scale.

    Weights are counts (weight ``w`` is ``w`` repeated rows). With a total weight between
    the number of rows and ``sample_size``, the sample draws every unit of weight, so
    multiplying every weight by one factor changes it; for whole numbers that is the
    repeated rows they stand for, for fractions it is rarely meant.
    """
    total = float(mass.sum())
    if (np.count_nonzero(mass) < total < sample_size
            and not np.array_equal(mass, np.round(mass))):
        warnings.warn(
            f"sample_weight is read as counts (weight w is w repeated rows): its total, "
            f"{total:.4g}, is below sample_size={sample_size}, so the search draws each "
            "unit of weight and scaling every weight changes its sample. For relative "
            "weights, pass sample_weight / sample_weight.mean().", UserWarning, stacklevel=3)


def select_n_clusters(X, inv_norm, weights, *, n_clusters="auto", init="k-means++",
                      k_range=None, k_selection=DEFAULT_K_SELECTION,
                      sample_size=DEFAULT_SAMPLE_SIZE, random_state=None, verbose=0):
    """The search on validated input (see :func:`choose_n_clusters`): ``(k, scores)``;
    ``(n_clusters, None)`` for an int ``n_clusters``, which needs no search."""
    if n_clusters != "auto":
        return n_clusters, None
    if not isinstance(init, str):
        raise ValueError("n_clusters='auto' cannot go with given initial centers (init "
                         "as an array): pass init='k-means++' or an int n_clusters.")
    mass = weights * (inv_norm > 0)
    n_distinct = count_distinct_directions(X, inv_norm, mass)
    low, high = resolve_k_range(k_range, n_distinct)
    criterion = resolve_k_selection(k_selection)
    name = criterion.name or type(criterion).__name__
    random_state = check_random_state(random_state)
    ks = np.arange(low, high + 1)
    if low == high:
        if k_range is None:
            warnings.warn(f"X has {n_distinct} distinct directions: k={low}, the only "
                          "candidate below them, is returned unscored. Pass an int "
                          "n_clusters, or more distinct rows to choose among.", UserWarning,
                          stacklevel=3)
        return low, Bunch(k=ks, score=np.full(1, np.nan), criterion=name,
                          n_clusters=low, runner_up=None)
    warn_if_weights_are_scaled(mass, sample_size)
    sample = Sample(X, inv_norm, weights, sample_size, random_state)
    arrays, chosen = criterion.choose(sample, ks, random_state, verbose)
    score = np.asarray(arrays["score"], dtype=np.float64)
    if not np.isfinite(score).any():
        raise ValueError(
            f"k_selection={criterion!r} could score none of the candidates {low} to {high} "
            f"on a sample of {int(sample.weights.sum())} draws: raise sample_size (now "
            f"{sample_size}) or lower k_range's max.")
    if chosen not in ks:
        raise ValueError(f"k_selection={criterion!r} chose k={chosen!r}, which is not one of "
                         f"the candidates {low} to {high}.")
    best_first = -score if criterion.greater_is_better else score
    ranked = ks[np.argsort(np.nan_to_num(best_first, nan=np.inf), kind="stable")]
    runner_up = int(next(k for k in ranked if k != chosen))
    return int(chosen), Bunch(k=ks, **arrays, criterion=name, n_clusters=int(chosen),
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
        The candidates ``min, min + 1, ..., max`` (both included, ``2 <= min``, ``max``
        below the number of distinct directions of X). None: 2 to 30, capped at the
        number of distinct directions minus one.
    k_selection : "stability" or NClustersCriterion, default="stability"
        The criterion. "stability": Lange et al.'s normalised stability of the
        clusterings of split samples, the largest wins. Any other criterion is an
        instance of a subclass of :class:`NClustersCriterion`.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative counts: weight ``w`` is ``w`` repeated rows, also in the sample the
        criterion scores (whose draws are at most ``sample_size`` and, below it, every
        unit of weight). For relative weights, pass ``w / w.mean()``.
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
        ``scores.score`` (the criterion's value; for "stability", ``scores.score_std``
        holds its spread over the splits) and any other array the criterion returns;
        also ``scores.criterion`` (its name), ``scores.n_clusters`` and
        ``scores.runner_up`` (the other ``k`` of best score; None with one candidate,
        which is returned unscored).

    Raises
    ------
    ValueError
        When X has fewer than 3 distinct directions, ``k_range`` reaches their number,
        or the criterion can score no candidate on the sample (raise ``sample_size`` or
        lower ``k_range``).

    Notes
    -----
    "stability" clusters two halves of the sample for each of 5 splits, with one
    k-means++ run per candidate: for a sample of ``m = min(sample_size, n_samples)``
    rows and candidates up to ``K``, about ``10 K`` spherical k-means runs on ``m / 2``
    rows. Nothing grows with ``n_samples`` beyond one pass to draw the sample and one to
    count the distinct directions. How other criteria fare on document embeddings:
    ``benchmarks/README.md``.

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

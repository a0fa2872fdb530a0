"""Clustering accuracy: the best one-to-one matching of clusters to classes.

Both label arrays are turned into integer codes ``0..k-1``, the contingency matrix
is counted with one :func:`numpy.bincount`, and the matching that maximises the
overlap is found with the Hungarian algorithm
(:func:`scipy.optimize.linear_sum_assignment`).
"""

import numbers

import numpy as np
from scipy import sparse
from scipy.optimize import linear_sum_assignment
from scipy.sparse.csgraph import min_weight_full_bipartite_matching
from sklearn.utils import check_consistent_length, column_or_1d

__all__ = ["clustering_accuracy", "match_clusters_to_classes"]

# Largest dense contingency matrix (32 MiB of int64, 2000 x 2000 labels); beyond it,
# a sparse matrix holds only the class-cluster pairs that share samples.
_DENSE_MAX_CELLS = 4_000_000


def _without_coercion(y):
    """``y`` as an array whose labels compare as the Python values given.

    numpy turns a list mixing strings and numbers, ``["1", 1]``, into strings (``"1"``
    twice), and a list of tuples into rows; an object array keeps them apart, and
    tuples whole, as an object array given by the caller does. So labels are equal
    exactly when they are equal as Python values, whatever the container (list, tuple,
    ndarray of objects, pandas Series).
    """
    if hasattr(y, "dtype"):
        return y  # an array (or a Series): its dtype already says what the labels are
    if isinstance(y, (list, tuple)) and any(isinstance(label, tuple) for label in y):
        # Tuples are labels, not rows: numpy would make a 2-D array of tuples alone, and
        # refuse tuples mixed with scalars.
        return np.fromiter(y, dtype=object, count=len(y))
    array = np.asarray(y)
    if array.dtype.kind in "US" and array.ndim == 1:
        kind = str if array.dtype.kind == "U" else bytes
        if not all(isinstance(label, kind) for label in y):
            array = np.empty(array.shape[0], dtype=object)
            array[:] = list(y)
    return array


def _check_no_nan_objects(y, name):
    """NaN or infinity among the labels of an object array: a ValueError naming ``y``.

    Two NaN objects are two labels for a dict (``nan != nan``), so they would count as
    two classes; float arrays are checked by ``np.isfinite`` instead.
    """
    kinds = set(map(type, y))  # one pass: most label sets hold no type that can be NaN
    if all(issubclass(kind, (str, bytes, numbers.Integral, type(None))) for kind in kinds):
        return
    try:
        bad = (y != y) | (y == np.inf) | (y == -np.inf)
    except TypeError:  # labels whose comparisons raise: look at the numbers one by one
        bad = [isinstance(v, numbers.Number) and v != v for v in y]
    if np.any(bad):
        raise ValueError(f"{name} contains NaN or infinity; labels must be finite.")


def _check_labels(y, name):
    """Return ``y`` as a non-empty 1-D ndarray, or raise a ValueError naming it."""
    try:
        y = column_or_1d(_without_coercion(y), warn=True)
    except ValueError as exc:
        try:
            shape = np.shape(y)
        except ValueError:  # ragged nested sequences
            shape = None
        if shape is not None and len(shape) != 1:
            raise ValueError(f"{name} must be 1-D, got an input of shape {shape}.") from exc
        raise ValueError(f"Invalid {name}: {exc}") from exc
    if y.shape[0] == 0:
        raise ValueError(f"{name} is empty: at least one sample is needed.")
    if y.dtype.kind in "fc" and not np.isfinite(y).all():
        raise ValueError(f"{name} contains NaN or infinity; labels must be finite.")
    if y.dtype.kind in "mM" and np.isnat(y).any():
        raise ValueError(f"{name} contains NaT (a missing date or time); labels must be "
                         "defined, as NaN is refused.")
    if y.dtype.kind == "O":
        _check_no_nan_objects(y, name)
    return y


def _check_inputs(y_true, y_pred, sample_weight):
    y_true = _check_labels(y_true, "y_true")
    y_pred = _check_labels(y_pred, "y_pred")
    check_consistent_length(y_true, y_pred)
    if sample_weight is not None:
        if isinstance(sample_weight, numbers.Number):
            sample_weight = np.full(y_true.shape[0], sample_weight, dtype=np.float64)
        sample_weight = column_or_1d(sample_weight, dtype=np.float64)
        check_consistent_length(y_true, sample_weight)
        if not np.isfinite(sample_weight).all() or (sample_weight < 0).any():
            raise ValueError("sample_weight must be finite and non-negative.")
        if not sample_weight.sum() > 0:
            raise ValueError("sample_weight sums to zero: no sample to score.")
    return y_true, y_pred, sample_weight


def _encode(y):
    """Codes ``0..k-1`` of the labels ``y`` (equal labels, equal codes), and ``k``."""
    if y.dtype.kind == "b":
        y = y.view(np.uint8)
    if y.dtype.kind in "iu":
        lo, hi = int(y.min()), int(y.max())
        if hi - lo < 4 * y.shape[0]:
            # A small range (cluster ids, say): ``y - lo`` are codes once the unused
            # values are skipped. Subtracted in y's dtype where that cannot wrap
            # around (y >= lo >= 0), else in intp, where the difference fits.
            if lo >= 0:
                codes = (y - y.dtype.type(lo) if lo else y).astype(np.intp, copy=False)
            else:
                codes = np.subtract(y, lo, dtype=np.intp)
            used = np.bincount(codes) > 0
            if used.all():
                return codes, used.shape[0]
            return (np.cumsum(used) - 1)[codes], int(used.sum())
    if y.dtype.kind == "O":
        return _encode_objects(y)
    # Strings, floats, datetimes, integers of a wide range: sort. For strings,
    # np.unique then a binary search is a few times faster than return_inverse=True.
    uniques = np.unique(y)
    return np.searchsorted(uniques, y), uniques.shape[0]


def _encode_objects(y):
    """Codes by a dict: any hashable labels, even of mixed types (and faster than sorting)."""
    try:
        index = {label: code for code, label in enumerate(dict.fromkeys(y))}
    except TypeError as exc:
        raise ValueError(f"Labels must be hashable: {exc}") from None
    return np.fromiter(map(index.__getitem__, y), dtype=np.intp, count=y.shape[0]), len(index)


def _match(true_codes, n_true, pred_codes, n_pred, sample_weight):
    """Best matching: the matched (class code, cluster code) pairs and their overlaps.

    Only pairs sharing samples (of positive weight) are returned.
    """
    if n_true * n_pred <= _DENSE_MAX_CELLS:
        flat = true_codes * n_pred
        flat += pred_codes
        table = np.bincount(flat, weights=sample_weight, minlength=n_true * n_pred)
        table = table.reshape(n_true, n_pred)
        rows, cols = linear_sum_assignment(table, maximize=True)
        overlap = table[rows, cols]
    else:
        rows, cols, overlap = _sparse_match(true_codes, n_true, pred_codes, n_pred, sample_weight)
    keep = overlap > 0
    return rows[keep], cols[keep], overlap[keep]


def _sparse_match(true_codes, n_true, pred_codes, n_pred, sample_weight):
    """The same matching on a sparse contingency matrix, for very many labels.

    :func:`~scipy.sparse.csgraph.min_weight_full_bipartite_matching` matches every
    row, so each row (class or cluster, whichever are fewer) gets a dummy column of
    its own, and every real weight is raised by the dummy weight: all such matchings
    then gain the same amount, and the heaviest is the one of largest overlap. Its
    time grows about quadratically: about a second for 20,000 labels.
    """
    weights = np.ones(true_codes.shape[0]) if sample_weight is None else sample_weight
    table = sparse.csr_matrix((weights, (true_codes, pred_codes)), shape=(n_true, n_pred))
    table.eliminate_zeros()
    transpose = n_true > n_pred
    raised = (table.T if transpose else table).tocsr(copy=True)
    offset = raised.data.max()
    raised.data += offset
    dummies = sparse.identity(raised.shape[0], format="csr") * offset
    rows, cols = min_weight_full_bipartite_matching(
        sparse.hstack([raised, dummies], format="csr"), maximize=True
    )
    real = cols < raised.shape[1]
    rows, cols = (cols[real], rows[real]) if transpose else (rows[real], cols[real])
    return rows, cols, np.asarray(table[rows, cols]).reshape(-1)


def clustering_accuracy(y_true, y_pred, *, sample_weight=None):
    """Accuracy of a clustering under the best one-to-one matching of clusters to classes.

    Clusters and classes are matched one to one so as to maximise the number of
    samples whose cluster is matched to their class (the Hungarian algorithm on the
    contingency matrix); the accuracy is the fraction of such samples. Samples of
    clusters or classes left unmatched count as wrong. The score is invariant to
    renaming labels, symmetric in ``y_true`` and ``y_pred``, and 1.0 exactly when
    the two partitions are the same.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Ground-truth class labels: integers, strings or any hashable objects, of mixed
        types too. Labels are equal when they are equal as Python values, whatever the
        container: ``"1"`` and ``1`` are two labels in a list as in an object array
        (numpy's ``np.array(["1", 1])`` has already made both strings).

    y_pred : array-like of shape (n_samples,)
        Cluster labels to evaluate. Every distinct value is a cluster, including
        noise labels such as ``-1``.

    sample_weight : array-like of shape (n_samples,) or float, default=None
        Non-negative sample weights. The accuracy is then the weighted fraction of
        samples whose cluster is matched to their class.

    Returns
    -------
    accuracy : float
        In ``[1 / max(n_classes, n_clusters), 1]``.

    Raises
    ------
    ValueError
        If an input is not 1-D, is empty or holds NaN, NaT, infinity (in any
        container, object arrays included) or unhashable labels; if the lengths differ; if a weight
        is negative or all are zero.

    See Also
    --------
    match_clusters_to_classes : The matching itself, as a dict.
    sklearn.metrics.adjusted_rand_score : A chance-adjusted pair-counting score.

    Notes
    -----
    Integer labels of a small range, such as cluster ids, are used as they are: a
    few milliseconds for a million samples. Other labels are sorted with
    :func:`numpy.unique` (about 0.2 s per million strings) or, in object arrays,
    looked up in a dict (about 0.15 s per million). Beyond 4,000,000 class-cluster
    pairs, a sparse contingency matrix is matched instead, in time about quadratic
    in the number of labels: a second or so for 20,000 classes and clusters.

    Examples
    --------
    >>> from sklearn_shufdiv.metrics import clustering_accuracy
    >>> clustering_accuracy([0, 0, 1, 1, 2, 2], [1, 1, 0, 0, 2, 2])
    1.0
    >>> clustering_accuracy(["cat", "cat", "dog", "dog"], [0, 0, 0, 1])
    0.75

    More clusters than classes: the samples of the unmatched cluster are wrong.

    >>> clustering_accuracy([0, 0, 0, 1, 1, 1], [0, 0, 2, 1, 1, 1])
    0.8333...
    """
    y_true, y_pred, sample_weight = _check_inputs(y_true, y_pred, sample_weight)
    *_, overlap = _match(*_encode(y_true), *_encode(y_pred), sample_weight)
    total = y_true.shape[0] if sample_weight is None else sample_weight.sum()
    return float(min(1.0, overlap.sum() / total))


def match_clusters_to_classes(y_true, y_pred, *, sample_weight=None):
    """Best one-to-one matching of clusters to classes.

    The matching that :func:`clustering_accuracy` scores.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Ground-truth class labels: integers, strings or any hashable objects.

    y_pred : array-like of shape (n_samples,)
        Cluster labels.

    sample_weight : array-like of shape (n_samples,) or float, default=None
        Non-negative sample weights.

    Returns
    -------
    mapping : dict
        ``{cluster: class}`` as Python scalars, sorted by cluster where labels can
        be. Only pairs that share samples are listed: clusters left without a class
        (more clusters than classes, or no free class overlaps them) are absent.

    Raises
    ------
    ValueError
        On the same inputs as :func:`clustering_accuracy`.

    See Also
    --------
    clustering_accuracy : The fraction of samples this matching gets right.

    Examples
    --------
    >>> from sklearn_shufdiv.metrics import match_clusters_to_classes
    >>> y_true = ["cat", "cat", "dog", "dog", "dog", "emu"]
    >>> y_pred = [2, 2, 0, 0, 1, 1]
    >>> mapping = match_clusters_to_classes(y_true, y_pred)
    >>> mapping
    {0: 'dog', 1: 'emu', 2: 'cat'}

    Relabel the clusters with the classes they stand for:

    >>> [mapping.get(cluster, "?") for cluster in y_pred]
    ['cat', 'cat', 'dog', 'dog', 'emu', 'emu']
    """
    y_true, y_pred, sample_weight = _check_inputs(y_true, y_pred, sample_weight)
    (true_codes, n_true), (pred_codes, n_pred) = _encode(y_true), _encode(y_pred)
    rows, cols, _ = _match(true_codes, n_true, pred_codes, n_pred, sample_weight)
    # The label of each code, read from one of its samples.
    true_sample, pred_sample = np.empty(n_true, np.intp), np.empty(n_pred, np.intp)
    true_sample[true_codes] = np.arange(true_codes.shape[0])
    pred_sample[pred_codes] = np.arange(pred_codes.shape[0])
    pairs = list(zip(y_pred[pred_sample[cols]].tolist(), y_true[true_sample[rows]].tolist()))
    try:
        pairs.sort(key=lambda pair: pair[0])
    except TypeError:  # labels of mixed types
        pass
    return dict(pairs)

"""Clustering accuracy: the best one-to-one matching of clusters to classes.

The contingency matrix is built with a single :func:`numpy.bincount` over integer
codes of the labels, and the matching is found with the Hungarian algorithm
(:func:`scipy.optimize.linear_sum_assignment`). Labels are turned into codes
without sorting the data wherever possible:

* integers of a small range (the usual cluster ids ``0..k-1``, noise label ``-1``)
  are used as they are, or shifted by their minimum;
* integers of a large range, and floats (through their bit patterns), are looked
  up by a collision-free multiply-shift hash of their distinct values (guessed
  from a sample first, checked on all), or by binary search when there are many;
* fixed-width strings (``<U``/``S``) are first hashed to 64-bit integers from
  their raw bytes; the codes are verified against the strings, falling back to
  :func:`numpy.unique` in the (unlikely) event of a hash collision;
* object arrays (mixed types included) are factorised through a ``dict``.

When both label sets are so large that the dense contingency matrix would not
fit comfortably in memory, a sparse one is matched instead, one connected
component of the class-cluster graph at a time.
"""

import numbers

import numpy as np
from scipy import sparse
from scipy.optimize import linear_sum_assignment
from scipy.sparse.csgraph import connected_components, min_weight_full_bipartite_matching
from sklearn.utils import check_consistent_length, column_or_1d

__all__ = ["clustering_accuracy", "match_clusters_to_classes"]

# Largest number of cells of a dense contingency matrix (32 MiB of int64); above
# it, a sparse contingency matrix and a sparse matching algorithm are used.
_DENSE_MAX_CELLS = 1 << 22

# Integer labels whose range (max - min + 1) is at most this, or at most the number
# of samples, are used as codes directly (shifted by their minimum if needed).
_DIRECT_RANGE = 1 << 16

# Up to this many distinct values, codes come from a perfect multiplicative hash
# (a lookup table of 4 to 16 times k**2 slots); above it, from a binary search.
_PERFECT_HASH_MAX_UNIQUE = 512

# With at least 4 times this many samples, wide-range labels are first looked up
# among the distinct values of a sample of this size.
_GUESS_SAMPLE = 1 << 14

# Rows per block when streaming over wide arrays.
_CHUNK = 1 << 14

# Odd 64-bit multipliers for multiply-shift hashing (fixed, so results are
# reproducible from run to run).
_MULTIPLIERS = np.random.default_rng(20240229).integers(
    1, 2**63, size=8, dtype=np.uint64
) * np.uint64(2) + np.uint64(1)
_STRING_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)


# --------------------------------------------------------------------------------------
# Input validation
# --------------------------------------------------------------------------------------


def _check_labels(y, name):
    """Return ``y`` as a non-empty 1-D ndarray, or raise a ValueError naming it."""
    try:
        y = column_or_1d(y, warn=True)
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


# --------------------------------------------------------------------------------------
# Labels -> integer codes
# --------------------------------------------------------------------------------------


def _encode(y):
    """Integer codes of the labels ``y``.

    Returns ``(codes, n_codes)``: an intp array with values in ``[0, n_codes)`` such
    that two samples have the same code exactly when they have the same label.
    Not every code in the range need be used.
    """
    kind = y.dtype.kind
    if kind == "b":
        return _encode_ints(y.view(np.uint8))
    if kind in "iu":
        return _encode_ints(y)
    if kind == "f" and y.dtype.itemsize in (2, 4, 8):
        # Equal floats have equal bits once -0.0 is made 0.0 (NaN was rejected).
        y = y + y.dtype.type(0)
        return _encode_ints(y.view(f"u{y.dtype.itemsize}"))
    if kind in "mM":
        return _encode_ints(y.view(np.int64))
    if kind in "US":
        return _encode_fixed_width_strings(y)
    if kind == "O":
        return _encode_objects(y)
    # Anything else (complex, long double, variable-width strings, ...): sort.
    uniques, codes = np.unique(y, return_inverse=True)
    return codes.reshape(-1).astype(np.intp, copy=False), uniques.shape[0]


def _encode_ints(y):
    lo, hi = int(y.min()), int(y.max())
    n_range = hi - lo + 1
    limit = max(y.shape[0], _DIRECT_RANGE)
    if n_range <= limit:
        if lo >= 0 and hi < limit:
            return y.astype(np.intp, copy=False), hi + 1
        # Subtract in the input's dtype: no overflow, as the result fits in the range.
        return (y - y.dtype.type(lo)).astype(np.intp, copy=False), n_range
    return _encode_wide_ints(y)


def _encode_wide_ints(y):
    """Codes of integers of a wide range (typically few distinct values, or hashes)."""
    # Equal integers have equal 64-bit patterns (sign extension is one-to-one).
    y = y.view(np.uint64) if y.dtype.itemsize == 8 else y.astype(np.uint64)
    n_samples = y.shape[0]
    if n_samples >= 4 * _GUESS_SAMPLE:
        # Guess the distinct values from a sample, which saves a pass of np.unique
        # over all the data when every value turns up in the sample.
        guess = np.unique(y[:: n_samples // _GUESS_SAMPLE])
        codes = _perfect_hash_codes(y, guess, complete=False)
        if codes is not None:
            return codes, guess.shape[0]
    uniques = np.unique(y)
    codes = _perfect_hash_codes(y, uniques, complete=True)
    if codes is None:
        codes = np.searchsorted(uniques, y).astype(np.intp, copy=False)
    return codes, uniques.shape[0]


def _perfect_hash_codes(y, keys, complete):
    """Codes of the uint64 values ``y``: the index of each in the distinct ``keys``.

    Looks the values up in a table by a multiply-shift hash that has no collision
    among ``keys`` (a table of 4 to 16 times ``len(keys)**2`` slots). If ``complete``
    is False, ``keys`` may lack some values of ``y``: each lookup is then checked,
    and None returned if one fails. None too if ``keys`` are too many, or no
    collision-free hash is found.
    """
    n_keys = keys.shape[0]
    if n_keys > _PERFECT_HASH_MAX_UNIQUE:
        return None
    n_bits = 2 * max(1, int(n_keys - 1).bit_length()) + 2
    shift = np.uint64(64 - n_bits)
    for multiplier in _MULTIPLIERS:
        key_slots = ((keys * multiplier) >> shift).view(np.intp)
        if np.unique(key_slots).shape[0] < n_keys:
            continue
        table = np.zeros(1 << n_bits, dtype=np.intp)
        table[key_slots] = np.arange(n_keys)
        slots = y * multiplier
        slots >>= shift
        slots = slots.view(np.intp)
        if not complete:
            # An empty slot holds a key that hashes elsewhere, so it matches nothing.
            table_keys = np.full(1 << n_bits, keys[0], dtype=np.uint64)
            table_keys[key_slots] = keys
            if not _chunked_equal(y, table_keys, slots):
                return None
        return table.take(slots)
    return None


def _chunked_equal(a, table, index):
    """Whether ``a == table[index]``, block of rows by block (cache-friendly).

    ``table`` may be of another dtype than ``a``: its items are then read as rows
    of ``a``'s dtype (as when ``table`` holds strings as void items).
    """
    for start in range(0, a.shape[0], _CHUNK):
        stop = start + _CHUNK
        b = table.take(index[start:stop])
        if b.dtype != a.dtype:
            b = b.view(a.dtype).reshape(-1, *a.shape[1:])
        if not np.array_equal(a[start:stop], b):
            return False
    return True


def _encode_fixed_width_strings(y):
    n_samples, width = y.shape[0], y.dtype.itemsize
    y = np.ascontiguousarray(y)
    if width in (1, 2, 4, 8):
        # The raw bytes of a short string are an integer already.
        return _encode_ints(y.view(f"u{width}"))
    # A 64-bit hash of each string's bytes, read as 8-byte words (unaligned ones are
    # fine) then 4-, 2- and 1-byte words, by blocks of rows that stay in cache.
    columns, offset = [], 0
    for size in (8, 4, 2, 1):
        while width - offset >= size:
            columns.append(
                np.ndarray((n_samples,), f"u{size}", buffer=y, offset=offset, strides=(width,))
            )
            offset += size
    hashed = np.empty(n_samples, dtype=np.uint64)
    for start in range(0, n_samples, _CHUNK):
        stop = start + _CHUNK
        out = hashed[start:stop]
        out[...] = columns[0][start:stop]
        for column in columns[1:]:
            out *= _STRING_MULTIPLIER
            out ^= column[start:stop]
    codes, n_codes = _encode_wide_ints(hashed)
    # Verify there was no hash collision: every string equals its code's representative
    # (compared as raw bytes: U and S strings are zero-padded).
    representative = np.empty(n_codes, dtype=np.intp)
    representative[codes] = np.arange(n_samples)
    word = 8 if width % 8 == 0 else 4 if width % 4 == 0 else 1
    words = y.view(f"u{word}").reshape(n_samples, width // word)
    items = y.view(f"V{width}")[representative]
    if _chunked_equal(words, items, codes):
        return codes, n_codes
    uniques, codes = np.unique(y, return_inverse=True)
    return codes.reshape(-1).astype(np.intp, copy=False), uniques.shape[0]


def _encode_objects(y):
    try:
        index = dict.fromkeys(y)
    except TypeError as exc:
        raise ValueError(f"Labels must be hashable: {exc}") from None
    for code, label in enumerate(index):
        index[label] = code
    return np.fromiter(map(index.__getitem__, y), dtype=np.intp, count=y.shape[0]), len(index)


def _compact(codes, n_codes):
    """Renumber codes so that all of ``0..n_used-1`` are used."""
    used = np.bincount(codes, minlength=n_codes) > 0
    n_used = int(np.count_nonzero(used))
    if n_used == n_codes:
        return codes, n_codes
    lookup = np.cumsum(used, dtype=np.intp) - 1
    return lookup.take(codes), n_used


# --------------------------------------------------------------------------------------
# Contingency matrix and matching
# --------------------------------------------------------------------------------------


def _match(y_true, y_pred, sample_weight):
    """Best matching of clusters to classes.

    Returns ``(true_codes, pred_codes, true_rows, pred_cols, overlap)``: the codes of
    the samples, and for each matched (class, cluster) pair its row (class code),
    column (cluster code) and overlap (count or weight of their common samples).
    Only pairs that share at least one sample are returned.
    """
    true_codes, n_true = _encode(y_true)
    pred_codes, n_pred = _encode(y_pred)
    if n_true * n_pred > _DENSE_MAX_CELLS:
        true_codes, n_true = _compact(true_codes, n_true)
        pred_codes, n_pred = _compact(pred_codes, n_pred)
    if n_true * n_pred <= _DENSE_MAX_CELLS:
        flat = true_codes * n_pred
        flat += pred_codes
        contingency = np.bincount(flat, weights=sample_weight, minlength=n_true * n_pred).reshape(
            n_true, n_pred
        )
        rows = np.flatnonzero(contingency.any(axis=1))
        cols = np.flatnonzero(contingency.any(axis=0))
        if rows.shape[0] < n_true or cols.shape[0] < n_pred:
            contingency = contingency[np.ix_(rows, cols)]
        r, c = linear_sum_assignment(contingency, maximize=True)
        overlap = contingency[r, c]
        rows, cols = rows[r], cols[c]
    else:
        rows, cols, overlap = _sparse_match(true_codes, n_true, pred_codes, n_pred, sample_weight)
    keep = overlap > 0
    return true_codes, pred_codes, rows[keep], cols[keep], overlap[keep]


def _sparse_match(true_codes, n_true, pred_codes, n_pred, sample_weight):
    """Maximum-weight matching on a sparse contingency matrix, one component at a time.

    The bipartite graph of classes and clusters that share samples splits into
    connected components, each matched on its own. Components with a single class or
    a single cluster (the common case with very many labels) take their heaviest
    edge; the others are matched densely when small enough, and otherwise with
    :func:`~scipy.sparse.csgraph.min_weight_full_bipartite_matching`.
    """
    weights = np.ones(true_codes.shape[0]) if sample_weight is None else sample_weight
    contingency = sparse.csr_matrix((weights, (true_codes, pred_codes)), shape=(n_true, n_pred))
    contingency.sum_duplicates()
    contingency.eliminate_zeros()
    edges = contingency.tocoo()
    edge_row, edge_col, edge_weight = edges.row, edges.col, edges.data

    n_nodes = n_true + n_pred
    graph = sparse.csr_matrix(
        (np.ones(edge_row.shape[0]), (edge_row, edge_col + n_true)), shape=(n_nodes, n_nodes)
    )
    n_components, component = connected_components(graph, directed=False)
    row_component, col_component = component[:n_true], component[n_true:]
    rows_in = np.bincount(row_component, minlength=n_components)
    cols_in = np.bincount(col_component, minlength=n_components)

    # Star-shaped components: their heaviest edge.
    edge_component = row_component[edge_row]
    star = np.minimum(rows_in, cols_in) <= 1
    on_star = np.flatnonzero(star[edge_component])
    order = on_star[np.lexsort((-edge_weight[on_star], edge_component[on_star]))]
    first = np.ones(order.shape[0], dtype=bool)
    first[1:] = edge_component[order[1:]] != edge_component[order[:-1]]
    best = order[first]
    matched_rows, matched_cols = [edge_row[best]], [edge_col[best]]

    # Other components: an assignment problem each.
    rows_by_component = np.argsort(row_component, kind="stable")
    cols_by_component = np.argsort(col_component, kind="stable")
    row_start = np.concatenate([[0], np.cumsum(rows_in)])
    col_start = np.concatenate([[0], np.cumsum(cols_in)])
    for c in np.flatnonzero(~star):
        rows = rows_by_component[row_start[c] : row_start[c + 1]]
        cols = cols_by_component[col_start[c] : col_start[c + 1]]
        block = contingency[rows][:, cols]
        if rows.shape[0] * cols.shape[0] <= _DENSE_MAX_CELLS:
            r, k = linear_sum_assignment(block.toarray(), maximize=True)
        else:
            # Give every row a dummy column so that a full matching exists, and raise
            # every weight by the same constant: all full matchings then gain the same
            # amount, and the best one has the largest overlap.
            offset = float(block.data.max())
            block = block.copy()
            block.data += offset
            dummies = sparse.identity(rows.shape[0], format="csr") * offset
            augmented = sparse.hstack([block, dummies], format="csr")
            r, k = min_weight_full_bipartite_matching(augmented, maximize=True)
            real = k < cols.shape[0]
            r, k = r[real], k[real]
        matched_rows.append(rows[r])
        matched_cols.append(cols[k])
    rows = np.concatenate(matched_rows).astype(np.intp, copy=False)
    cols = np.concatenate(matched_cols).astype(np.intp, copy=False)
    overlap = np.asarray(contingency[rows, cols]).reshape(-1)
    return rows, cols, overlap


# --------------------------------------------------------------------------------------
# Public functions
# --------------------------------------------------------------------------------------


def clustering_accuracy(y_true, y_pred, *, sample_weight=None):
    """Accuracy of a clustering under the best one-to-one matching of clusters to classes.

    Each cluster is assigned to at most one class, and each class to at most one
    cluster, so as to maximise the number of samples whose cluster is assigned to
    their class (the Hungarian algorithm on the contingency matrix). The accuracy is
    the fraction of such samples. When there are more clusters than classes, the
    samples of the clusters left unmatched count as wrong; when there are fewer,
    the samples of the classes left unmatched do.

    The score is invariant to renaming classes or clusters, and symmetric:
    ``clustering_accuracy(a, b) == clustering_accuracy(b, a)``. It is 1.0 exactly
    when the two partitions are the same, and at least ``1 / max(n_classes,
    n_clusters)``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Ground-truth class labels: integers, strings or any hashable objects
        (object arrays may mix types).

    y_pred : array-like of shape (n_samples,)
        Cluster labels to evaluate. Every distinct value is a cluster, including
        noise labels such as ``-1``.

    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative sample weights. The accuracy is then the weighted fraction of
        samples whose cluster is matched to their class.

    Returns
    -------
    accuracy : float
        In ``[1 / max(n_classes, n_clusters), 1]``.

    Raises
    ------
    ValueError
        If an input is not 1-D, is empty, contains NaN or infinity, or the inputs
        have different lengths.

    See Also
    --------
    match_clusters_to_classes : The matching itself, as a dict.
    sklearn.metrics.adjusted_rand_score : A chance-adjusted pair-counting score.

    Notes
    -----
    For 1,000,000 integer labels in 20 clusters this takes a few milliseconds: the
    contingency matrix comes from one :func:`numpy.bincount` rather than from
    :func:`sklearn.metrics.confusion_matrix`. String labels cost a few times more.

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
    *_, overlap = _match(y_true, y_pred, sample_weight)
    total = y_true.shape[0] if sample_weight is None else sample_weight.sum()
    return float(min(1.0, overlap.sum() / total))


def match_clusters_to_classes(y_true, y_pred, *, sample_weight=None):
    """Best one-to-one matching of clusters to classes.

    The matching that :func:`clustering_accuracy` scores: it maximises the number
    (or weight) of samples whose cluster is matched to their class.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Ground-truth class labels: integers, strings or any hashable objects.

    y_pred : array-like of shape (n_samples,)
        Cluster labels.

    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative sample weights.

    Returns
    -------
    mapping : dict
        ``{cluster: class}``, ordered by cluster label where labels can be sorted.
        Only pairs sharing at least one sample are listed: clusters left without a
        class (there are more clusters than classes, or no free class overlaps
        them) are absent. Labels are returned as Python scalars where possible.

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
    true_codes, pred_codes, rows, cols, _ = _match(y_true, y_pred, sample_weight)
    # One sample per code, to read each matched code's label from.
    true_sample = np.empty(int(true_codes.max()) + 1, dtype=np.intp)
    true_sample[true_codes] = np.arange(true_codes.shape[0])
    pred_sample = np.empty(int(pred_codes.max()) + 1, dtype=np.intp)
    pred_sample[pred_codes] = np.arange(pred_codes.shape[0])
    classes = y_true[true_sample[rows]].tolist()
    clusters = y_pred[pred_sample[cols]].tolist()
    pairs = list(zip(clusters, classes))
    try:
        pairs.sort(key=lambda pair: pair[0])
    except TypeError:  # labels of mixed types
        pass
    return dict(pairs)

"""Exact top-1 cosine neighbors of the rows of a matrix (the TF-IDF positives' search).

Each row is paired with the *other* row most similar to it. Blocks
``X[start:stop] @ X[start:].T`` update their rows and, by symmetry, the later rows: each
pair is computed once.
"""

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn import get_config
from sklearn.preprocessing import normalize
from sklearn.utils.validation import check_array

from ...utils._param_validation import Interval, validate_params

__all__ = ["top1_cosine_neighbors"]

#: Similarities within ``TIE_TOL`` of each other are ties (far above float64 rounding).
TIE_TOL = 1e-10

#: Pairs whose cosine similarity is at least ``1 - DUPLICATE_TOL`` count as duplicates.
DUPLICATE_TOL = 1e-6

# Bytes per entry of a block: sparse product, dense copy, masks and temporaries (about).
_BYTES_PER_ENTRY = 64

# Terms in at least this fraction of the documents are multiplied as dense columns (BLAS).
# On 20 Newsgroups, 0.05 to 0.1 take 2-3 times less CPU time than 0.2, 4 than all-sparse.
_DENSE_TERM_MIN_DF = 0.05


#: The constraints of the block search's parameters, shared with ``mine_tfidf_positives``.
BLOCK_PARAMETERS = {
    "exclude_duplicates": ["boolean"],
    "chunk_size": [Interval(Integral, 1, None), None],
    "working_memory": [Interval(Real, 0, None, closed="neither"), None],
}


@validate_params({"X": ["array-like", "sparse matrix"], "return_duplicates": ["boolean"],
                  **BLOCK_PARAMETERS})
def top1_cosine_neighbors(
    X, *, exclude_duplicates=True, chunk_size=None, working_memory=None, return_duplicates=False
):
    """Index and cosine similarity of each row's most similar *other* row, exactly.

    Products are in float64 whatever the dtype of ``X`` (float32 rounding would blur the
    ties and the duplicate threshold), block by block: no ``n_samples**2`` matrix is formed.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The documents' vectors, e.g. TF-IDF. Rows are L2-normalised on a float64 copy
        (``X`` is not modified); sparse input of any format is converted to CSR.
    exclude_duplicates : bool, default=True
        If True, rows with similarity at least ``1 - 1e-6`` to row ``i`` (copies, up to
        rounding) are not candidates: the neighbor is the best *non-identical* row.
    chunk_size : int, default=None
        Number of rows per block. ``None`` chooses blocks from ``working_memory``.
    working_memory : float, default=None
        Approximate memory budget of a block in MiB, at least one row. ``None`` uses
        scikit-learn's ``working_memory`` setting. Ignored if ``chunk_size`` is set.
    return_duplicates : bool, default=False
        If True, also return which rows have a duplicate (even if not excluded).

    Returns
    -------
    neighbors : ndarray of shape (n_samples,), dtype=np.intp
        Index of the most similar other row; ``-1`` where it is undefined (see Notes).
    similarities : ndarray of shape (n_samples,), dtype=np.float64
        The cosine similarity to that row; ``0.0`` where the neighbor is undefined.
    has_duplicate : ndarray of shape (n_samples,), dtype=bool
        Only if ``return_duplicates``: whether another row is a copy of this one.

    Raises
    ------
    ValueError
        If ``X`` has fewer than 2 rows, or non-finite values.

    See Also
    --------
    sklearn_shufdiv.embedders.mine_tfidf_positives : TF-IDF vectorisation and neighbor
        search of raw documents.

    Notes
    -----
    **Ties.** Similarities within ``1e-10`` of each other are ties (so that, e.g.,
    ``0.5 * 1`` and ``4 * 0.125`` are), and the lowest index among the tied rows wins:
    the result does not depend on the input format or the block size.

    **Undefined neighbors.** Only a positive similarity (above ``1e-10``) is evidence
    of relatedness. The neighbor is ``-1`` (similarity ``0.0``) for an all-zero row, a
    row sharing no term with any other, a row whose only positive candidates are excluded
    duplicates, or (signed data) a row pointing away from all others.

    **Duplicates.** Corpora contain copies (210 of the 2,225 BBC News articles), and a
    copy and its original are a worthless contrastive pair (same text), so by default a
    row gets its most similar *non-identical* neighbor, for a little label agreement
    (0.954 instead of 0.957 on BBC News). ``1 - 1e-6`` catches copies despite rounding
    (``1e-13``) but no real near-duplicate (0.08 degrees apart); positive multiples of a
    row are duplicates too.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0, 0.0],
    ...               [0.9, 0.1, 0.0],
    ...               [0.0, 1.0, 0.2],
    ...               [0.0, 0.0, 0.0],   # empty row: undefined neighbor
    ...               [1.0, 0.0, 0.0]])  # duplicate of row 0
    >>> neighbors, similarities = top1_cosine_neighbors(X)
    >>> neighbors
    array([ 1,  0,  1, -1,  1])
    >>> similarities.round(3)
    array([0.994, 0.994, 0.108, 0.   , 0.994])
    >>> top1_cosine_neighbors(X, exclude_duplicates=False)[0]
    array([ 4,  0,  1, -1,  0])
    """
    if working_memory is None:
        working_memory = get_config()["working_memory"]
    X = _check_normalized(X)
    n_samples = X.shape[0]
    best_sim = np.full(n_samples, -np.inf)
    best_idx = np.full(n_samples, n_samples, dtype=np.intp)
    has_duplicate = np.zeros(n_samples, dtype=bool)
    dense_terms, X = _split_frequent_terms(X, working_memory)
    for start, stop in _blocks(X, chunk_size, working_memory):
        block = X[start:stop] @ X[start:].T  # rows start..stop, columns start..n
        if sp.issparse(block):
            block = block.toarray()
        if dense_terms is not None:
            block += dense_terms[start:stop] @ dense_terms[start:].T
        _reduce_block(block, start, best_sim, best_idx, has_duplicate, exclude_duplicates)
    undefined = ~(best_sim > TIE_TOL)  # no positive similarity, beyond rounding
    neighbors = np.where(undefined, -1, best_idx).astype(np.intp, copy=False)
    similarities = np.where(undefined, 0.0, best_sim)
    if return_duplicates:
        return neighbors, similarities, has_duplicate
    return neighbors, similarities


def _check_normalized(X):
    """Validate ``X`` and return an L2-normalised float64 copy (CSR with sorted indices)."""
    X = check_array(
        X, accept_sparse=("csr", "csc", "coo"), dtype=np.float64, copy=True, input_name="X"
    )
    if X.shape[0] < 2:
        raise ValueError(
            f"At least 2 rows (documents) are needed to find neighbors; got {X.shape[0]}."
        )
    if sp.issparse(X):
        X = sp.csr_matrix(X)  # scipy.sparse matrix API: `@` is a matrix product
        X.sum_duplicates()  # also sorts the indices; duplicated entries would skew norms
        X.eliminate_zeros()
    return normalize(X, copy=False)


def _split_frequent_terms(X, working_memory):
    """Split sparse ``X`` into dense columns of its most frequent terms and a sparse rest.

    A term costs its document frequency squared in a sparse ``X @ X.T`` (on 20 Newsgroups,
    the 112 terms in 10% of the documents make 87% of it), n_samples in a dense one.
    ``dense_terms`` (None if empty) take at most a quarter of ``working_memory``.
    """
    if not sp.issparse(X):
        return None, X
    n_samples = X.shape[0]
    doc_freq = np.bincount(X.indices, minlength=X.shape[1])
    frequent = doc_freq >= max(2, _DENSE_TERM_MIN_DF * n_samples)
    max_terms = int(working_memory * 2**20 / 4 // (8 * n_samples))
    if np.count_nonzero(frequent) > max_terms:
        frequent[:] = False
        frequent[np.argsort(-doc_freq, kind="stable")[:max_terms]] = True
    if not frequent.any():
        return None, X
    rest = X[:, ~frequent].tocsr()
    rest.sort_indices()
    return X[:, frequent].toarray(), rest


def _blocks(X, chunk_size, working_memory):
    """Yield the ``(start, stop)`` row ranges of the blocks of ``X @ X.T``."""
    n_samples = X.shape[0]
    budget = working_memory * 2**20 // _BYTES_PER_ENTRY  # entries of a block
    start = 0
    while start < n_samples:
        size = chunk_size or max(1, int(budget // (n_samples - start)))
        stop = min(start + size, n_samples)
        yield start, stop
        start = stop


def _reduce_block(block, start, best_sim, best_idx, has_duplicate, exclude_duplicates):
    """Update the best neighbors and duplicates with a block ``S[start:stop, start:]``.

    Overwrites ``block`` (its square part's diagonal is the self-similarity). The best of
    a row or column is the lowest index within ``TIE_TOL`` of its maximum.
    """
    n_rows, n_cols = block.shape
    diag = np.arange(n_rows)
    block[diag, diag] = -np.inf
    row_max = np.max(block, axis=1)
    # Duplicates are in the (few) rows whose maximum reaches the threshold.
    dup_rows = np.flatnonzero(row_max >= 1.0 - DUPLICATE_TOL)
    if dup_rows.size:
        sub_row, sub_col = np.nonzero(block[dup_rows] >= 1.0 - DUPLICATE_TOL)
        has_duplicate[start + dup_rows] = True
        has_duplicate[start + sub_col] = True
        if exclude_duplicates:
            block[dup_rows[sub_row], sub_col] = -np.inf
            row_max[dup_rows] = np.max(block[dup_rows], axis=1)
    # argmax of a boolean array returns the first True: the lowest index among the ties.
    row_col = np.argmax(block >= (row_max - TIE_TOL)[:, np.newaxis], axis=1)
    _update(best_sim, best_idx, start, block[diag, row_col], start + row_col)
    # The lowest row of each column by a reverse sweep over the rows (numpy's argmax along
    # axis 0 of a C-ordered array is about 10 times slower).
    col_lower = np.max(block, axis=0) - TIE_TOL
    col_row = np.zeros(n_cols, dtype=np.intp)
    for row in range(n_rows - 1, -1, -1):
        col_row[block[row] >= col_lower] = row
    _update(best_sim, best_idx, start, block[col_row, np.arange(n_cols)], start + col_row)


def _update(best_sim, best_idx, offset, sim, idx):
    """Keep, per row from ``offset`` on, the better candidate: higher, or tied and lower."""
    cur_sim = best_sim[offset : offset + len(sim)]
    cur_idx = best_idx[offset : offset + len(sim)]
    better = (sim > cur_sim + TIE_TOL) | ((sim >= cur_sim - TIE_TOL) & (idx < cur_idx))
    cur_sim[better] = sim[better]
    cur_idx[better] = idx[better]

"""Graphs of near neighbours and the modularity of a partition on them (Newman, 2006).

Shared by the choice of the number of clusters (``k_selection="modularity"``) and of the
weight of the words (``lexical_weight="auto"``).
"""

from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.preprocessing import normalize


def neighbor_graph(X, n_neighbors=20):
    """The symmetric graph joining each row to its ``n_neighbors`` most similar by cosine.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
    n_neighbors : int, default=20
        At most ``n_samples - 1``.

    Returns
    -------
    graph : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        1 where either row is among the other's neighbours, else 0; no self-loops.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])
    >>> neighbor_graph(X, n_neighbors=1).toarray().astype(int).tolist()
    [[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]]
    """
    unit = normalize(X.astype(np.float64) if sp.issparse(X)
                     else np.asarray(X, dtype=np.float64))
    n = unit.shape[0]
    if not isinstance(n_neighbors, Integral) or not 1 <= n_neighbors < n:
        raise ValueError(f"n_neighbors={n_neighbors!r} must be an integer in [1, {n - 1}] "
                         f"for {n} rows; give fewer neighbours or more rows.")
    neighbours = np.empty((n, n_neighbors), dtype=np.int64)
    for start in range(0, n, 2048):
        block = unit[start:start + 2048] @ unit.T
        block = block.toarray() if sp.issparse(block) else block
        block[np.arange(len(block)), np.arange(start, start + len(block))] = -np.inf
        neighbours[start:start + len(block)] = np.argpartition(
            -block, n_neighbors - 1, axis=1)[:, :n_neighbors]
    graph = sp.csr_matrix((np.ones(n * n_neighbors), (np.repeat(np.arange(n), n_neighbors),
                                                      neighbours.ravel())), shape=(n, n))
    return ((graph + graph.T) > 0).astype(np.float64).tocsr()


def modularity(graph, labels, resolution=1.0):
    """Newman's modularity of a partition on an undirected graph.

    ``sum_c e_cc / (2m) - (d_c / (2m)) ** 2``: the fraction of edge ends inside clusters
    minus the fraction expected if edges were placed at random with the same degrees.

    Parameters
    ----------
    graph : sparse matrix of shape (n, n)
        Symmetric, non-negative weights.
    labels : array-like of shape (n,)
        The cluster of each node (non-negative integers).
    resolution : float, default=1.0
        The weight of the chance term.

    Returns
    -------
    modularity : float
        In ``[-0.5, 1)``; 0 when the graph has no edge.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> pairs = sp.csr_matrix(np.array([[0, 1, 0, 0], [1, 0, 0, 0],
    ...                                 [0, 0, 0, 1], [0, 0, 1, 0]], dtype=float))
    >>> modularity(pairs, [0, 0, 1, 1])
    0.5
    """
    within, degrees = cluster_graph(graph, np.asarray(labels))
    two_m = degrees.sum()
    if two_m == 0:
        return 0.0
    return float(np.trace(within) / two_m - resolution * np.sum((degrees / two_m) ** 2))


def cluster_graph(graph, labels):
    """The graph's weights summed between clusters (k, k) and each cluster's degree."""
    onehot = sp.csr_matrix((np.ones(len(labels)), (np.arange(len(labels)), labels)))
    between = np.asarray((onehot.T @ sp.csr_matrix(graph) @ onehot).todense())
    return between, between.sum(axis=1)

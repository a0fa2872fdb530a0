"""``utils/_graph.py``: the neighbour graph of rows, dense or sparse."""

import numpy as np
import scipy.sparse as sp

from sklearn_shufdiv.utils._graph import neighbor_graph


def test_a_sparse_matrix_gives_the_graph_of_its_dense_rows():
    rng = np.random.default_rng(0)
    rows = rng.random((60, 12)) * (rng.random((60, 12)) < 0.3)  # TF-IDF-like, sparse
    rows[5] = 0  # a row without any term
    dense = neighbor_graph(rows, n_neighbors=4)
    sparse = neighbor_graph(sp.csr_matrix(rows), n_neighbors=4)
    assert sp.issparse(sparse) and sparse.shape == (60, 60)
    np.testing.assert_array_equal(sparse.toarray(), dense.toarray())
    assert (sparse.diagonal() == 0).all() and (sparse != sparse.T).nnz == 0

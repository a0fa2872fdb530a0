"""The weights of any number of views (dense or sparse), without labels: the lab's
generality of the package's ``lexical_weight="auto"``.

The package joins two dense views, the encoder's space and the LSA space, and scores a
weighting by the modularity of its clustering on each view's neighbour graph
(``sklearn_shufdiv/embedders/_spaces/_views.py`` says how and why). Here the same score
over any number of views, sparse rows (e.g. TF-IDF) and a default grid of candidates.
"""

from numbers import Integral

import numpy as np
import scipy.sparse as sp

from sklearn_shufdiv.cluster import SphericalKMeans, unit_rows

from .internals import Interval, Options, modularity, neighbor_graph, validate_params

__all__ = ["choose_view_weights", "join_views", "neighbor_graph"]

#: The candidates of two views: the second's weight 0, 0.1, ..., 0.9.
TWO_VIEW_CANDIDATES = tuple((round(1 - i / 10, 1), i / 10) for i in range(10))


def _unit(rows):
    if sp.issparse(rows):
        rows = sp.csr_matrix(rows, dtype=np.float64)
        norms = np.sqrt(np.asarray(rows.multiply(rows).sum(axis=1))).ravel()
        return sp.diags(1.0 / np.maximum(norms, 1e-12)) @ rows
    return unit_rows(np.asarray(rows, dtype=np.float64))


def join_views(views, weights):
    """The views side by side, each with rows of norm 1 scaled by ``sqrt(weight)``.

    With weights summing to 1 every row has norm 1, and the cosine of two documents is
    the weighted sum of their cosines in the views. Views of weight 0 are left out.

    Parameters
    ----------
    views : sequence of {ndarray, sparse matrix} of shape (n_documents, dim_v)
    weights : sequence of float
        One per view.

    Returns
    -------
    joined : ndarray of shape (n_documents, sum of the kept dim_v), float64
        CSR when a kept view is sparse.

    Examples
    --------
    >>> import numpy as np
    >>> joined = join_views([np.array([[3.0, 4.0]]), np.array([[2.0, 0.0]])], [0.5, 0.5])
    >>> np.round(joined, 3).tolist()
    [[0.424, 0.566, 0.707, 0.0]]
    """
    if len(views) != len(weights):
        raise ValueError(f"join_views: {len(views)} views but {len(weights)} weights.")
    parts = [_unit(view) * np.sqrt(weight) for view, weight in zip(views, weights) if weight > 0]
    if any(sp.issparse(part) for part in parts):
        return sp.hstack([sp.csr_matrix(part) for part in parts], format="csr")
    return np.hstack(parts)


@validate_params({"views": ["array-like"], "n_clusters": [Interval(Integral, 2, None)],
                  "candidates": ["array-like", None],
                  "n_neighbors": [Interval(Integral, 1, None)],
                  "random_state": ["random_state"],
                  "n_init": [Options({"auto"}), Interval(Integral, 1, None), None]},
                 prefer_skip_nested_validation=True)
def choose_view_weights(views, n_clusters, *, candidates=None, n_neighbors=20, random_state=0,
                        n_init=None):
    """The package's ``choose_view_weights`` over any number of views, dense or sparse.

    ``candidates`` (rows of non-negative weights summing to 1, one per view) default to
    the second view's weight 0, 0.1, ..., 0.9 with two views, and every row of multiples
    of 0.25 with more. Returns the chosen weights and every candidate's score.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> topic = np.repeat([0, 1, 2], 30)
    >>> informative = np.eye(3)[topic] + 0.3 * rng.normal(size=(90, 3))
    >>> noise = rng.normal(size=(90, 3))
    >>> weights, scores = choose_view_weights([informative, noise], 3)
    >>> weights  # the noise gets its least weight
    (1.0, 0.0)
    """
    if len(views) < 2:
        raise ValueError(f"choose_view_weights: needs at least 2 views, got {len(views)}.")
    sizes = {view.shape[0] for view in views}
    if len(sizes) != 1:
        raise ValueError(f"choose_view_weights: the views have different numbers of rows "
                         f"{sorted(sizes)}; give each view's rows of the same documents.")
    candidates = _candidates(len(views)) if candidates is None else _checked(candidates,
                                                                            len(views))
    graphs = [neighbor_graph(view, n_neighbors) for view in views]
    kmeans = SphericalKMeans(n_clusters, random_state=random_state,
                             **({} if n_init is None else {"n_init": n_init}))
    scores, inertias = {}, {}
    for weights in candidates:
        kmeans.fit(join_views(views, weights))
        scores[weights] = sum(modularity(graph, kmeans.labels_) for graph in graphs)
        inertias[weights] = kmeans.inertia_
    best = max(scores.values())
    tied = [w for w, score in scores.items() if score >= best - 1e-12]
    return min(tied, key=inertias.get), scores


def _candidates(n_views):
    if n_views == 2:
        return TWO_VIEW_CANDIDATES
    grid = np.stack(np.meshgrid(*[np.arange(5)] * n_views, indexing="ij"), -1).reshape(-1,
                                                                                        n_views)
    return tuple(tuple(row / 4) for row in grid if row.sum() == 4)


def _checked(candidates, n_views):
    table = np.asarray(candidates, dtype=np.float64)
    if table.ndim != 2 or table.shape[1] != n_views or len(table) == 0:
        raise ValueError(f"candidates: expected rows of {n_views} weights, one per view; got "
                         f"shape {table.shape}.")
    if (table < 0).any() or not np.allclose(table.sum(axis=1), 1):
        raise ValueError("candidates: each row must be non-negative weights summing to 1.")
    return tuple(tuple(float(w) for w in row) for row in table)

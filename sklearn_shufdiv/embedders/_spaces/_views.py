"""The weight of the corpus' LSA space beside the encoder's, chosen without labels.

Each candidate weighting ``(1 - w, w)`` joins the two views' rows, each of norm 1 and
scaled by the square root of its weight (:func:`join_views`, ``fuse(encoder, lsa, w)``
in float64), and clusters the result by spherical k-means. The candidate's partition is
then scored by how well it fits both views' neighbourhoods: the sum over the views of the
modularity (Newman, 2006) of the partition on the view's graph of ``n_neighbors`` nearest
neighbours (the graph and the score that ``k_selection="modularity"`` uses too). The
candidate of the greatest sum is chosen.

A neighbour graph records only which documents are near each other, not how near, so
the views compare whatever their dimension and scale, and modularity counts the
neighbour pairs inside clusters beyond what clusters of those sizes would hold by
chance. A view whose neighbourhoods follow the corpus' groups rewards the partitions
that follow them; a view whose neighbourhoods are noise adds about as little to every
candidate, and the weighting moves away from it.
"""

import numpy as np

from ...cluster import SphericalKMeans, unit_rows
from ...utils._graph import modularity, neighbor_graph

__all__ = ["choose_view_weights", "join_views"]


def _unit(rows):
    return unit_rows(np.asarray(rows, dtype=np.float64))


def join_views(views, weights):
    """The views side by side, each with rows of norm 1 scaled by ``sqrt(weight)``.

    With weights summing to 1 every row has norm 1, and the cosine of two documents is
    the weighted sum of their cosines in the views. Views of weight 0 are left out.

    Examples
    --------
    >>> import numpy as np
    >>> joined = join_views([np.array([[3.0, 4.0]]), np.array([[2.0, 0.0]])], [0.5, 0.5])
    >>> np.round(joined, 3).tolist()
    [[0.424, 0.566, 0.707, 0.0]]
    """
    return np.hstack([_unit(view) * np.sqrt(weight)
                      for view, weight in zip(views, weights) if weight > 0])


def choose_view_weights(views, n_clusters, candidates, *, n_neighbors=20, random_state=0,
                        n_init=None):
    """The candidate weights of the two ``views`` (dense, the same documents' rows) whose
    clustering best fits both views' neighbourhoods.

    For each candidate, the views joined at its weights (:func:`join_views`) are
    clustered by ``SphericalKMeans(n_clusters, n_init=n_init, random_state=random_state)``;
    the candidate's score is the sum over the views of the modularity of that clustering
    on the view's neighbour graph. No labels.

    Returns
    -------
    weights : tuple of float
        The candidate of the greatest score. Candidates that tie (they found the same
        partition) are told apart by the k-means objective: the one where the partition
        is tightest, which moves the weight to the view that fits it best.
    scores : dict of tuple to float
        Every candidate's score.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> topic = np.repeat([0, 1, 2], 30)
    >>> informative = np.eye(3)[topic] + 0.3 * rng.normal(size=(90, 3))
    >>> noise = rng.normal(size=(90, 3))
    >>> candidates = [(1 - w / 10, w / 10) for w in range(10)]
    >>> choose_view_weights([informative, noise], 3, candidates)[0]  # noise: least weight
    (1.0, 0.0)
    """
    graphs = [neighbor_graph(view, n_neighbors) for view in views]
    kmeans = SphericalKMeans(n_clusters, random_state=random_state,
                             **({} if n_init is None else {"n_init": n_init}))
    scores, inertias = {}, {}
    for weights in candidates:
        weights = tuple(float(weight) for weight in weights)
        kmeans.fit(join_views(views, weights))
        scores[weights] = sum(modularity(graph, kmeans.labels_) for graph in graphs)
        inertias[weights] = kmeans.inertia_
    best = max(scores.values())
    tied = [w for w, score in scores.items() if score >= best - 1e-12]
    return min(tied, key=inertias.get), scores

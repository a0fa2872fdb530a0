"""The research behind ``k_selection="modularity"``, and the weight of the words chosen
with k, without labels (``bench_auto.py``).

The package's graph, modularity and plateau rule are imported (``lab.internals``); here:

- :func:`merge_curve`: the modularity of every number of clusters from one over-clustering,
  by merging its clusters greedily (one k-means fit instead of one per k);
- :func:`choose_n_clusters_by_modularity`: the package's rule on a sample of the rows,
  with its k range (every k to 10, then about 15% apart to 40);
- :func:`choose_view_weight_and_k`: the weight of a second view (the words) and k together.
"""

from numbers import Integral

import numpy as np
from sklearn.utils import Bunch, check_random_state

from sklearn_shufdiv.cluster import SphericalKMeans, unit_rows

from .internals import cluster_graph, modularity, neighbor_graph, plateau_choice

__all__ = ["choose_n_clusters_by_modularity", "choose_view_weight_and_k", "merge_curve"]


def merge_curve(graph, labels, resolution=1.0):
    """The modularity of each number of clusters, merging a partition's clusters greedily.

    From the partition ``labels``, the two clusters whose merge raises the modularity on
    ``graph`` most (or lowers it least) are merged, down to one cluster (the greedy
    agglomeration of Clauset, Newman and Moore, 2004, started from clusters instead of
    single nodes). Its cost is that of the cluster-level graph: no clustering is run.

    Parameters
    ----------
    graph : sparse matrix of shape (n, n)
        Symmetric, non-negative weights (:func:`neighbor_graph`).
    labels : array-like of shape (n,)
        An over-clustering: its clusters are numbered 0 to ``n_clusters - 1``.

    Returns
    -------
    curve : dict of int to float
        The modularity of the partition of each number of clusters, ``n_clusters`` to 1.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> pairs = sp.csr_matrix(np.array([[0, 1, 0, 0], [1, 0, 0, 0],
    ...                                 [0, 0, 0, 1], [0, 0, 1, 0]], dtype=float))
    >>> merge_curve(pairs, [0, 1, 2, 3])
    {4: -0.25, 3: 0.125, 2: 0.5, 1: 0.0}
    """
    return {k: q for k, (q, _) in _merge_path(graph, labels, resolution).items()}


def _merge_path(graph, labels, resolution=1.0):
    """``{k: (modularity, owner)}`` along the greedy merges, ``owner[c]`` the merged
    cluster of each of the partition's clusters ``c`` at ``k`` clusters."""
    between, degrees = cluster_graph(graph, np.asarray(labels))
    two_m = max(degrees.sum(), np.finfo(float).tiny)
    e, a = between / two_m, degrees / two_m
    alive, owner = list(range(len(a))), np.arange(len(a))
    q = float(np.trace(e) - resolution * np.sum(a ** 2))
    path = {len(alive): (q, owner.copy())}
    while len(alive) > 1:
        sub = np.ix_(alive, alive)
        gain = 2 * (e[sub] - resolution * np.outer(a[alive], a[alive]))
        np.fill_diagonal(gain, -np.inf)
        i, j = np.unravel_index(np.argmax(gain), gain.shape)
        q += gain[i, j]
        keep, gone = alive[i], alive[j]
        e[keep, :] += e[gone, :]
        e[:, keep] += e[:, gone]
        a[keep] += a[gone]
        alive.remove(gone)
        owner[owner == gone] = keep
        path[len(alive)] = (float(q), owner.copy())
    return path


#: The numbers of clusters tried by default: every k to 10, then about 15% apart to 40.
DEFAULT_K_RANGE = (*range(2, 11), 12, 14, 16, 18, 20, 23, 26, 30, 35, 40)



def _sample(X, sample_size, rng):
    X = unit_rows(np.asarray(X, dtype=np.float64))
    if sample_size is None or len(X) <= sample_size:
        return X
    return X[np.sort(rng.permutation(len(X))[:sample_size])]


def choose_n_clusters_by_modularity(X, k_range=None, *, n_neighbors=20, sample_size=2000,
                                    n_repeats=3, tolerance=0.1,
                                    random_state=None):
    """The number of clusters whose partition fits the rows' neighbourhoods, and how sure.

    On a sample of the rows, each ``k`` of ``k_range`` is clustered ``n_repeats`` times by
    spherical k-means (one run each, seeds drawn from ``random_state``). Each partition
    is scored by its :func:`modularity` on the sample's :func:`neighbor_graph`, and each
    ``k`` by the mean over its partitions. Modularity rises while the clusters split
    unrelated documents apart and levels off once they cut topics into subtopics, so
    its plateau holds the candidates: every ``k`` from the first within ``tolerance``
    (a share) of the greatest mean modularity. Among them the chosen ``k`` is the most
    stable: the one whose repeated partitions agree most (mean adjusted Rand index).
    No labels.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The rows to cluster (any norm: each row is normalised).
    k_range : sequence of int, default=None
        The candidates, each in ``[2, n_sample_rows - 1]``. None: :data:`DEFAULT_K_RANGE`
        (those below the sample's size).
    n_neighbors : int, default=20
        Neighbours of each row in the graph.
    sample_size : int or None, default=2000
        Rows drawn (without replacement) to choose on; None: all.
    n_repeats : int, default=3
        Partitions of each ``k``; at least 2 (the stability compares them).
    tolerance : float in (0, 1), default=MODULARITY_TOLERANCE
        The plateau: mean modularity at least ``(1 - tolerance)`` times the greatest.
    random_state : int, RandomState instance or None, default=None
        Draws the sample and seeds the k-means runs.

    Returns
    -------
    result : Bunch
        ``k`` (the choice); ``runner_up`` (the next most stable candidate, None if ``k``
        is the only one); ``uncertain`` (True where the runner-up's stability is within
        two standard errors of the chosen one's, or the chosen partitions agree at an
        adjusted Rand index below 0.8); ``candidates`` (the plateau); ``modularity``
        and ``stability`` (dicts of k to the mean modularity, and the mean and standard
        error of the adjusted Rand index); ``k_modularity`` (the k of greatest mean
        modularity); ``sample_size`` (rows used).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> centers = rng.normal(size=(4, 16))
    >>> X = np.repeat(centers, 100, axis=0) + 0.1 * rng.normal(size=(400, 16))
    >>> result = choose_n_clusters_by_modularity(X, range(2, 9), random_state=0)
    >>> int(result.k), bool(result.uncertain)
    (4, False)
    """
    rng = check_random_state(random_state)
    sample = _sample(X, sample_size, rng)
    ks = _checked_k_range(k_range, len(sample))
    if not isinstance(n_repeats, Integral) or n_repeats < 2:
        raise ValueError(f"n_repeats={n_repeats!r} must be an integer of at least 2: the "
                         "stability compares the partitions of each k.")
    if not 0 < tolerance < 1:
        raise ValueError(f"tolerance={tolerance!r} must be in (0, 1).")
    choice = plateau_choice(sample, ks, rng, n_neighbors=n_neighbors, n_repeats=n_repeats,
                            tolerance=tolerance)
    return Bunch(**choice, k_modularity=max(choice["modularity"], key=choice["modularity"].get),
                 sample_size=len(sample))


def _checked_k_range(k_range, n_rows):
    if k_range is None:
        ks = [k for k in DEFAULT_K_RANGE if k < n_rows]
    else:
        ks = sorted({int(k) for k in k_range})
    if not ks or ks[0] < 2 or ks[-1] >= n_rows:
        raise ValueError(f"k_range={k_range!r}: needs candidates in [2, {n_rows - 1}] for "
                         f"{n_rows} sample rows; give smaller k or more rows.")
    return ks


#: The weights of the second view tried by default: 0 (the first alone) to 1 (the second alone).
DEFAULT_WEIGHTS = tuple(i / 10 for i in range(11))


def _weight_scores(first, second, join, weights, k, criterion, seed):
    """Each weight's partition at ``k`` scored by ``criterion``, the partitions, and
    their k-means objectives."""
    graphs = [neighbor_graph(view, 20) for view in (first, second)]
    partitions, scores, inertias = {}, {}, {}
    for weight in weights:
        joined = join(first, second, weight)
        kmeans = SphericalKMeans(k, n_init=3, random_state=seed).fit(joined)
        partitions[weight], inertias[weight] = kmeans.labels_, kmeans.inertia_
        if criterion == "joined":
            scores[weight] = modularity(neighbor_graph(joined, 20), partitions[weight])
        elif criterion == "views":
            scores[weight] = sum(modularity(graph, partitions[weight]) for graph in graphs)
    if criterion == "consensus":
        from sklearn.metrics import adjusted_mutual_info_score

        ends = [w for w in (min(weights), max(weights))]
        scores = {w: float(np.mean([adjusted_mutual_info_score(p, partitions[end])
                                    for end in ends if end != w]))
                  for w, p in partitions.items()}
    return scores, partitions, inertias


def choose_view_weight_and_k(encoded, lexical, join, *, weights=DEFAULT_WEIGHTS, k_range=None,
                             sample_size=2000, provisional_weight=0.5,
                             weight_criterion="views", random_state=None):
    """The weight of the words and the number of clusters, chosen together without labels.

    On one sample of the documents: k is chosen first on the space joined at
    ``provisional_weight`` (:func:`choose_n_clusters_by_modularity`); at that k each
    weight's joined space is clustered and scored by ``weight_criterion`` (weights of
    the same best score, which found one partition, are told apart by the k-means
    objective: the weight where that partition is tightest); then k is chosen again on
    the space of the chosen weight.

    Parameters
    ----------
    encoded : ndarray of shape (n_documents, dim)
        The encoder's embeddings.
    lexical : ndarray of shape (n_documents, n_components)
        The documents' rows of the lexical space.
    join : callable
        ``join(encoded, lexical, weight)`` returns the joined rows (the embedders'
        joining function).
    weights : sequence of float in [0, 1], default=DEFAULT_WEIGHTS
        The candidate weights of the words.
    k_range : sequence of int, default=None
        See :func:`choose_n_clusters_by_modularity`.
    sample_size : int or None, default=2000
        Documents drawn to choose on; None: all.
    provisional_weight : float, default=0.5
        The weight k is first chosen at.
    weight_criterion : {"views", "joined", "consensus"}, default="views"
        ``"views"``: the sum of the modularities of the weight's partition on each
        view's neighbour graph (the graphs are the same for every weight, so the scores
        compare); ``"joined"``: its modularity on its own space's graph;
        ``"consensus"``: the mean adjusted mutual information of its partition with
        those of the two ends of ``weights`` (each view alone) other than itself.
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    result : Bunch
        ``weight``, ``k``; ``weight_scores`` (dict of weight to score),
        ``weight_runner_up`` (the best-scored weight whose partition differs from the
        chosen one's), ``weight_uncertain`` (its score within 1% of the chosen one's);
        ``k_runner_up``, ``k_uncertain`` and ``k_scores`` (mean modularity of each k)
        from the last k choice; ``provisional_k``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> topic = np.repeat(np.arange(4), 60)
    >>> encoded = np.eye(8)[topic] + 0.3 * rng.normal(size=(240, 8))
    >>> words = rng.normal(size=(240, 8))
    >>> join = lambda a, b, w: np.hstack([np.sqrt(1 - w) * a, np.sqrt(w) * b])
    >>> result = choose_view_weight_and_k(encoded, words, join, k_range=range(2, 9),
    ...                                   random_state=0)
    >>> result.k, result.weight <= 0.3
    (4, True)
    """
    from sklearn.metrics import adjusted_mutual_info_score

    if weight_criterion not in ("joined", "views", "consensus"):
        raise ValueError(f"weight_criterion={weight_criterion!r} must be one of 'joined', "
                         "'views', 'consensus'.")
    rng = check_random_state(random_state)
    encoded, lexical = np.asarray(encoded), np.asarray(lexical)
    if len(encoded) != len(lexical):
        raise ValueError(f"encoded has {len(encoded)} rows but lexical {len(lexical)}; give "
                         "the rows of the same documents.")
    rows = np.arange(len(encoded))
    if sample_size is not None and len(rows) > sample_size:
        rows = np.sort(rng.permutation(len(rows))[:sample_size])
    first, second = encoded[rows], lexical[rows]
    seed = rng.randint(np.iinfo(np.int32).max)
    provisional = choose_n_clusters_by_modularity(
        join(first, second, provisional_weight), k_range, sample_size=None, random_state=seed)
    scores, partitions, inertias = _weight_scores(first, second, join, tuple(weights),
                                                  provisional.k, weight_criterion, seed)
    best = max(scores.values())  # ties (one partition): the weight where it is tightest
    weight = min((w for w in scores if scores[w] >= best - 1e-12), key=inertias.get)
    others = [w for w in scores
              if adjusted_mutual_info_score(partitions[w], partitions[weight]) < 0.9]
    runner_up = max(others, key=scores.get) if others else None
    uncertain = runner_up is not None and scores[runner_up] >= scores[weight] - 0.01 * abs(
        scores[weight])
    final = provisional if weight == provisional_weight else choose_n_clusters_by_modularity(
        join(first, second, weight), k_range, sample_size=None, random_state=seed)
    return Bunch(weight=float(weight), k=final.k, weight_scores=scores,
                 weight_runner_up=runner_up, weight_uncertain=bool(uncertain),
                 k_runner_up=final.runner_up, k_uncertain=final.uncertain,
                 k_scores=final.modularity, provisional_k=provisional.k)

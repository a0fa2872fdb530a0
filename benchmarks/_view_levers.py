"""Label-free ways to weight the views of a corpus before spherical k-means.

A *view* is one representation of every document, rows of norm 1: the frozen encoder's
embeddings (``"encoder"``), the corpus' LSA space (``"lsa"``), its TF-IDF rows
(``"tfidf"``, sparse). Views are joined as :func:`join` does,
``[sqrt(w_1) x_1, sqrt(w_2) x_2, ...]`` with weights summing to 1, so that each row has
norm 1 and the cosine of two documents is ``sum_v w_v cos_v``: with two views and
``w_lsa = w`` this is the package's ``fuse(encoder, lsa, w)``.

Each lever is a function ``lever(views, n_clusters, seed) -> (weights, info)``: the
weights of the views (a dict, summing to 1) and what it measured on the way. No labels.
"""

import numpy as np
import scipy.sparse as sp
from lab.internals import silhouette_or_worst
from scipy.sparse.csgraph import laplacian
from scipy.sparse.linalg import eigsh
from sklearn.metrics import adjusted_rand_score
from sklearn.neighbors import NearestNeighbors

from sklearn_shufdiv import SphericalKMeans
from sklearn_shufdiv.cluster import cluster_on_sphere


def unit(rows):
    """Rows of norm 1 (zero rows stay zero), dense float64 or CSR."""
    if sp.issparse(rows):
        norms = np.sqrt(np.asarray(rows.multiply(rows).sum(axis=1))).ravel()
        return sp.diags(1.0 / np.maximum(norms, 1e-12)) @ rows.tocsr()
    rows = np.asarray(rows, dtype=np.float64)
    return rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)


def center(rows):
    """The rows minus their mean, then of norm 1 (dense views only)."""
    rows = np.asarray(rows, dtype=np.float64)
    return unit(rows - rows.mean(axis=0))


def join(views, weights):
    """``[sqrt(w_v) * unit(x_v)]`` over the views with a weight; CSR if one view is sparse."""
    parts = [np.sqrt(weights[name]) * unit(views[name]) for name in views
             if weights.get(name, 0) > 0]
    if any(sp.issparse(p) for p in parts):
        return sp.hstack([sp.csr_matrix(p) for p in parts], format="csr")
    return np.hstack(parts)


def kmeans(rows, n_clusters, seed, n_init=10, init="k-means++"):
    return SphericalKMeans(n_clusters, n_init=1 if not isinstance(init, str) else n_init,
                           init=init, random_state=seed).fit(rows)


def _sums(rows, labels, n_clusters):
    """Per-cluster sums of the rows: (n_clusters, dim) dense."""
    onehot = sp.csr_matrix((np.ones(len(labels)), (labels, np.arange(len(labels)))),
                           shape=(n_clusters, len(labels)))
    sums = onehot @ rows
    return sums.toarray() if sp.issparse(sums) else np.asarray(sums)


def scatter(rows, labels, n_clusters):
    """``(W, T)``: the within-cluster sum of squares of unit rows about their cluster means,
    and about the mean of all rows (k-means' distortion, and the total)."""
    rows = unit(rows)
    n = rows.shape[0]
    counts = np.bincount(labels, minlength=n_clusters)
    sums = _sums(rows, labels, n_clusters)
    norms = (np.asarray(rows.multiply(rows).sum()) if sp.issparse(rows)
             else np.sum(rows * rows))
    within = float(norms - np.sum(np.sum(sums ** 2, axis=1) / np.maximum(counts, 1)))
    total = float(norms - np.sum(sums.sum(axis=0) ** 2) / n)
    return within, total


def normalised_distortion(rows, labels, n_clusters):
    """``W / T`` of ``labels`` in the view: 0 when the clusters are points, 1 when the
    cluster means are all the grand mean."""
    within, total = scatter(rows, labels, n_clusters)
    return within / max(total, 1e-12)


def stability(rows, n_clusters, seed, n_clusterings=5, n_init=10):
    labels = [kmeans(rows, n_clusters, seed + i, n_init).labels_ for i in range(n_clusterings)]
    return float(np.mean([adjusted_rand_score(labels[i], labels[j])
                          for i in range(n_clusterings) for j in range(i + 1, n_clusterings)]))


def eigengap(rows, n_clusters, n_neighbors=10):
    """``lambda_{k+1} - lambda_k`` of the symmetric normalised Laplacian of the view's
    mutual-or kNN cosine graph (eigenvalues ascending, ``lambda_1 = 0``)."""
    rows = unit(rows)
    nn = NearestNeighbors(n_neighbors=n_neighbors + 1, metric="cosine").fit(rows)
    dist, idx = nn.kneighbors(rows)
    n = rows.shape[0]
    graph = sp.csr_matrix((np.maximum(1 - dist[:, 1:], 0).ravel(),
                           (np.repeat(np.arange(n), n_neighbors), idx[:, 1:].ravel())),
                          shape=(n, n))
    graph = graph.maximum(graph.T)
    lap = laplacian(graph, normed=True)
    values = np.sort(eigsh(lap, k=n_clusters + 1, sigma=-1e-3, which="LM",
                           return_eigenvectors=False))
    return float(values[n_clusters] - values[n_clusters - 1])


def pair_statistics(views, labels, seed, sample=2000):
    """Per view: the mean cosine of same-cluster pairs minus that of other pairs (delta),
    the pooled within-group variance of the cosines (var), on a sample of documents; and
    the within-group covariance matrix of the views' cosines (for a joint LDA)."""
    rng = np.random.RandomState(seed)
    n = len(labels)
    pick = np.sort(rng.permutation(n)[:sample])
    lab = labels[pick]
    same = lab[:, None] == lab[None, :]
    upper = np.triu(np.ones_like(same), 1).astype(bool)
    same, other = same & upper, ~same & upper
    cos = {}
    for name, rows in views.items():
        x = unit(rows[pick])
        g = x @ x.T
        cos[name] = np.asarray(g.toarray() if sp.issparse(g) else g)
    names = list(views)
    stacked_same = np.array([cos[v][same] for v in names])
    stacked_other = np.array([cos[v][other] for v in names])
    delta = stacked_same.mean(axis=1) - stacked_other.mean(axis=1)
    centered = np.hstack([stacked_same - stacked_same.mean(axis=1, keepdims=True),
                         stacked_other - stacked_other.mean(axis=1, keepdims=True)])
    cov = centered @ centered.T / centered.shape[1]
    return names, delta, cov


def normalise(raw):
    """Weights (a dict) scaled to sum 1; negatives clipped to 0; all-zero gives even."""
    raw = {k: max(float(v), 0.0) for k, v in raw.items()}
    total = sum(raw.values())
    if total <= 0 or not np.isfinite(total):
        return {k: 1.0 / len(raw) for k in raw}
    return {k: v / total for k, v in raw.items()}


# -- levers --------------------------------------------------------------------------------

def fixed(weight):
    """LSA at ``weight``, the encoder at ``1 - weight`` (the package's ``fuse``)."""
    def lever(views, n_clusters, seed):
        return {"encoder": 1 - weight, "lsa": weight}, {}
    return lever


def joint(rule, names=("encoder", "lsa"), max_iter=20, tol=1e-3, start=None):
    """Weights learned with the partition: k-means of the joined space (best of 10 at the
    start, then warm-started from the previous clusters), the weights from each view's
    statistics of that partition by ``rule(views, labels, k, seed) -> raw weights``,
    until the weights move by less than ``tol``."""
    def lever(views, n_clusters, seed):
        views = {v: views[v] for v in names}
        weights = normalise(start or {v: 1.0 for v in names})
        labels, trace = None, []
        for _ in range(max_iter):
            rows = join(views, weights)
            if labels is None:
                labels = kmeans(rows, n_clusters, seed).labels_
            else:
                sums = _sums(rows, labels, n_clusters)
                live = np.linalg.norm(sums, axis=1) > 0
                if not live.all():
                    labels = kmeans(rows, n_clusters, seed).labels_
                else:
                    labels = kmeans(rows, n_clusters, seed, init=sums).labels_
            new = normalise(rule(views, labels, n_clusters, seed))
            trace.append({v: round(w, 4) for v, w in new.items()})
            moved = max(abs(new[v] - weights[v]) for v in names)
            weights = new
            if moved < tol:
                break
        return weights, {"trace": trace}
    return lever


def distortion_rule(power, normalised=True):
    """``w_v`` proportional to ``H_v ** -power``, ``H_v`` the view's distortion of the
    partition, divided by its total scatter when ``normalised`` (``W / T``). ``power=0.5``
    without normalising is Nie et al.'s parameter-free auto-weighting (w = 1 / (2 sqrt(D)));
    ``power = gamma / (gamma - 1)`` is RMKMC's weight ``alpha_v ** gamma`` (Cai et al.)."""
    def rule(views, labels, n_clusters, seed):
        out = {}
        for name, rows in views.items():
            within, total = scatter(rows, labels, n_clusters)
            h = within / max(total, 1e-12) if normalised else within
            out[name] = max(h, 1e-12) ** -power
        return out
    return rule


def fisher_rule(full=False):
    """LDA on the views' pair cosines under the partition: ``w`` proportional to
    ``delta_v / var_v`` (or ``cov^-1 delta`` with ``full``): the combination of the cosines
    that best separates same-cluster pairs from the others."""
    def rule(views, labels, n_clusters, seed):
        names, delta, cov = pair_statistics(views, labels, seed)
        raw = np.linalg.solve(cov, delta) if full else delta / np.diag(cov)
        return dict(zip(names, raw))
    return rule


def own_structure(measure, power=1.0, names=("encoder", "lsa")):
    """Each view's cluster structure measured alone, ``w_v`` proportional to
    ``measure(view) ** power``."""
    def lever(views, n_clusters, seed):
        scores = {v: measure(views[v], n_clusters, seed) for v in names}
        return normalise({v: max(s, 1e-12) ** power for v, s in scores.items()}), {
            "scores": scores}
    return lever


def own_explained(rows, n_clusters, seed):
    """1 - W/T of the view's own k-means partition."""
    labels = kmeans(rows, n_clusters, seed).labels_
    return 1 - normalised_distortion(rows, labels, n_clusters)


def own_stability(rows, n_clusters, seed):
    return stability(rows, n_clusters, seed)


def own_eigengap(rows, n_clusters, seed):
    return eigengap(rows, n_clusters)


def knn_graph(rows, n_neighbors=10):
    """The ``n_neighbors`` nearest other rows of each row by cosine: (n, n_neighbors)."""
    nn = NearestNeighbors(n_neighbors=n_neighbors + 1, metric="cosine").fit(unit(rows))
    return nn.kneighbors(unit(rows), return_distance=False)[:, 1:]


def modularity(graph, labels):
    """Newman's modularity of ``labels`` on the symmetrised kNN graph ``graph``."""
    n, k = graph.shape
    adj = sp.csr_matrix((np.ones(n * k), (np.repeat(np.arange(n), k), graph.ravel())),
                        shape=(n, n))
    adj = ((adj + adj.T) > 0).astype(float)
    degree = np.asarray(adj.sum(axis=1)).ravel()
    two_m = degree.sum()
    onehot = sp.csr_matrix((np.ones(n), (np.arange(n), labels)))
    inside = (onehot.T @ adj @ onehot).diagonal().sum() / two_m
    expected = np.sum((onehot.T @ degree) ** 2) / two_m ** 2
    return float(inside - expected)


def consistency(graph, labels):
    """Fraction of the kNN pairs inside one cluster."""
    return float(np.mean(labels[graph] == labels[:, None]))


GRID = tuple(i / 10 for i in range(10))


def graph_choice(score=modularity, grid=GRID, voters=("encoder", "lsa")):
    """The weight of LSA whose partition (k-means of the fused space, best of 10) fits the
    views' kNN graphs best: the argmax over ``grid`` of the sum over ``voters`` of
    ``score(graph_v, labels)`` (first of ties)."""
    def lever(views, n_clusters, seed):
        graphs = [knn_graph(views[v]) for v in voters]
        scores = {}
        for w in grid:
            labels = kmeans(join(views, {"encoder": 1 - w, "lsa": w}), n_clusters,
                            seed).labels_
            scores[w] = sum(score(g, labels) for g in graphs)
        best = max(scores, key=lambda w: (scores[w], -w))
        return {"encoder": 1 - best, "lsa": best}, {"scores": scores}
    return lever


def two_space_silhouette(views, n_clusters, seed, sample_size=5000):
    """The former ``lexical_weight="auto"``: on the fit's selection sample, the LSA weight
    (0 to 0.9) whose clustering has the greatest cosine silhouette in the encoder's space
    plus in LSA's, each divided by the silhouette of that space's own clustering."""
    n = views["encoder"].shape[0]
    sample = np.sort(np.random.RandomState(seed).permutation(n)[:sample_size])
    enc, lsa = unit(views["encoder"][sample]), unit(views["lsa"][sample])

    def labels(rows):
        return cluster_on_sphere(rows, n_clusters, seed).labels

    own = [silhouette_or_worst(space, labels(space)) for space in (enc, lsa)]
    scores = {}
    for w in GRID:
        fused = labels(join({"encoder": enc, "lsa": lsa}, {"encoder": 1 - w, "lsa": w}))
        scores[w] = sum(float(silhouette_or_worst(space, fused)) / max(abs(base), 1e-12)
                        for space, base in zip((enc, lsa), own))
    best = max(scores, key=lambda w: (scores[w], -w))
    return {"encoder": 1 - best, "lsa": best}, {"scores": scores}

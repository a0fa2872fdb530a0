"""Label-free criteria for the weight of LSA, judged on one set of partitions per corpus.

The encoder + LSA space joined at each LSA weight ``w`` of 0, 0.1, ..., 1 is clustered by
``SphericalKMeans(k, n_init=10, random_state=seed)`` for each seed; every criterion then
scores those same partitions from the views alone, and its argmax over ``w`` (per seed) is
the weight it would choose. The criteria: the sum over the two views of the partition's
modularity on the view's kNN graph (``mod-sum``, what ``choose_view_weights`` maximises),
the sum of the fractions of kNN pairs inside one cluster (``cons-sum``), and the modularity
on the graph of the neighbour pairs both views share (``mod-both``); each at 5, 10, 20 and
30 neighbours, with candidates up to 0.9 or 1 (LSA alone). Labels only judge.

:func:`leave_one_out` chooses each family's (neighbours, largest weight) on all corpora but
one, by the fewest misses of "within 0.3 points of the better single view" and then the
largest mean ACC gain, and reports it on the corpus left out.
"""

import _view_levers as vl
import numpy as np
import scipy.sparse as sp
from sklearn.metrics import adjusted_mutual_info_score

from sklearn_shufdiv import clustering_accuracy

WEIGHTS = tuple(i / 10 for i in range(11))
FAMILIES = ("mod-sum", "cons-sum", "mod-both")
NEIGHBOURS = (5, 10, 20, 30)
TOPS = (0.9, 1.0)


def partitions(views, y, seeds):
    """labels (weights, seeds, n), ACC and AMI (weights, seeds) of the joined spaces."""
    k = len(np.unique(y))
    labels = np.zeros((len(WEIGHTS), seeds, len(y)), dtype=np.int64)
    for i, w in enumerate(WEIGHTS):
        rows = vl.join(views, {"encoder": 1 - w, "lsa": w})
        for s in range(seeds):
            labels[i, s] = vl.kmeans(rows, k, s).labels_
    acc = np.array([[clustering_accuracy(y, lab) for lab in row] for row in labels])
    ami = np.array([[adjusted_mutual_info_score(y, lab) for lab in row] for row in labels])
    return labels, acc, ami


def _adjacency(graph):
    n, k = graph.shape
    adj = sp.csr_matrix((np.ones(n * k), (np.repeat(np.arange(n), k), graph.ravel())),
                        shape=(n, n))
    return ((adj + adj.T) > 0).astype(float)


def _modularity_on(adj, labels):
    degree = np.asarray(adj.sum(axis=1)).ravel()
    two_m = degree.sum()
    onehot = sp.csr_matrix((np.ones(len(labels)), (np.arange(len(labels)), labels)))
    inside = (onehot.T @ adj @ onehot).diagonal().sum() / two_m
    return float(inside - np.sum((onehot.T @ degree) ** 2) / two_m ** 2)


def family_scores(family, graphs, labels):
    """The criterion's score of every partition: (weights, seeds)."""
    if family == "mod-both":
        both = _adjacency(graphs["encoder"]).multiply(_adjacency(graphs["lsa"]))
        return np.array([[_modularity_on(both, lab) for lab in row] for row in labels])
    score = vl.modularity if family == "mod-sum" else vl.consistency
    return sum(np.array([[score(graphs[v], lab) for lab in row] for row in labels])
               for v in ("encoder", "lsa"))


def settings_table(views, labels, acc, ami):
    """``{"family k top": {acc, ami, picks}}`` and ``single``, the better single view."""
    knn30 = {v: vl.knn_graph(views[v], max(NEIGHBOURS)) for v in ("encoder", "lsa")}
    seeds = np.arange(labels.shape[1])
    out = {}
    for family in FAMILIES:
        for k in NEIGHBOURS:
            scores = family_scores(family, {v: g[:, :k] for v, g in knn30.items()}, labels)
            for top in TOPS:
                pick = scores[:int(round(top * 10)) + 1].argmax(axis=0)
                out[f"{family} {k} {top}"] = {
                    "acc": float(acc[pick, seeds].mean()), "ami": float(ami[pick, seeds].mean()),
                    "picks": [WEIGHTS[p] for p in pick]}
    out["single"] = {"acc": float(max(acc[0].mean(), acc[-1].mean())),
                     "ami": float(max(ami[0].mean(), ami[-1].mean())), "picks": []}
    return out


def _merit(tables, setting, corpora):
    """(misses, -mean ACC gain) over ``corpora``: smaller is better."""
    misses, gains = 0, []
    for name in corpora:
        got, best = tables[name][setting], tables[name]["single"]
        misses += got["acc"] < best["acc"] - 0.003 or got["ami"] < best["ami"] - 0.003
        gains.append(got["acc"] - best["acc"])
    return misses, -float(np.mean(gains))


def leave_one_out(tables):
    """Markdown: every setting on every corpus, then each family's choice per corpus left
    out (chosen on the others)."""
    names = list(tables)
    settings = [s for s in tables[names[0]] if s != "single"]
    lines = ["| setting | " + " | ".join(names) + " | misses | mean ACC gain |",
             "|---|" + "---|" * (len(names) + 2)]
    for s in settings:
        misses, gain = _merit(tables, s, names)
        cells = [f"{tables[n][s]['acc']:.3f} / {tables[n][s]['ami']:.3f}" for n in names]
        lines.append(f"| {s} | " + " | ".join(cells) + f" | {misses} | {-100 * gain:+.1f} |")
    for family in FAMILIES if len(names) > 1 else ():
        lines += ["", f"Leave one corpus out, {family}: (neighbours, largest weight) chosen "
                  "on the others.", "", "| left out | chosen | ACC / AMI | picks | "
                  "better single view |", "|---|---|---|---|---|"]
        for held in names:
            others = [n for n in names if n != held]
            choice = min((s for s in settings if s.startswith(family + " ")),
                         key=lambda s: _merit(tables, s, others))
            got, best = tables[held][choice], tables[held]["single"]
            lines.append(f"| {held} | {choice} | {got['acc']:.3f} / {got['ami']:.3f} | "
                         f"{got['picks']} | {best['acc']:.3f} / {best['ami']:.3f} |")
    return "\n".join(lines)


def weight_table(name, acc, ami):
    """Markdown rows: the mean ACC and AMI at each LSA weight."""
    return "\n".join([
        f"| {name} | " + " | ".join(f"{w:.1f}" for w in WEIGHTS) + " |",
        "|---|" + "---|" * len(WEIGHTS),
        "| ACC | " + " | ".join(f"{a:.3f}" for a in acc) + " |",
        "| AMI | " + " | ".join(f"{a:.3f}" for a in ami) + " |"])

"""Label-free criteria for the weight of the words, judged on saved partitions.

Stage 1 (``partitions``): for each corpus, the encoder + LSA space fused at each weight
``w`` of 0, 0.1, ..., 1 is clustered by ``SphericalKMeans(k, n_init=10, random_state=s)``
for the seeds 0-4; the labels and each view's 10-NN graph are saved to ``--work``
(``<corpus>.npz``), with the ACC / AMI of every partition (labels used only to judge).

Stage 2 (``criteria``): each criterion scores every partition from the saved views and
graphs alone; per seed its argmax over ``w`` is the weight it would choose; printed
beside the oracle (the best weight by mean ACC).

    python benchmarks/research/view_criteria.py partitions bbc classic3 ...
    python benchmarks/research/view_criteria.py criteria bbc classic3 ... >> view_criteria.log
"""

import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.metrics import adjusted_mutual_info_score, adjusted_rand_score

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import _view_levers as vl  # noqa: E402
from view_structure import knn, load  # noqa: E402

from sklearn_shufdiv import clustering_accuracy  # noqa: E402

WEIGHTS = tuple(i / 10 for i in range(11))
SEEDS = range(5)
WORK = Path("/tmp/quality/partitions")


def partitions(name):
    docs, y, views = load(name)
    k = len(np.unique(y))
    labels = np.zeros((len(WEIGHTS), len(SEEDS), len(y)), dtype=np.int32)
    for i, w in enumerate(WEIGHTS):
        rows = vl.join(views, {"encoder": 1 - w, "lsa": w})
        for s in SEEDS:
            labels[i, s] = vl.kmeans(rows, k, s).labels_
    graphs = {f"knn_{v}": knn(rows) for v, rows in views.items()}
    own = {f"own_{v}": vl.kmeans(rows, k, 0).labels_ for v, rows in views.items()}
    WORK.mkdir(parents=True, exist_ok=True)
    np.savez(WORK / f"{name}.npz", y=y, labels=labels, **graphs, **own)
    print(f"{name}: saved", flush=True)


def consistency(graph, labels):
    """Fraction of the 10-NN pairs inside one cluster."""
    return float(np.mean(labels[graph] == labels[:, None]))


def modularity(graph, labels):
    """Newman's modularity of ``labels`` on the symmetrised kNN graph."""
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


def criteria(name):
    data = np.load(WORK / f"{name}.npz")
    y, labels = data["y"], data["labels"]
    views = ("encoder", "lsa")
    acc = np.array([[clustering_accuracy(y, lab) for lab in row] for row in labels])
    ami = np.array([[adjusted_mutual_info_score(y, lab) for lab in row] for row in labels])
    scores = {}
    for v in views + ("tfidf",):
        g = data[f"knn_{v}"]
        scores[f"cons_{v}"] = np.array([[consistency(g, lab) for lab in row] for row in labels])
        scores[f"mod_{v}"] = np.array([[modularity(g, lab) for lab in row] for row in labels])
        own = data[f"own_{v}"]
        scores[f"ami_own_{v}"] = np.array([[adjusted_mutual_info_score(own, lab)
                                            for lab in row] for row in labels])
    stab = np.array([[np.mean([adjusted_rand_score(row[s], row[t]) for t in SEEDS if t != s])
                      for s in SEEDS] for row in labels])
    medoid = np.array([[np.mean([adjusted_rand_score(labels[i, s], labels[j, s])
                                 for j in range(len(WEIGHTS)) if j != i]) for s in SEEDS]
                       for i in range(len(WEIGHTS))])
    crit = {
        "medoid": medoid,
        "cons-sum": scores["cons_encoder"] + scores["cons_lsa"],
        "mod-sum": scores["mod_encoder"] + scores["mod_lsa"],
        "mod-sum3": scores["mod_encoder"] + scores["mod_lsa"] + scores["mod_tfidf"],
        "mod-min": np.minimum(scores["mod_encoder"], scores["mod_lsa"]),
        "agree-own": scores["ami_own_encoder"] + scores["ami_own_lsa"],
        "stability": stab,
    }
    print(f"\n## {name} ({len(y)} documents, {len(np.unique(y))} classes)")
    print("| w | " + " | ".join(f"{w:.1f}" for w in WEIGHTS) + " |")
    print("|---|" + "---|" * len(WEIGHTS))
    print("| ACC | " + " | ".join(f"{a:.3f}" for a in acc.mean(axis=1)) + " |")
    print("| AMI | " + " | ".join(f"{a:.3f}" for a in ami.mean(axis=1)) + " |")
    for key in ("cons_encoder", "cons_lsa", "cons_tfidf", "mod_encoder", "mod_lsa",
                "mod_tfidf", "ami_own_encoder", "ami_own_lsa"):
        print(f"| {key} | " + " | ".join(f"{a:.3f}" for a in scores[key].mean(axis=1)) + " |")
    print(f"| stability | " + " | ".join(f"{a:.3f}" for a in stab.mean(axis=1)) + " |")
    best = int(np.argmax(acc.mean(axis=1)))
    print(f"oracle w {WEIGHTS[best]:.1f}: {acc.mean(axis=1)[best]:.3f}")
    for key, value in crit.items():
        pick = value.argmax(axis=0)  # per seed
        chosen_acc = acc[pick, np.arange(len(SEEDS))]
        chosen_ami = ami[pick, np.arange(len(SEEDS))]
        print(f"{key:10s} picks {[WEIGHTS[p] for p in pick]}: ACC {chosen_acc.mean():.3f} "
              f"AMI {chosen_ami.mean():.3f}")


if __name__ == "__main__":
    stage, names = sys.argv[1], sys.argv[2:]
    for corpus in names:
        (partitions if stage == "partitions" else criteria)(corpus)

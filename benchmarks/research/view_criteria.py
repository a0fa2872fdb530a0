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

Stage 3 (``loo``): the families ``mod-sum``, ``cons-sum``, ``mod-both`` at 5, 10, 20, 30
neighbours and with candidates up to 0.9 or 1 (LSA alone); for each corpus held out, the
setting with the fewest goal misses (then the largest mean ACC gain over the better single
view) on the others, and its figures on the held-out corpus.
"""

import json
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


def adjacency(graph):
    n, k = graph.shape
    adj = sp.csr_matrix((np.ones(n * k), (np.repeat(np.arange(n), k), graph.ravel())),
                        shape=(n, n))
    return ((adj + adj.T) > 0).astype(float)


def modularity(graph, labels):
    """Newman's modularity of ``labels`` on the symmetrised kNN graph (or an adjacency)."""
    adj = graph if sp.issparse(graph) else adjacency(graph)
    n = adj.shape[0]
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
    both = adjacency(data["knn_encoder"]).multiply(adjacency(data["knn_lsa"]))
    scores["mod_both"] = np.array([[modularity(both, lab) for lab in row] for row in labels])
    either = ((adjacency(data["knn_encoder"]) + adjacency(data["knn_lsa"])) > 0).astype(float)
    scores["mod_either"] = np.array([[modularity(either, lab) for lab in row]
                                     for row in labels])
    stab = np.array([[np.mean([adjusted_rand_score(row[s], row[t]) for t in SEEDS if t != s])
                      for s in SEEDS] for row in labels])
    medoid = np.array([[np.mean([adjusted_rand_score(labels[i, s], labels[j, s])
                                 for j in range(len(WEIGHTS)) if j != i]) for s in SEEDS]
                       for i in range(len(WEIGHTS))])
    crit = {
        "medoid": medoid,
        "cons-sum": scores["cons_encoder"] + scores["cons_lsa"],
        "cons-sum3": scores["cons_encoder"] + scores["cons_lsa"] + scores["cons_tfidf"],
        "mod-sum": scores["mod_encoder"] + scores["mod_lsa"],
        "mod-sum3": scores["mod_encoder"] + scores["mod_lsa"] + scores["mod_tfidf"],
        "mod-min": np.minimum(scores["mod_encoder"], scores["mod_lsa"]),
        "mod-both": scores["mod_both"],
        "mod-either": scores["mod_either"],
        "mod-weighted": (scores["mod_encoder"] * scores["mod_encoder"][0:1]
                         + scores["mod_lsa"] * scores["mod_lsa"][-1:]),
        "agree-own": scores["ami_own_encoder"] + scores["ami_own_lsa"],
        "stability": stab,
    }
    print(f"\n## {name} ({len(y)} documents, {len(np.unique(y))} classes)")
    print("| w | " + " | ".join(f"{w:.1f}" for w in WEIGHTS) + " |")
    print("|---|" + "---|" * len(WEIGHTS))
    print("| ACC | " + " | ".join(f"{a:.3f}" for a in acc.mean(axis=1)) + " |")
    print("| AMI | " + " | ".join(f"{a:.3f}" for a in ami.mean(axis=1)) + " |")
    for key in ("cons_encoder", "cons_lsa", "cons_tfidf", "mod_encoder", "mod_lsa",
                "mod_tfidf", "mod_both", "mod_either", "ami_own_encoder", "ami_own_lsa"):
        print(f"| {key} | " + " | ".join(f"{a:.3f}" for a in scores[key].mean(axis=1)) + " |")
    print("| stability | " + " | ".join(f"{a:.3f}" for a in stab.mean(axis=1)) + " |")
    m = {v: scores[f"mod_{v}"].mean(axis=1) for v in views}
    ratio = np.sqrt((m["encoder"][-1] / m["encoder"][0]) / (m["lsa"][0] / m["lsa"][-1]))
    print(f"cross-fit estimate of a_lsa / a_encoder: {ratio:.4f}")
    best = int(np.argmax(acc.mean(axis=1)))
    print(f"oracle w {WEIGHTS[best]:.1f}: {acc.mean(axis=1)[best]:.3f}")
    summary = {"acc": acc.mean(axis=1).tolist(), "ami": ami.mean(axis=1).tolist()}
    for key, value in crit.items():
        pick = value.argmax(axis=0)  # per seed
        chosen_acc = acc[pick, np.arange(len(SEEDS))]
        chosen_ami = ami[pick, np.arange(len(SEEDS))]
        summary[key] = [WEIGHTS[p] for p in pick] + [chosen_acc.mean(), chosen_ami.mean()]
        print(f"{key:10s} picks {[WEIGHTS[p] for p in pick]}: ACC {chosen_acc.mean():.3f} "
              f"AMI {chosen_ami.mean():.3f}")
    (WORK / f"{name}_criteria.json").write_text(json.dumps(summary))




# -- constants chosen by leaving one corpus out ---------------------------------------------

FAMILIES = ("mod-sum", "cons-sum", "mod-both")
NEIGHBOURS = (5, 10, 20, 30)
TOPS = (0.9, 1.0)  # the largest LSA weight among the candidates


def neighbours30(name):
    path = WORK / f"{name}_knn30.npz"
    if not path.exists():
        _, _, views = load(name)
        np.savez(path, **{v: knn(views[v], 30) for v in ("encoder", "lsa")})
    return np.load(path)


def family_scores(family, graphs, labels):
    if family == "mod-both":
        both = adjacency(graphs["encoder"]).multiply(adjacency(graphs["lsa"]))
        return np.array([[modularity(both, lab) for lab in row] for row in labels])
    score = modularity if family == "mod-sum" else consistency
    return sum(np.array([[score(graphs[v], lab) for lab in row] for row in labels])
               for v in ("encoder", "lsa"))


def settings_table(name):
    """{(family, n_neighbors, top): (acc, ami, picks)} of one corpus, cached."""
    path = WORK / f"{name}_settings.json"
    if path.exists():
        return {tuple(json.loads(k)): v for k, v in json.loads(path.read_text()).items()}
    data, knn30 = np.load(WORK / f"{name}.npz"), neighbours30(name)
    y, labels = data["y"], data["labels"]
    acc = np.array([[clustering_accuracy(y, lab) for lab in row] for row in labels])
    ami = np.array([[adjusted_mutual_info_score(y, lab) for lab in row] for row in labels])
    out = {}
    for family in FAMILIES:
        for k in NEIGHBOURS:
            graphs = {v: knn30[v][:, :k] for v in ("encoder", "lsa")}
            scores = family_scores(family, graphs, labels)
            for top in TOPS:
                n = int(round(top * 10)) + 1
                pick = scores[:n].argmax(axis=0)
                seeds = np.arange(len(SEEDS))
                out[(family, k, top)] = (float(acc[pick, seeds].mean()),
                                         float(ami[pick, seeds].mean()),
                                         [WEIGHTS[p] for p in pick])
    single = (max(acc[0].mean(), acc[-1].mean()), max(ami[0].mean(), ami[-1].mean()))
    out[("single", 0, 0)] = (*single, [])
    path.write_text(json.dumps({json.dumps(list(k)): v for k, v in out.items()}))
    return out


def loo(names):
    tables = {n: settings_table(n) for n in names}

    def merit(setting, corpora):
        """(goal fails, -mean ACC gain) over ``corpora``: smaller is better."""
        fails, gains = 0, []
        for n in corpora:
            acc, ami, _ = tables[n][setting]
            best_acc, best_ami, _ = tables[n][("single", 0, 0)]
            fails += acc < best_acc - 0.003 or ami < best_ami - 0.003
            gains.append(acc - best_acc)
        return fails, -np.mean(gains)

    settings = [s for s in tables[names[0]] if s[0] != "single"]
    print("\n| setting | " + " | ".join(names) + " | fails | mean ACC gain |")
    print("|---|" + "---|" * (len(names) + 2))
    for s in settings:
        fails, gain = merit(s, names)
        cells = [f"{tables[n][s][0]:.3f} / {tables[n][s][1]:.3f}" for n in names]
        print(f"| {s[0]} k={s[1]} top={s[2]} | " + " | ".join(cells)
              + f" | {fails} | {-100 * gain:+.1f} |")
    for family in FAMILIES:
        print(f"\nleave one out, {family}: the (n_neighbors, top) best on the others")
        for held in names:
            others = [n for n in names if n != held]
            choice = min((s for s in settings if s[0] == family),
                         key=lambda s: merit(s, others))
            acc, ami, picks = tables[held][choice]
            best_acc, best_ami, _ = tables[held][("single", 0, 0)]
            print(f"  {held}: chose k={choice[1]} top={choice[2]} on the others; "
                  f"{acc:.3f} / {ami:.3f} (picks {picks}) against the better single view "
                  f"{best_acc:.3f} / {best_ami:.3f}")


if __name__ == "__main__":
    stage, names = sys.argv[1], sys.argv[2:]
    if stage == "loo":
        loo(names)
    for corpus in names if stage != "loo" else []:
        (partitions if stage == "partitions" else criteria)(corpus)

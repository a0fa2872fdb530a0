"""Label-free epoch-selection criteria vs ACC/AMI, over saved research runs (scratch).

For every run (corpus, config, seed) and epoch: ACC/AMI of the best-of-10 k-means, and the
criteria. Prints per-corpus Spearman correlation of each criterion with ACC over all
candidates, within-run mean correlation, and the ACC of the epoch each criterion selects
vs epoch 0 and the best epoch.
"""
import glob
import json
import sys
from collections import defaultdict
from itertools import combinations

import numpy as np
from scipy.stats import spearmanr
from sklearn.metrics import adjusted_mutual_info_score as ami
from sklearn.metrics import adjusted_rand_score as ari
from sklearn.metrics import silhouette_score
from sklearn.preprocessing import normalize

sys.path.insert(0, "/work/scratch")
from common import load, lsa  # noqa: E402

from sklearn_shufdiv import SphericalKMeans, clustering_accuracy  # noqa: E402

_data = {}


def corpus_data(corpus, n):
    if (corpus, n) not in _data:
        docs, y = load(corpus, n)
        _, Z = lsa(docs)
        k = len(np.unique(y))
        lab_lsa = SphericalKMeans(k, n_init=10, random_state=0).fit_predict(Z)
        _data[corpus, n] = (y, Z, lab_lsa, k)
    return _data[corpus, n]


def rankme(E):
    s = np.linalg.svd(E - 0, compute_uv=False)
    p = s / s.sum() + 1e-12
    return float(np.exp(-(p * np.log(p)).sum()))


def inertia_in(space, labels, k):
    """Mean cosine of points to their cluster's centroid in a fixed (unit-row) space."""
    cos = 0.0
    for c in range(k):
        m = labels == c
        if m.any():
            cen = space[m].sum(0)
            cos += np.linalg.norm(cen)  # sum of cos to the normalised centroid
    return cos / len(labels)


def candidates(path):
    r = json.load(open(path))
    a = r["args"]
    y, Z, lab_lsa, k = corpus_data(a["corpus"], a["n_docs"])
    tag = path[:-5]
    out = []
    E0 = None
    labs = []
    for e in r["epochs"]:
        d = np.load(f"{tag}_e{e['epoch']}.npz")
        E = d["E"].astype(np.float32)
        U = normalize(E)
        if E0 is None:
            E0 = U
        runs, inert = d["runs"], d["inertias"]
        lab = runs[np.argmin(inert)]
        labs.append(lab)
        fused = np.hstack([E0 * np.sqrt(0.5), Z * np.sqrt(0.5)])
        c = {
            "epoch": e["epoch"],
            "acc": clustering_accuracy(y, lab), "ami": ami(y, lab),
            "silhouette": silhouette_score(U, lab, metric="cosine"),
            "stability": np.mean([ari(a_, b_) for a_, b_ in combinations(runs, 2)]),
            "rankme": rankme(U),
            "neg_inertia": -inert.min() / len(lab),
            "lsa_silhouette": silhouette_score(Z, lab, metric="cosine"),
            "frozen_silhouette": silhouette_score(E0, lab, metric="cosine"),
            "fused_silhouette": silhouette_score(fused, lab, metric="cosine"),
            "lsa_cohesion": inertia_in(Z, lab, k),
            "fused_cohesion": inertia_in(normalize(fused), lab, k),
            "lsa_agreement": ami(lab_lsa, lab),
        }
        out.append(c)
    for i, c in enumerate(out):
        others = [labs[j] for j in range(len(labs)) if j != i] + [lab_lsa]
        c["consensus"] = np.mean([ami(o, labs[i]) for o in others])
    return a, out


def main(pattern="*"):
    by_corpus = defaultdict(list)
    for path in sorted(glob.glob(f"/work/scratch/runs/{pattern}.json")):
        a, cands = candidates(path)
        if len(cands) < 2:
            continue
        by_corpus[a["corpus"]].append((path.split("/")[-1][:-5], cands))
    names = [k for k in next(iter(by_corpus.values()))[0][1][0] if k not in ("epoch", "acc", "ami")]
    for corpus, runs in by_corpus.items():
        print(f"\n## {corpus}: {len(runs)} runs")
        for tag, cands in runs:
            print(f"{tag:34s} " + " ".join(f"e{c['epoch']} {c['acc']:.3f}/{c['ami']:.3f}" for c in cands))
        allc = [c for _, cands in runs for c in cands]
        acc = [c["acc"] for c in allc]
        print(f"{'criterion':18s} {'rho(all)':>8s} {'rho(run)':>8s} {'sel ACC':>8s} {'e0 ACC':>7s} {'best':>6s} {'worse':>5s}")
        for n in names:
            rho_all = spearmanr([c[n] for c in allc], acc)[0]
            rr, sel, e0, best, worse = [], [], [], [], 0
            for _, cands in runs:
                v = [c[n] for c in cands]
                aa = [c["acc"] for c in cands]
                if len(set(aa)) > 1 and len(set(v)) > 1:
                    rr.append(spearmanr(v, aa)[0])
                s = cands[int(np.argmax(v))]
                sel.append(s["acc"])
                e0.append(cands[0]["acc"])
                best.append(max(aa))
                worse += s["acc"] < cands[0]["acc"] - 0.003
            print(f"{n:18s} {rho_all:8.3f} {np.nanmean(rr) if rr else float('nan'):8.3f} "
                  f"{np.mean(sel):8.4f} {np.mean(e0):7.4f} {np.mean(best):6.4f} {worse:5d}")


if __name__ == "__main__":
    main(*sys.argv[1:])

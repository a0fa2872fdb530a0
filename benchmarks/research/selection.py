"""Epoch selection in the fused space (issue 11): every saved screening candidate scored.

For each saved run of ``train.py`` (every epoch's whole-document embeddings of the
1,000-document sample): the candidate's fused space ``[sqrt(1-w) e, sqrt(w) lsa]`` (the
package's ``lexical_weight=w``, LSA of the sample), its ACC / AMI over 5 k-means seeds
(best of 10 runs each), and the clustering of seed 0 scored by label-free criteria: its
cosine silhouette in its own fused space (``selection="silhouette"``), in epoch 0's fused
space, in the LSA space, and in the untuned encoder's space without the words
(``selection="untuned-silhouette"``). Labels only score.

    python benchmarks/research/selection.py   # reads /work/scratch/runs/*.json
"""
import glob
import json
import sys

import numpy as np
from sklearn.metrics import adjusted_mutual_info_score as ami
from sklearn.metrics import silhouette_score
from sklearn.preprocessing import normalize

sys.path.insert(0, "/work/scratch")
from common import load, lsa  # noqa: E402

from sklearn_shufdiv import SphericalKMeans, clustering_accuracy  # noqa: E402

w = 0.5
for path in sorted(glob.glob("/work/scratch/runs/*.json")):
    r = json.load(open(path))
    a = r["args"]
    tag = path[:-5]
    eps = [e["epoch"] for e in r["epochs"]]
    if len(eps) < 2:
        continue
    docs, y = load(a["corpus"], a["n_docs"])
    k = len(np.unique(y))
    _, Z = lsa(docs)
    F0 = None
    print("##", tag.split("/")[-1])
    for e in eps:
        U = normalize(np.load(f"{tag}_e{e}.npz")["E"].astype(np.float64))
        F = np.hstack([U * np.sqrt(1 - w), Z * np.sqrt(w)])
        if F0 is None:
            F0, U0 = F, U
        res = []
        for s in range(5):
            km = SphericalKMeans(k, n_init=10, random_state=s).fit(F)
            res.append((clustering_accuracy(y, km.labels_), ami(y, km.labels_), km.labels_))
        lab = res[0][2]
        acc = np.mean([x[0] for x in res])
        am = np.mean([x[1] for x in res])
        print(f"e{e} fused ACC {acc:.4f} AMI {am:.4f} | "
              f"sil_own {silhouette_score(F, lab, metric='cosine'):.4f}"
              f" sil_fixed_e0fused {silhouette_score(F0, lab, metric='cosine'):.4f}"
              f" sil_lsa {silhouette_score(Z, lab, metric='cosine'):.4f}"
              f" sil_frozen {silhouette_score(U0, lab, metric='cosine'):.4f}", flush=True)

"""Score research runs: per epoch ACC/AMI of the best-of-10 k-means (labels only score)."""
import json, sys, glob
import numpy as np
from sklearn.metrics import adjusted_mutual_info_score as ami
sys.path.insert(0, "/work/scratch")
from common import load, CACHE
from sklearn_shufdiv import clustering_accuracy

cache = {}
def labels_of(corpus, n):
    if (corpus, n) not in cache:
        cache[corpus, n] = load(corpus, n)[1]
    return cache[corpus, n]

pat = sys.argv[1] if len(sys.argv) > 1 else "*"
for f in sorted(glob.glob(f"/work/scratch/runs/{pat}.json")):
    r = json.load(open(f)); a = r["args"]
    y = labels_of(a["corpus"], a["n_docs"])
    tag = f[:-5]
    row = []
    for e in r["epochs"]:
        d = np.load(f"{tag}_e{e['epoch']}.npz")
        lab = d["runs"][np.argmin(d["inertias"])]
        row.append(f"e{e['epoch']} {clustering_accuracy(y, lab):.3f}/{ami(y, lab):.3f}")
    print(f"{tag.split('/')[-1]:40s} " + "  ".join(row))

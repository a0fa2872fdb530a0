"""Epoch selection by agreement with two untuned views: every saved epoch of the screens'
``reproduce.py --keep-epochs`` runs, its clustering (k-means seed 0, the selection's)
scored by its AMI with the clustering of the LSA space and with that of the untuned
encoder alone (no words), two partitions that no tuned epoch shaped; beside ACC / AMI
over 5 k-means seeds, as in ``epoch_criteria.py``. Then, per run, the epoch each score
would keep (its greatest) and that epoch's ACC / AMI against epoch 0's. Labels only
score.

From the repository root, after the runs (``RUNS``) have saved their epochs::

    SCIKIT_LEARN_DATA=../shared/data/scikit_learn_data python \
        benchmarks/research/agreement.py
"""

import glob
import sys
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr
from sklearn.metrics import adjusted_mutual_info_score as ami

BENCHMARKS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(BENCHMARKS))
import reproduce  # noqa: E402

from sklearn_shufdiv import SphericalKMeans, clustering_accuracy  # noqa: E402

#: (corpus, tag, training seed): the distinct runs (``_proto3e1000`` holds ``_proto1000``'s
#: epochs 0-2 and one more).
RUNS = [("bbc", "_proto3e1000", 0), ("bbc", "_proto3e1000", 1), ("bbc", "_plain2e1000", 0),
        ("bbc", "_pc3x1000", 0),
        ("reuters", "_proto3e1000", 0), ("reuters", "_proto3e1000", 1),
        ("reuters", "_pc3x1000", 0), ("reuters", "_pf50_1000", 0), ("reuters", "_pf50_1000", 1),
        ("20news", "_proto3e1000", 0), ("20news", "_proto3e1000", 1),
        ("20news", "_plain2e1000", 0), ("20news", "_proto2w1000", 0),
        ("20news", "_pc3x1000", 0), ("20news", "_pf50_1000", 0), ("20news", "_pf50_1000", 1)]
CRITERIA = ("lsa", "encoder", "both")


def fit(space, k, seed=0):
    return SphericalKMeans(k, n_init=10, random_state=seed).fit_predict(space)


def report(corpus, tag, seed, dim=384):
    args = reproduce.parse_args(["--corpus", corpus, "--n-docs", "1000"])
    docs, y, names = reproduce.load(args)
    k = len(names)
    prefix = BENCHMARKS / "results" / f"{corpus}{tag}_shuffle-divide_seed{seed}"
    paths = sorted(glob.glob(f"{prefix}_epoch*.npy"),
                   key=lambda p: int(p.rsplit("epoch", 1)[1][:-4]))
    if not paths:
        return None
    sample = np.load(f"{prefix}_sample_indices.npy")
    ys = y[sample]
    spaces = [np.load(p) for p in paths]
    views = {"lsa": fit(reproduce.fixed_space("lsa", args, docs, {})[sample], k),
             "encoder": fit(spaces[0][:, :dim], k)}
    rows = []
    print(f"{corpus}{tag} seed {seed}: epoch | ACC AMI | AMI with lsa, encoder, mean")
    for e, x in enumerate(spaces):
        labels = [fit(x, k, s) for s in range(5)]
        acc = np.mean([clustering_accuracy(ys, z) for z in labels])
        mi = np.mean([ami(ys, z) for z in labels])
        agree = {name: ami(labels[0], view) for name, view in views.items()}
        agree["both"] = (agree["lsa"] + agree["encoder"]) / 2
        rows.append((acc, mi, agree))
        print(f"e{e} | {acc:.3f} {mi:.3f} | {agree['lsa']:.3f} {agree['encoder']:.3f} "
              f"{agree['both']:.3f}", flush=True)
    accs = [r[0] for r in rows]
    for name in CRITERIA:
        scores = [r[2][name] for r in rows]
        e = int(np.argmax(scores))
        rho = spearmanr(scores, accs)[0] if len(set(accs)) > 1 else float("nan")
        print(f"  {name}: keeps e{e}, ACC / AMI {rows[e][0] - rows[0][0]:+.3f} / "
              f"{rows[e][1] - rows[0][1]:+.3f} against e0 (best e{int(np.argmax(accs))}); "
              f"Spearman with ACC {rho:+.2f}", flush=True)
    return rows


if __name__ == "__main__":
    for run in RUNS:
        report(*run)

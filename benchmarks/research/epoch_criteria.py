"""Every saved epoch of a ``reproduce.py --keep-epochs`` run: ACC / AMI over 5 k-means
seeds (best of 10 runs each) in the space ``transform`` returns and in its encoder part
alone, beside label-free epoch-selection criteria computed from the epoch's seed-0
clustering (the selection's): its cosine silhouette in its own space, in the untuned space
(the default criterion's score), in the LSA space and in the untuned encoder's; the mean
pairwise ARI of the 5 k-means seeds (stability); its AMI with epoch 0's and the previous
epoch's clustering, and its mean AMI with all other epochs' (consensus). Labels only
score.

Unlike the other scripts here it runs against the package as it is, from the repository
root::

    SCIKIT_LEARN_DATA=../shared/data/scikit_learn_data python \
        benchmarks/research/epoch_criteria.py bbc _proto1000 0 1

(``bbc:all _proto2e_full 0 1`` for a run on the whole corpus.)
"""

import glob
import sys
from pathlib import Path

import numpy as np
from sklearn.metrics import adjusted_mutual_info_score as ami
from sklearn.metrics import adjusted_rand_score as ari
from sklearn.metrics import silhouette_score

BENCHMARKS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(BENCHMARKS))
import reproduce  # noqa: E402

from sklearn_shufdiv import SphericalKMeans, clustering_accuracy  # noqa: E402
from sklearn_shufdiv.embedders import LexicalSpace  # noqa: E402


def silhouette(space, labels):
    return silhouette_score(space, labels, metric="cosine")


def report(corpus, tag, seed, n_docs="1000", dim=384):
    size = [] if n_docs == "all" else ["--n-docs", str(n_docs)]
    docs, y, names = reproduce.load(reproduce.parse_args(["--corpus", corpus, *size]))
    k = len(names)
    prefix = BENCHMARKS / "results" / f"{corpus}{tag}_shuffle-divide_seed{seed}"
    sample = np.load(f"{prefix}_sample_indices.npy")
    ys = y[sample]
    lsa = LexicalSpace(random_state=int(seed)).fit(docs).transform(docs)[sample]
    paths = sorted(glob.glob(f"{prefix}_epoch*.npy"),
                   key=lambda p: int(p.rsplit("epoch", 1)[1][:-4]))
    spaces = [np.load(p) for p in paths]
    untuned = spaces[0] / np.linalg.norm(spaces[0], axis=1, keepdims=True)
    runs = [[SphericalKMeans(k, n_init=10, random_state=s).fit_predict(x) for s in range(5)]
            for x in spaces]
    print(f"{corpus}{tag} seed {seed}: epoch | fused ACC AMI | encoder ACC AMI | "
          "silhouette own untuned lsa untuned-encoder | stability AMI-e0 AMI-prev consensus")
    for e, (x, labels) in enumerate(zip(spaces, runs)):
        encoder = [SphericalKMeans(k, n_init=10, random_state=s).fit_predict(x[:, :dim])
                   for s in range(5)]
        chosen = labels[0]
        stability = np.mean([ari(labels[i], labels[j]) for i in range(5)
                             for j in range(i + 1, 5)])
        consensus = np.mean([ami(chosen, runs[f][0]) for f in range(len(spaces)) if f != e])
        previous = ami(chosen, runs[e - 1][0]) if e else float("nan")
        print(f"e{e} | {np.mean([clustering_accuracy(ys, z) for z in labels]):.3f} "
              f"{np.mean([ami(ys, z) for z in labels]):.3f} | "
              f"{np.mean([clustering_accuracy(ys, z) for z in encoder]):.3f} "
              f"{np.mean([ami(ys, z) for z in encoder]):.3f} | "
              f"{silhouette(x, chosen):.4f} {silhouette(untuned, chosen):.4f} "
              f"{silhouette(lsa, chosen):.4f} {silhouette(untuned[:, :dim], chosen):.4f} | "
              f"{stability:.3f} {ami(chosen, runs[0][0]):.3f} {previous:.3f} "
              f"{consensus:.3f}", flush=True)


if __name__ == "__main__":
    corpus, tag, *seeds = sys.argv[1:]  # corpus: C (its 1,000 sample), C:all or C:N
    corpus, _, n_docs = corpus.partition(":")
    for seed in seeds or ["0"]:
        report(corpus, tag, seed, n_docs or "1000")

"""Each view's cluster structure measured alone, without labels, beside its quality with them.

For each corpus (and check corpora, below), each view (frozen encoder, LSA, TF-IDF, the
encoder centred) is clustered by spherical k-means at the number of classes (best of 10,
seed 0), and measured:

- label-free: ``wt`` (W/T of its partition), ``gap`` (log of W/T of the same k-means on
  a Gaussian null with the view's mean and covariance, minus log W/T), ``stab`` (mean
  pairwise ARI of 5 seeds), ``egap`` (eigengap at k of the 10-NN cosine graph's
  normalised Laplacian), ``knn`` (fraction of 10-NN pairs inside one cluster), ``sil``
  (cosine silhouette);
- with labels (to judge the above): ``acc`` / ``ami`` of that partition, ``purity``
  (fraction of 10-NN of the same class).

Check corpora: ``20news-comp`` (the 5 comp.* groups), ``-sci``, ``-rec``, ``-talk``,
``reuters-small`` (without earn and acq), and ``<corpus>-words30``: LSA and TF-IDF made
from the first 30 words of each document while the encoder reads all of it (a weak
lexical view); ``<corpus>-first50``: every view reads the first 50 words (short texts).
For these also ACC / AMI of the fused encoder + LSA at fixed weights (5
seeds).

    python benchmarks/research/view_structure.py bbc classic3 ... >> view_structure.log
"""

import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.metrics import adjusted_mutual_info_score, silhouette_score
from sklearn.neighbors import NearestNeighbors

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import _view_levers as vl  # noqa: E402
from _corpora import bag_of_words, frozen_embeddings, load_corpus, score  # noqa: E402

from sklearn_shufdiv import clustering_accuracy  # noqa: E402
from sklearn_shufdiv.embedders import LexicalSpace  # noqa: E402

SUBSETS = {"20news-comp": ("20news", "comp."), "20news-sci": ("20news", "sci."),
           "20news-rec": ("20news", "rec."), "20news-talk": ("20news", "talk."),
           "reuters-small": ("reuters", "-earn-acq")}


def load(name):
    stem = name.removesuffix("-words30").removesuffix("-first50")
    base, rule = SUBSETS.get(stem, (stem, None))
    docs, y, classes = load_corpus(base)
    if name.endswith("-first50"):  # every view reads the first 50 words only
        docs = [" ".join(doc.split()[:50]) for doc in docs]
        enc = frozen_embeddings(f"{base}-first50", docs, verbose=False)
    else:
        enc = frozen_embeddings(base, docs, verbose=False)
    if rule is not None:
        if rule.startswith("-"):
            drop = {classes.index(c) for c in rule[1:].split("-")}
            keep = np.flatnonzero([c not in drop for c in y])
        else:
            keep = np.flatnonzero([classes[c].startswith(rule) for c in y])
        docs, enc = [docs[i] for i in keep], enc[keep]
        _, y = np.unique(y[keep], return_inverse=True)
    words = docs
    if name.endswith("-words30"):  # the words' views see only the first 30 words
        words = [" ".join(doc.split()[:30]) for doc in docs]
    views = {"encoder": vl.unit(enc),
             "lsa": LexicalSpace(100, random_state=0).fit(words).transform(words),
             "tfidf": bag_of_words(words)["tfidf"],
             "enc-centred": vl.center(enc)}
    return docs, y, views


def null_like(rows, seed):
    """Gaussian rows with the view's mean and covariance, of norm 1 (dense views)."""
    mean = rows.mean(axis=0)
    _, s, vt = np.linalg.svd(rows - mean, full_matrices=False)
    z = np.random.RandomState(seed).normal(size=(rows.shape[0], len(s)))
    return vl.unit(mean + (z * s / np.sqrt(rows.shape[0])) @ vt)


def knn(rows, k=10):
    nn = NearestNeighbors(n_neighbors=k + 1, metric="cosine").fit(rows)
    return nn.kneighbors(rows, return_distance=False)[:, 1:]


def measure(rows, y, k):
    labels = vl.kmeans(rows, k, 0).labels_
    wt = vl.normalised_distortion(rows, labels, k)
    out = {"acc": clustering_accuracy(y, labels), "ami": adjusted_mutual_info_score(y, labels),
           "wt": wt, "stab": vl.stability(rows, k, 0), "egap": vl.eigengap(rows, k)}
    if not sp.issparse(rows):
        null = null_like(rows, 0)
        out["gap"] = np.log(vl.normalised_distortion(
            null, vl.kmeans(null, k, 0).labels_, k)) - np.log(wt)
    neighbours = knn(rows)
    out["knn"] = float(np.mean(labels[neighbours] == labels[:, None]))
    out["purity"] = float(np.mean(y[neighbours] == y[:, None]))
    pick = np.random.RandomState(0).permutation(len(y))[:3000]
    out["sil"] = float(silhouette_score(rows[pick], labels[pick], metric="cosine"))
    return out


def main(names):
    for name in names:
        docs, y, views = load(name)
        k = len(np.unique(y))
        print(f"\n## {name}: {len(docs)} documents, {k} classes, sizes {np.bincount(y).tolist()}")
        keys = ["acc", "ami", "purity", "wt", "gap", "stab", "egap", "knn", "sil"]
        print("| view | " + " | ".join(keys) + " |")
        for view, rows in views.items():
            m = measure(rows, y, k)
            print(f"| {view} | " + " | ".join(f"{m[key]:.3f}" if key in m else ""
                                              for key in keys) + " |", flush=True)
        if name in SUBSETS or name.endswith(("-words30", "-first50")):
            for w in (0, 0.2, 0.3, 0.5, 0.7, 0.8):
                r = score(vl.join(views, {"encoder": 1 - w, "lsa": w}), y)
                print(f"fused lsa {w}: {r['acc_mean']:.3f}±{r['acc_std']:.3f} / "
                      f"{r['ami_mean']:.3f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])

"""Choosing ``lexical_weight`` without labels (issue 11): each weight's clustering, and
label-free criteria that compare the weights.

For each corpus: the frozen encoder's cached embeddings (``bench_lexical.py``'s
``lexical_<corpus><n>_frozen.npy``), the package's ``LexicalSpace`` (seed 0), and for every
weight of ``--weights`` the fused space ``fuse(e, lsa, w)`` (0: encoder alone, 1: LSA
alone). Each (k-means seed, weight): ``SphericalKMeans(k, n_init=10, random_state=seed)``,
ACC and AMI (labels only score), and the criteria:

* ``own``: the cosine silhouette in the weight's own space (spaces differ: known to mislead);
* ``fixed``: the clustering's cosine silhouette in the encoder's space plus in the LSA space,
  each divided by that space's own clustering's (so each pure clustering scores 1 in its
  space): two fixed spaces, the same for every weight;
* ``consensus``: the clustering's mean AMI with the clusterings of every other weight (same
  seed).

Printed per corpus: ACC / AMI per weight (mean over seeds) with each criterion's mean, then
per criterion the weight it picks per seed and the ACC / AMI of those picks.

    SCIKIT_LEARN_DATA=../shared/data/scikit_learn_data python benchmarks/research/lexical_weight.py
"""

import argparse
import os
import sys
from pathlib import Path

import numpy as np
from sklearn.metrics import adjusted_mutual_info_score

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench_windows import DEFAULT_DATA_HOME, REPO_ROOT, load  # noqa: E402

from sklearn_shufdiv import SphericalKMeans, clustering_accuracy  # noqa: E402
from sklearn_shufdiv.embedders import LexicalSpace, fuse  # noqa: E402
from sklearn_shufdiv.metrics import cosine_silhouette  # noqa: E402


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpora", default="bbc,reuters,20news")
    parser.add_argument("--weights", default="0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--20news-docs", dest="news_docs", type=int, default=4000)
    parser.add_argument("--data-home", default=os.environ.get("SCIKIT_LEARN_DATA",
                                                              DEFAULT_DATA_HOME))
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "benchmarks" / "results")
    return parser.parse_args(argv)


def unit(X):
    return X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1e-12)


def run_corpus(name, args, weights):
    docs, y = load(name, args)
    k = len(np.unique(y))
    encoder = unit(np.load(args.out / f"lexical_{name}{len(docs)}_frozen.npy"))
    lexical = LexicalSpace(100, random_state=0).fit(docs).transform(docs)
    spaces = {w: fuse(encoder, lexical, w) if 0 < w < 1 else (encoder if w == 0 else lexical)
              for w in weights}
    rows = {w: [] for w in weights}
    for seed in range(args.seeds):
        labels = {w: SphericalKMeans(k, n_init=10, random_state=seed).fit_predict(unit(s))
                  for w, s in spaces.items()}
        own_enc = cosine_silhouette(encoder, labels[0])
        own_lex = cosine_silhouette(lexical, labels[1])
        for w in weights:
            rows[w].append({
                "acc": clustering_accuracy(y, labels[w]),
                "ami": adjusted_mutual_info_score(y, labels[w]),
                "own": cosine_silhouette(spaces[w], labels[w]),
                "fixed": (cosine_silhouette(encoder, labels[w]) / own_enc
                          + cosine_silhouette(lexical, labels[w]) / own_lex),
                "consensus": np.mean([adjusted_mutual_info_score(labels[w], labels[v])
                                      for v in weights if v != w]),
            })
    print(f"## {name} ({len(docs)} documents, {k} classes, {args.seeds} k-means seeds)")
    print("| weight | ACC | AMI | own | fixed | consensus |\n|---|---|---|---|---|---|")
    for w in weights:
        mean = {key: np.mean([r[key] for r in rows[w]]) for key in rows[w][0]}
        print(f"| {w:g} | {mean['acc']:.4f} | {mean['ami']:.4f} | {mean['own']:.4f} | "
              f"{mean['fixed']:.4f} | {mean['consensus']:.4f} |")
    print("| criterion | picks (per seed) | ACC | AMI |\n|---|---|---|---|")
    for criterion in ("own", "fixed", "consensus"):
        picks = [max(weights, key=lambda w: rows[w][s][criterion]) for s in range(args.seeds)]
        acc = [rows[w][s]["acc"] for s, w in enumerate(picks)]
        ami = [rows[w][s]["ami"] for s, w in enumerate(picks)]
        print(f"| {criterion} | {','.join(f'{w:g}' for w in picks)} | {np.mean(acc):.4f} ± "
              f"{np.std(acc):.4f} | {np.mean(ami):.4f} ± {np.std(ami):.4f} |")
    print(flush=True)


def main(argv=None):
    args = parse_args(argv)
    weights = [float(w) for w in args.weights.split(",")]
    for name in args.corpora.split(","):
        run_corpus(name, args, weights)


if __name__ == "__main__":
    main()

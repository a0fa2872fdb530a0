"""BERTopic against this package's spherical k-means, on the same documents and embeddings.

For each corpus of ``_corpora.py``, in the package's default embedding space
(``bench_n_clusters.default_space``: the frozen encoder's cached embeddings fused with the
corpus' LSA space at ``lexical_weight=0.5``), given to every method as precomputed rows:

- ``BERTopic defaults``: ``BERTopic()`` (UMAP to 5 dimensions, then HDBSCAN with
  ``min_cluster_size=10``), ``fit_transform(docs, embeddings)``; BERTopic has no seed of its
  own, so each "seed" is a fresh run;
- ``BERTopic + KMeans(true k)``: ``BERTopic(hdbscan_model=KMeans(k, random_state=seed))``,
  the way BERTopic's documentation sets the number of topics (UMAP still first);
- ``SphericalKMeans(true k)`` and ``SphericalKMeans("auto")`` (the default
  ``k_selection``), ``random_state=seed``.

Columns: ACC and AMI against the classes (BERTopic's outlier topic -1 counts as one more
cluster, as it is one more label a user gets), the number of clusters found (-1 aside), the
share of documents left as outliers, the wall time of one fit (BERTopic's includes its
c-TF-IDF topic words), and whether a second run with the same seed gives the same labels.
Mean ± std over ``--seeds`` seeds. Results: ``benchmarks/results/bertopic.json`` and
``bertopic.md``, rewritten after each corpus.

Usage (from the repository root; needs the ``benchmark`` extra's ``bertopic``)::

    python benchmarks/bench_bertopic.py [--corpora bbc,reuters] [--seeds 5]
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import adjusted_mutual_info_score

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lab.corpora import RESULTS, add_corpus_arguments, default_space, load_corpora  # noqa: E402
from lab.reports import add_resume_argument, previous, write_json, write_markdown  # noqa: E402

from sklearn_shufdiv import clustering_accuracy  # noqa: E402
from sklearn_shufdiv.cluster import SphericalKMeans  # noqa: E402

METHODS = ("BERTopic defaults", "BERTopic + KMeans(true k)", "SphericalKMeans(true k)",
           'SphericalKMeans("auto")')


def bertopic_labels(docs, X, seed, k=None):
    """Topics of BERTopic on precomputed embeddings: defaults, or KMeans(k) for HDBSCAN."""
    from bertopic import BERTopic
    from sklearn.cluster import KMeans

    options = {} if k is None else {"hdbscan_model": KMeans(k, random_state=seed)}
    topics, _ = BERTopic(**options).fit_transform(docs, embeddings=X)
    return np.asarray(topics)


def fit_labels(method, docs, X, k, seed):
    if method == "BERTopic defaults":
        return bertopic_labels(docs, X, seed)
    if method == "BERTopic + KMeans(true k)":
        return bertopic_labels(docs, X, seed, k)
    n_clusters = k if method == "SphericalKMeans(true k)" else "auto"
    return SphericalKMeans(n_clusters, random_state=seed).fit_predict(X)


def warm_up():
    """Compile UMAP's and HDBSCAN's numba code once, so that no timed run pays for it."""
    rng = np.random.default_rng(0)
    docs = [f"word{i % 7} other{i % 5} text" for i in range(200)]
    bertopic_labels(docs, rng.standard_normal((200, 16)).astype(np.float32), 0)


def run_corpus(docs, y, X, seeds):
    k = len(np.unique(y))
    out = {}
    for method in METHODS:
        rows = []
        for seed in range(seeds):
            start = time.perf_counter()
            labels = fit_labels(method, docs, X, k, seed)
            elapsed = time.perf_counter() - start
            row = {"seed": seed, "acc": clustering_accuracy(y, labels),
                   "ami": adjusted_mutual_info_score(y, labels),
                   "n_clusters": int(np.unique(labels[labels >= 0]).size),
                   "outliers": float(np.mean(labels < 0)), "time_s": elapsed}
            if seed == 0:
                row["reproducible"] = bool(np.array_equal(
                    labels, fit_labels(method, docs, X, k, seed)))
            rows.append(row)
            print(f"    {method:<27} seed {seed}: ACC {row['acc']:.3f} AMI {row['ami']:.3f} "
                  f"{row['n_clusters']} clusters, {row['outliers']:.1%} outliers, "
                  f"{elapsed:.1f} s", flush=True)
        out[method] = rows
    return out


def table(results):
    lines = [
        "| corpus | method | ACC | AMI | clusters found | outliers | time (s) | "
        "same labels on a rerun |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for corpus, methods in results["corpora"].items():
        for method, rows in methods.items():
            def stat(key, fmt, rows=rows):
                values = np.array([r[key] for r in rows])
                return f"{values.mean():{fmt}} ± {values.std():{fmt}}"
            clusters = sorted({r["n_clusters"] for r in rows})
            lines.append(
                f"| {corpus} | {method} | {stat('acc', '.3f')} | {stat('ami', '.3f')} | "
                f"{', '.join(map(str, clusters))} | {stat('outliers', '.1%')} | "
                f"{stat('time_s', '.1f')} | {'yes' if rows[0]['reproducible'] else 'no'} |")
    return lines


def write(results, args):
    write_json(RESULTS / "bertopic.json", results)
    lines = [
        "# BERTopic and SphericalKMeans on the same embeddings",
        "",
        f"`python benchmarks/bench_bertopic.py --seeds {args.seeds}`, bertopic "
        f"{results['bertopic']}: every method clusters the same rows (frozen MiniLM-L6 "
        "embeddings fused with the corpus' LSA space, lexical weight 0.5). Mean ± std "
        f"over {args.seeds} seeds (BERTopic's defaults take no seed: fresh runs). BERTopic's "
        "outlier topic -1 counts as a cluster in ACC and AMI; clusters found: the distinct "
        "counts over seeds, -1 aside. Time: one fit, the machine's 2 cores shared with "
        "other work.",
        "",
        *table(results),
    ]
    write_markdown(RESULTS / "bertopic.md", "\n".join(lines))


def main():
    parser = add_corpus_arguments(argparse.ArgumentParser(description=__doc__.split("\n")[0]))
    parser.add_argument("--seeds", type=int, default=5)
    add_resume_argument(parser, "the corpora already in bertopic.json (same --seeds)")
    args = parser.parse_args()
    import bertopic

    warm_up()
    results = {"seeds": args.seeds, "bertopic": bertopic.__version__, "corpora": {}}
    results = previous(RESULTS / "bertopic.json", args.resume, results)
    if results["seeds"] != args.seeds:
        raise SystemExit(f"--resume: bertopic.json has {results['seeds']} seeds")
    for name, (docs, y, _) in load_corpora(args).items():
        if name in results["corpora"]:
            continue
        print(f"== {name}: {len(docs)} documents, {len(np.unique(y))} classes", flush=True)
        results["corpora"][name] = run_corpus(docs, y, default_space(name, docs), args.seeds)
        write(results, args)
    print((RESULTS / "bertopic.md").read_text())


if __name__ == "__main__":
    main()

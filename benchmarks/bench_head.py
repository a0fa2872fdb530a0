"""Training that is cheap by design: a light head over frozen sentence embeddings.

Each sentence is embedded once by the frozen MiniLM-L6 (64 tokens at most, the first 64
sentences of a document; cached by ``lab/heads.py``); a Shuffle & Divide view is the mean of
its half's sentence embeddings, so an epoch costs a few matrix products. A head that starts
as the identity (linear, or a residual MLP) is trained on the views with NT-Xent, the
prototype term over the default space's k-means pseudo-labels, or both, and the documents'
frozen embeddings (the cache's 128-token windows, or the mean of their sentences) are mapped
by it, then joined with the corpus' LSA space at the default weight 0.5 as ``transform``
joins them. Each space is clustered by ``SphericalKMeans(k)`` (best of 10 runs) for seeds
0 to ``--seeds - 1`` (the head trained with the same seed), beside the same run's
untuned default, TF-IDF, LSA and frozen encoder. Writes ``results/heads.json`` and
``results/heads.md``.

    SCIKIT_LEARN_DATA=../shared/data/scikit_learn_data \\
        python benchmarks/bench_head.py --corpora bbc,reuters,20news,webkb4,classic3
"""

import argparse
import time

import numpy as np
from lab.corpora import (
    RESULTS,
    add_corpus_arguments,
    baselines,
    corpus_names,
    frozen_embeddings,
    load_corpus,
)
from lab.heads import (
    document_means,
    half_views,
    sentence_embeddings,
    tfidf_head,
    train_head,
)
from lab.internals import LexicalSpace, apply_head, join_words
from lab.reports import add_resume_argument, markdown_table, previous, write_json, write_markdown
from sklearn.metrics import adjusted_mutual_info_score, silhouette_score

from sklearn_shufdiv.cluster import SphericalKMeans
from sklearn_shufdiv.metrics import clustering_accuracy

#: The heads tried: ``train_head``'s keyword arguments.
CONFIGS = {
    "linear-ntxent": {"kind": "linear"},
    "mlp-ntxent": {"kind": "mlp"},
    "linear-proto": {"kind": "linear", "prototype": 1.0},
    "mlp-proto": {"kind": "mlp", "prototype": 1.0},
    "linear-self": {"kind": "linear", "nt_xent": 0.0, "prototype": 1.0, "fraction": 0.5},
    "linear-ntxent-30": {"kind": "linear", "epochs": 30},
    "linear-proto-30": {"kind": "linear", "prototype": 1.0, "epochs": 30},
    "linear-proto-w3": {"kind": "linear", "prototype": 3.0},
    "linear-proto-f50": {"kind": "linear", "prototype": 1.0, "fraction": 0.5},
    "linear-proto-lr3": {"kind": "linear", "prototype": 1.0, "learning_rate": 3e-3},
    # The package's LinearHead() on TF-IDF neighbour pairs of the documents' frozen
    # embeddings, as TfidfPositiveEmbedder trains it (no sentences).
    "tfidf-linearhead": {"positives": "tfidf"},
}


def parse_args(argv=None):
    parser = add_corpus_arguments(argparse.ArgumentParser(description=__doc__.split("\n\n")[0]))
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--configs", default=",".join(CONFIGS),
                        help=f"comma-separated, of: {', '.join(CONFIGS)}")
    parser.add_argument("--output", default=str(RESULTS / "heads.json"))
    add_resume_argument(parser)
    return parser.parse_args(argv)


class Mapped:
    """A package head (``torch.nn.Linear``) with the lab heads' ``apply``."""

    def __init__(self, linear):
        self.linear = linear

    def apply(self, rows):
        return apply_head(self.linear, rows)


def evaluate(space, y, seeds):
    """:func:`score`'s ACC and AMI of ``space(seed)`` (mean and std over the seeds), and
    the label-free silhouette (cosine, on 3,000 documents at most) of the clusterings."""
    k = len(np.unique(y))
    acc, ami, silhouette = [], [], []
    for seed in range(seeds):
        rows = space(seed)
        labels = SphericalKMeans(k, n_init=10, random_state=seed).fit_predict(rows)
        acc.append(clustering_accuracy(y, labels))
        ami.append(adjusted_mutual_info_score(y, labels))
        silhouette.append(silhouette_score(rows, labels, metric="cosine",
                                           sample_size=min(3000, len(rows)),
                                           random_state=seed))
    return {"acc_mean": float(np.mean(acc)), "acc_std": float(np.std(acc)),
            "ami_mean": float(np.mean(ami)), "ami_std": float(np.std(ami)),
            "silhouette_mean": float(np.mean(silhouette)), "ami": [float(a) for a in ami],
            "silhouette": [float(v) for v in silhouette]}


def summary(result):
    return {key: result[key] for key in ("acc_mean", "acc_std", "ami_mean", "ami_std")}


def measure(name, configs, args, done):
    docs, y, _ = load_corpus(name, args.data_home, args.corpora_dir, args.news_docs)
    k = len(np.unique(y))
    windows = frozen_embeddings(name, docs)
    start = time.perf_counter()
    sentences, offsets = sentence_embeddings(name, docs)
    sentence_seconds = time.perf_counter() - start
    means = document_means(sentences, offsets)
    views = half_views(sentences, offsets)
    lexical = [LexicalSpace(100, seed).fit(docs).transform(docs) for seed in range(args.seeds)]

    def joined(rows, seed):
        return join_words(np.array(rows, dtype=np.float32), lexical[seed], 0.5)

    entry = done.get(name) or {
        "n_docs": len(docs), "k": k, "n_sentences": len(sentences),
        "trainable_documents": len(views.documents),
        "views": {view: summary(result) for view, result in baselines(
            name, docs, y, args.seeds).items()},
        "default-untuned": evaluate(lambda s: joined(windows, s), y, args.seeds),
        "default-sentences": evaluate(lambda s: joined(means, s), y, args.seeds),
        "heads": {}}
    if sentence_seconds > 5:
        entry["sentence_seconds"] = sentence_seconds
    for config in configs:
        if config in entry["heads"]:
            continue
        heads, seconds = [], []
        for seed in range(args.seeds):
            start = time.perf_counter()
            if CONFIGS[config].get("positives") == "tfidf":
                linear = tfidf_head(docs, windows, lambda rows: joined(rows, seed),  # noqa: B023
                                    k, seed)
                heads.append(Mapped(linear))
            else:
                heads.append(train_head(views, windows, lambda rows: joined(rows, seed),  # noqa: B023
                                        n_clusters=k, random_state=seed, **CONFIGS[config]))
            seconds.append(time.perf_counter() - start)
        entry["heads"][config] = {
            "params": CONFIGS[config], "train_seconds": float(np.mean(seconds)),
            "windows": evaluate(lambda s: joined(heads[s].apply(windows), s),  # noqa: B023
                                y, args.seeds),
            "sentences": evaluate(lambda s: joined(heads[s].apply(means), s),  # noqa: B023
                                  y, args.seeds)}
        line = entry["heads"][config]
        print(f"{name} {config}: windows {line['windows']['acc_mean']:.3f} / "
              f"{line['windows']['ami_mean']:.3f}, sentences "
              f"{line['sentences']['acc_mean']:.3f} / {line['sentences']['ami_mean']:.3f} "
              f"(untuned {entry['default-untuned']['acc_mean']:.3f} / "
              f"{entry['default-untuned']['ami_mean']:.3f}); silhouette "
              f"{line['windows']['silhouette_mean']:.4f} against "
              f"{entry['default-untuned']['silhouette_mean']:.4f}; "
              f"{line['train_seconds']:.1f} s",
              flush=True)
        done[name] = entry
        write_json(args.output, done)
    return entry


def report(results):
    rows = []
    for name, entry in results.items():
        def cell(result):
            return f"{result['acc_mean']:.3f} / {result['ami_mean']:.3f}"
        rows.append([name, "untuned default (windows)", cell(entry["default-untuned"]), ""])
        rows.append([name, "untuned default (sentence means)",
                     cell(entry["default-sentences"]), ""])
        for view, result in entry["views"].items():
            rows.append([name, view, cell(result), ""])
        for config, line in entry["heads"].items():
            for documents in ("windows", "sentences"):
                rows.append([name, f"{config} ({documents})", cell(line[documents]),
                             f"{line['train_seconds']:.1f}"])
    return markdown_table(["corpus", "space", "ACC / AMI (mean of seeds)", "head s"], rows)


def main(argv=None):
    args = parse_args(argv)
    done = previous(args.output, args.resume, {})
    configs = [c for c in args.configs.split(",") if c]
    unknown = sorted(set(configs) - set(CONFIGS))
    if unknown:
        raise SystemExit(f"--configs: unknown {unknown}; known: {', '.join(CONFIGS)}")
    for name in corpus_names(args.corpora):
        measure(name, configs, args, done)
    write_markdown(args.output.replace(".json", ".md"), report(done))


if __name__ == "__main__":
    main()

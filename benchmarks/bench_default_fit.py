"""The cost of the default fit against the untuned transform of the same documents.

For each corpus, a stratified sample of ``--n-docs`` documents, and each seed, one
process times, interleaved (the order turns each repeat) and ``--repeats`` times:

- ``default``: ``ShuffleDivideEmbedder(random_state=seed, verbose=0).fit_transform(docs)``,
  every parameter at its default (the installed MiniLM-L6, ``max_epochs="auto"``: no
  training on a CPU), model loading included;
- ``auto_k``: the same with ``n_clusters="auto"`` (the command line's default), whose fit
  also embeds and clusters a selection sample to choose the number of clusters, and
  then decides on a head (``head="auto"``) and trains it where it decides so;
- ``k``: the same with ``n_clusters`` the number of classes (as ``quality_summary.json``'s
  ``"default"`` entries), which decides on a head too;
- ``head``: the same with ``head=LinearHead()``, a head whatever the agreement: what the
  default costs where it trains one (on samples this small the agreement is often too low
  for ``"auto"`` to train);
- ``transform``: the peer, ``transform(docs)`` alone of a
  ``ShuffleDivideEmbedder(max_epochs=0, random_state=seed, verbose=0)`` fitted on the
  same documents beforehand (same ``max_length``, ``max_windows`` and
  ``inference_dtype``: the defaults).

It reports each median, the ratio fit / transform (the goal: at most 3) and the
1-minute load average at the start of each measure (``os.getloadavg``: the machine is
shared, and a busy one slows the measures unevenly). Each fit's decisions are recorded
(``max_epochs_``, ``max_epochs_reason_``, ``n_clusters_``, ``lexical_weight_``,
``best_epoch_``, ``inference_dtype_``...). The default's output is scored by
``SphericalKMeans(k, random_state=seed)`` (k the number of classes; the labels only
score) beside the same run's TF-IDF, LSA and frozen-encoder views of the same sample
(``lab.corpora.baselines``: the frozen encoder at 128-token windows, cached under
``$SHUFDIV_BENCH_CACHE``), with k-means seeds 0 to ``--seeds - 1``.

    SCIKIT_LEARN_DATA=/path/to/scikit_learn_data nice python benchmarks/bench_default_fit.py \\
        --n-docs 200 --repeats 2 --seeds 1 --resume
"""

import argparse
import os
import statistics
import time
from pathlib import Path

import torch
from lab.corpora import (
    RESULTS,
    add_corpus_arguments,
    baselines,
    corpus_names,
    load_corpus,
    score,
    subsample,
)
from lab.reports import add_resume_argument, markdown_table, previous, write_json, write_markdown

from sklearn_shufdiv import ShuffleDivideEmbedder
from sklearn_shufdiv.embedders import LinearHead

MEASURES = ("default", "auto_k", "k", "head", "transform")
FITS = ("default", "auto_k", "k", "head")
#: The fitted attributes that describe a fit's decisions.
DECISIONS = ("max_epochs_", "max_epochs_reason_", "stopped_by_max_time_", "best_epoch_",
             "n_clusters_", "lexical_weight_", "inference_dtype_", "training_fraction_",
             "head_reason_")
GOAL = 3.0


def parse_args(argv=None):
    parser = add_corpus_arguments(argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter))
    parser.add_argument("--n-docs", type=int, default=200,
                        help="stratified sample of each corpus (seed 0; default: 200; "
                             "0: the whole corpus)")
    parser.add_argument("--seeds", type=int, default=1,
                        help="fits seeded 0 to SEEDS - 1; the k-means seeds of the scores "
                             "(default: 1)")
    parser.add_argument("--repeats", type=int, default=2,
                        help="timings of each measure, interleaved; the median is reported "
                             "(default: 2)")
    parser.add_argument("--out", type=Path, default=RESULTS / "default_fit",
                        help="results stem: .json and .md (default: results/default_fit)")
    add_resume_argument(parser, "the corpora already measured with the same --n-docs, "
                                "--seeds and --repeats")
    return parser.parse_args(argv)


def decisions(embedder):
    """The fitted attributes that say what the fit chose, JSON-ready."""
    found = {name: getattr(embedder, name, None) for name in DECISIONS}
    found["model"] = "/".join(Path(str(embedder.model_name_or_path_)).parts[-2:])
    return {name: value.item() if hasattr(value, "item") else value
            for name, value in found.items()}


def timed(measure, docs, seed, peer, k):
    """``(record, output)`` of one timing of ``measure``: its seconds, the load average at
    its start and, for a fit, its decisions; ``output`` the embeddings."""
    load = os.getloadavg()[0]
    start = time.perf_counter()
    if measure == "transform":
        output, embedder = peer.transform(docs), None
    else:
        params = {"auto_k": {"n_clusters": "auto"}, "k": {"n_clusters": k},
                  "head": {"n_clusters": k, "head": LinearHead()}}.get(measure, {})
        embedder = ShuffleDivideEmbedder(random_state=seed, verbose=0, **params)
        output = embedder.fit_transform(docs)
    record = {"seconds": time.perf_counter() - start, "load": load}
    if embedder is not None:
        record["decisions"] = decisions(embedder)
    return record, output


def measure_seed(docs, seed, repeats, k):
    """The timings of one seed (the peer fitted first: it also loads every module), and
    the output of each fit."""
    start = time.perf_counter()
    peer = ShuffleDivideEmbedder(max_epochs=0, random_state=seed, verbose=0).fit(docs)
    runs = {"peer_fit_seconds": time.perf_counter() - start,
            **{measure: [] for measure in MEASURES}}
    outputs = {}
    for repeat in range(repeats):
        turn = repeat % len(MEASURES)
        for measure in MEASURES[turn:] + MEASURES[:turn]:
            record, output = timed(measure, docs, seed, peer, k)
            runs[measure].append(record)
            outputs.setdefault(measure, output)
            print(f"    seed {seed} repeat {repeat}: {measure:9s} {record['seconds']:7.1f} s "
                  f"(load {record['load']:.1f})", flush=True)
    return runs, outputs


def summarise(runs):
    """Medians over the seeds' repeats, the ratios, the load range and the decisions."""
    medians = {measure: statistics.median(record["seconds"] for seed in runs
                                          for record in seed[measure])
               for measure in MEASURES}
    loads = [record["load"] for seed in runs for measure in MEASURES
             for record in seed[measure]]
    return {"seconds": medians,
            "ratio": {fit: medians[fit] / medians["transform"] for fit in FITS},
            "load": [min(loads), max(loads)],
            "decisions": {fit: runs[0][fit][0]["decisions"] for fit in FITS}}


def measure_corpus(name, docs, y, args):
    runs, outputs = [], []
    for seed in range(args.seeds):
        seed_runs, seed_outputs = measure_seed(docs, seed, args.repeats,
                                               int(len(set(y.tolist()))))
        runs.append(seed_runs)
        outputs.append(seed_outputs)
    scores = {fit: score(lambda seed, fit=fit: outputs[seed][fit], y, args.seeds)
              for fit in FITS}
    scores.update(baselines(name, docs, y, args.seeds))
    return {"n_docs": len(docs), "n_classes": int(len(set(y.tolist()))), "runs": runs,
            **summarise(runs), "scores": scores}


def report(results):
    def head(decisions):
        reason = decisions.get("head_reason_") or ""
        return "yes" if ": a LinearHead" in reason else "no"

    cost = [[name, r["n_docs"], f"{r['seconds']['default']:.1f}",
             f"{r['seconds']['auto_k']:.1f}", f"{r['seconds'].get('k', float('nan')):.1f}",
             f"{r['seconds']['transform']:.1f}",
             f"{r['ratio']['default']:.2f}", f"{r['ratio']['auto_k']:.2f}",
             f"{r['ratio'].get('k', float('nan')):.2f}",
             f"{r['seconds'].get('head', float('nan')):.1f}",
             f"{r['ratio'].get('head', float('nan')):.2f}",
             "yes" if max(r["ratio"].values()) <= GOAL else "no",
             f"{r['load'][0]:.1f}-{r['load'][1]:.1f}",
             r["decisions"]["default"]["max_epochs_"], r["decisions"]["auto_k"]["n_clusters_"],
             head(r["decisions"]["auto_k"]), head(r["decisions"].get("k", {}))]
            for name, r in results["corpora"].items()]
    views = ("default", "auto_k", "k", "head", "frozen", "tfidf", "lsa")
    quality = [[name, r["n_classes"]] + [
        f"{r['scores'][view]['acc_mean']:.3f} / {r['scores'][view]['ami_mean']:.3f}"
        for view in views] for name, r in results["corpora"].items()]
    settings = results["settings"]
    return "\n\n".join([
        f"# Cost of the default fit against the untuned transform\n\n"
        f"{settings['n_docs']} documents a corpus (stratified), {settings['seeds']} seed(s), "
        f"median of {settings['repeats']} interleaved repeat(s), {settings['threads']} torch "
        f"threads on {settings['cpus']} CPUs. Seconds; ratio = fit / transform (goal: at most "
        f"{GOAL:g}); load: 1-minute load average at the start of the measures (min-max).",
        markdown_table(["corpus", "docs", "default fit s", "fit s, n_clusters=auto",
                        "fit s, n_clusters=k", "transform s", "ratio", "ratio, auto",
                        "ratio, k", "fit s, LinearHead()", "ratio, head", "<= 3x", "load",
                        "max_epochs_", "n_clusters_ (auto)",
                        "head (auto)", "head (k)"], cost),
        "ACC / AMI, `SphericalKMeans(k=classes)`, mean over the k-means seeds; same run, "
        "same documents:",
        markdown_table(["corpus", "k", "default", "n_clusters=auto", "n_clusters=k",
                        "LinearHead()", "frozen (128)", "TF-IDF", "LSA"], quality)])


def main(argv=None):
    args = parse_args(argv)
    settings = {"n_docs": args.n_docs, "seeds": args.seeds, "repeats": args.repeats,
                "news_docs": args.news_docs, "threads": torch.get_num_threads(),
                "cpus": os.cpu_count()}
    kept = previous(args.out.with_suffix(".json"), args.resume, {})
    compared = ("n_docs", "seeds", "repeats", "news_docs")
    same = all(kept.get("settings", {}).get(key) == settings[key] for key in compared)
    results = {"settings": settings, "corpora": kept.get("corpora", {}) if same else {}}
    for name in corpus_names(args.corpora):
        if name in results["corpora"]:
            print(f"{name}: kept from {args.out.with_suffix('.json')}")
            continue
        docs, y, _ = load_corpus(name, args.data_home, args.corpora_dir, args.news_docs)
        docs, y = subsample(docs, y, args.n_docs)
        print(f"{name}: {len(docs)} documents", flush=True)
        r = results["corpora"][name] = measure_corpus(name, docs, y, args)
        print(f"  fit {r['seconds']['default']:.1f} s, n_clusters=auto "
              f"{r['seconds']['auto_k']:.1f} s, n_clusters=k {r['seconds']['k']:.1f} s, "
              f"transform {r['seconds']['transform']:.1f} s: ratio "
              f"{r['ratio']['default']:.2f} / {r['ratio']['auto_k']:.2f} / {r['ratio']['k']:.2f} "
              f"/ head {r['ratio']['head']:.2f} "
              f"(load {r['load'][0]:.1f}-{r['load'][1]:.1f})", flush=True)
        write_json(args.out.with_suffix(".json"), results)
        write_markdown(args.out.with_suffix(".md"), report(results))
    print(report(results))


if __name__ == "__main__":
    main()

"""The weight of the words and the number of clusters chosen together, without labels.

For each corpus of ``_corpora.py`` and each seed ``s``, the space is built as the
package builds its default one (``bench_default.py``): the frozen encoder's cached
embeddings joined (``join_words``) with the corpus' ``LexicalSpace(100, s)`` at a weight
``w`` of the words. Measured, with ``SphericalKMeans(k, n_init=10, random_state=s)`` (the
best of 10 runs; labels only score):

- ``fixed``: every weight 0, 0.1, ..., 0.9 and 1 (LSA alone) at the true k: the best of
  them by the labels is the ceiling a label-free weight can reach; 0 is the frozen
  encoder alone and 1 the LSA view alone;
- ``tfidf``: the TF-IDF rows at the true k (the third single view);
- ``auto``: the weight and k that :func:`choose_view_weight_and_k` chooses on the
  corpus (no labels), scored at the chosen k and at the true k, with the seconds the
  choice took and the seconds of one ``SphericalKMeans(true k, n_init=10)`` fit.

Results go to ``benchmarks/results/auto.json`` after every part (``--resume`` keeps the
parts already there) and ``auto.md`` (the tables and the goals met).

    SCIKIT_LEARN_DATA=../shared/data/scikit_learn_data SHUFDIV_BENCH_CACHE=/work/cache \\
        OMP_NUM_THREADS=1 python benchmarks/bench_auto.py --resume
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import adjusted_mutual_info_score

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _corpora import (  # noqa: E402
    REPO_ROOT,
    add_corpus_arguments,
    bag_of_words,
    corpus_names,
    frozen_embeddings,
    load_corpus,
)

from sklearn_shufdiv import clustering_accuracy  # noqa: E402
from sklearn_shufdiv.cluster import SphericalKMeans  # noqa: E402
from sklearn_shufdiv.cluster._graph import choose_view_weight_and_k  # noqa: E402
from sklearn_shufdiv.embedders import LexicalSpace  # noqa: E402
from sklearn_shufdiv.embedders._lexical import join_words  # noqa: E402

RESULTS = REPO_ROOT / "benchmarks" / "results"
#: The fixed weights of the words: 0 (the encoder alone) to 0.9, and 1 (LSA alone).
WEIGHTS = tuple(i / 10 for i in range(11))
PARTS = ("fixed", "tfidf", "auto")


def parse_args(argv=None):
    parser = add_corpus_arguments(argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__))
    parser.add_argument("--seeds", type=int, default=5, help="seeds 0 to SEEDS - 1 (default: 5)")
    parser.add_argument("--parts", default=",".join(PARTS),
                        help=f"comma-separated, of {', '.join(PARTS)} (default: all)")
    parser.add_argument("--resume", action="store_true",
                        help="keep the parts of each corpus and seed already in --output")
    parser.add_argument("--output", type=Path, default=RESULTS / "auto.json")
    parser.add_argument("--report-only", action="store_true",
                        help="only rewrite the .md beside --output from its results")
    return parser.parse_args(argv)


def scored(X, y, k, seed):
    """ACC, AMI and fit seconds of ``SphericalKMeans(k, n_init=10, random_state=seed)``."""
    start = time.perf_counter()
    labels = SphericalKMeans(k, n_init=10, random_state=seed).fit_predict(X)
    return {"acc": clustering_accuracy(y, labels),
            "ami": adjusted_mutual_info_score(y, labels),
            "seconds": time.perf_counter() - start}


def join(encoded, lexical, weight):
    """The package's joined space (``join_words``) at ``weight``; 1 is LSA alone."""
    return join_words(np.array(encoded, dtype=np.float32), lexical, weight)


def measure(part, encoded, lexical, tfidf, y, seed):
    k = len(np.unique(y))
    if part == "fixed":
        return {str(w): scored(join(encoded, lexical, w), y, k, seed) for w in WEIGHTS}
    if part == "tfidf":
        return scored(tfidf, y, k, seed)
    start = time.perf_counter()
    chosen = choose_view_weight_and_k(encoded, lexical, join, weights=WEIGHTS,
                                      random_state=seed)
    seconds = time.perf_counter() - start
    space = join(encoded, lexical, chosen.weight)
    return {"weight": chosen.weight, "k": chosen.k, "seconds": seconds,
            "k_runner_up": chosen.k_runner_up, "k_uncertain": chosen.k_uncertain,
            "weight_runner_up": chosen.weight_runner_up,
            "weight_uncertain": chosen.weight_uncertain,
            "weight_scores": {str(w): s for w, s in chosen.weight_scores.items()},
            "k_scores": {str(kk): s for kk, s in chosen.k_scores.items()},
            "provisional_k": chosen.provisional_k,
            "chosen_k": scored(space, y, chosen.k, seed),
            "true_k": scored(space, y, k, seed)}


def save(path, results):
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(json.dumps(results, indent=1))
    os.replace(partial, path)


def main(argv=None):
    args = parse_args(argv)
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    unknown = sorted(set(parts) - set(PARTS))
    if unknown:
        raise SystemExit(f"--parts: unknown {', '.join(unknown)}; choose from {', '.join(PARTS)}")
    results = (json.loads(args.output.read_text())
               if (args.resume or args.report_only) and args.output.exists() else {})
    true_ks = {}
    if args.report_only:
        for name in results:
            true_ks[name] = len(np.unique(load_corpus(name, args.data_home, args.corpora_dir,
                                                      args.news_docs)[1]))
        write_report(results, args.output.with_suffix(".md"), true_ks)
        return
    for name in corpus_names(args.corpora):
        docs, y, _ = load_corpus(name, args.data_home, args.corpora_dir, args.news_docs)
        true_ks[name] = len(np.unique(y))
        encoded = frozen_embeddings(name, docs)
        tfidf = bag_of_words(docs)["tfidf"] if "tfidf" in parts else None
        for seed in range(args.seeds):
            entry = results.setdefault(name, {}).setdefault(str(seed), {})
            todo = [p for p in parts if p not in entry]
            if not todo:
                continue
            lexical = LexicalSpace(100, seed).fit(docs).transform(docs)
            for part in todo:
                entry[part] = measure(part, encoded, lexical, tfidf, y, seed)
                save(args.output, results)
                print(f"{name} seed {seed} {part} done", flush=True)
    write_report(results, args.output.with_suffix(".md"), true_ks)


NOTE = ("The frozen embeddings are the cache of `_corpora.frozen_embeddings`, computed on a "
        "GPU from float16-stored weights upcast to float32 (within about 1e-3 of the CPU "
        "float32 encoder's).")


def _mean(values):
    return float(np.mean(values)) if values else float("nan")


def corpus_summary(seeds):
    """Means over the seeds that have every part, and the goals met."""
    seeds = {s: e for s, e in seeds.items() if all(p in e for p in PARTS)}
    if not seeds:
        return None
    fixed = {w: {m: _mean([e["fixed"][w][m] for e in seeds.values()]) for m in ("acc", "ami")}
             for w in next(iter(seeds.values()))["fixed"]}
    best = max(fixed, key=lambda w: fixed[w]["acc"] + fixed[w]["ami"])
    views = {"tfidf": {m: _mean([e["tfidf"][m] for e in seeds.values()]) for m in ("acc", "ami")},
             "lsa": fixed["1.0"], "frozen": fixed["0.0"]}
    auto = {f"{at}_{m}": _mean([e["auto"][at][m] for e in seeds.values()])
            for at in ("chosen_k", "true_k") for m in ("acc", "ami")}
    runs = list(seeds.values())
    k_ok = [e["auto"]["chosen_k"]["ami"] >= e["auto"]["true_k"]["ami"] - 0.03 for e in runs]
    best_view = max(views, key=lambda v: views[v]["acc"])
    return {"n_seeds": len(seeds), "fixed": fixed, "best_weight": best, "views": views,
            "best_view": best_view, **auto,
            "weights": [e["auto"]["weight"] for e in runs], "ks": [e["auto"]["k"] for e in runs],
            "k_ok": k_ok, "seconds": _mean([e["auto"]["seconds"] for e in runs]),
            "fit_seconds": _mean([e["fixed"]["0.5"]["seconds"] for e in runs]),
            "weight_goal": (fixed[best]["acc"] - auto["true_k_acc"] <= 0.005
                            and fixed[best]["ami"] - auto["true_k_ami"] <= 0.005)}


def write_report(results, path, true_ks=None):
    """``auto.md``: per corpus the means and goals, then every seed."""
    lines = ["# The weight of the words and k chosen together (`bench_auto.py`)", "", NOTE, "",
             "ACC / AMI, mean over the seeds; `SphericalKMeans(k, n_init=10)`. Best fixed: "
             "the weight (0 to 0.9, 1 = LSA alone) of the greatest mean ACC + AMI at the true "
             "k, chosen with the labels. Weight goal: auto at the true k within 0.5 point of "
             "it in ACC and AMI. k goal: AMI at the chosen k at most 0.03 below the true k's "
             "(same space and seed) in 4 of 5 seeds, k within half to twice the true one.", "",
             "| corpus | seeds | TF-IDF | LSA | frozen | best fixed (w) | auto at true k | "
             "auto at chosen k | weights chosen | k chosen | weight goal | k goal |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    gains = []
    for name, seeds in results.items():
        summary = corpus_summary(seeds)
        if summary is None:
            continue
        fmt = lambda d: f"{d['acc']:.3f} / {d['ami']:.3f}"  # noqa: E731
        true_k = (true_ks or {}).get(name)
        in_range = [true_k is None or true_k / 2 <= k <= 2 * true_k for k in summary["ks"]]
        k_met = sum(a and b for a, b in zip(summary["k_ok"], in_range))
        gains.append(summary["true_k_acc"] - summary["views"][summary["best_view"]]["acc"])
        lines.append(
            f"| {name} | {summary['n_seeds']} | {fmt(summary['views']['tfidf'])} | "
            f"{fmt(summary['views']['lsa'])} | {fmt(summary['views']['frozen'])} | "
            f"{fmt(summary['fixed'][summary['best_weight']])} ({summary['best_weight']}) | "
            f"{summary['true_k_acc']:.3f} / {summary['true_k_ami']:.3f} | "
            f"{summary['chosen_k_acc']:.3f} / {summary['chosen_k_ami']:.3f} | "
            f"{', '.join(f'{w:g}' for w in summary['weights'])} | "
            f"{', '.join(map(str, summary['ks']))} | "
            f"{'met' if summary['weight_goal'] else 'missed'} | "
            f"{k_met} of {summary['n_seeds']} |")
    if gains:
        lines += ["", f"Auto at the true k against the best single view (by ACC), mean over "
                      f"the corpora: {100 * _mean(gains):+.1f} ACC points (goal: +1.0).", ""]
    lines += ["Every seed: the chosen weight and k (runner-up; `?` where flagged uncertain), "
              "ACC / AMI at the chosen k and at the true k, seconds of the choice and of one "
              "`SphericalKMeans(true k, n_init=10)` fit (weight 0.5) in the same run.", "",
              "| corpus | seed | weight (runner-up) | k (runner-up) | chosen k | true k | "
              "choice s | fit s |", "|---|---|---|---|---|---|---|---|"]
    for name, seeds in results.items():
        for seed, e in sorted(seeds.items()):
            if not all(p in e for p in PARTS):
                continue
            a = e["auto"]
            lines.append(
                f"| {name} | {seed} | {a['weight']:g}{'?' if a['weight_uncertain'] else ''} "
                f"({a['weight_runner_up']}) | {a['k']}{'?' if a['k_uncertain'] else ''} "
                f"({a['k_runner_up']}) | {a['chosen_k']['acc']:.3f} / "
                f"{a['chosen_k']['ami']:.3f} | {a['true_k']['acc']:.3f} / "
                f"{a['true_k']['ami']:.3f} | {a['seconds']:.1f} | "
                f"{e['fixed']['0.5']['seconds']:.1f} |")
    path.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()

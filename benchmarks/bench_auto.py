"""The weight of the words and the number of clusters chosen together, without labels.

For each corpus of ``lab/corpora.py`` and each seed ``s``, the space is built as the
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
from lab.corpora import (  # noqa: E402
    REPO_ROOT,
    add_corpus_arguments,
    bag_of_words,
    corpus_names,
    frozen_embeddings,
    load_corpus,
)
from lab.graph_k import (  # noqa: E402
    DEFAULT_K_RANGE,
    _merge_path,
    choose_n_clusters_by_modularity,
    choose_view_weight_and_k,
)
from lab.internals import LexicalSpace, join_words, modularity, neighbor_graph  # noqa: E402

from sklearn_shufdiv import clustering_accuracy  # noqa: E402
from sklearn_shufdiv.cluster import SphericalKMeans  # noqa: E402

RESULTS = REPO_ROOT / "benchmarks" / "results"
#: The fixed weights of the words: 0 (the encoder alone) to 0.9, and 1 (LSA alone).
WEIGHTS = tuple(i / 10 for i in range(11))
PARTS = ("fixed", "tfidf", "auto")


def parse_args(argv=None):
    parser = add_corpus_arguments(argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__))
    parser.add_argument("--seeds", type=int, default=5, help="seeds 0 to SEEDS - 1 (default: 5)")
    parser.add_argument("--from-seed", type=int, default=0,
                        help="start at this seed (default: 0), to split a run")
    parser.add_argument("--parts", default=",".join(PARTS),
                        help=f"comma-separated, of {', '.join(PARTS)} (default: all)")
    parser.add_argument("--resume", action="store_true",
                        help="keep the parts of each corpus and seed already in --output")
    parser.add_argument("--output", type=Path, default=RESULTS / "auto.json")
    parser.add_argument("--criteria", action="store_true",
                        help="instead: every k criterion tried, on a 2,000-row sample of the "
                             "weight-0.5 space, into auto_criteria.json and .md")
    parser.add_argument("--k-rules", action="store_true",
                        help="instead: each k rule on the product's final sweep (the chosen "
                             "weight's space, from --output's results), scored on the whole "
                             "corpus, into auto_k_rules.json and .md")
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
    if args.criteria:
        return run_criteria(args)
    if args.k_rules:
        return run_k_rules(args, results)
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
        for seed in range(args.from_seed, args.seeds):
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


NOTE = ("The frozen embeddings are the cache of `lab.corpora.frozen_embeddings`, computed on a "
        "GPU from float16-stored weights upcast to float32 (within about 1e-3 of the CPU "
        "float32 encoder's).")


PROCEDURE = (
    "`choose_view_weight_and_k` (benchmarks/lab/graph_k.py, on the package's modularity rule), "
    "on one 2,000-document "
    "sample: (1) k at the provisional weight 0.5 by `choose_n_clusters_by_modularity` (each k "
    "of 2..10, 12, 14, ..., 40 clustered 3 times by one-run spherical k-means; the plateau: "
    "every k from the first whose mean modularity on the sample's 20-NN cosine graph is "
    "within 10% of the greatest; chosen: the plateau's most stable k, the one whose 3 "
    "partitions agree most by ARI); (2) at that k, each weight 0, 0.1, ..., 0.9, 1 "
    "clustered (best of 3) and scored by the sum of its partition's modularities on the "
    "encoder's and the LSA space's 20-NN graphs (today's \"auto\" criterion, now at a "
    "chosen k); (3) k chosen again on the chosen weight's space. The order: the weight "
    "criterion compares partitions at one k, so it needs a k first, and the k criterion "
    "needs a space; 0.5 is the weight the package ships, and the k is re-checked where "
    "the weight moved. Constants: 20 neighbours (chosen leaving each corpus out for the "
    "weight, `bench_views.py --criteria`), the 10% plateau (chosen leaving each corpus "
    "out: `auto_criteria.md`), 2,000 rows and 3 partitions (cost, not fitted).")


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
            "fit_seconds": _mean([e["auto"]["true_k"]["seconds"] for e in runs]),
            "weight_goal": (fixed[best]["acc"] - auto["true_k_acc"] <= 0.005
                            and fixed[best]["ami"] - auto["true_k_ami"] <= 0.005)}


def write_report(results, path, true_ks=None):
    """``auto.md``: per corpus the means and goals, then every seed."""
    lines = ["# The weight of the words and k chosen together (`bench_auto.py`)", "", NOTE, "",
             PROCEDURE, "",
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
              "`SphericalKMeans(true k, n_init=10)` fit of the chosen space in the same "
              "process, right after the choice.", "",
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
                f"{a['true_k']['seconds']:.1f} |")
    path.write_text("\n".join(lines) + "\n")



#: Repeated one-run k-means partitions of each k in the criteria study.
REPEATS = 3
#: The plateau of the modularity (a share of its greatest), chosen leaving each corpus out.
RHOS = (0.02, 0.04, 0.06, 0.08, 0.1, 0.12, 0.15, 0.2)


def criteria_curves(X, y, seed):
    """On a 2,000-row sample: for each k, the modularity of ``REPEATS`` k-means partitions
    on the 20-NN graph, their agreement (ARI) and their AMI with the labels (to score
    only); the same along the greedy merges of ``REPEATS`` 40-cluster partitions."""
    from sklearn.metrics import adjusted_rand_score

    rows = np.sort(np.random.default_rng(seed).permutation(len(X))[:2000])
    sample, labels = X[rows], y[rows]
    graph = neighbor_graph(sample, 20)
    pairs = [(a, b) for a in range(REPEATS) for b in range(a + 1, REPEATS)]

    def summary(partitions, q):
        return {"q": float(np.mean(q)), "ari": float(np.mean(
                    [adjusted_rand_score(partitions[a], partitions[b]) for a, b in pairs])),
                "ami": float(np.mean([adjusted_mutual_info_score(labels, p)
                                      for p in partitions]))}

    sweep, start = {}, time.perf_counter()
    for k in DEFAULT_K_RANGE:
        parts = [SphericalKMeans(k, n_init=1, random_state=100 * seed + r).fit(sample).labels_
                 for r in range(REPEATS)]
        sweep[k] = summary(parts, [modularity(graph, p) for p in parts])
    sweep_seconds, start = time.perf_counter() - start, time.perf_counter()
    over = [SphericalKMeans(40, n_init=1, random_state=100 * seed + r).fit(sample).labels_
            for r in range(REPEATS)]
    paths = [_merge_path(graph, p) for p in over]
    merge = {k: summary([path[k][1][p] for path, p in zip(paths, over)],
                        [path[k][0] for path in paths]) for k in range(2, 41)}
    return {"sweep": sweep, "merge": merge, "sweep_seconds": sweep_seconds,
            "merge_seconds": time.perf_counter() - start}


def pick(curve, rule, rho=0.1):
    """The k a rule picks from a curve: ``argmax`` (greatest modularity), ``stability``
    (greatest agreement), ``parsimony`` (the least k within ``rho`` of the greatest
    modularity), ``floored-stability`` (the most stable k from there up: the product)."""
    ks = sorted(curve, key=int)
    q = {k: curve[k]["q"] for k in ks}
    if rule == "argmax":
        return max(ks, key=q.get)
    if rule == "stability":
        return max(ks, key=lambda k: (curve[k]["ari"], -int(k)))
    floor = min((k for k in ks if q[k] >= (1 - rho) * max(q.values())), key=int)
    if rule == "parsimony":
        return floor
    return max((k for k in ks if int(k) >= int(floor)),
               key=lambda k: (curve[k]["ari"], -int(k)))


RULES = [("sweep", "argmax"), ("sweep", "stability"), ("sweep", "parsimony"),
         ("sweep", "floored-stability"), ("merge", "argmax"), ("merge", "parsimony"),
         ("merge", "floored-stability")]


def meets(curves, k, true_k):
    ami = curves["sweep"]
    return (ami[str(k)]["ami"] if str(k) in ami else curves["merge"][str(k)]["ami"]) >= (
        ami[str(true_k)]["ami"] - 0.03) and true_k / 2 <= int(k) <= 2 * true_k


def run_criteria(args):
    path = args.output.with_name("auto_criteria.json")
    results = json.loads(path.read_text()) if args.resume and path.exists() else {}
    for name in corpus_names(args.corpora):
        docs, y, _ = load_corpus(name, args.data_home, args.corpora_dir, args.news_docs)
        encoded = frozen_embeddings(name, docs)
        entry = results.setdefault(name, {"true_k": int(len(np.unique(y))), "seeds": {}})
        for seed in range(args.seeds):
            if str(seed) in entry["seeds"]:
                continue
            space = join(encoded, LexicalSpace(100, seed).fit(docs).transform(docs), 0.5)
            entry["seeds"][str(seed)] = json.loads(json.dumps(criteria_curves(space, y, seed)))
            save(path, results)
            print(f"{name} seed {seed} criteria done", flush=True)
    write_criteria_report(results, path.with_suffix(".md"))


def write_criteria_report(results, path):
    lines = ["# k criteria on a 2,000-row sample of the weight-0.5 space (`bench_auto.py "
             "--criteria`)", "", NOTE, "",
             f"Per corpus and seed: the k each rule picks (k = 2..40; sweep: "
             f"{REPEATS} one-run spherical k-means partitions of each k of "
             "`DEFAULT_K_RANGE`; merge: the greedy modularity merges of "
             f"{REPEATS} 40-cluster partitions), and the sample AMI at that k minus at the "
             "true k (mean of the partitions; labels only score). `x`: outside the goal "
             "(AMI more than 0.03 below, or k outside half to twice the true one). "
             "Plateau share 0.1 (chosen leaving each corpus out, below).", "",
             "| corpus | seed | true k | " + " | ".join(f"{c} {r}" for c, r in RULES) + " |",
             "|---|---|---|" + "---|" * len(RULES)]
    met = {rule: 0 for rule in RULES}
    for name, entry in results.items():
        true_k = entry["true_k"]
        for seed, curves in sorted(entry["seeds"].items()):
            cells = []
            for curve, rule in RULES:
                k = pick(curves[curve], rule)
                ok = meets(curves, k, true_k)
                met[(curve, rule)] += ok
                ami = curves[curve][k]["ami"] - curves["sweep"][str(true_k)]["ami"]
                cells.append(f"{k} ({ami:+.3f}){'' if ok else ' x'}")
            lines.append(f"| {name} | {seed} | {true_k} | " + " | ".join(cells) + " |")
    total = sum(len(e["seeds"]) for e in results.values())
    lines += ["", "Runs within the goal: " + ", ".join(
        f"{c} {r} {n} of {total}" for (c, r), n in met.items()) + ".", ""]
    lines += ["Leave one corpus out: the plateau share of the fewest misses on the four "
              "others (the least share on ties), and the held-out corpus' runs at it:", "",
              "| rule | held out | share | misses on the others | held-out ks | met |",
              "|---|---|---|---|---|---|"]
    for curve, rule in [("sweep", "parsimony"), ("sweep", "floored-stability")]:
        for held in results:
            def misses(rho, names, curve=curve, rule=rule):
                return sum(not meets(c, pick(c[curve], rule, rho), results[n]["true_k"])
                           for n in names for c in results[n]["seeds"].values())
            others = [n for n in results if n != held]
            rho = min(RHOS, key=lambda r: (misses(r, others), r))  # noqa: B023
            ks = [pick(c[curve], rule, rho) for c in results[held]["seeds"].values()]
            lines.append(f"| {curve} {rule} | {held} | {rho} | {misses(rho, others)} | "
                         f"{', '.join(ks)} | {len(ks) - misses(rho, [held])} of {len(ks)} |")
    lines += ["", "Seconds (same machine, shared): " + ", ".join(
        f"{n} sweep {_mean([c['sweep_seconds'] for c in e['seeds'].values()]):.1f} / merge "
        f"{_mean([c['merge_seconds'] for c in e['seeds'].values()]):.1f}"
        for n, e in results.items()) + "."]
    path.write_text("\n".join(lines) + "\n")



def k_rules(result):
    """The k each rule picks from one ``choose_n_clusters_by_modularity`` result."""
    best = result.stability[result.k]
    near = [k for k in result.candidates if result.stability[k][0] >= best[0] - 2 * max(
        best[1], result.stability[k][1])]
    return {"product": result.k, "argmax": result.k_modularity,
            "parsimony": min(result.candidates), "stable-parsimony": min(near)}


def run_k_rules(args, auto):
    """Replays the product's last k choice (same sample and seeds) on the space of the
    weight it chose, and scores every rule's k on the whole corpus."""

    path = args.output.with_name("auto_k_rules.json")
    results = json.loads(path.read_text()) if args.resume and path.exists() else {}
    for name in corpus_names(args.corpora):
        docs, y, _ = load_corpus(name, args.data_home, args.corpora_dir, args.news_docs)
        encoded, true_k = frozen_embeddings(name, docs), len(np.unique(y))
        for seed in range(args.from_seed, args.seeds):
            if str(seed) in results.get(name, {}):
                continue
            lexical = LexicalSpace(100, seed).fit(docs).transform(docs)
            weight = auto[name][str(seed)]["auto"]["weight"]
            rng = np.random.RandomState(seed)  # as choose_view_weight_and_k draws
            rows = np.sort(rng.permutation(len(docs))[:2000])
            inner = rng.randint(np.iinfo(np.int32).max)
            result = choose_n_clusters_by_modularity(
                join(encoded[rows], lexical[rows], weight), sample_size=None,
                random_state=inner)
            picks = k_rules(result)
            space = join(encoded, lexical, weight)
            scores = {str(k): scored(space, y, k, seed) for k in {*picks.values(), true_k}}
            results.setdefault(name, {})[str(seed)] = {
                "weight": weight, "true_k": true_k, "picks": picks, "scores": scores}
            save(path, results)
            print(f"{name} seed {seed} k rules {picks}", flush=True)
    write_k_rules_report(results, path.with_suffix(".md"))


def write_k_rules_report(results, path):
    rules = ("product", "argmax", "parsimony", "stable-parsimony")
    lines = ["# k rules on the product's space, scored on the whole corpus (`bench_auto.py "
             "--k-rules`)", "", NOTE, "",
             "Each seed replays the last k choice of `choose_view_weight_and_k` (same sample, "
             "same seeds, the weight it chose) and applies each rule to that one sweep: "
             "`product` (the plateau's most stable k), `argmax` (the greatest mean "
             "modularity), `parsimony` (the plateau's least k), `stable-parsimony` (the "
             "least plateau k whose stability is within two standard errors of the most "
             "stable's). Cell: k, AMI at k (`SphericalKMeans(k, n_init=10)`, whole corpus) "
             "minus at the true k; `x` outside the goal (more than 0.03 below, or k outside "
             "half to twice the true one).", "",
             "| corpus | seed | w | true k (AMI) | " + " | ".join(rules) + " |",
             "|---|---|---|---|" + "---|" * len(rules)]
    met = dict.fromkeys(rules, 0)
    for name, seeds in results.items():
        for seed, e in sorted(seeds.items()):
            ref = e["scores"][str(e["true_k"])]["ami"]
            cells = []
            for rule in rules:
                k = e["picks"][rule]
                delta = e["scores"][str(k)]["ami"] - ref
                ok = delta >= -0.03 and e["true_k"] / 2 <= k <= 2 * e["true_k"]
                met[rule] += ok
                cells.append(f"{k} ({delta:+.3f}){'' if ok else ' x'}")
            lines.append(f"| {name} | {seed} | {e['weight']:g} | {e['true_k']} ({ref:.3f}) | "
                         + " | ".join(cells) + " |")
    total = sum(len(v) for v in results.values())
    lines += ["", "Runs within the goal: " + ", ".join(
        f"{rule} {n} of {total}" for rule, n in met.items()) + "."]
    path.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()

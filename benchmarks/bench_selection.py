"""Epoch selection, measured: every candidate epoch of a fit, and the epoch each criterion keeps.

For each corpus (a stratified sample of ``--n-docs`` documents) and training seed, one
fine-tuning run of ``ShuffleDivideEmbedder`` (``--objective``, ``--max-epochs``; the
selection's sample is every document) records every candidate epoch, epoch 0 being the
untuned encoder: its space as ``transform`` returns it (the words joined at the default
``lexical_weight``), its ACC and AMI (spherical k-means, best of ``--n-init`` runs, mean
over ``--kmeans-seeds`` seeds; labels only score), and the score each of the package's
epoch-selection criteria gives it (``silhouette``, ``untuned-silhouette``,
``stability``, all computed from the same candidate). Then, per criterion, the epoch it
keeps (its own ``choose``; for ``stability``, training is skipped where epoch 0's clusters
are unstable) and that epoch's ACC / AMI against epoch 0's and the best epoch's. The
same-run baselines on the same documents (TF-IDF, LSA, the frozen encoder alone,
``_corpora.baselines``) are printed beside them.

Results go to ``<out>/selection_<corpus><n-docs><tag>.json`` as each run finishes, and a
table to stdout. Usage (corpora from the scikit-learn data home, ``SCIKIT_LEARN_DATA`` or
``--data-home``)::

    python benchmarks/bench_selection.py --corpora bbc,reuters,20news --n-docs 1000 \\
        --train-seeds 0,1 --objective prototype --max-epochs 2
"""

import argparse
import json
import time
from pathlib import Path

import numpy as np
from lab.corpora import (
    REPO_ROOT,
    add_corpus_arguments,
    baselines,
    default_model,
    load_corpora,
    subsample,
)
from lab.corpora import score as corpus_score
from lab.criteria import SilhouetteCriterion
from lab.internals import UntunedSilhouetteCriterion
from lab.objectives import OBJECTIVES

from sklearn_shufdiv import ShuffleDivideEmbedder
from sklearn_shufdiv.embedders import SelectionContext, SelectionCriterion, StabilityCriterion

#: The package's criteria, by the name the ``selection`` parameter gives them.
CRITERIA = {"silhouette": SilhouetteCriterion, "untuned-silhouette": UntunedSilhouetteCriterion,
            "stability": StabilityCriterion}


class ScoreEveryCriterion(SelectionCriterion):
    """Scores each candidate by every criterion of :data:`CRITERIA` and keeps its space
    (the unit rows of the space ``transform`` returns); the fit's own choice is the last
    epoch (its score is the epoch), so that every epoch is trained."""

    name = "epoch"

    def __init__(self):
        self.criteria = {name: cls() for name, cls in CRITERIA.items()}
        self.scores = {name: {} for name in CRITERIA}
        self.spaces = {}

    def prepare(self, context):
        for criterion in self.criteria.values():
            criterion.prepare(context)

    def score(self, candidate, context):
        self.spaces[candidate.epoch] = candidate.clustering.unit
        for name, criterion in self.criteria.items():
            self.scores[name][candidate.epoch] = float(criterion.score(candidate, context))
        return float(candidate.epoch)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_corpus_arguments(parser, default="bbc,reuters,20news")
    parser.add_argument("--n-docs", type=int, default=1000,
                        help="stratified sample of each corpus (0: all; default: 1000)")
    parser.add_argument("--train-seeds", default="0", help="comma-separated training seeds")
    parser.add_argument("--objective", choices=sorted(OBJECTIVES),
                        default="nt-xent", help="the embedder's objective (default: nt-xent)")
    parser.add_argument("--max-epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--max-length", type=int, default=128)
    parser.add_argument("--kmeans-seeds", type=int, default=5)
    parser.add_argument("--n-init", type=int, default=10)
    parser.add_argument("--model", default=None, help="default: the MiniLM-L6 encoder")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "benchmarks" / "results")
    parser.add_argument("--tag", default="", help="suffix of the output file name")
    return parser.parse_args(argv)


def choices(recorder, k):
    """Each criterion's kept epoch: its ``choose`` on the scores of every epoch, or epoch 0
    where its ``final`` skips training after epoch 0."""
    kept = {}
    for name, criterion in recorder.criteria.items():
        untuned = SelectionContext([], np.arange(0), k, 0, scores={0: recorder.scores[name][0]})
        if criterion.final(untuned):
            kept[name] = 0
        else:
            kept[name] = criterion.choose(SelectionContext(
                [], np.arange(0), k, 0, scores=dict(recorder.scores[name])))
    return kept


def run(name, docs, y, seed, args):
    start = time.perf_counter()
    recorder = ScoreEveryCriterion()
    k = len(np.unique(y))
    embedder = ShuffleDivideEmbedder(
        args.model or default_model(), max_epochs=args.max_epochs, max_length=args.max_length,
        batch_size=args.batch_size, objective=OBJECTIVES[args.objective](), n_clusters=k,
        selection=recorder, selection_sample_size=None, device=args.device,
        random_state=seed, verbose=1).fit(docs)
    recorder = embedder.selection_  # the fit's own copy, with what it recorded
    epochs = []
    for epoch, space in sorted(recorder.spaces.items()):
        scores = corpus_score(space, y, args.kmeans_seeds, args.n_init)
        epochs.append({"epoch": epoch, "acc": scores["acc_mean"], "ami": scores["ami_mean"],
                       **{criterion: recorder.scores[criterion][epoch]
                          for criterion in CRITERIA}})
    return {"corpus": name, "n_docs": len(docs), "train_seed": seed, "epochs": epochs,
            "kept": choices(recorder, k), "seconds": time.perf_counter() - start}


def table(result):
    lines = [f"{result['corpus']} ({result['n_docs']} documents), training seed "
             f"{result['train_seed']}:",
             f"{'epoch':>6}{'ACC':>8}{'AMI':>8}" + "".join(f"{c:>20}" for c in CRITERIA)]
    for row in result["epochs"]:
        lines.append(f"{row['epoch']:>6}{row['acc']:>8.3f}{row['ami']:>8.3f}"
                     + "".join(f"{row[c]:>20.4f}" for c in CRITERIA))
    best = max(result["epochs"], key=lambda row: row["acc"])
    untuned = result["epochs"][0]
    for criterion, epoch in result["kept"].items():
        row = result["epochs"][epoch]
        lines.append(f"  {criterion} keeps epoch {epoch}: ACC {row['acc']:.3f} AMI "
                     f"{row['ami']:.3f} (epoch 0: {untuned['acc']:.3f} / {untuned['ami']:.3f}; "
                     f"best, epoch {best['epoch']}: {best['acc']:.3f} / {best['ami']:.3f})")
    return "\n".join(lines)


def main(argv=None):
    args = parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, (docs, y, _) in load_corpora(args).items():
        docs, y = subsample(docs, y, args.n_docs)
        outcome = {"args": {k: str(v) for k, v in vars(args).items()},
                   "baselines": baselines(name, docs, y, args.kmeans_seeds), "runs": []}
        print(f"{name}, {len(docs)} documents: " + ", ".join(
            f"{view} ACC {s['acc_mean']:.3f} AMI {s['ami_mean']:.3f}"
            for view, s in outcome["baselines"].items()), flush=True)
        path = args.out / f"selection_{name}{len(docs)}{args.tag}.json"
        for seed in map(int, args.train_seeds.split(",")):
            outcome["runs"].append(run(name, docs, y, seed, args))
            path.write_text(json.dumps(outcome, indent=1))
            print(table(outcome["runs"][-1]), flush=True)


if __name__ == "__main__":
    main()

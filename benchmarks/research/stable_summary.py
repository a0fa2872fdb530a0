"""The whole-corpus, 5-training-seed figures of ``selection="stability"`` with the
prototype term (``prototype_weight=1``, 2 epochs, MiniLM-L6, batch 64, 128-token views,
documents read in up to 16 windows of 128 tokens), and the entries they make in
``results/quality_summary.json``. Labels only score.

Every figure is a mean over 5 k-means seeds (best of 10 runs each) of one training
seed's kept space, as ``epoch_criteria.py`` and ``gate.py`` score them; then mean and std
over the 5 training seeds. Where the gate opened (epoch 0's stability at least 0.9),
the kept epoch is the one the criterion chose: from the run's own record
(``reproduce.py --selection stability``: its ``selection_score`` is the criterion's
stability), or, for the two BBC runs trained before the criterion existed
(``_proto2e_full``, kept by the untuned silhouette; training does not depend on the
criterion), from the stability column of ``epoch_criteria.log``. Where it stayed closed,
training was skipped and the space is the untuned one (``gate.log``). The frozen
encoder and the bag of words are those logs' figures on the same documents.

From the repository root, after ``epoch_criteria.py`` has logged the runs and
``gate.py`` has been run into ``gate.log``::

    python benchmarks/research/stable_summary.py [METHOD_NAME]
"""

import json
import re
import sys
from pathlib import Path

import numpy as np

BENCHMARKS = Path(__file__).resolve().parents[1]
RESEARCH = BENCHMARKS / "research"
RESULTS = BENCHMARKS / "results"
sys.path.insert(0, str(BENCHMARKS))

from sklearn_shufdiv.embedders import SelectionContext, StabilityCriterion  # noqa: E402

#: corpus -> (documents, [(training seed, run tag or None where the gate stayed closed)])
RUNS = {
    "bbc": (2225, [(0, "_proto2e_full"), (1, "_proto2e_full"), (2, "_stable_full_s2"),
                   (3, "_stable_full_s3"), (4, "_stable_full_s4")]),
    "reuters": (7456, [(0, "_stable_full_s0"), (1, None), (2, "_stable_full_s2"),
                       (3, None), (4, None)]),
    "20news": (4000, [(seed, None) for seed in range(5)]),
}
COMMANDS = {
    "bbc": "python benchmarks/reproduce.py --corpus bbc --first-seed S --seeds 1 --methods "
           "shuffle-divide --keep-epochs --no-plots --resume --prototype-weight 1.0 "
           "--max-epochs 2 --selection stability --tag _stable_full_sS (S = 2, 3, 4; seeds 0 "
           "and 1: --tag _proto2e_full, kept by stability from epoch_criteria.log), then "
           "python benchmarks/research/epoch_criteria.py bbc:all TAG S and "
           "python benchmarks/research/stable_summary.py",
    "reuters": "python benchmarks/research/gate.py reuters:all (seeds 1, 3, 4: training "
               "skipped) and, where the gate opened, python benchmarks/reproduce.py --corpus "
               "reuters --first-seed S --seeds 1 --methods shuffle-divide --keep-epochs "
               "--no-plots --resume --prototype-weight 1.0 --max-epochs 2 --selection "
               "stability --tag _stable_full_sS (S = 0, 2), then "
               "python benchmarks/research/epoch_criteria.py reuters:all TAG S and "
               "python benchmarks/research/stable_summary.py",
    "20news": "python benchmarks/research/gate.py 20news:4000 (every seed: training skipped), "
              "then python benchmarks/research/stable_summary.py",
}
FLOAT = r"([-\d.]+|nan)"


class Missing(Exception):
    """A run the figures need has not been logged (yet)."""


def epoch_rows(log, run, seed):
    """``{epoch: (acc, ami, encoder_acc, encoder_ami, stability)}`` of the last block of
    ``run`` (``bbc_proto2e_full``) and ``seed`` in ``epoch_criteria.log``."""
    blocks = log.split(f"{run} seed {seed}: epoch |")
    if len(blocks) < 2:
        raise Missing(f"{run} seed {seed} is not in epoch_criteria.log: run "
                      "epoch_criteria.py on it first")
    rows = {}
    for line in blocks[-1].splitlines()[1:]:
        match = re.match(r"e(\d+) \| (\S+) (\S+) \| (\S+) (\S+) \| .* \| (\S+) ", line)
        if not match:
            break
        rows[int(match[1])] = tuple(float(x) for x in match.groups()[1:])
    return rows


def gate_rows(log, corpus, n_docs):
    seeds = {int(m[1]): (float(m[2]), float(m[3]), float(m[4])) for m in re.finditer(
        rf"{corpus} {n_docs} seed (\d+): epoch-0 stability {FLOAT} .*untuned space ACC "
        rf"{FLOAT} AMI {FLOAT}", log)}
    fixed = {m[1]: (float(m[2]), float(m[3])) for m in re.finditer(
        rf"{corpus} {n_docs} (tfidf|lsa|frozen): ACC {FLOAT} AMI {FLOAT}", log)}
    return seeds, fixed


def kept_epoch(corpus, tag, seed, rows):
    """The criterion's choice: the run's record where it ran with it, else the log's."""
    path = RESULTS / f"{corpus}{tag}.json"
    saved = json.loads(path.read_text())
    run = next(r for r in saved["results"]["shuffle-divide"] if r["seed"] == seed)
    if saved["args"]["selection"] == "stability":
        return run["best_epoch"]
    context = SelectionContext([], np.arange(1), 2, seed,
                               scores={e: row[4] for e, row in rows.items()})
    return StabilityCriterion().choose(context)


def summarise(corpus, method):
    n_docs, runs = RUNS[corpus]
    criteria_log = (RESEARCH / "epoch_criteria.log").read_text()
    gate_log = (RESEARCH / "gate.log").read_text() if (RESEARCH / "gate.log").exists() else ""
    seeds, fixed = gate_rows(gate_log, corpus, n_docs)
    scores, frozen, kept = [], [], []
    for seed, tag in runs:
        if tag is None:  # the gate stayed closed: the untuned space
            if seed not in seeds:
                raise Missing(f"{corpus} seed {seed} is not in gate.log: run gate.py")
            gate, acc, ami = seeds[seed]
            assert gate < StabilityCriterion().min_stability, (corpus, seed, gate)
            scores.append((acc, ami))
            kept.append(0)
            continue
        rows = epoch_rows(criteria_log, f"{corpus}{tag}", seed)
        epoch = kept_epoch(corpus, tag, seed, rows)
        scores.append(rows[epoch][:2])
        frozen.append(rows[0][2:4])
        kept.append(epoch)
    if "frozen" in fixed:
        frozen = [fixed["frozen"]]
    acc, ami = np.array(scores).T
    frozen_acc, frozen_ami = np.mean(frozen, axis=0)
    entry = {"corpus": corpus, "method": method, "n_docs": n_docs, "max_length": 128,
             "max_windows": 16, "seeds": len(scores),
             "acc_mean": float(acc.mean()), "acc_std": float(acc.std()),
             "ami_mean": float(ami.mean()), "ami_std": float(ami.std()),
             "frozen_acc_mean": float(frozen_acc), "frozen_ami_mean": float(frozen_ami),
             "best_epochs": kept, "command": COMMANDS[corpus]}
    print(f"{corpus} ({n_docs}): ACC {acc.mean():.3f} ± {acc.std():.3f} AMI {ami.mean():.3f} "
          f"± {ami.std():.3f}, kept epochs {kept}; frozen {frozen_acc:.3f} / {frozen_ami:.3f} "
          f"(ratios {acc.mean() / frozen_acc:.3f} / {ami.mean() / frozen_ami:.3f}); "
          + ", ".join(f"{name} {a:.3f} / {m:.3f}" for name, (a, m) in fixed.items()
                      if name != "frozen"))
    return entry


if __name__ == "__main__":
    method = sys.argv[1] if len(sys.argv) > 1 else "shuffle-divide-stability-prototype"
    entries = []
    for corpus in RUNS:
        try:
            entries.append(summarise(corpus, method))
        except Missing as missing:
            print(f"{corpus}: no entry: {missing}")
    path = RESULTS / "quality_summary.json"
    done = {entry["corpus"] for entry in entries}
    summary = [e for e in json.loads(path.read_text())
               if e["method"] != method or e["corpus"] not in done]
    path.write_text(json.dumps(summary + entries, indent=1) + "\n")

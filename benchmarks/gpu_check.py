"""The GPU check, run by ``gpu_check.sh``: the engine's measurements on CUDA, one epoch of
``ShuffleDivideEmbedder(device="cuda")``, the default fit of BBC end to end, and (with
``--probe``) every epoch of short fits scored with the labels.

Stages (``--stages``, comma-separated; default ``engine,estimator,default-fit``):

* ``engine``: ``bench_embedder``'s measurements (bf16 autocast on both sides, MFU against
  a bf16 matmul, the step without caching measured rather than estimated), to
  ``embedder_<device>_check.json``;
* ``estimator``: one epoch and a transform of ``ShuffleDivideEmbedder(device=...)``;
* ``default-fit``: ``ShuffleDivideEmbedder(model, n_clusters=5, random_state=0,
  device=...)`` on BBC: ``fit_transform`` against ``transform``, ACC and AMI over three
  k-means seeds, the kept epoch and the history, then the same with ``max_epochs=0``
  (the CPU's default, a head where ``head="auto"`` decides so), to
  ``training_<device>.json``;
* ``probe``: 3 epochs of ``nt-xent`` and ``prototype`` on each corpus of ``--corpora``
  (128 tokens, the whole corpus as the selection sample), each epoch scored with the
  labels (measurement only), into the same file, until ``--budget`` seconds have passed.

The GPU machine has no network: ``--prepare DIR`` (run where the corpora and the model
are) writes the five corpora and the float16-stored model there (see ``lab/gpu_bundle``).

Usage::

    python benchmarks/gpu_check.py --prepare build/gpu_check
    python benchmarks/gpu_check.py [--device cuda] [--stages ...] [--probe] [--out DIR]
"""

import argparse
import os
import time
from pathlib import Path

from lab.corpora import CORPORA, RESULTS, add_corpus_arguments, corpus_names, default_model
from lab.gpu_bundle import BUNDLE, bundled_corpus, bundled_engine_docs, model_path, prepare
from lab.reports import write_json

STAGES = ("engine", "estimator", "default-fit", "probe")
GPU = dict(
    n_docs=3000, repeat=5, mini_batch_size=32, matmul_n=8192,
    transform=[dict(max_length=128, docs=2048), dict(max_length=512, docs=1024)],
    train=[dict(name="small", max_length=128, pairs=32, peer="MNRL"),
           dict(name="small", max_length=512, pairs=32, peer="MNRL"),
           dict(name="large", max_length=128, pairs=320, peer="CachedMNRL"),
           dict(name="large", max_length=256, pairs=320, peer="CachedMNRL")],
    memory=dict(pairs=320, max_length=256, uncached_direct=True),
)
QUICK = dict(
    n_docs=300, repeat=1, mini_batch_size=32, matmul_n=1024,
    transform=[dict(max_length=64, docs=8)],
    train=[dict(name="small", max_length=64, pairs=4, peer="MNRL"),
           dict(name="large", max_length=64, pairs=40, peer="CachedMNRL")],
    memory=dict(pairs=8, max_length=64, uncached_direct=True),
)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--stages", default="engine,estimator,default-fit",
                        help=f"comma-separated, of {', '.join(STAGES)}")
    parser.add_argument("--probe", action="store_true", help="add the probe stage")
    parser.add_argument("--budget", type=float, default=420,
                        help="seconds after which no further probe starts (default: 420)")
    parser.add_argument("--quick", action="store_true", help="a small engine run")
    parser.add_argument("--out", type=Path, default=Path(os.environ.get("OUT") or RESULTS))
    parser.add_argument("--bundle", type=Path, default=BUNDLE,
                        help="the folder --prepare wrote (default: build/gpu_check)")
    parser.add_argument("--random-weights", action="store_true",
                        help="measure the engine on random weights (throughput only)")
    parser.add_argument("--prepare", metavar="DIR", type=Path, default=None,
                        help="write the bundle to DIR and stop")
    add_corpus_arguments(parser)
    args = parser.parse_args(argv)
    args.stages = [stage.strip() for stage in args.stages.split(",") if stage.strip()]
    args.stages += ["probe"] if args.probe and "probe" not in args.stages else []
    unknown = sorted(set(args.stages) - set(STAGES))
    if unknown:
        parser.error(f"--stages: unknown {', '.join(unknown)}; choose from "
                     f"{', '.join(STAGES)}")
    return args


def corpus(name, args):
    """A corpus from the bundle where there is one, else from the data home."""
    if (args.bundle / "corpora" / f"{name}.json.gz").is_file():
        return bundled_corpus(name, args.bundle)
    from lab.corpora import load_corpus

    return load_corpus(name, args.data_home, args.corpora_dir, args.news_docs)


def engine_stages(args, path, weights, suffix):
    import torch
    from lab.engine import load_documents, quiet_transformers
    from lab.engine_run import report, run
    from lab.gpu_training import estimator_check

    quiet_transformers()
    config = QUICK if args.quick else GPU
    documents = bundled_engine_docs(args.bundle) or load_documents(config["n_docs"])
    results = dict(model_weights=weights, quick=args.quick)
    if torch.device(args.device).type == "cuda":
        results.update(gpu=torch.cuda.get_device_name(0), cuda=torch.version.cuda)
    if "engine" in args.stages:
        results.update(run(config, args.device, args.data_home, model_path=path,
                           documents=documents))
        report(results)
    if "estimator" in args.stages:
        results["estimator"] = estimator_check(path, documents, args.device, args.quick)
        print(f"estimator on {args.device}: {results['estimator']}")
    write_json(args.out / f"embedder_{suffix}_check{'_quick' if args.quick else ''}.json",
               results)


def training_stages(args, path, weights, suffix, started):
    from lab.gpu_training import default_fit, probe_fit

    results = {"model_weights": weights, "device": args.device, "stages": []}
    out = args.out / f"training_{suffix}.json"
    if "default-fit" in args.stages:
        docs, y, _ = corpus("bbc", args)
        results["stages"].append(default_fit(path, docs, y, args.device))
        print(results["stages"][-1], flush=True)
        write_json(out, results)
    for name in (corpus_names(args.corpora) if "probe" in args.stages else []):
        docs, y, _ = corpus(name, args)
        for objective in ("nt-xent", "prototype"):
            if time.perf_counter() - started > args.budget:
                print(f"--budget reached: no probe of {name} {objective}", flush=True)
                return
            results["stages"].append(probe_fit(path, name, docs, y, objective, args.device))
            write_json(out, results)


def main(argv=None):
    args = parse_args(argv)
    if args.prepare:
        from lab.engine import load_documents

        size = prepare(args.prepare, default_model(), args.data_home, args.corpora_dir,
                       load_documents(GPU["n_docs"], args.data_home))
        print(f"wrote {', '.join(CORPORA)} and the float16 model to {args.prepare} "
              f"({size / 2 ** 20:.1f} MiB)")
        return
    import torch

    started = time.perf_counter()
    suffix = torch.device(args.device).type
    path, weights = model_path(args.random_weights, args.bundle)
    if {"engine", "estimator"} & set(args.stages):
        engine_stages(args, path, weights, suffix)
    if {"default-fit", "probe"} & set(args.stages):
        training_stages(args, path, weights, suffix, started)


if __name__ == "__main__":
    main()

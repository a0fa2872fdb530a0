"""Reduced-precision encoding (bfloat16, int8) against float32, sentence-transformers and
ONNX Runtime: speed, memory, quality; and the training step in bfloat16.

``speed``: 300 whole BBC articles and ``--news-docs`` 20 Newsgroups posts, each cut into
windows of 128 tokens (at most 16 a document), embedded in one process by

* the package's ``encode`` in each precision (``float32``, ``bfloat16``, ``int8``), which
  is what ``transform`` runs for the encoder;
* sentence-transformers' ``SentenceTransformer.encode`` in float32 on the same windows
  (decoded to text beforehand, as a user chunking by hand would pass them), averaged per
  document;
* ONNX Runtime, as a user picking it would run the model: exported by ``torch.onnx``
  (the TorchScript exporter, as optimum's exporter calls it), float32, and quantized
  dynamically to int8 with optimum's ``avx512_vnni`` settings (what sentence-transformers'
  ``export_dynamic_quantized_onnx_model`` applies: int8 weights per channel, uint8
  activations, every operator ONNX Runtime's dynamic quantization knows); the same
  windows, tokenised and batched as sentence-transformers batches them (sorted by length,
  32 a batch, padded to the longest).

The runs are interleaved (each round times every runner once, in a rotated order) and the
median of ``--repeats`` rounds is kept: real tokens and documents per second, and ratios
against sentence-transformers and against ONNX Runtime int8. Memory: the RSS each runner's
model adds when it is made, and the peak RSS of one run above the RSS before it (Linux:
the peak is reset through ``/proc/self/clear_refs``). The load average is printed before
and after: the machine may be shared.

``quality``: for each corpus of ``--corpora`` (``benchmarks/_corpora.py``), the untuned
encoder's embeddings (windows of 128 tokens, at most 16 a document) in each precision: the
cosine between each document's float32 and reduced-precision embedding (min, mean), and
ACC / AMI of ``SphericalKMeans`` (5 seeds, best of 10 runs each) on the encoder alone and on
the default space (joined with the corpus' LSA space at the default ``lexical_weight``),
each precision against float32 (the float32 encoder embeddings come from
``_corpora.frozen_embeddings``' cache).

``training``: one ``ContrastiveNet.train_step`` with bfloat16 autocast on the CPU against
float32, at ``bench_embedder.py``'s shapes, interleaved, median of ``--repeats``.

Results go to ``--out`` (JSON, one key per section, written as each finishes) and the
tables to ``benchmarks/results/inference.md``.

Usage::

    python benchmarks/bench_inference.py speed [--repeats 5] [--quick]
    python benchmarks/bench_inference.py quality [--corpora bbc,reuters,20news]
    python benchmarks/bench_inference.py training [--repeats 3]
    python benchmarks/bench_inference.py report     # inference.json -> inference.md

ONNX Runtime and the exporter (``onnx``, ``onnxscript``, ``onnxruntime``) and
sentence-transformers are the ``benchmark`` extra's.
"""

import argparse
import json
import os
import platform
import sys
import tempfile
import time
import warnings
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from lab.corpora import add_corpus_arguments  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
MAX_LENGTH, MAX_WINDOWS, BATCH = 128, 16, 32
DTYPES = ("float32", "bfloat16", "int8")


# -- environment -------------------------------------------------------------------------
def load_average():
    return os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3


def rss_mib(field="VmRSS"):
    """The process' resident memory (``VmRSS``) or its peak (``VmHWM``), MiB (Linux)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def reset_peak_rss():
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def environment():
    import torch
    from lab.internals import cpu_has_bfloat16

    return dict(platform=platform.platform(), processor=platform.processor(),
                cpus=os.cpu_count(), torch=torch.__version__,
                torch_threads=torch.get_num_threads(), cpu_bfloat16=cpu_has_bfloat16(),
                cpu_capability=torch.backends.cpu.get_cpu_capability(),
                load_average_before=load_average())


# -- the runners ---------------------------------------------------------------------------
def mean_per_document(embeddings, windows):
    """Window embeddings averaged per document, weighted by their token counts."""
    sums = np.zeros((windows.n_documents, embeddings.shape[1]))
    np.add.at(sums, windows.owners, embeddings * windows.weights[:, None])
    return sums / np.bincount(windows.owners, weights=windows.weights)[:, None]


def onnx_models(model_path, folder):
    """The MiniLM encoder (transformer and mean pooling) exported as a user of ONNX Runtime
    would export it, float32, and its dynamic int8 quantization with optimum's
    ``avx512_vnni`` settings: ``{name: path}``."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.quantization.registry import IntegerOpsRegistry

    from sklearn_shufdiv.embedders import load_encoder

    _, encoder = load_encoder(model_path)
    example = torch.ones((2, 8), dtype=torch.long)
    fp32, int8 = Path(folder) / "peer_fp32.onnx", Path(folder) / "peer_int8.onnx"
    axes = {0: "batch", 1: "length"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(encoder.eval(), (example, example.clone()), str(fp32),
                          input_names=["input_ids", "attention_mask"],
                          output_names=["embeddings"], opset_version=17, dynamo=False,
                          dynamic_axes={"input_ids": axes, "attention_mask": axes})
    quantize_dynamic(str(fp32), str(int8), per_channel=True, reduce_range=False,
                     weight_type=QuantType.QInt8, op_types_to_quantize=list(IntegerOpsRegistry),
                     extra_options={"WeightSymmetric": True, "ActivationSymmetric": False})
    return {"ONNX Runtime float32": fp32, "ONNX Runtime int8": int8}


class OnnxPeer:
    """An ONNX Runtime session run as sentence-transformers batches texts."""

    def __init__(self, path, tokenizer):
        import onnxruntime
        import torch

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = torch.get_num_threads()
        options.inter_op_num_threads = 1
        self.session = onnxruntime.InferenceSession(str(path), options,
                                                    providers=["CPUExecutionProvider"])
        self.tokenizer = tokenizer

    def encode(self, texts):
        order = np.argsort([-len(text) for text in texts], kind="stable")
        out = np.empty((len(texts), self.session.get_outputs()[0].shape[-1] or 384),
                       dtype=np.float32)
        for start in range(0, len(texts), BATCH):
            chunk = order[start:start + BATCH]
            features = self.tokenizer([texts[i] for i in chunk], padding=True,
                                      truncation=True, max_length=MAX_LENGTH,
                                      return_tensors="np", return_token_type_ids=False)
            out[chunk] = self.session.run(None, {
                "input_ids": features["input_ids"].astype(np.int64),
                "attention_mask": features["attention_mask"].astype(np.int64)})[0]
        return out


def make_runners(model_path, tokenizer, encoder, folder):
    """``{name: (make, run)}``: ``make()`` builds what ``run(docs, texts, windows)`` uses
    (returns per-document embeddings)."""
    from lab.internals import check_inference_dtype, encode
    from sentence_transformers import SentenceTransformer

    def package(dtype):
        def run(state, docs, texts, windows):
            return encode(encoder, tokenizer, docs, max_length=MAX_LENGTH, batch_size=BATCH,
                          device="cpu", dtype=dtype, max_windows=MAX_WINDOWS)

        def make():
            from lab.internals import inference_encoder

            return inference_encoder(encoder.eval(), dtype, "cpu")  # the int8 copy, kept
        return make, run

    runners = {}
    for dtype in DTYPES:
        try:
            check_inference_dtype(dtype, "cpu")
        except (ValueError, ImportError) as exc:
            print(f"  package {dtype}: skipped ({exc})")
            continue
        runners[f"package {dtype}"] = package(dtype)

    def make_st():
        model = SentenceTransformer(str(model_path), device="cpu")
        model.max_seq_length = MAX_LENGTH
        return model

    runners["sentence-transformers float32"] = (make_st, lambda model, docs, texts, windows:
                                                mean_per_document(model.encode(
                                                    texts, batch_size=BATCH,
                                                    convert_to_numpy=True), windows))
    paths = onnx_models(model_path, folder)
    for name, path in paths.items():
        runners[name] = ((lambda path=path: OnnxPeer(path, tokenizer)),
                         lambda peer, docs, texts, windows: mean_per_document(
                             peer.encode(texts), windows))
    return runners


# -- speed -----------------------------------------------------------------------------
def speed_corpora(args):
    """``{name: docs}``: ``--bbc-docs`` whole BBC articles and ``--news-docs`` 20 Newsgroups
    posts, each a seeded random sample."""
    from lab.corpora import load_corpus

    out = {}
    for name, count in (("bbc", args.bbc_docs), ("20news", args.news_docs_speed)):
        docs, _, _ = load_corpus(name, args.data_home, args.corpora_dir, args.news_docs)
        pick = np.random.default_rng(0).choice(len(docs), min(count, len(docs)),
                                               replace=False)
        out[name] = [docs[i] for i in np.sort(pick)]
    return out


def time_runners(runners, states, corpus, repeats):
    """Interleaved: each round times every runner once, in an order rotated by one each
    round. ``{name: [seconds, ...]}`` and each runner's last output and peak memory."""
    import gc

    docs, texts, windows = corpus
    names = list(runners)
    seconds = {name: [] for name in names}
    outputs, peaks = {}, {}
    for round_ in range(repeats):
        for name in names[round_ % len(names):] + names[:round_ % len(names)]:
            gc.collect()
            before = rss_mib()
            reset = reset_peak_rss()
            start = time.perf_counter()
            outputs[name] = runners[name][1](states[name], docs, texts, windows)
            seconds[name].append(time.perf_counter() - start)
            if reset:
                peaks[name] = max(peaks.get(name, 0.0), rss_mib("VmHWM") - before)
    return seconds, outputs, peaks


def run_speed(args):
    import torch

    from sklearn_shufdiv.embedders import load_encoder

    model_path = default_model_path()
    tokenizer, encoder = load_encoder(model_path)
    encoder.eval()
    result = {"environment": environment(), "repeats": args.repeats,
              "max_length": MAX_LENGTH, "max_windows": MAX_WINDOWS, "batch": BATCH}
    with tempfile.TemporaryDirectory() as folder:
        runners = make_runners(model_path, tokenizer, encoder, folder)
        states, made = {}, {}
        for name, (make, _) in runners.items():
            before = rss_mib()
            start = time.perf_counter()
            states[name] = make()
            made[name] = {"seconds": time.perf_counter() - start,
                          "model_rss_mib": rss_mib() - before}
            print(f"  made {name}: {made[name]['seconds']:.1f} s, "
                  f"+{made[name]['model_rss_mib']:.0f} MiB", flush=True)
        result["made"] = made
        for corpus, docs in speed_corpora(args).items():
            windows, texts = cut(tokenizer, docs)
            tokens = int(sum(map(len, windows.token_ids)))
            for name, (_, run) in runners.items():  # warm-up: kernels, allocations
                run(states[name], docs[:3], *cut(tokenizer, docs[:3])[::-1])
            seconds, outputs, peaks = time_runners(runners, states, (docs, texts, windows),
                                                   args.repeats)
            reference = outputs["package float32"]
            rows = {}
            for name, runs in seconds.items():
                median = float(np.median(runs))
                cos = cosines(outputs[name], reference)
                rows[name] = {"seconds": runs, "median_s": median,
                              "tokens_per_s": tokens / median, "docs_per_s": len(docs) / median,
                              "peak_run_rss_mib": peaks.get(name),
                              "cosine_to_package_float32": [float(cos.min()),
                                                            float(cos.mean())]}
            for row in rows.values():
                row["vs_sentence_transformers"] = (
                    rows["sentence-transformers float32"]["median_s"] / row["median_s"])
                row["vs_onnxruntime_int8"] = (
                    rows["ONNX Runtime int8"]["median_s"] / row["median_s"])
            result[corpus] = {"documents": len(docs), "windows": len(windows.token_ids),
                              "tokens": tokens, "runners": rows}
            print_speed(corpus, result[corpus], made)
            result["environment"]["load_average_after"] = load_average()
            write_section(args.out, "speed", result)  # each corpus as it finishes
    print(f"load average before {fmt_load(result['environment']['load_average_before'])}, "
          f"after {fmt_load(result['environment']['load_average_after'])} "
          f"({os.cpu_count()} CPUs); torch threads {torch.get_num_threads()}")
    return result


def cut(tokenizer, docs):
    """The documents' windows, and their texts decoded for the peers."""
    from lab.internals import cut_windows

    windows = cut_windows(tokenizer, docs, MAX_LENGTH, max_windows=MAX_WINDOWS)
    return windows, [tokenizer.decode(ids, skip_special_tokens=True)
                     for ids in windows.token_ids]


def fmt_load(load):
    return " / ".join(f"{x:.1f}" for x in load)


def cosines(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return np.sum(a * b, axis=1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)


def print_speed(corpus, outcome, made):
    print(f"\n{corpus}: {outcome['documents']} documents, {outcome['windows']} windows, "
          f"{outcome['tokens']:,} real tokens")
    print(f"  {'runner':32s} {'tokens/s':>9s} {'docs/s':>7s} {'vs ST':>6s} {'vs ORT8':>7s} "
          f"{'model MiB':>9s} {'run MiB':>8s} {'cos min':>8s}")
    for name, row in outcome["runners"].items():
        peak = row["peak_run_rss_mib"]
        print(f"  {name:32s} {row['tokens_per_s']:9.0f} {row['docs_per_s']:7.2f} "
              f"{row['vs_sentence_transformers']:6.2f} {row['vs_onnxruntime_int8']:7.2f} "
              f"{made[name]['model_rss_mib']:9.0f} "
              f"{'n/a' if peak is None else f'{peak:.0f}':>8s} "
              f"{row['cosine_to_package_float32'][0]:8.4f}", flush=True)


def default_model_path():
    from lab.corpora import default_model

    return default_model()


# -- quality ---------------------------------------------------------------------------
def encoder_space(embedder, docs, dtype):
    """The fitted embedder's encoder embeddings of ``docs`` (before the lexical join)
    computed in ``dtype``."""
    from lab.internals import encode

    net = embedder.net_
    return encode(net.module_, net.tokenizer, docs, max_length=MAX_LENGTH,
                  batch_size=BATCH, device="cpu", dtype=dtype, max_windows=MAX_WINDOWS)


def default_space(embedder, encoder_rows, lexical_rows):
    """``transform``'s output from the encoder's rows: joined with the LSA rows at the
    embedder's lexical weight, rows of norm 1."""
    from lab.internals import fuse

    fused = fuse(encoder_rows.copy(), lexical_rows, embedder.lexical_weight_)
    return fused / np.maximum(np.linalg.norm(fused, axis=1, keepdims=True), 1e-12)


def quality_corpus(name, docs, y, dtypes, seeds):
    from lab.corpora import frozen_embeddings, score

    from sklearn_shufdiv import ShuffleDivideEmbedder

    embedder = ShuffleDivideEmbedder(default_model_path(), max_epochs=0,
                                     max_length=MAX_LENGTH, max_windows=MAX_WINDOWS,
                                     mini_batch_size=BATCH, device="cpu", verbose=0,
                                     random_state=0).fit(docs)
    lexical = embedder.lexical_.transform(docs)
    spaces = {"float32": frozen_embeddings(name, docs)}  # cached: the same computation
    outcome = {"documents": len(docs), "lexical_weight": float(embedder.lexical_weight_),
               "dtypes": {}}
    for dtype in dtypes:
        start = time.perf_counter()
        rows = spaces.get(dtype)
        if rows is None:
            rows = spaces[dtype] = encoder_space(embedder, docs, dtype)
        seconds = time.perf_counter() - start
        cos = cosines(rows, spaces["float32"])
        entry = {"embed_seconds": seconds, "cosine_min": float(cos.min()),
                 "cosine_mean": float(cos.mean()),
                 "encoder": score(rows, y, seeds),
                 "default": score(default_space(embedder, rows, lexical), y, seeds)}
        outcome["dtypes"][dtype] = entry
        print(f"  {name} {dtype}: cos min {cos.min():.4f} mean {cos.mean():.5f}; encoder "
              f"ACC {entry['encoder']['acc_mean']:.4f} AMI {entry['encoder']['ami_mean']:.4f}; "
              f"default ACC {entry['default']['acc_mean']:.4f} "
              f"AMI {entry['default']['ami_mean']:.4f} ({seconds:.0f} s)", flush=True)
    return outcome


def run_quality(args, previous):
    from lab.corpora import corpus_names, load_corpus
    from lab.internals import check_inference_dtype

    dtypes = ["float32"]
    for dtype in DTYPES[1:]:
        try:
            check_inference_dtype(dtype, "cpu")
            dtypes.append(dtype)
        except (ValueError, ImportError) as exc:
            print(f"  {dtype}: skipped ({exc})")
    result = dict(previous or {}, environment=environment(), seeds=args.seeds)
    for name in corpus_names(args.corpora):
        if args.resume and name in result:
            continue
        docs, y, _ = load_corpus(name, args.data_home, args.corpora_dir, args.news_docs)
        result[name] = quality_corpus(name, docs, y, dtypes, args.seeds)
        write_section(args.out, "quality", result)
    return result


# -- training --------------------------------------------------------------------------
TRAIN_CASES = [dict(max_length=128, pairs=16, mini_batch_size=32),
               dict(max_length=128, pairs=32, mini_batch_size=32),
               dict(max_length=512, pairs=16, mini_batch_size=32),
               dict(max_length=128, pairs=128, mini_batch_size=32)]


def run_training(args):
    import torch
    from lab.engine import load_views, make_net, pair_batch

    model_path = default_model_path()
    _, pairs, permutation = load_views(1000)
    nets = {}
    for name, dtype in (("float32", None), ("bfloat16", torch.bfloat16)):
        net = make_net(model_path, 128, 32, "cpu")
        net.cpu_amp_dtype = dtype
        nets[name] = net
    result = {"environment": environment(), "repeats": args.repeats, "cases": []}
    cases = TRAIN_CASES[:2] if args.quick else TRAIN_CASES
    for case in cases:
        batch, _, _ = pair_batch(pairs, permutation, case["pairs"])
        seconds = {name: [] for name in nets}
        for net in nets.values():
            net.max_length, net.mini_batch_size = case["max_length"], case["mini_batch_size"]
        for round_ in range(args.repeats):
            order = list(nets) if round_ % 2 == 0 else list(nets)[::-1]
            for name in order:
                start = time.perf_counter()
                nets[name].train_step(batch)
                seconds[name].append(time.perf_counter() - start)
        medians = {name: float(np.median(runs)) for name, runs in seconds.items()}
        row = dict(case, seconds=seconds, median_s=medians,
                   views_per_s={n: 2 * case["pairs"] / m for n, m in medians.items()},
                   speedup=medians["float32"] / medians["bfloat16"])
        result["cases"].append(row)
        write_section(args.out, "training", result)  # each shape as it finishes
        print(f"  {case['pairs']} pairs x {case['max_length']} tokens (mini-batches of "
              f"{case['mini_batch_size']}): float32 {medians['float32']:.1f} s, bfloat16 "
              f"{medians['bfloat16']:.1f} s: {row['speedup']:.2f}x", flush=True)
    result["environment"]["load_average_after"] = load_average()
    return result


# -- output ----------------------------------------------------------------------------
def speed_table(speed):
    lines = []
    for corpus in ("bbc", "20news"):
        if corpus not in speed:
            continue
        outcome = speed[corpus]
        lines += [f"**{corpus}**: {outcome['documents']} documents, {outcome['windows']} "
                  f"windows of at most {MAX_LENGTH} tokens, {outcome['tokens']:,} real tokens; "
                  f"median of {speed['repeats']} interleaved rounds.", "",
                  "| runner | tokens/s | documents/s | vs sentence-transformers fp32 | "
                  "vs ONNX Runtime int8 | model RSS (MiB) | run peak RSS (MiB) | "
                  "cosine to package float32 (min / mean) |",
                  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
        for name, row in outcome["runners"].items():
            peak = row["peak_run_rss_mib"]
            cos = row["cosine_to_package_float32"]
            lines.append(
                f"| {name} | {row['tokens_per_s']:,.0f} | {row['docs_per_s']:.2f} | "
                f"{row['vs_sentence_transformers']:.2f}x | {row['vs_onnxruntime_int8']:.2f}x | "
                f"{speed['made'][name]['model_rss_mib']:.0f} | "
                f"{'n/a' if peak is None else f'{peak:.0f}'} | {cos[0]:.4f} / {cos[1]:.4f} |")
        lines.append("")
    env = speed["environment"]
    made = ", ".join(f"{name} {m['seconds']:.1f} s" for name, m in speed["made"].items()
                     if m["seconds"] >= 0.05)
    lines += [f"Made before the rounds: {made}. Load average before / after: "
              f"{fmt_load(env['load_average_before'])} / {fmt_load(env['load_average_after'])} "
              f"on {env['cpus']} CPUs; torch threads {env['torch_threads']}; "
              f"{env['cpu_capability']}, bfloat16 instructions: {env['cpu_bfloat16']}.", ""]
    return lines


def quality_table(quality):
    lines = ["| corpus | precision | cosine to float32 (min / mean) | encoder ACC | "
             "encoder AMI | default ACC | default AMI |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for corpus, outcome in quality.items():
        if not isinstance(outcome, dict) or "dtypes" not in outcome:
            continue
        base = outcome["dtypes"]["float32"]
        for dtype, entry in outcome["dtypes"].items():
            cells = []
            for space in ("encoder", "default"):
                for metric in ("acc", "ami"):
                    value = entry[space][f"{metric}_mean"]
                    std = entry[space][f"{metric}_std"]
                    delta = 100 * (value - base[space][f"{metric}_mean"])
                    cells.append(f"{value:.4f} ± {std:.4f}" if dtype == "float32" else
                                 f"{value:.4f} ({delta:+.2f} pt)")
            lines.append(f"| {corpus} ({outcome['documents']}) | {dtype} | "
                         f"{entry['cosine_min']:.4f} / {entry['cosine_mean']:.5f} | "
                         + " | ".join(cells) + " |")
    return lines + [""]


def training_table(training):
    lines = ["| pairs x tokens (mini-batch) | float32 (s) | bfloat16 (s) | bfloat16 speed-up |",
             "| --- | ---: | ---: | ---: |"]
    for row in training["cases"]:
        lines.append(f"| {row['pairs']} x {row['max_length']} ({row['mini_batch_size']}) | "
                     f"{row['median_s']['float32']:.2f} | {row['median_s']['bfloat16']:.2f} | "
                     f"{row['speedup']:.2f}x |")
    return lines + [""]


def write_report(path, markdown):
    data = json.loads(Path(path).read_text())
    lines = ["# Reduced-precision encoding and training", "",
             "Written by `benchmarks/bench_inference.py report` from `inference.json`.", ""]
    for section, table in (("speed", speed_table), ("quality", quality_table),
                           ("training", training_table)):
        if section in data:
            lines += [f"## {section.capitalize()}", ""] + table(data[section])
    Path(markdown).write_text("\n".join(lines))
    print("\n".join(lines))


def write_section(path, section, value):
    path = Path(path)
    data = json.loads(path.read_text()) if path.is_file() else {}
    data[section] = value
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, default=float))


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("section", choices=["speed", "quality", "training", "report"])
    parser.add_argument("--repeats", type=int, default=5, help="interleaved rounds (median)")
    parser.add_argument("--bbc-docs", type=int, default=300)
    parser.add_argument("--news-docs-speed", type=int, default=600,
                        help="20 Newsgroups posts timed (default: 600)")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--resume", action="store_true",
                        help="quality: skip the corpora already in --out")
    parser.add_argument("--quick", action="store_true",
                        help="fewer documents, rounds and training shapes")
    parser.add_argument("--out", default=str(RESULTS / "inference.json"))
    add_corpus_arguments(parser, default="bbc,reuters,20news")
    args = parser.parse_args(argv)
    if args.quick:
        args.repeats, args.bbc_docs, args.news_docs_speed = 2, 40, 80
    return args


def main(argv=None):
    args = parse_args(argv)
    from transformers.utils import logging

    logging.disable_progress_bar()
    logging.set_verbosity_error()
    previous = None
    if Path(args.out).is_file():
        previous = json.loads(Path(args.out).read_text()).get(args.section)
    if args.section == "report":
        write_report(args.out, RESULTS / "inference.md")
    elif args.section == "speed":
        run_speed(args)
    elif args.section == "quality":
        run_quality(args, previous if args.resume else None)
    else:
        write_section(args.out, "training", run_training(args))  # with the final load


if __name__ == "__main__":
    main()

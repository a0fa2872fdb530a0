"""Peak memory of one GradCache training step (and of the same step without caching),
each measured in a fresh interpreter running ``bench_embedder.py --memory-child``."""

import gc
import json
import os
import resource
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import torch

from lab.engine import (
    engine_plan,
    make_net,
    pair_batch,
    quiet_transformers,
    timed,
    token_lengths,
    view_batch,
)

#: The script whose ``--memory-child`` runs :func:`memory_child` in a new interpreter.
SCRIPT = Path(__file__).resolve().parents[1] / "bench_embedder.py"


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
        sys.executable, str(SCRIPT), "--memory-child", handle.name))
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

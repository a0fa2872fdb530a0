"""What depends on the device: its name, the precision of the encoder, and the defaults
chosen for it (epochs, mini-batch size, fused AdamW)."""

from contextlib import nullcontext
from functools import cache

import torch

#: ``mini_batch_size="auto"`` on a CPU. A 320-pair step of 256-token MiniLM-L6 views peaks
#: at 3.13 GiB of RSS with 16 views per forward pass and 5.29 GiB with 32, at the same speed
#: (``benchmarks/bench_embedder.py``): a CPU gains nothing from larger mini-batches.
CPU_MINI_BATCH_SIZE = 16

#: ``mini_batch_size="auto"`` on CUDA: 32 views per forward pass, or 64 on a GPU of at least
#: ``LARGE_GPU_BYTES``. A GPU needs large mini-batches to be busy; in bfloat16 the
#: activations of 64 BERT-base views of 512 tokens take about 20 GiB (some 34 x hidden
#: bytes per token and layer, plus the attention maps), which the 16-24 GiB cards do not
#: spare beside the model, its gradients and AdamW's state.
CUDA_MINI_BATCH_SIZE, LARGE_GPU_MINI_BATCH_SIZE = 32, 64
LARGE_GPU_BYTES = 40 * 2**30


def resolve_device(device):
    """``"auto"`` -> CUDA when available, else CPU; other names are checked."""
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    try:
        parsed = torch.device(device)
    except (RuntimeError, TypeError) as exc:
        raise ValueError(f"Unknown device {device!r}; use 'auto', 'cpu' or 'cuda'.") from exc
    if parsed.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device={device!r} was asked for but CUDA is not available here.")
    return device


#: ``max_epochs="auto"`` on a GPU; on a CPU it is 0. On a GPU an epoch of BBC takes
#: 10-30 s (a whole fit 73 s against 1.3 s for the untuned transform); on 2 CPU cores an
#: epoch takes tens of minutes, and over the five benchmark corpora training gained
#: little or lost against the untuned encoder (``benchmarks/README.md``).
GPU_MAX_EPOCHS = 3


def resolve_max_epochs(max_epochs, device):
    """``(epochs, reason)``: the epochs a fit on ``device`` trains for ``max_epochs``, and
    why, in one line. ``"auto"`` is ``GPU_MAX_EPOCHS`` on CUDA and 0 (the untuned
    encoder, at the cost of one embedding pass) elsewhere; an int is itself.

    Examples
    --------
    >>> resolve_max_epochs("auto", "cpu")[0], resolve_max_epochs("auto", "cuda")[0]
    (0, 3)
    >>> resolve_max_epochs(2, "cpu")
    (2, 'max_epochs=2: 2 epochs')
    """
    if max_epochs != "auto":
        return max_epochs, f"max_epochs={max_epochs}: {max_epochs} epochs"
    if torch.device(device).type == "cuda":
        return GPU_MAX_EPOCHS, (f"max_epochs='auto' on a GPU: {GPU_MAX_EPOCHS} epochs of "
                                "training")
    return 0, ("max_epochs='auto' on a CPU: the encoder is not trained (an epoch takes "
               "tens of minutes on a CPU and rarely beats the untuned encoder); pass "
               "max_epochs=N to train it")


def resolve_mini_batch_size(mini_batch_size, device):
    """The views per forward pass: ``mini_batch_size``, or for ``"auto"`` the device's
    default (``CPU_MINI_BATCH_SIZE``; on CUDA ``CUDA_MINI_BATCH_SIZE``, or
    ``LARGE_GPU_MINI_BATCH_SIZE`` from ``LARGE_GPU_BYTES`` of memory)."""
    if mini_batch_size != "auto":
        return mini_batch_size
    device = torch.device(device)
    if device.type != "cuda":
        return CPU_MINI_BATCH_SIZE
    memory = torch.cuda.get_device_properties(device).total_memory
    return LARGE_GPU_MINI_BATCH_SIZE if memory >= LARGE_GPU_BYTES else CUDA_MINI_BATCH_SIZE


@cache
def _fused_adamw_runs_on(device_type):
    parameter = torch.nn.Parameter(torch.zeros(1, device=device_type))
    parameter.grad = torch.zeros_like(parameter)
    try:
        torch.optim.AdamW([parameter], fused=True).step()
    except (RuntimeError, TypeError):
        return False
    return True


def supports_fused_adamw(device):
    """Whether this torch has a fused AdamW kernel for ``device``'s type (CUDA; the CPU
    from torch 2.4): one kernel for the whole update instead of several per parameter
    (a small CPU step's update: 0.22 s -> 0.03 s). Tried once per device type."""
    return _fused_adamw_runs_on(torch.device(device).type)


def autocast_context(device, dtype):
    """``torch.autocast`` for ``dtype`` on ``device``, or a no-op when ``dtype`` is None."""
    if dtype is None:
        return nullcontext()
    return torch.autocast(device_type=torch.device(device).type, dtype=dtype)

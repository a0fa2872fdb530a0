"""The precision the encoder embeds in: ``"float32"``, ``"bfloat16"`` or ``"int8"``;
``"auto"`` is bfloat16 where the device computes in it natively, else float32.

Training updates float32 weights, and ``save_pretrained`` writes them. Embedding may run
on a copy of the encoder in a reduced precision, made from the current weights:

``"bfloat16"``
    The weights and activations in bfloat16 (PyTorch), the mean pooling in float32. On
    CUDA, and on CPUs with bfloat16 instructions (AVX-512 BF16 or AMX); elsewhere
    bfloat16 is emulated and slower than float32, so it is refused.
``"int8"``
    The encoder exported to ONNX and its matrix products quantized dynamically to int8
    (weights per output channel, activations per window: a window's embedding does not
    depend on its batch), run by ONNX Runtime on the CPU:
    the optional dependencies ``onnx``, ``onnxscript`` and ``onnxruntime``
    (``pip install sklearn-shufdiv[int8]``).

:func:`inference_encoder` makes the bfloat16 copy at each call (a cast: a fraction of a
second). The int8 copy (an export and a quantization: seconds) is kept beside the encoder,
which owns it (it goes when the encoder goes), with a digest of the weights it was made
from: embedding again with the same weights reuses it; a training step, or loading other
weights, makes the next call build a new one.
"""

import copy
import hashlib
import weakref

import torch

from ._onnx import Int8OnnxEncoder, check_onnxruntime

INFERENCE_DTYPES = ("float32", "bfloat16", "int8")
#: The values of the embedders' ``inference_dtype``.
INFERENCE_DTYPE_OPTIONS = ("auto", *INFERENCE_DTYPES)

# encoder -> ((precision, device, digest of its weights), its copy in that precision)
_copies = weakref.WeakKeyDictionary()


def cpu_has_bfloat16():
    """Whether this CPU computes in bfloat16 natively (AVX-512 BF16 or AMX tiles)."""
    checks = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")
    return any(getattr(torch.cpu, name, lambda: False)() for name in checks)


def native_bfloat16(device):
    """Whether ``device`` computes in bfloat16 natively: a CUDA GPU with bfloat16, or a
    CPU with AVX-512 BF16 or AMX (:func:`cpu_has_bfloat16`)."""
    device_type = torch.device(device).type
    if device_type == "cuda":
        return torch.cuda.is_bf16_supported()
    return device_type == "cpu" and cpu_has_bfloat16()


def resolve_inference_dtype(inference_dtype, device):
    """The precision ``device`` embeds in for ``inference_dtype``: ``"auto"`` is
    ``"bfloat16"`` where it runs natively (:func:`native_bfloat16`), else ``"float32"``;
    any other value is checked (:func:`check_inference_dtype`) and returned."""
    if inference_dtype == "auto":
        return "bfloat16" if native_bfloat16(device) else "float32"
    check_inference_dtype(inference_dtype, device)
    return inference_dtype


def check_inference_dtype(inference_dtype, device, name="inference_dtype"):
    """Raise a ``ValueError`` naming ``name`` when ``device`` cannot embed in
    ``inference_dtype`` (or it is not one of :data:`INFERENCE_DTYPES`)."""
    if inference_dtype not in INFERENCE_DTYPES:
        raise ValueError(f"{name}={inference_dtype!r} is not one of "
                         f"{', '.join(map(repr, INFERENCE_DTYPES))}.")
    device_type = torch.device(device).type
    if inference_dtype == "bfloat16" and not native_bfloat16(device):
        if device_type == "cuda":
            raise ValueError(f"{name}='bfloat16': this GPU has no bfloat16 arithmetic; use "
                             f"{name}='float32' (or 'auto').")
        raise ValueError(
            f"{name}='bfloat16': this CPU has no bfloat16 instructions (AVX-512 BF16 or "
            f"AMX), so bfloat16 would run emulated, slower than float32; use "
            f"{name}='float32' (or 'auto'), or 'int8'.")
    if inference_dtype == "int8":
        if device_type != "cpu":
            raise ValueError(f"{name}='int8' runs on the CPU only (ONNX Runtime's int8 "
                             f"kernels); on {device_type!r} use {name}='bfloat16' or "
                             "'float32'.")
        check_onnxruntime(name)


def weights_digest(module):
    """A digest of ``module``'s weights: every parameter's and buffer's name, dtype,
    shape and bytes. Read in full, since optimizer steps (fused AdamW) may change
    weights in place without a trace in the tensors' version counters."""
    digest = hashlib.blake2b(digest_size=16)
    for name, tensor in module.state_dict().items():
        tensor = tensor.detach().cpu().contiguous()
        digest.update(f"{name}:{tensor.dtype}:{tuple(tensor.shape)}".encode())
        digest.update(memoryview(tensor.view(torch.uint8).numpy()))
    return digest.hexdigest()


def inference_encoder(encoder, inference_dtype, device):
    """A callable ``(input_ids, attention_mask) -> embeddings`` that embeds as
    ``encoder`` (a :class:`~._encoder.MeanPoolingEncoder`) does, in ``inference_dtype``.

    ``"float32"`` is ``encoder`` itself; ``"bfloat16"`` and ``"int8"`` are copies made
    from the current weights on the first call and kept until the weights, the device
    or the precision change, so that the chunks of a stream share one copy.
    Call it in inference mode (``torch.inference_mode``), with ``encoder`` in eval mode.
    """
    check_inference_dtype(inference_dtype, device)
    if inference_dtype == "float32":
        return encoder
    state = (inference_dtype, str(next(encoder.parameters()).device), weights_digest(encoder))
    kept = _copies.pop(encoder, None)  # a stale copy is freed before the new one is made
    if kept is not None and kept[0] == state:
        made = kept[1]
    elif inference_dtype == "bfloat16":
        made = copy.deepcopy(encoder).eval().to(torch.bfloat16)
    else:
        made = Int8OnnxEncoder(encoder)
    _copies[encoder] = (state, made)
    return made


def clear_copies(encoder):
    """Forget the reduced-precision copy kept for ``encoder`` (frees its memory)."""
    _copies.pop(encoder, None)

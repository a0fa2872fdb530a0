"""The encoder in int8 through ONNX Runtime: export, dynamic quantization, inference.

The :class:`~._encoder.MeanPoolingEncoder` (transformer and mean pooling) is exported to
ONNX by PyTorch's exporter (``torch.onnx.export``, dynamic batch and sequence axes), its
matrix products quantized dynamically by ONNX Runtime (``quantize_dynamic``: int8 weights,
symmetric, one scale per output channel; uint8 activations, their range read off the
input), and run by an ONNX Runtime session on the CPU with torch's thread count, one
window at a time (so that a window's embedding does not depend on its batch). The graph
is made here from the weights in memory, in a temporary folder, and loaded from
bytes: no file from elsewhere is read.

ONNX Runtime, ``onnx`` and ``onnxscript`` (the exporter's) are optional dependencies,
imported when an int8 copy is made. ONNX Runtime is imported with its telemetry off
(``ORT_DISABLE_TELEMETRY=1``, unless the environment sets it): otherwise its import writes
a device id and an event database under ``~/.cache`` and a fixed-name ``.ses`` file in the
temporary folder, none of which the user asked for.
"""

import importlib
import logging
import os
import tempfile
import warnings
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import torch

_MODULES = ("onnx", "onnxscript", "onnxruntime")
INSTALL = "pip install onnx onnxscript onnxruntime (or: pip install sklearn-shufdiv[int8])"


def check_onnxruntime(name="inference_dtype"):
    """Raise an ``ImportError`` naming ``name`` when the int8 path's packages are missing."""
    import importlib.util

    missing = [module for module in _MODULES if importlib.util.find_spec(module) is None]
    if missing:
        raise ImportError(f"{name}='int8' runs the encoder with ONNX Runtime, which needs "
                          f"{', '.join(missing)}: {INSTALL}; or use {name}='float32'.")


def import_onnxruntime(module="onnxruntime"):
    """Import ``module`` (ONNX Runtime or one of its submodules) with its telemetry off:
    ``ORT_DISABLE_TELEMETRY`` is set to 1 unless already set, before the first import,
    the only time it is read."""
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    return importlib.import_module(module)


@contextmanager
def _quiet():
    """Silence the exporter's and the quantizer's notes (warnings, and log records of
    the root and ``torch.onnx`` loggers) for the duration: they address the tools'
    developers, not a user embedding documents."""
    loggers = [logging.getLogger(), logging.getLogger("torch.onnx")]
    levels = [logger.level for logger in loggers]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for logger in loggers:
            logger.setLevel(logging.ERROR)
        try:
            yield
        finally:
            for logger, level in zip(loggers, levels):
                logger.setLevel(level)


def export_onnx(encoder, path):
    """Write ``encoder`` (a float32 :class:`~._encoder.MeanPoolingEncoder`) to ``path``
    as ONNX, with inputs ``input_ids`` and ``attention_mask`` of any batch size and
    length and output ``embeddings``."""
    example = torch.ones((2, 8), dtype=torch.long)
    batch, length = torch.export.Dim("batch"), torch.export.Dim("length")
    with _quiet():
        program = torch.onnx.export(
            encoder, (example, example.clone()), dynamo=True, verbose=False,
            input_names=["input_ids", "attention_mask"], output_names=["embeddings"],
            dynamic_shapes=({0: batch, 1: length}, {0: batch, 1: length}))
    program.save(str(path))


def quantize_onnx(source, target):
    """Dynamic int8 quantization of the matrix products of the ONNX graph at ``source``
    into ``target`` (weights per output channel; the embedding tables stay float32)."""
    quantization = import_onnxruntime("onnxruntime.quantization")
    with _quiet():
        quantization.quantize_dynamic(
            str(source), str(target), per_channel=True,
            weight_type=quantization.QuantType.QInt8, op_types_to_quantize=["MatMul"])


class Int8OnnxEncoder:
    """``encoder``'s int8 copy: called as ``(input_ids, attention_mask)``, returns the
    float32 embeddings as a CPU tensor.

    Parameters
    ----------
    encoder : MeanPoolingEncoder
        On the CPU, in eval mode. Exported as it is now; later changes to its weights do
        not reach the copy.
    """

    def __init__(self, encoder):
        onnxruntime = import_onnxruntime()  # before the exporter, which may import it too
        self.dim = encoder.dim
        with tempfile.TemporaryDirectory(prefix="shufdiv-onnx-") as folder:
            exported, quantized = Path(folder) / "encoder.onnx", Path(folder) / "int8.onnx"
            export_onnx(encoder, exported)
            quantize_onnx(exported, quantized)
            graph = quantized.read_bytes()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = torch.get_num_threads()
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # errors only
        self.session = onnxruntime.InferenceSession(graph, options,
                                                    providers=["CPUExecutionProvider"])

    def __call__(self, input_ids, attention_mask):
        """Embed each row alone, at its own length (the batch is right-padded).

        Dynamic quantization reads the activations' int8 scale off the whole input it is
        given: run as one batch, a row's embedding would depend on the rows beside it
        and on their padding. Alone, a window's embedding depends on that window only,
        so that ``transform_iter``'s chunks, or one document embedded alone, give what
        ``transform`` gives.
        """
        input_ids, lengths = input_ids.cpu().numpy(), attention_mask.sum(1).tolist()
        mask = attention_mask.cpu().numpy()
        rows = [self.session.run(None, {"input_ids": input_ids[i:i + 1, :length],
                                        "attention_mask": mask[i:i + 1, :length]})[0]
                for i, length in enumerate(lengths)]
        return torch.from_numpy(np.concatenate(rows))

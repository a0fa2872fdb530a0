"""What the reduced-precision tests share: skip marks for the CPU's bfloat16 and the
int8 runtime, and the row-wise cosine between two embeddings."""

import importlib.util

import numpy as np
import pytest

from sklearn_shufdiv.embedders._encoder._precision import cpu_has_bfloat16

needs_bf16 = pytest.mark.skipif(not cpu_has_bfloat16(),
                                reason="this CPU has no bfloat16 instructions")
needs_onnxruntime = pytest.mark.skipif(
    not all(importlib.util.find_spec(m) for m in ("onnx", "onnxscript", "onnxruntime")),
    reason="onnx, onnxscript and onnxruntime are not installed")


def cosines(a, b):
    """The cosine between each row of ``a`` and the same row of ``b``."""
    return np.sum(a * b, axis=1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)

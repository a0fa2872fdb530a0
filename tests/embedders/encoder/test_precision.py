"""The encoder embedding in reduced precision: bfloat16 and int8 copies of the weights."""

import numpy as np
import pytest
import torch
from _precision_helpers import cosines, needs_bf16, needs_onnxruntime

from sklearn_shufdiv.embedders import load_encoder
from sklearn_shufdiv.embedders._encoder._pooling import encode
from sklearn_shufdiv.embedders._encoder._precision import (
    check_inference_dtype,
    cpu_has_bfloat16,
    inference_encoder,
    weights_digest,
)


@pytest.fixture(scope="module")
def model(tiny_bert_path):
    tokenizer, encoder = load_encoder(tiny_bert_path)
    return tokenizer, encoder.eval()


@pytest.fixture(scope="module")
def texts(corpus):
    docs, _ = corpus
    return docs[:12]


def embed(model, texts, dtype, **kwargs):
    tokenizer, encoder = model
    return encode(encoder, tokenizer, texts, max_length=24, batch_size=5, device="cpu",
                  dtype=dtype, max_windows=None, **kwargs)


@needs_bf16
def test_bfloat16_is_the_encoder_run_in_bfloat16(model, texts):
    """Direct: the transformer's weights cast to bfloat16, each window's hidden states
    mean-pooled in float32, the windows' embeddings pooled per text."""
    from sklearn_shufdiv.embedders._encoder._windows import cut_windows, pool_windows

    tokenizer, encoder = model
    got = embed(model, texts, "bfloat16")
    transformer = __import__("copy").deepcopy(encoder.transformer).to(torch.bfloat16)
    windows = cut_windows(tokenizer, texts, 24)
    with torch.no_grad():
        rows = torch.stack([
            transformer(input_ids=torch.tensor([ids])).last_hidden_state[0].float().mean(0)
            for ids in windows.token_ids]).double()
    expected = pool_windows(rows, windows).float().numpy()
    np.testing.assert_allclose(got, expected, rtol=2e-2, atol=2e-2)
    assert cosines(got, expected).min() > 0.9999
    full = embed(model, texts, "float32")
    assert not np.array_equal(got, full)  # bfloat16 arithmetic, not float32
    assert cosines(got, full).min() > 0.999


@needs_onnxruntime
def test_int8_embeds_close_to_float32_but_in_int8(model, texts):
    got = embed(model, texts, "int8")
    full = embed(model, texts, "float32")
    assert got.shape == full.shape and got.dtype == np.float32
    assert not np.array_equal(got, full)  # quantized arithmetic, not float32
    assert cosines(got, full).min() > 0.98


@needs_onnxruntime
def test_int8_graph_multiplies_in_int8(model, tmp_path):
    """The quantized graph replaces every float matrix product by integer ones."""
    import onnx

    from sklearn_shufdiv.embedders._encoder._onnx import export_onnx, quantize_onnx

    _, encoder = model
    export_onnx(encoder, tmp_path / "fp32.onnx")
    quantize_onnx(tmp_path / "fp32.onnx", tmp_path / "int8.onnx")
    before = [node.op_type for node in onnx.load(tmp_path / "fp32.onnx").graph.node]
    after = [node.op_type for node in onnx.load(tmp_path / "int8.onnx").graph.node]
    weights = {init.name for init in onnx.load(tmp_path / "fp32.onnx").graph.initializer}
    # The linear layers: 4 attention projections and 2 feed-forward ones per layer.
    assert before.count("MatMul") >= 6 * encoder.transformer.config.num_hidden_layers
    assert after.count("MatMulInteger") >= 6 * encoder.transformer.config.num_hidden_layers
    assert "DynamicQuantizeLinear" in after
    assert weights  # the exported graph holds its weights


@pytest.mark.parametrize("dtype", [pytest.param("bfloat16", marks=needs_bf16),
                                   pytest.param("int8", marks=needs_onnxruntime)])
def test_a_reduced_precision_copy_is_made_once_per_state_of_the_weights(model, dtype):
    _, encoder = model
    ids = torch.tensor([[2, 5, 6, 7, 3]])
    mask = torch.ones_like(ids)
    with torch.no_grad():
        first = inference_encoder(encoder, dtype, "cpu")
        assert inference_encoder(encoder, dtype, "cpu") is first
        before = first(ids, mask)
        parameter = encoder.transformer.embeddings.word_embeddings.weight
        parameter.add_(0.5)
        try:
            second = inference_encoder(encoder, dtype, "cpu")
            assert second is not first
            assert not torch.allclose(second(ids, mask), before)
        finally:
            parameter.sub_(0.5)


def test_weights_digest_follows_optimizer_steps_and_loads(model):
    """A fused AdamW step changes the weights without bumping their version counters:
    the digest reads the weights themselves."""
    _, encoder = model
    saved = {k: v.clone() for k, v in encoder.state_dict().items()}
    digest = weights_digest(encoder)
    assert weights_digest(encoder) == digest
    parameters = list(encoder.parameters())
    try:
        for p in parameters:
            p.grad = torch.ones_like(p)
        torch.optim.AdamW(parameters, lr=1e-3, fused=True).step()
        assert weights_digest(encoder) != digest
    finally:
        encoder.load_state_dict(saved)
        encoder.zero_grad(set_to_none=True)
    assert weights_digest(encoder) == digest


def test_float32_is_the_encoder_itself(model):
    _, encoder = model
    assert inference_encoder(encoder, "float32", "cpu") is encoder


def test_unknown_dtype_is_refused():
    with pytest.raises(ValueError, match="inference_dtype='float16' is not one of"):
        check_inference_dtype("float16", "cpu")


def test_int8_is_refused_on_cuda():
    with pytest.raises(ValueError, match="inference_dtype='int8' runs on the CPU only"):
        check_inference_dtype("int8", "cuda")


def test_bfloat16_is_refused_on_a_cpu_without_it(monkeypatch):
    from sklearn_shufdiv.embedders._encoder import _precision

    monkeypatch.setattr(_precision, "cpu_has_bfloat16", lambda: False)
    with pytest.raises(ValueError, match="inference_dtype='bfloat16': this CPU has no "
                                         "bfloat16 instructions"):
        check_inference_dtype("bfloat16", "cpu")


def test_int8_without_onnxruntime_says_what_to_install(monkeypatch):
    import importlib.util

    from sklearn_shufdiv.embedders._encoder import _onnx

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "onnxruntime" else real(name, *a))
    with pytest.raises(ImportError, match=r"needs [a-z, ]*onnxruntime: pip install onnx "):
        _onnx.check_onnxruntime()
    with pytest.raises(ImportError, match="inference_dtype='int8'"):
        check_inference_dtype("int8", "cpu")


def test_encode_names_its_dtype_parameter(model, texts):
    with pytest.raises(ValueError, match="dtype='int4' is not one of"):
        embed(model, texts, "int4")


def test_empty_input_makes_no_copy(model, monkeypatch):
    from sklearn_shufdiv.embedders._encoder import _pooling

    monkeypatch.setattr(_pooling, "inference_encoder", lambda *a: pytest.fail("copy made"))
    assert embed(model, [], "bfloat16" if cpu_has_bfloat16() else "float32").shape == (0, 32)

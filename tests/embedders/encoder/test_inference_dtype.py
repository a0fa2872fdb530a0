"""The embedders' ``inference_dtype``: the precision of transform, fit_transform and the
epoch selection, resolved by the device, outside the checkpoint fingerprint."""

import pickle

import numpy as np
import pytest
import torch
from _precision_helpers import cosines, needs_bf16, needs_onnxruntime
from conftest import SMALL
from safetensors.torch import load_file

from sklearn_shufdiv import ShuffleDivideEmbedder, TfidfPositiveEmbedder
from sklearn_shufdiv.embedders._encoder import _precision
from sklearn_shufdiv.embedders._encoder._pooling import encode
from sklearn_shufdiv.embedders._encoder._precision import resolve_inference_dtype
from sklearn_shufdiv.embedders._training._fingerprint import describe_params

ONE_EPOCH = {**SMALL, "max_epochs": 1}


def encoder_rows(embedder, docs, dtype):
    """The fitted encoder's embeddings of ``docs`` computed directly in ``dtype``."""
    return encode(embedder.encoder_, embedder.tokenizer_, docs, max_length=32, batch_size=6,
                  device="cpu", dtype=dtype, max_windows=embedder.max_windows)


@pytest.mark.parametrize("native, expected", [(True, "bfloat16"), (False, "float32")])
def test_auto_is_bfloat16_where_the_cpu_runs_it_else_float32(monkeypatch, tiny_bert_path,
                                                              corpus, native, expected):
    monkeypatch.setattr(_precision, "cpu_has_bfloat16", lambda: native)
    docs, _ = corpus
    embedder = ShuffleDivideEmbedder(tiny_bert_path, **{**ONE_EPOCH, "max_epochs": 0}).fit(docs)
    assert embedder.inference_dtype == "auto" and embedder.inference_dtype_ == expected
    assert embedder.net_.inference_dtype == expected


@pytest.mark.parametrize("supported, expected", [(True, "bfloat16"), (False, "float32")])
def test_auto_on_cuda_follows_the_gpu(monkeypatch, supported, expected):
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: supported)
    assert resolve_inference_dtype("auto", "cuda") == expected
    with pytest.raises(ValueError, match="inference_dtype='int8' runs on the CPU only"):
        resolve_inference_dtype("int8", "cuda")


def test_unsupported_dtype_is_a_clear_error_in_fit_and_transform(monkeypatch, tiny_bert_path,
                                                                 corpus):
    docs, _ = corpus
    embedder = ShuffleDivideEmbedder(tiny_bert_path, **{**ONE_EPOCH, "max_epochs": 0}).fit(docs)
    monkeypatch.setattr(_precision, "cpu_has_bfloat16", lambda: False)
    message = r"inference_dtype='bfloat16': this CPU has no bfloat16.*use inference_dtype="
    with pytest.raises(ValueError, match=message):
        ShuffleDivideEmbedder(tiny_bert_path, inference_dtype="bfloat16", **ONE_EPOCH).fit(docs)
    with pytest.raises(ValueError, match=message):
        embedder.set_params(inference_dtype="bfloat16").transform(docs[:2])
    # "auto" is never an error: it embeds in float32 on such a CPU.
    got = embedder.set_params(inference_dtype="auto", lexical_weight=0).transform(docs[:4])
    expected = encoder_rows(embedder, docs[:4], "float32")
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7)


def test_unknown_value_is_refused(tiny_bert_path, corpus):
    with pytest.raises(ValueError, match="inference_dtype"):
        ShuffleDivideEmbedder(tiny_bert_path, inference_dtype="float16", **ONE_EPOCH).fit(
            corpus[0])


@needs_bf16
@pytest.mark.parametrize("Embedder", [ShuffleDivideEmbedder, TfidfPositiveEmbedder])
def test_bfloat16_transform_is_the_encoder_in_bfloat16_and_close_to_float32(
        Embedder, tiny_bert_path, corpus):
    """transform, fit_transform and transform_iter embed in bfloat16: the tuned encoder's
    bfloat16 rows, direct; within a cosine of 0.999 of float32's rows on the tiny BERT."""
    docs, _ = corpus
    embedder = Embedder(tiny_bert_path, inference_dtype="bfloat16", lexical_weight=0,
                        normalize=False, **ONE_EPOCH)
    fitted = embedder.fit_transform(docs)
    assert embedder.inference_dtype_ == "bfloat16"
    expected = encoder_rows(embedder, docs, "bfloat16")
    np.testing.assert_array_equal(fitted, expected)
    np.testing.assert_array_equal(embedder.transform(docs), expected)
    np.testing.assert_allclose(np.vstack(list(embedder.transform_iter(docs, chunk_size=16))),
                               expected, atol=1e-3)
    full = embedder.set_params(inference_dtype="float32").transform(docs)
    np.testing.assert_array_equal(full, encoder_rows(embedder, docs, "float32"))
    assert not np.array_equal(full, expected)
    assert cosines(full, expected).min() > 0.999
    # Training and the exported weights stay float32.
    assert all(p.dtype == torch.float32 for p in embedder.encoder_.parameters())


@needs_bf16
def test_the_epoch_selection_embeds_in_inference_dtype(tiny_bert_path, corpus, monkeypatch):
    from sklearn_shufdiv.embedders._training import _engine

    seen = []
    real = _engine.encode
    monkeypatch.setattr(_engine, "encode",
                        lambda *a, **k: seen.append(k["dtype"]) or real(*a, **k))
    docs, _ = corpus
    embedder = ShuffleDivideEmbedder(tiny_bert_path, n_clusters=3, inference_dtype="bfloat16",
                                     **{**ONE_EPOCH, "max_epochs": 2})
    embedder.fit(docs)
    assert seen == ["bfloat16"] * 3  # epochs 0, 1 and 2
    embedder.set_params(inference_dtype="float32").transform(docs[:3])
    assert seen[-1] == "float32"


def test_saved_weights_are_float32_and_pickles_embed_alike(tiny_bert_path, corpus, tmp_path):
    docs, _ = corpus
    embedder = ShuffleDivideEmbedder(tiny_bert_path, **ONE_EPOCH).fit(docs)  # "auto"
    embedder.save_pretrained(tmp_path / "tuned")
    weights = load_file(tmp_path / "tuned" / "model.safetensors")
    assert {tensor.dtype for tensor in weights.values()} == {torch.float32}
    restored = pickle.loads(pickle.dumps(embedder))
    assert restored.inference_dtype_ == embedder.inference_dtype_
    np.testing.assert_array_equal(restored.transform(docs), embedder.transform(docs))


def test_inference_dtype_is_not_in_the_checkpoint_fingerprint(tiny_bert_path):
    params = ShuffleDivideEmbedder(tiny_bert_path).get_params(deep=False)
    described = describe_params(params)
    assert "inference_dtype" not in described
    assert describe_params({**params, "inference_dtype": "int8"}) == described


def test_a_checkpoint_resumes_under_another_inference_dtype(tiny_bert_path, corpus, tmp_path):
    docs, _ = corpus
    params = dict(ONE_EPOCH, max_epochs=2, checkpoint_dir=tmp_path / "ckpt",
                  inference_dtype="float32")
    whole = ShuffleDivideEmbedder(tiny_bert_path, **params).fit(docs)
    resumed = ShuffleDivideEmbedder(tiny_bert_path, **{**params, "inference_dtype": "auto"})
    resumed.fit(docs)  # every epoch is in the folder: nothing is trained again
    assert [row["epoch"] for row in resumed.history_] == [0, 1, 2]
    for name, tensor in whole.encoder_.state_dict().items():
        torch.testing.assert_close(resumed.encoder_.state_dict()[name], tensor, rtol=0, atol=0)


@needs_onnxruntime
def test_int8_transform_runs_onnx_runtime_close_to_float32(tiny_bert_path, corpus):
    docs, _ = corpus
    embedder = ShuffleDivideEmbedder(tiny_bert_path, inference_dtype="int8", lexical_weight=0,
                                     normalize=False, **{**ONE_EPOCH, "max_epochs": 0}).fit(docs)
    assert embedder.inference_dtype_ == "int8"
    got = embedder.transform(docs)
    np.testing.assert_allclose(got, encoder_rows(embedder, docs, "int8"), rtol=1e-5,
                               atol=1e-6)
    full = encoder_rows(embedder, docs, "float32")
    assert not np.array_equal(got, full)  # quantized arithmetic
    assert cosines(got, full).min() > 0.98

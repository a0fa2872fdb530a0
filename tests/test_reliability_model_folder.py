"""Model folders that load but do not fit: a tokenizer that is missing or another
model's, weights that are missing or foreign, a pickle or truncated ``.bin``."""

import json
import shutil
import traceback

import pytest
import torch
from safetensors.torch import load_file, save_file

from sklearn_shufdiv import ShuffleDivideEmbedder
from sklearn_shufdiv.__main__ import main
from sklearn_shufdiv.embedders import load_encoder
from sklearn_shufdiv.embedders._encoder import _loading


@pytest.fixture
def model_copy(tmp_path, tiny_bert_path):
    return shutil.copytree(tiny_bert_path, tmp_path / "model")


def _vocab_size(folder):
    return json.loads((folder / "config.json").read_text())["vocab_size"]


# -- the tokenizer against the model's vocabulary -----------------------------------------


def test_folder_without_tokenizer_files_is_refused(model_copy):
    for path in model_copy.glob("tokenizer*.json"):
        path.unlink()
    with pytest.raises(ValueError, match="no token besides special tokens") as info:
        load_encoder(model_copy)
    message = str(info.value)
    assert str(model_copy) in message
    assert f"the tokenizer has 5 tokens, the model's vocab_size is {_vocab_size(model_copy)}" \
        in message


def test_folder_without_tokenizer_files_fails_on_the_command_line(model_copy, tmp_path,
                                                                  capsys, corpus):
    for path in model_copy.glob("tokenizer*.json"):
        path.unlink()
    docs = tmp_path / "docs.txt"
    docs.write_text("\n".join(corpus[0][:8]), encoding="utf-8")
    out = tmp_path / "o.csv"
    status = main(["cluster", str(docs), "-k", "2", "-o", str(out), "--model", str(model_copy),
                   "--max-epochs", "1", "--quiet"])
    err = capsys.readouterr().err
    assert status == 2 and "no token besides special tokens" in err and not out.exists()


def _rewrite_vocab_size(folder, vocab_size):
    """Give the model an embedding table of ``vocab_size`` rows (the others unchanged)."""
    config = json.loads((folder / "config.json").read_text())
    config["vocab_size"] = vocab_size
    (folder / "config.json").write_text(json.dumps(config))
    weights = load_file(folder / "model.safetensors")
    key = next(k for k in weights if k.endswith("word_embeddings.weight"))
    rows = weights[key]
    weights[key] = torch.cat([rows, rows, rows])[:vocab_size].contiguous()
    save_file(weights, folder / "model.safetensors", metadata={"format": "pt"})


def test_tokenizer_larger_than_the_vocabulary_is_refused(model_copy):
    tokens = _vocab_size(model_copy)
    _rewrite_vocab_size(model_copy, tokens - 10)
    with pytest.raises(ValueError, match=rf"the tokenizer has {tokens} tokens, the model's "
                                         rf"vocab_size is {tokens - 10}, so token ids beyond "
                                         r"the embedding table"):
        load_encoder(model_copy)


def test_tokenizer_far_smaller_than_the_vocabulary_is_refused(model_copy):
    tokens = _vocab_size(model_copy)
    _rewrite_vocab_size(model_copy, 2 * tokens + 1)
    with pytest.raises(ValueError, match=rf"has too few tokens \(the tokenizer has {tokens} "
                                         rf"tokens, the model's vocab_size is {2 * tokens + 1}"):
        load_encoder(model_copy)


def test_a_padded_vocabulary_is_accepted(model_copy):
    # Models often pad the embedding table beyond the tokenizer (to a multiple of 8 or 128).
    tokens = _vocab_size(model_copy)
    _rewrite_vocab_size(model_copy, 2 * tokens)
    tokenizer, encoder = load_encoder(model_copy)
    assert len(tokenizer) == tokens
    assert encoder.transformer.get_input_embeddings().num_embeddings == 2 * tokens
    assert _loading.MIN_VOCABULARY_SHARE * 2 * tokens <= tokens


def test_embedder_fit_refuses_the_folder_without_tokenizer(model_copy, corpus):
    for path in model_copy.glob("tokenizer*.json"):
        path.unlink()
    embedder = ShuffleDivideEmbedder(model_copy, max_epochs=1, verbose=0)
    with pytest.raises(ValueError, match="no token besides special tokens"):
        embedder.fit(corpus[0][:8])


# -- a torch .bin instead of safetensors --------------------------------------------------
class _Payload:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _as_bin(folder):
    weights = load_file(folder / "model.safetensors")
    (folder / "model.safetensors").unlink()
    return weights, folder / "pytorch_model.bin"


def test_a_pickle_bin_is_named_without_the_unsafe_advice(model_copy, tmp_path):
    weights, path = _as_bin(model_copy)
    marker = tmp_path / "code-ran"
    torch.save({**weights, "payload": _Payload(str(marker))}, path)
    with pytest.raises(OSError, match=rf"{path} cannot be read \(a pickle that holds more "
                                      r"than tensors: it is not loaded") as info:
        load_encoder(model_copy)
    shown = "".join(traceback.format_exception(info.value))  # what a user sees
    assert "weights_only" not in shown
    assert not marker.exists()


def test_a_truncated_bin_is_named(model_copy):
    weights, path = _as_bin(model_copy)
    torch.save(weights, path)
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(OSError, match=rf"{path} cannot be read \(.*\)\. If the file is "
                                      r"truncated or damaged, copy or save the model"):
        load_encoder(model_copy)


def test_a_whole_bin_still_loads(model_copy, corpus):
    weights, path = _as_bin(model_copy)
    torch.save(weights, path)
    tokenizer, encoder = load_encoder(model_copy)
    assert torch.equal(encoder.transformer.get_input_embeddings().weight,
                       weights["embeddings.word_embeddings.weight"])


# -- weights missing from the files --------------------------------------------------------
def _edit_weights(folder, change):
    weights = load_file(folder / "model.safetensors")
    change(weights)
    save_file(weights, folder / "model.safetensors", metadata={"format": "pt"})


def test_a_missing_encoder_tensor_is_refused(model_copy):
    key = "encoder.layer.1.attention.self.query.weight"
    _edit_weights(model_copy, lambda weights: weights.pop(key))
    with pytest.raises(ValueError, match=rf"The model '{model_copy}' is incomplete: 1 "
                                         rf"tensor\(s\) of the encoder are missing from its "
                                         rf"weights files \({key}\)"):
        load_encoder(model_copy)


def test_many_missing_tensors_are_counted(model_copy):
    _edit_weights(model_copy, lambda weights: [weights.pop(k) for k in list(weights)
                                               if k.startswith("encoder.layer.1.")])
    with pytest.raises(ValueError, match=r"incomplete: 16 tensor\(s\) .* and 11 more\)"):
        load_encoder(model_copy)


def test_a_tensor_of_another_shape_is_refused(model_copy):
    key = "encoder.layer.0.intermediate.dense.bias"

    def shrink(weights):
        weights[key] = weights[key][:10].clone()

    _edit_weights(model_copy, shrink)
    with pytest.raises(ValueError, match=rf"of another shape in its weights files .*{key}"):
        load_encoder(model_copy)


def test_extra_tensors_and_a_missing_pooler_are_accepted(model_copy, corpus):
    def edit(weights):
        weights["cls.predictions.bias"] = torch.zeros(3)  # a pretraining head
        for key in [k for k in weights if k.startswith("pooler.")]:
            del weights[key]  # mean pooling does not read it

    _edit_weights(model_copy, edit)
    tokenizer, encoder = load_encoder(model_copy)
    assert encoder.transformer.config.vocab_size == len(tokenizer)

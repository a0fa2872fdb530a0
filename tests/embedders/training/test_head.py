"""The linear head over the frozen encoder: its value (``LinearHead``), how ``head``
resolves, its training on frozen views, and the embedders that fit, apply, pickle and
export it (sentence-transformers' ``Dense`` module)."""

import json
import pickle

import numpy as np
import pytest
import torch
from conftest import SMALL, blobs_on_sphere
from safetensors.torch import load_file
from sklearn.base import clone
from sklearn.metrics import adjusted_rand_score

from sklearn_shufdiv.embedders import (
    LinearHead,
    NTXent,
    ProtoNCE,
    ShuffleDivideEmbedder,
    TfidfPositiveEmbedder,
    _base,
)
from sklearn_shufdiv.embedders._text._frozen_views import HalfViews, PairViews
from sklearn_shufdiv.embedders._training import _head
from sklearn_shufdiv.embedders._training._head import (
    MIN_AGREEMENT,
    apply_head,
    identity_linear,
    resolve_head,
    train_head,
    view_agreement,
)

#: A fit with a head on the tiny BERT (SMALL: 2 encoder epochs; tests that need none say
#: so), float32 so that every path embeds alike.
HEADED = {**SMALL, "n_clusters": 2, "inference_dtype": "float32",
          "head": LinearHead(max_epochs=2)}


def nuisance_views(kind, n_documents=24, dim=8, seed=0):
    """Views whose cosine similarities are all drowned by one shared direction (5 e_0):
    the identity map is far from the best, a map that drops e_0 does much better.

    ``"halves"``: each document's 4 to 7 sentences are its own direction plus noise;
    ``"pairs"``: documents 2j and 2j + 1 (a pair) are noisy copies of a direction of
    their own, and the pairs fall in two groups (j even, j odd) that share more."""
    rng = np.random.default_rng(seed)
    shared = np.zeros(dim)
    shared[0] = 5.0
    if kind == "halves":
        lengths = rng.integers(4, 8, size=n_documents)
        own = rng.normal(size=(n_documents, dim))
        owner = np.repeat(np.arange(n_documents), lengths)
        sentences = shared + own[owner] + 0.3 * rng.normal(size=(len(owner), dim))
        return HalfViews(sentences, np.concatenate([[0], np.cumsum(lengths)]),
                         np.arange(n_documents))
    pair = np.arange(n_documents) // 2
    groups = rng.normal(size=(2, dim))
    own = rng.normal(size=(n_documents // 2, dim))
    embeddings = (shared + groups[pair % 2] + own[pair]
                  + 0.3 * rng.normal(size=(n_documents, dim)))
    return PairViews(embeddings, np.arange(n_documents), np.arange(0, n_documents, 2),
                     np.arange(1, n_documents, 2))


def views_loss(linear, views, temperature=0.2):
    """NT-Xent of ``linear`` over all the views' pairs at once (a fixed draw)."""
    a, b = views.sample(np.random.RandomState(123))
    with torch.no_grad():
        out = linear(torch.cat([a, b]))
        return float(NTXent().make_loss(temperature)(out))


def train(views, head, objective=None, **kwargs):
    return train_head(views, views.embeddings.shape[1], head,
                      objective=objective or NTXent(), temperature=0.2,
                      batch_size=kwargs.pop("batch_size", 8), **kwargs)


# -- the map ---------------------------------------------------------------------------
def test_identity_linear_is_the_identity():
    linear = identity_linear(5)
    assert isinstance(linear, torch.nn.Linear)
    assert (linear.in_features, linear.out_features) == (5, 5)
    x = torch.randn(7, 5, generator=torch.Generator().manual_seed(0))
    torch.testing.assert_close(linear(x), x, rtol=0, atol=0)
    assert linear.weight.requires_grad and linear.bias.requires_grad  # it trains


def test_apply_head_maps_by_the_linear_and_none_maps_nothing():
    x = np.random.default_rng(0).normal(size=(6, 4)).astype(np.float32)
    assert apply_head(None, x) is x
    torch.manual_seed(0)
    linear = torch.nn.Linear(4, 3)
    mapped = apply_head(linear, x)
    assert mapped.dtype == np.float32 and mapped.shape == (6, 3)
    with torch.no_grad():
        expected = linear(torch.as_tensor(x)).numpy()
    np.testing.assert_allclose(mapped, expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mapped, x @ linear.weight.detach().numpy().T
                               + linear.bias.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(apply_head(identity_linear(4), x), x)


# -- training --------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["halves", "pairs"])
def test_training_lowers_the_loss_from_the_identity(kind):
    views = nuisance_views(kind)
    start = views_loss(identity_linear(8), views)
    linear = train(views, LinearHead(objective="nt-xent", max_epochs=40, learning_rate=2e-2),
                   random_state=0)
    assert isinstance(linear, torch.nn.Linear) and linear.in_features == 8
    trained = views_loss(linear, views)
    assert trained < 0.5 * start, (start, trained)
    # It learnt to drop the shared direction: e_0 now maps to much less than it did.
    assert float(linear.weight.detach()[:, 0].norm()) < 0.9


def test_training_is_reproducible_with_the_same_random_state():
    views = nuisance_views("halves")
    head = LinearHead(objective="nt-xent", max_epochs=3, learning_rate=1e-2)
    first = train(views, head, random_state=0)
    again = train(views, head, random_state=0)
    other = train(views, head, random_state=1)
    torch.testing.assert_close(first.weight, again.weight, rtol=0, atol=0)
    torch.testing.assert_close(first.bias, again.bias, rtol=0, atol=0)
    assert not torch.allclose(first.weight, other.weight)
    assert not torch.allclose(first.weight, torch.eye(8))  # and it did train


def test_keys_keep_copies_from_being_negatives():
    """Views keyed alike are not each other's negatives: with every document one key,
    NT-Xent has no negatives, so the loss is flat and the map only decays."""
    views = nuisance_views("pairs")
    head = LinearHead(objective="nt-xent", max_epochs=3, learning_rate=1e-2, weight_decay=0)
    keyed = train(views, head, keys=np.zeros(24, dtype=np.int64), random_state=0)
    torch.testing.assert_close(keyed.weight, torch.eye(8), rtol=0, atol=1e-6)
    free = train(views, head, random_state=0)
    assert not torch.allclose(free.weight, torch.eye(8), atol=1e-4)


def _spy_on_labels(monkeypatch):
    drawn = []
    real = _head.PseudoLabelSpace.labels

    def spy(self, objective, linear, n_clusters, seed):
        labels, prototypes = real(self, objective, linear, n_clusters, seed)
        drawn.append((labels.numpy().copy(), prototypes.numpy().copy()))
        return labels, prototypes

    monkeypatch.setattr(_head.PseudoLabelSpace, "labels", spy)
    return drawn


def test_prototype_objective_trains_on_pseudo_labels_of_the_joined_space(monkeypatch):
    views = nuisance_views("pairs")
    forced = np.arange(24) // 12  # a partition that is not the views' groups
    joined_calls = []

    def joined(mapped):
        joined_calls.append(np.array(mapped, copy=True))
        return np.eye(2)[forced] + 0.01 * mapped[:, :2]

    drawn = _spy_on_labels(monkeypatch)
    head = LinearHead(max_epochs=3, learning_rate=1e-2)
    objective = head.resolved_objective(2)
    assert objective == ProtoNCE()
    space = _head.PseudoLabelSpace(views.document_embeddings(), np.arange(24), joined)
    linear = train(views, head, objective=objective, pseudo_space=space, n_clusters=2,
                   random_state=0)
    assert len(joined_calls) == len(drawn) == 3  # redrawn before every epoch
    assert all(mapped.shape == (24, 8) for mapped in joined_calls)
    np.testing.assert_allclose(joined_calls[0], views.document_embeddings(), rtol=1e-6)
    assert not np.allclose(joined_calls[1], joined_calls[0])  # the head's output moved
    for labels, prototypes in drawn:
        assert adjusted_rand_score(forced, labels) == 1.0  # the joined space's clusters
        assert prototypes.shape == (2, 8)
    assert not torch.allclose(linear.weight, torch.eye(8))
    plain = train(views, LinearHead(objective="nt-xent", max_epochs=3, learning_rate=1e-2),
                  random_state=0)
    assert not torch.allclose(linear.weight, plain.weight)  # the prototype term counted


def test_pseudo_labels_come_from_the_clustered_sample_only(monkeypatch):
    """Views-documents outside the clustered sample get no label; the others get the
    cluster of their row in it."""
    views = nuisance_views("pairs")
    encoded = views.document_embeddings()[::2]  # every other document is clustered
    positions = np.where(np.arange(24) % 2 == 0, np.arange(24) // 2, -1)
    drawn = _spy_on_labels(monkeypatch)
    train(views, LinearHead(max_epochs=1), objective=ProtoNCE(), n_clusters=2,
          pseudo_space=_head.PseudoLabelSpace(encoded, positions), random_state=0)
    ((labels, _),) = drawn
    assert (labels[1::2] == -1).all() and set(labels[::2]) == {0, 1}
    from sklearn_shufdiv.cluster import cluster_on_sphere
    expected = cluster_on_sphere(encoded, 2, 0, n_init=3).labels  # epoch 0: the identity
    assert adjusted_rand_score(expected, labels[::2]) == 1.0


def test_prototype_objective_with_a_fraction_leaves_documents_unlabelled(monkeypatch):
    views = nuisance_views("pairs")
    drawn = _spy_on_labels(monkeypatch)
    train(views, LinearHead(max_epochs=1), objective=ProtoNCE(fraction=0.5), n_clusters=2,
          random_state=0)
    ((labels, _),) = drawn
    assert (labels == -1).any() and set(labels[labels >= 0]) == {0, 1}


# -- the value -------------------------------------------------------------------------
def test_linear_head_is_a_value_with_params():
    head = LinearHead()
    assert head.get_params() == {"objective": "prototype", "max_epochs": 10,
                                 "learning_rate": 1e-3, "weight_decay": 0.01}
    assert repr(LinearHead(max_epochs=5)) == ("LinearHead(objective='prototype', max_epochs=5, "
                                              "learning_rate=0.001, weight_decay=0.01)")
    assert head.set_params(max_epochs=4, weight_decay=0.0) is head
    assert head.max_epochs == 4 and head.weight_decay == 0.0
    with pytest.raises(ValueError, match="Invalid parameter 'epochs' for LinearHead"):
        head.set_params(epochs=3)
    assert LinearHead(max_epochs=3) == LinearHead(max_epochs=3)
    assert LinearHead(max_epochs=3) != LinearHead(max_epochs=4)
    assert LinearHead() != ProtoNCE()
    assert hash(LinearHead(max_epochs=3)) == hash(LinearHead(max_epochs=3))
    LinearHead(objective=ProtoNCE(weight=0.5)).check(3, 100)
    LinearHead(objective="nt-xent").check(None, 100)
    LinearHead(objective="prototype").check(None, 100)  # trains with NT-Xent instead


@pytest.mark.parametrize("params, match", [
    ({"max_epochs": 0}, "'max_epochs' parameter of head=LinearHead"),
    ({"learning_rate": 0.0}, "'learning_rate' parameter of head=LinearHead"),
    ({"weight_decay": -1.0}, "'weight_decay' parameter of head=LinearHead"),
    ({"objective": "bogus"}, r"head=LinearHead\(objective='bogus'.*objective must be"),
    ({"objective": ProtoNCE(n_pseudo_clusters=400)}, r"head=LinearHead.*n_pseudo_clusters"),
])
def test_check_names_the_head(params, match):
    """Its own parameters, and its objective's."""
    with pytest.raises(ValueError, match=match):
        LinearHead(**params).check(3, 100)


def test_resolved_objective_falls_back_to_nt_xent_without_clusters():
    assert LinearHead().resolved_objective(None) == NTXent()
    assert LinearHead().resolved_objective(3) == ProtoNCE()
    assert LinearHead(objective="nt-xent").resolved_objective(3) == NTXent()
    given = ProtoNCE(weight=0.5)
    assert LinearHead(objective=given).resolved_objective(3) == given
    assert LinearHead(objective=given).resolved_objective(None) == NTXent()


def test_an_embedder_with_a_head_clones_and_reaches_its_params():
    embedder = ShuffleDivideEmbedder(head=LinearHead(max_epochs=3))
    cloned = clone(embedder)
    assert cloned.head == LinearHead(max_epochs=3) and cloned.head is not embedder.head
    assert embedder.get_params()["head__max_epochs"] == 3
    embedder.set_params(head__learning_rate=0.01)
    assert embedder.head == LinearHead(max_epochs=3, learning_rate=0.01)
    for head in ("auto", None):
        assert clone(TfidfPositiveEmbedder(head=head)).head == head
    assert ShuffleDivideEmbedder().head == "auto" == TfidfPositiveEmbedder().head


@pytest.mark.parametrize("head, match", [
    (LinearHead(max_epochs=0), "'max_epochs' parameter of head=LinearHead"),
    (LinearHead(objective="prototypes"), "head=LinearHead.*objective must be"),
    ("linear", "'head' parameter of ShuffleDivideEmbedder"),
])
def test_an_invalid_head_fails_the_fit_naming_head(tiny_bert_path, corpus, head, match):
    docs, _ = corpus
    with pytest.raises(ValueError, match=match):
        ShuffleDivideEmbedder(tiny_bert_path, **{**HEADED, "head": head}).fit(docs[::3])


@pytest.mark.parametrize("objective, name", [(ProtoNCE(weight=-1.0), "weight"),
                                             (ProtoNCE(fraction=0.0), "fraction")])
def test_an_invalid_head_objective_fails_the_fit_naming_head(tiny_bert_path, corpus,
                                                             objective, name):
    docs, _ = corpus
    head = LinearHead(objective=objective, max_epochs=2)
    with pytest.raises(ValueError) as info:
        ShuffleDivideEmbedder(tiny_bert_path, **{**HEADED, "head": head,
                                                 "max_epochs": 0}).fit(docs[::3])
    assert "head" in str(info.value) and name in str(info.value)


# -- head="auto" -----------------------------------------------------------------------
def _never():
    raise AssertionError("agreement computed where it decides nothing")


def test_resolve_head():
    head = LinearHead(max_epochs=3)
    assert resolve_head(None, max_epochs=0, n_clusters=2, agreement=_never) == (
        None, "head=None: no head")
    resolved, reason = resolve_head(head, max_epochs=5, n_clusters=None, agreement=_never)
    assert resolved is head and reason == f"head={head!r}"
    resolved, reason = resolve_head("auto", max_epochs=2, n_clusters=2, agreement=_never)
    assert resolved is None and "trained for 2 epochs" in reason
    resolved, reason = resolve_head("auto", max_epochs=0, n_clusters=None, agreement=_never)
    assert resolved is None and "without n_clusters" in reason
    resolved, reason = resolve_head("auto", max_epochs=0, n_clusters=2,
                                    agreement=lambda: None)
    assert resolved is None and "without the words" in reason
    low = MIN_AGREEMENT - 0.01
    resolved, reason = resolve_head("auto", max_epochs=0, n_clusters=2, agreement=lambda: low)
    assert resolved is None and "agree too little" in reason and f"{low:.2f}" in reason
    resolved, reason = resolve_head("auto", max_epochs=0, n_clusters=2,
                                    agreement=lambda: MIN_AGREEMENT)
    assert resolved == LinearHead() and "a LinearHead" in reason
    resolved, reason = resolve_head("auto", max_epochs=0, n_clusters=2, agreement=lambda: 0.93)
    assert resolved == LinearHead() and "0.93" in reason


def test_view_agreement():
    X, blob = blobs_on_sphere(3, 30, 8, 0.3, seed=0)
    # The same partition in another space (other directions, other labels): 1.
    other, _ = blobs_on_sphere(3, 30, 5, 0.3, seed=1)
    relabelled = np.array([other[30 * ((b + 1) % 3) + (i % 30)] for i, b in enumerate(blob)])
    assert view_agreement(X, relabelled, 3, seed=0) == pytest.approx(1.0)
    assert view_agreement(X, X, 3, seed=0) == pytest.approx(1.0)
    # Unrelated rows: about 0.
    rng = np.random.default_rng(0)
    noise = rng.normal(size=(90, 6))
    assert abs(view_agreement(X, noise, 3, seed=0)) < 0.1
    assert abs(view_agreement(rng.normal(size=(200, 6)), rng.normal(size=(200, 6)), 3,
                              seed=0)) < 0.05


def test_auto_trains_a_head_where_the_views_agree(tiny_bert_path, corpus, monkeypatch,
                                                  capsys):
    docs, _ = corpus
    docs = docs[::3]
    seen = []

    def agreement(encoded, lexical_rows, n_clusters, seed):
        seen.append((encoded.shape, np.array(lexical_rows), n_clusters))
        return score

    monkeypatch.setattr(_base, "view_agreement", agreement)
    settings = {**HEADED, "head": "auto", "max_epochs": 0, "selection_sample_size": 10}
    score = 0.9
    embedder = ShuffleDivideEmbedder(tiny_bert_path, **{**settings, "verbose": 1}).fit(docs)
    assert isinstance(embedder.head_, torch.nn.Linear)
    assert embedder.head_reason_.startswith("head='auto': a LinearHead")
    assert embedder.head_reason_ in capsys.readouterr().out
    (shape, rows, k), = seen
    assert shape == (10, 32) and k == 2
    sample = [docs[i] for i in embedder.selection_indices_]
    np.testing.assert_allclose(rows, embedder.lexical_.transform(sample), rtol=1e-5,
                               atol=1e-6)
    score = 0.2
    embedder = ShuffleDivideEmbedder(tiny_bert_path, **settings).fit(docs)
    assert embedder.head_ is None and "agree too little (AMI 0.20" in embedder.head_reason_
    embedder = ShuffleDivideEmbedder(tiny_bert_path, **{**settings, "max_epochs": 1}).fit(docs)
    assert embedder.head_ is None and "trained for 1 epochs" in embedder.head_reason_
    embedder = ShuffleDivideEmbedder(tiny_bert_path,
                                     **{**settings, "lexical_weight": 0}).fit(docs)
    assert embedder.head_ is None and "without the words" in embedder.head_reason_
    assert len(seen) == 2


def test_auto_trains_tfidf_pairs_whatever_the_agreement(tiny_bert_path, corpus,
                                                        monkeypatch):
    """TF-IDF pairs carry the words: their head needs no agreement, but the words."""
    docs, _ = corpus
    docs = docs[::3]
    monkeypatch.setattr(_base, "view_agreement", lambda *args: 0.0)
    settings = {**HEADED, "head": "auto", "max_epochs": 0}
    embedder = TfidfPositiveEmbedder(tiny_bert_path, **settings).fit(docs)
    assert isinstance(embedder.head_, torch.nn.Linear)
    assert embedder.head_reason_.startswith("head='auto': a LinearHead on TF-IDF pairs")
    assert "AMI 0.00" in embedder.head_reason_
    shuffled = ShuffleDivideEmbedder(tiny_bert_path, **settings).fit(docs)
    assert shuffled.head_ is None and "agree too little" in shuffled.head_reason_
    wordless = TfidfPositiveEmbedder(tiny_bert_path, **{**settings, "lexical_weight": 0})
    assert wordless.fit(docs).head_ is None
    assert "without the words" in wordless.head_reason_
    resolved, reason = resolve_head("auto", max_epochs=0, n_clusters=2,
                                    agreement=lambda: 0.1, gated=False)
    assert resolved == LinearHead() and "whatever the agreement" in reason


def test_a_head_without_training_pairs_is_not_trained(tiny_bert_path, corpus):
    docs, _ = corpus
    embedder = ShuffleDivideEmbedder(tiny_bert_path, min_sentences=50,
                                     **{**HEADED, "max_epochs": 0}).fit(docs[::3])
    assert embedder.head_ is None
    assert "not trained: only 0 of 16 documents" in embedder.head_reason_
    assert embedder.transform(docs[:2]).shape[0] == 2


# -- the embedders ---------------------------------------------------------------------
@pytest.fixture(scope="module", params=[ShuffleDivideEmbedder, TfidfPositiveEmbedder])
def pair(request, tiny_bert_path, corpus):
    """(documents, an embedder fitted with a head, the same fitted with head=None)."""
    docs, _ = corpus
    docs = docs[::3]
    headed = request.param(tiny_bert_path, **HEADED)
    embeddings = headed.fit_transform(docs)
    plain = request.param(tiny_bert_path, **{**HEADED, "head": None}).fit(docs)
    return docs, headed, plain, embeddings


def test_a_fitted_head_maps_transform(pair):
    docs, headed, plain, embeddings = pair
    assert isinstance(headed.head_, torch.nn.Linear)
    assert (headed.head_.in_features, headed.head_.out_features) == (32, 32)
    assert headed.head_reason_ == f"head={LinearHead(max_epochs=2)!r}"
    assert not torch.allclose(headed.head_.weight, torch.eye(32))  # it trained
    assert plain.head_ is None and plain.head_reason_ == "head=None: no head"
    transformed = headed.transform(docs)
    np.testing.assert_allclose(embeddings, transformed, rtol=1e-5, atol=1e-6)
    assert transformed.shape == plain.transform(docs).shape
    assert np.abs(transformed - plain.transform(docs)).max() > 1e-4
    # The head maps the encoder's embeddings, before the words are joined and the rows
    # normalised: the same encoder (same seed), mapped.
    raw_headed = pickle.loads(pickle.dumps(headed)).set_params(lexical_weight=0,
                                                               normalize=False)
    raw_plain = pickle.loads(pickle.dumps(plain)).set_params(lexical_weight=0,
                                                             normalize=False)
    np.testing.assert_allclose(raw_headed.transform(docs),
                               apply_head(headed.head_, raw_plain.transform(docs)),
                               rtol=1e-5, atol=1e-5)


def test_a_head_survives_pickling(pair):
    docs, headed, _, _ = pair
    restored = pickle.loads(pickle.dumps(headed))
    torch.testing.assert_close(restored.head_.weight, headed.head_.weight, rtol=0, atol=0)
    np.testing.assert_array_equal(restored.transform(docs), headed.transform(docs))


def test_fit_transform_is_transform_when_the_sample_is_not_the_corpus(tiny_bert_path, corpus):
    docs, _ = corpus
    docs = docs[::3]
    embedder = ShuffleDivideEmbedder(tiny_bert_path, selection_sample_size=8, **HEADED)
    embeddings = embedder.fit_transform(docs)
    assert isinstance(embedder.head_, torch.nn.Linear)
    np.testing.assert_allclose(embeddings, embedder.transform(docs), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("Embedder", [ShuffleDivideEmbedder, TfidfPositiveEmbedder])
def test_a_head_without_the_words(Embedder, tiny_bert_path, corpus):
    docs, _ = corpus
    docs = docs[::3]
    settings = {**HEADED, "lexical_weight": 0, "max_epochs": 0}
    embedder = Embedder(tiny_bert_path, **settings)
    embeddings = embedder.fit_transform(docs)
    assert isinstance(embedder.head_, torch.nn.Linear) and embedder.lexical_ is None
    assert embeddings.shape == (len(docs), 32)
    np.testing.assert_allclose(embeddings, embedder.transform(docs), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(embeddings, axis=1), 1, rtol=1e-5)
    plain = Embedder(tiny_bert_path, **{**settings, "head": None}).fit(docs)
    assert plain.head_ is None
    assert np.abs(embeddings - plain.transform(docs)).max() > 1e-4


def test_a_fit_with_a_head_leaves_torchs_global_generator_alone(tiny_bert_path, corpus):
    docs, _ = corpus
    torch.manual_seed(1234)
    before = torch.get_rng_state().clone()
    ShuffleDivideEmbedder(tiny_bert_path, **{**HEADED, "max_epochs": 0}).fit(docs[::3])
    assert torch.equal(torch.get_rng_state(), before)


# -- the export ------------------------------------------------------------------------
def test_save_pretrained_writes_the_head_as_a_dense_module(pair, tmp_path):
    docs, headed, plain, _ = pair
    headed.save_pretrained(tmp_path / "headed")
    modules = json.loads((tmp_path / "headed" / "modules.json").read_text())
    assert [m["path"] for m in modules] == ["", "1_Pooling", "2_Dense", "3_Normalize"]
    assert [m["idx"] for m in modules] == [0, 1, 2, 3]
    assert [m["type"].rsplit(".", 1)[1] for m in modules] == [
        "Transformer", "Pooling", "Dense", "Normalize"]
    config = json.loads((tmp_path / "headed" / "2_Dense" / "config.json").read_text())
    assert config["in_features"] == config["out_features"] == 32 and config["bias"]
    assert config["activation_function"] == "torch.nn.modules.linear.Identity"
    weights = load_file(tmp_path / "headed" / "2_Dense" / "model.safetensors")
    assert set(weights) == {"linear.weight", "linear.bias"}
    torch.testing.assert_close(weights["linear.weight"], headed.head_.weight.detach(),
                               rtol=0, atol=0)
    torch.testing.assert_close(weights["linear.bias"], headed.head_.bias.detach(),
                               rtol=0, atol=0)
    assert (tmp_path / "headed" / "3_Normalize").is_dir()
    # Without a head: no Dense, Normalize comes second; without normalize: no Normalize.
    plain.save_pretrained(tmp_path / "plain")
    modules = json.loads((tmp_path / "plain" / "modules.json").read_text())
    assert [m["path"] for m in modules] == ["", "1_Pooling", "2_Normalize"]
    assert not (tmp_path / "plain" / "2_Dense").exists()
    raw = pickle.loads(pickle.dumps(headed)).set_params(normalize=False)
    raw.save_pretrained(tmp_path / "raw")
    modules = json.loads((tmp_path / "raw" / "modules.json").read_text())
    assert [m["path"] for m in modules] == ["", "1_Pooling", "2_Dense"]


def test_sentence_transformers_embeds_with_the_head(pair, tmp_path):
    SentenceTransformer = pytest.importorskip("sentence_transformers").SentenceTransformer
    docs, headed, plain, _ = pair
    headed.save_pretrained(tmp_path / "headed")
    model = SentenceTransformer(str(tmp_path / "headed"), device="cpu")
    st_embeddings = model.encode(docs, convert_to_numpy=True)
    # sentence-transformers truncates each document to max_length: one window.
    expected = pickle.loads(pickle.dumps(headed)).set_params(
        lexical_weight=0, max_windows=1).transform(docs)
    np.testing.assert_allclose(st_embeddings, expected, atol=1e-4)
    without_head = pickle.loads(pickle.dumps(plain)).set_params(
        lexical_weight=0, max_windows=1).transform(docs)
    assert np.abs(st_embeddings - without_head).max() > 1e-3


def test_a_head_over_a_trained_encoder_and_after_a_resumed_fit(tiny_bert_path, corpus,
                                                                 tmp_path):
    """Over an encoder trained for an epoch, the head's pseudo-labels are drawn in the
    kept epoch's space; a fit that resumes a finished one (nothing left to train, no
    sample scored) embeds the sample again and trains the same head."""
    docs, _ = corpus
    docs = docs[::3]
    params = {**HEADED, "max_epochs": 1, "checkpoint_dir": tmp_path / "ckpt"}
    first = ShuffleDivideEmbedder(tiny_bert_path, **params).fit(docs)
    assert first.head_ is not None and first.head_reason_.startswith("head=LinearHead")
    again = ShuffleDivideEmbedder(tiny_bert_path, **params).fit(docs)  # resumes
    assert again.best_epoch_ == first.best_epoch_
    np.testing.assert_allclose(again.head_.weight.detach().numpy(),
                               first.head_.weight.detach().numpy(), atol=1e-5)
    np.testing.assert_allclose(again.transform(docs), first.transform(docs), atol=1e-5)


def test_a_sample_space_places_each_views_document_in_the_sample():
    space = _head.PseudoLabelSpace.of_sample(np.zeros((3, 2)), [1, 4, 7], [0, 1, 4, 5, 7, 9])
    assert space.positions.tolist() == [-1, 0, 1, -1, 2, -1]

"""The frozen views a linear head trains on: Shuffle & Divide's halves recombined from
sentence embeddings (``HalfViews``), TF-IDF neighbors' fixed pairs (``PairViews``), and
the positive-pair strategies that build them from an ``embed`` function."""

import zlib
from itertools import combinations

import numpy as np
import pytest
import torch

from sklearn_shufdiv.embedders._text._frozen_views import HalfViews, PairViews
from sklearn_shufdiv.embedders._text._positives import (
    ShuffleDividePositives,
    TfidfNeighborPositives,
)

LENGTHS = [2, 3, 4, 5, 8]  # sentences of each document: even, odd, the fewest (2)


def offsets_of(lengths):
    return np.concatenate([[0], np.cumsum(lengths)])


def random_views(lengths=LENGTHS, dim=6, seed=0):
    rng = np.random.default_rng(seed)
    embeddings = rng.normal(size=(sum(lengths), dim)).astype(np.float32)
    documents = np.arange(len(lengths)) * 3 + 1  # corpus indices, not 0..n-1
    return HalfViews(embeddings, offsets_of(lengths), documents), embeddings


def fake_embed(calls=None, kinds=None):
    """A deterministic vector for each text (the same text, the same row); ``kinds``
    records whether each call embedded sentences."""
    def embed(texts, sentences=None):
        if calls is not None:
            calls.append(list(texts))
        if kinds is not None:
            kinds.append(sentences)
        return np.stack([np.random.default_rng(zlib.crc32(text.encode())).normal(size=5)
                         for text in texts]).astype(np.float32)
    return embed


def split_on_periods(text):
    return [s.strip() + "." for s in text.split(".") if s.strip()]


# -- HalfViews ---------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_two_halves_recombine_to_the_documents_mean(seed):
    views, embeddings = random_views()
    a, b = views.sample(np.random.RandomState(seed))
    assert isinstance(a, torch.Tensor) and a.dtype == torch.float32
    assert a.shape == b.shape == (len(LENGTHS), 6)
    a, b = a.double().numpy(), b.double().numpy()
    offsets = offsets_of(LENGTHS)
    for i, n in enumerate(LENGTHS):
        mean = embeddings[offsets[i]:offsets[i + 1]].astype(np.float64).mean(axis=0)
        np.testing.assert_allclose((a[i] * (n // 2) + b[i] * (n - n // 2)) / n, mean,
                                   rtol=1e-5, atol=1e-6)


def test_each_half_is_the_mean_of_a_cut_of_the_documents_sentences():
    """One-hot sentences: ``a * (n // 2)`` marks the sentences of the first half, which
    are n // 2 of the document's own, and ``b`` the rest of them."""
    n_sentences = sum(LENGTHS)
    views = HalfViews(np.eye(n_sentences, dtype=np.float32), offsets_of(LENGTHS),
                      np.arange(len(LENGTHS)))
    offsets = offsets_of(LENGTHS)
    for seed in range(5):
        a, b = (half.double().numpy() for half in views.sample(np.random.RandomState(seed)))
        for i, n in enumerate(LENGTHS):
            first = a[i] * (n // 2)
            second = b[i] * (n - n // 2)
            np.testing.assert_allclose(first, np.round(first), atol=1e-5)
            np.testing.assert_allclose(second, np.round(second), atol=1e-5)
            first, second = np.round(first), np.round(second)
            own = np.zeros(n_sentences)
            own[offsets[i]:offsets[i + 1]] = 1
            assert first.sum() == n // 2 and second.sum() == n - n // 2
            np.testing.assert_array_equal(first + second, own)  # a partition of its own


def test_halves_are_redrawn_with_another_rng_and_repeat_with_the_same_seed():
    views, _ = random_views()
    a1, b1 = views.sample(np.random.RandomState(0))
    a2, b2 = views.sample(np.random.RandomState(0))
    torch.testing.assert_close(a1, a2, rtol=0, atol=0)
    torch.testing.assert_close(b1, b2, rtol=0, atol=0)
    a3, _ = views.sample(np.random.RandomState(1))
    assert not torch.allclose(a1, a3)
    # One generator, two draws: the second is another cut, not a copy of the first.
    rng = np.random.RandomState(0)
    first, _ = views.sample(rng)
    second, _ = views.sample(rng)
    assert not torch.allclose(first, second)


def test_every_sentence_falls_in_either_half():
    """Over many draws each sentence of a 4-sentence document is in the first half about
    half the time: the cut is of a shuffle, not of the sentences' order."""
    views = HalfViews(np.eye(4, dtype=np.float32), np.array([0, 4]), np.array([0]))
    rng = np.random.RandomState(0)
    firsts = np.array([views.sample(rng)[0][0].numpy() * 2 for _ in range(400)])
    shares = firsts.mean(axis=0)
    np.testing.assert_allclose(shares, 0.5, atol=0.1)
    cuts = {tuple(np.flatnonzero(np.round(row))) for row in firsts}
    assert len(cuts) == 6  # all C(4, 2) first halves are drawn


def test_a_two_sentence_document_has_one_sentence_in_each_half():
    embeddings = np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    views = HalfViews(embeddings, np.array([0, 2]), np.array([5]))
    seen = set()
    for seed in range(20):
        a, b = views.sample(np.random.RandomState(seed))
        pair = (tuple(a[0].tolist()), tuple(b[0].tolist()))
        assert pair in {((1.0, 0.0), (0.0, 1.0)), ((0.0, 1.0), (1.0, 0.0))}
        seen.add(pair)
    assert len(seen) == 2


def test_document_embeddings_are_the_means_and_pairs_are_the_documents():
    views, embeddings = random_views()
    documents = views.document_embeddings()
    assert documents.dtype == np.float32 and documents.shape == (len(LENGTHS), 6)
    offsets = offsets_of(LENGTHS)
    expected = [embeddings[offsets[i]:offsets[i + 1]].mean(axis=0) for i in range(len(LENGTHS))]
    np.testing.assert_allclose(documents, np.array(expected), rtol=1e-5, atol=1e-6)
    first, second = views.pairs
    np.testing.assert_array_equal(first, np.arange(len(LENGTHS)))
    np.testing.assert_array_equal(second, np.arange(len(LENGTHS)))
    np.testing.assert_array_equal(views.documents, np.arange(len(LENGTHS)) * 3 + 1)


# -- PairViews ---------------------------------------------------------------------------
def test_pair_views_map_each_pair_to_its_rows():
    rng = np.random.default_rng(0)
    embeddings = rng.normal(size=(4, 3)).astype(np.float32)
    documents = np.array([2, 5, 7, 9])
    first, second = np.array([0, 1, 2, 3, 3]), np.array([1, 0, 3, 0, 2])
    views = PairViews(embeddings, documents, first, second)
    a, b = views.sample(np.random.RandomState(0))
    assert a.shape == b.shape == (5, 3) and a.dtype == torch.float32
    np.testing.assert_array_equal(a.numpy(), embeddings[first])
    np.testing.assert_array_equal(b.numpy(), embeddings[second])
    again = views.sample(np.random.RandomState(1))  # the pairs are fixed
    np.testing.assert_array_equal(again[0].numpy(), a.numpy())
    pair_first, pair_second = views.pairs
    np.testing.assert_array_equal(pair_first, first)
    np.testing.assert_array_equal(pair_second, second)
    np.testing.assert_array_equal(views.document_embeddings(), embeddings)
    np.testing.assert_array_equal(views.documents, documents)


# -- the strategies build them -----------------------------------------------------------
def test_tfidf_neighbors_frozen_views_embed_the_pairs_documents(corpus):
    docs, _ = corpus
    docs = docs[::4] + [docs[0]]  # a copy: it gets its original's neighbor
    positives = TfidfNeighborPositives().fit(docs)
    calls, kinds = [], []
    embed = fake_embed(calls, kinds)
    views = positives.frozen_views(embed)
    assert isinstance(views, PairViews)
    assert len(calls) == 1 and kinds == [False]  # every document once, whole, in one call
    np.testing.assert_array_equal(views.documents, positives.document_indices_)
    assert calls[0] == [docs[i] for i in positives.document_indices_]
    first, second = views.pairs
    np.testing.assert_array_equal(views.documents[first], positives.pairs_[:, 0])
    np.testing.assert_array_equal(views.documents[second], positives.pairs_[:, 1])
    a, b = views.sample(np.random.RandomState(0))
    assert len(a) == positives.n_pairs
    np.testing.assert_array_equal(a.numpy(), embed([docs[i] for i in positives.pairs_[:, 0]]))
    np.testing.assert_array_equal(b.numpy(), embed([docs[i] for i in positives.pairs_[:, 1]]))
    np.testing.assert_array_equal(views.document_embeddings(),
                                  embed([docs[i] for i in views.documents]))


def test_shuffle_divide_frozen_views_embed_each_documents_sentences():
    docs = ["A1. A2. A3. A4.", "B1. B2.", "C1. C2. C3. C4. C5.", "D1. D2. D3. D4. D5. D6. D7.",
            "E1. E2. E3."]
    positives = ShuffleDividePositives(min_sentences=4,
                                       sentence_splitter=split_on_periods).fit(docs)
    calls, kinds = [], []
    embed = fake_embed(calls, kinds)
    views = positives.frozen_views(embed)
    assert isinstance(views, HalfViews)
    np.testing.assert_array_equal(views.documents, [0, 2, 3])
    assert len(calls) == 1 and kinds == [True]  # each sentence embedded once
    assert calls[0] == split_on_periods(docs[0]) + split_on_periods(docs[2]) + \
        split_on_periods(docs[3])
    for row, index in enumerate(views.documents):
        sentences = split_on_periods(docs[index])
        np.testing.assert_array_equal(
            views.embeddings[views.offsets[row]:views.offsets[row + 1]].numpy(),
            embed(sentences))
        np.testing.assert_allclose(views.document_embeddings()[row],
                                   embed(sentences).mean(axis=0), rtol=1e-5, atol=1e-6)
    a, b = (half.double().numpy() for half in views.sample(np.random.RandomState(0)))
    for row, index in enumerate(views.documents):
        sentences = embed(split_on_periods(docs[index])).astype(np.float64)
        n = len(sentences)
        # The first half is the mean of n // 2 of the document's sentences.
        cuts = [sentences[list(cut)].mean(axis=0) for cut in combinations(range(n), n // 2)]
        assert min(np.abs(cut - a[row]).max() for cut in cuts) < 1e-5
        np.testing.assert_allclose(a[row] * (n // 2) + b[row] * (n - n // 2),
                                   sentences.sum(axis=0), rtol=1e-5, atol=1e-5)


def test_shuffle_divide_frozen_views_on_the_corpus(corpus):
    docs, _ = corpus
    docs = docs[::6]
    positives = ShuffleDividePositives().fit(docs, 0)
    views = positives.frozen_views(fake_embed())
    np.testing.assert_array_equal(views.documents, positives.document_indices_)
    lengths = np.diff(views.offsets)
    assert lengths.tolist() == [len(s) for s in positives.sentences_]
    assert len(set(lengths.tolist())) > 1  # documents of different sentence counts
    for row, index in enumerate(views.documents):
        assert all(sentence in docs[index] for sentence in positives.sentences_[row])


def test_max_sentences_keeps_each_documents_first_sentences():
    docs = ["A1. A2. A3. A4. A5. A6.", "B1. B2. B3. B4."]
    positives = ShuffleDividePositives(min_sentences=4,
                                       sentence_splitter=split_on_periods).fit(docs)
    calls = []
    views = positives.frozen_views(fake_embed(calls), max_sentences=5)
    assert calls == [split_on_periods(docs[0])[:5] + split_on_periods(docs[1])]
    assert np.diff(views.offsets).tolist() == [5, 4]
    assert np.diff(positives.frozen_views(fake_embed()).offsets).tolist() == [6, 4]

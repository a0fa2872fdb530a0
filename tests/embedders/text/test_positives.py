from collections import Counter

import numpy as np
import pytest

from sklearn_shufdiv.embedders._text._positives import ShuffleDividePositives, shuffle_divide
from sklearn_shufdiv.embedders._text._sentences import (
    make_sentence_splitter,
    pretrained_punkt,
    train_punkt,
)
from sklearn_shufdiv.embedders._training._engine import EpochBatches

SENTENCES = ["One fish swam.", "Two birds flew.", "Dr. Smith left at 5 p.m. today.",
             "Red cars passed.", "Blue skies shone.", "The end came."]


@pytest.mark.parametrize("n", [2, 4, 5, 6])
def test_halves_partition_the_sentences(n):
    units = SENTENCES[:n]
    a, b = shuffle_divide(units, np.random.default_rng(n))
    rejoined = Counter(a.split(" ")) + Counter(b.split(" "))
    assert rejoined == Counter(" ".join(units).split(" "))
    assert len(a) and len(b)


def test_shuffle_is_seeded_and_varies():
    draws = {shuffle_divide(SENTENCES, np.random.default_rng(seed)) for seed in range(10)}
    assert len(draws) > 5
    again = shuffle_divide(SENTENCES, np.random.default_rng(3))
    assert again == shuffle_divide(SENTENCES, np.random.default_rng(3))


def split_on_periods(text):
    return [s.strip() + "." for s in text.split(".") if s.strip()]


def test_short_documents_are_not_trained_on():
    docs = ["A. B. C. D.", "A. B. C.", "A. B. C. D. E.", "Just one."]
    sd = ShuffleDividePositives(min_sentences=4, sentence_splitter=split_on_periods).fit(docs)
    assert sd.document_indices_.tolist() == [0, 2]
    pairs = sd.sample(np.random.default_rng(0))
    assert pairs.keys_a.tolist() == [0, 2] == pairs.keys_b.tolist()
    halves = pairs.texts_a[1].split() + pairs.texts_b[1].split()
    assert sorted(halves) == ["A.", "B.", "C.", "D.", "E."]
    assert "2 of 4 documents" in sd.describe_shortage(4)


def views_by_document(batches):
    """Each document's (view a, view b), matched by its index, from an epoch's batches."""
    views = {}
    for batch in batches.batches:
        half = len(batch) // 2
        for i in range(half):
            views[int(batch.documents[i])] = (batch.texts[i], batch.texts[half + i])
    return views


def test_each_documents_views_are_redrawn_each_epoch(corpus):
    """Not only the order of the pairs changes between epochs: each document's
    own pair of halves does (views drawn from a fixed generator would fail this)."""
    docs, _ = corpus
    sd = ShuffleDividePositives(sentence_splitter=split_on_periods).fit(docs)
    batches = EpochBatches(sd, batch_size=10, seed=0)
    batches.set_epoch(1)
    first = views_by_document(batches)
    batches.set_epoch(2)
    second = views_by_document(batches)
    assert sorted(first) == sorted(second) == sd.document_indices_.tolist()
    changed = sum(first[d] != second[d] for d in first)
    # 4 to 8 sentences a document: a draw repeats with probability at most 1/24.
    assert changed >= 0.8 * len(first), changed
    for d, (view_a, view_b) in first.items():  # and each pair still partitions its document
        assert sorted(split_on_periods(view_a) + split_on_periods(view_b)) == sorted(
            split_on_periods(docs[d]))


def test_epoch_batches_redraw_views_and_are_reproducible(corpus):
    docs, _ = corpus
    sd = ShuffleDividePositives(sentence_splitter=split_on_periods).fit(docs)
    first = EpochBatches(sd, batch_size=10, seed=0)
    second = EpochBatches(sd, batch_size=10, seed=0)
    first.set_epoch(1)
    second.set_epoch(1)
    assert [b.texts for b in first.batches] == [b.texts for b in second.batches]
    epoch1 = [b.texts for b in first.batches]
    first.set_epoch(2)
    assert [b.texts for b in first.batches] != epoch1
    # 48 pairs in batches of at most 10: 5 batches of nearly equal size, each pair once.
    sizes = [len(b.keys) // 2 for b in first.batches]
    assert len(first) == 5 and max(sizes) - min(sizes) <= 1 and sum(sizes) == sd.n_pairs
    keys = np.concatenate([b.keys[: len(b.keys) // 2].numpy() for b in first.batches])
    assert sorted(keys.tolist()) == sd.document_indices_.tolist()


def test_punkt_trained_on_the_corpus_splits_sentences(corpus):
    docs, _ = corpus
    split = train_punkt(docs, random_state=0).tokenize
    assert split("Team won the cup. Fans sang loudly. Then they left.") == [
        "Team won the cup.", "Fans sang loudly.", "Then they left."]


def test_splitter_parameter(corpus):
    docs, _ = corpus
    assert make_sentence_splitter(split_on_periods, []) is split_on_periods
    split = make_sentence_splitter("auto", docs)
    assert split("Rocket won the cup. Fans sang loudly.") == [
        "Rocket won the cup.", "Fans sang loudly."]
    if pretrained_punkt() is None:
        with pytest.raises(LookupError, match="punkt-corpus"):
            make_sentence_splitter("punkt", docs)

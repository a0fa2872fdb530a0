"""Cluster descriptions: class-based TF-IDF terms and representative documents."""

import math
from collections import Counter

import numpy as np
import pytest
from conftest import TOPICS
from sklearn.feature_extraction.text import CountVectorizer

from sklearn_shufdiv.inspection import (
    class_tfidf,
    cluster_top_terms,
    representative_documents,
)


def reference_class_tfidf(documents, labels, analyzer, reduce_frequent_words=False):
    """c-TF-IDF written out term by term, from Counters."""
    clusters = sorted(set(labels))
    counts = {c: Counter() for c in clusters}
    for doc, label in zip(documents, labels):
        counts[label].update(analyzer(doc))
    total = Counter()
    for counter in counts.values():
        total.update(counter)
    words_per_cluster = sum(sum(c.values()) for c in counts.values()) / len(clusters)
    root = math.sqrt if reduce_frequent_words else (lambda x: x)
    return {c: {t: root(n / sum(counts[c].values()))
                * math.log(1 + words_per_cluster / total[t])
                for t, n in counts[c].items()} for c in clusters}


@pytest.mark.parametrize("reduce_frequent_words", [False, True])
def test_class_tfidf_matches_the_formula(corpus, reduce_frequent_words):
    docs, _ = corpus
    labels = np.random.default_rng(0).integers(0, 3, len(docs))
    weights, terms, clusters = class_tfidf(docs, labels,
                                           reduce_frequent_words=reduce_frequent_words)
    analyzer = CountVectorizer(stop_words="english").build_analyzer()
    expected = reference_class_tfidf(docs, labels.tolist(), analyzer, reduce_frequent_words)
    assert clusters.tolist() == [0, 1, 2]
    dense = weights.toarray()
    for row, cluster in enumerate(clusters):
        got = {str(terms[j]): dense[row, j] for j in np.flatnonzero(dense[row])}
        assert got.keys() == expected[cluster].keys()
        for term, value in expected[cluster].items():
            assert got[term] == pytest.approx(value, rel=1e-12)


def test_top_terms_come_from_the_cluster_topic(corpus):
    docs, labels = corpus
    names = list(TOPICS)
    top = cluster_top_terms(docs, [names[i] for i in labels], n_terms=5)
    assert set(top) == set(names)
    for name, terms in top.items():
        vocabulary = set(TOPICS[name].split())
        assert len(terms) == 5 and all(term in vocabulary for term, _ in terms), terms
        weights = [weight for _, weight in terms]
        assert weights == sorted(weights, reverse=True) and weights[-1] > 0
    # A term spread evenly over all topics (the filler "was") weighs less than any of them.
    weights, terms, _ = class_tfidf(docs, labels, vectorizer=CountVectorizer())
    filler = list(terms).index("was")
    topical = [list(terms).index(t) for t in TOPICS["sport"].split()]
    assert weights[0, filler] < weights[0, topical].toarray().min()


def test_top_terms_with_another_vectorizer():
    docs = ["new york city", "new york state", "red apple pie", "green apple pie"]
    top = cluster_top_terms(docs, [0, 0, 1, 1], n_terms=1,
                            vectorizer=CountVectorizer(ngram_range=(2, 2)))
    assert top == {0: [("new york", pytest.approx(top[0][0][1]))],
                   1: [("apple pie", pytest.approx(top[1][0][1]))]}


def test_class_tfidf_checks_the_labels():
    with pytest.raises(ValueError, match=r"one entry per document \(2\)"):
        class_tfidf(["a b", "c d"], [0, 1, 1])


def test_representative_documents_are_the_nearest_to_the_centroid():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 8))
    labels = rng.integers(0, 4, 60)
    near = representative_documents(X, labels, n_documents=3)
    unit = X / np.linalg.norm(X, axis=1, keepdims=True)
    for cluster in range(4):
        members = np.flatnonzero(labels == cluster)
        centroid = unit[members].sum(axis=0)
        cosines = unit[members] @ (centroid / np.linalg.norm(centroid))
        best = members[np.argsort(-cosines)[:3]]
        assert [i for i, _ in near[cluster]] == best.tolist()
        assert [c for _, c in near[cluster]] == pytest.approx(np.sort(cosines)[::-1][:3])
    small = representative_documents(X[:2], [0, 1], n_documents=3)
    assert small == {0: [(0, pytest.approx(1.0))], 1: [(1, pytest.approx(1.0))]}


# -- arrays of the wrong shape --------------------------------------------------------------
@pytest.mark.parametrize("n_labels", [3, 6])
def test_representative_documents_checks_the_number_of_labels(n_labels):
    labels = [0, 1] * (n_labels // 2) + [0] * (n_labels % 2)
    with pytest.raises(ValueError, match=rf"labels must have one entry per row of "
                                         rf"embeddings \(5\); got shape \({n_labels},\)"):
        representative_documents(np.eye(5, 3), labels)


def test_representative_documents_needs_rows():
    with pytest.raises(ValueError, match=r"embeddings must be a 2-D array.*shape \(3,\)"):
        representative_documents([1.0, 2.0, 3.0], [0, 1, 0])


def test_representative_documents_with_matching_lengths_is_unchanged():
    X = np.eye(5, 3) + 0.1
    near = representative_documents(X, [0, 1, 0, 1, 0], n_documents=5)
    assert sorted(i for i, _ in near[0]) == [0, 2, 4]
    assert sorted(i for i, _ in near[1]) == [1, 3]

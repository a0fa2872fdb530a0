"""Tests of the exact top-1 cosine neighbour search and TF-IDF positive mining."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.feature_extraction.text import TfidfVectorizer

from sklearn_shufdiv.embedders._text import _neighbors
from sklearn_shufdiv.embedders._text._neighbors import top1_cosine_neighbors
from sklearn_shufdiv.embedders._text._positives import (
    TfidfNeighborPairs,
    mine_tfidf_positives,
    pair_label_agreement,
)

TOL = 1e-9  # reference vs. ours; real similarity differences in these tests are >> TOL


def reference_top1(X, exclude_duplicates=True):
    """Brute force: the full cosine matrix, diagonal -inf, lowest index among the best."""
    A = X.toarray() if sp.issparse(X) else np.array(X, dtype=np.float64)
    A = A.astype(np.float64)
    norms = np.linalg.norm(A, axis=1)
    A /= np.where(norms > 0, norms, 1.0)[:, np.newaxis]
    S = A @ A.T
    np.fill_diagonal(S, -np.inf)
    has_duplicate = (S >= 1 - 1e-6).any(axis=1)
    if exclude_duplicates:
        S[S >= 1 - 1e-6] = -np.inf
    best = S.max(axis=1)
    # Lowest index among the maxima (up to rounding: ties are mathematical ties here).
    neighbors = np.argmax(S >= best[:, np.newaxis] - TOL, axis=1)
    defined = best > 1e-10  # positive beyond rounding
    return (
        np.where(defined, neighbors, -1),
        np.where(defined, best, 0.0),
        has_duplicate,
    )


def assert_matches_reference(X, exclude_duplicates=True, **kwargs):
    neighbors, similarities, has_duplicate = top1_cosine_neighbors(
        X, exclude_duplicates=exclude_duplicates, return_duplicates=True, **kwargs
    )
    ref_neighbors, ref_similarities, ref_has_duplicate = reference_top1(
        X, exclude_duplicates=exclude_duplicates
    )
    np.testing.assert_array_equal(neighbors, ref_neighbors)
    np.testing.assert_allclose(similarities, ref_similarities, rtol=0, atol=TOL)
    np.testing.assert_array_equal(has_duplicate, ref_has_duplicate)
    assert neighbors.dtype == np.intp
    assert similarities.dtype == np.float64
    assert np.all(neighbors != np.arange(len(neighbors)))
    return neighbors, similarities


def random_sparse(n, d, density, seed, integer=False):
    """Random non-negative CSR matrix with duplicated, empty and isolated rows."""
    rng = np.random.default_rng(seed)
    if integer:  # small integer counts: many exact (mathematical) ties
        X = sp.random(n, d, density=density, format="csr", random_state=rng, dtype=np.float64)
        X.data = np.ceil(X.data * 3)
    else:
        X = sp.random(n, d, density=density, format="csr", random_state=rng)
    X = X.tolil()
    X[n // 2] = X[0]  # a duplicate pair
    X[n // 3] = 0  # an empty row
    X[n - 1] = X[1] * 2.5  # a positive multiple: cosine 1, a duplicate too
    return X.tocsr()


@pytest.mark.parametrize("chunk_size", [1, 2, 7, 40, 1000, None])
@pytest.mark.parametrize("exclude_duplicates", [True, False])
@pytest.mark.parametrize("integer", [False, True])
def test_matches_reference_sparse(chunk_size, exclude_duplicates, integer):
    X = random_sparse(40, 15, 0.15, seed=0, integer=integer)
    assert_matches_reference(X, exclude_duplicates=exclude_duplicates, chunk_size=chunk_size)


@pytest.mark.parametrize(
    "dense_term_min_df",
    [
        2.0,  # no dense term columns: all-sparse products
        0.3,  # terms in >= 30% of the rows as dense columns
        0.0,  # every term in >= 2 rows as a dense column
    ],
)
@pytest.mark.parametrize("chunk_size", [1, 5, 60])
def test_block_strategies_agree(monkeypatch, dense_term_min_df, chunk_size):
    monkeypatch.setattr(_neighbors, "_DENSE_TERM_MIN_DF", dense_term_min_df)
    for seed in range(3):
        X = random_sparse(50, 12, 0.2, seed=seed, integer=bool(seed % 2))
        assert_matches_reference(X, chunk_size=chunk_size)
        assert_matches_reference(X, exclude_duplicates=False, chunk_size=chunk_size)


def test_dense_term_columns_capped_by_memory(monkeypatch):
    monkeypatch.setattr(_neighbors, "_DENSE_TERM_MIN_DF", 0.0)
    X = _neighbors._check_normalized(random_sparse(50, 12, 0.5, seed=0))
    dense_terms, rest = _neighbors._split_frequent_terms(X, working_memory=1.0)
    assert dense_terms.shape[0] == 50 and dense_terms.shape[1] + rest.shape[1] == 12
    # 3 dense columns of 50 float64 take 1200 bytes: a quarter of 4800 bytes.
    dense_terms, rest = _neighbors._split_frequent_terms(X, working_memory=4800 / 2**20)
    assert dense_terms.shape[1] == 3 and rest.shape[1] == 9
    assert_matches_reference(X, working_memory=4800 / 2**20)


@pytest.mark.parametrize("chunk_size", [1, 3, 100])
def test_dense_input_and_float32(chunk_size):
    X = random_sparse(30, 10, 0.3, seed=1, integer=True)
    expected = top1_cosine_neighbors(X)
    for Xi in (X.toarray(), X.toarray().astype(np.float32), X.astype(np.float32), X.tocsc()):
        neighbors, similarities = assert_matches_reference(Xi, chunk_size=chunk_size)
        np.testing.assert_array_equal(neighbors, expected[0])
        np.testing.assert_allclose(similarities, expected[1], atol=1e-6)


def test_signed_dense_input():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(25, 4))
    X[7] = -X[3]  # opposite directions: similarity -1, never a neighbour
    assert_matches_reference(X, chunk_size=4)
    # Two rows pointing away from each other: no positive similarity, undefined.
    neighbors, similarities = top1_cosine_neighbors(np.array([[1.0, 0.0], [-1.0, 0.0]]))
    np.testing.assert_array_equal(neighbors, [-1, -1])
    np.testing.assert_array_equal(similarities, [0.0, 0.0])
    # Orthogonal rows (similarity 0, up to rounding): undefined too.
    X = np.array([[0.1, 0.3, 0.7], [0.3, -0.1, 0.0], [0.07, 0.21, -0.1]])
    np.testing.assert_array_equal(top1_cosine_neighbors(X)[0], [-1, -1, -1])


def test_ties_lowest_index():
    # Rows 1, 2 and 4 are equally similar to row 0 (mathematically; row 4 differs from
    # rows 1 and 2 in scale only, so it is a duplicate of them, not of row 0).
    X = np.array(
        [
            [1.0, 1.0, 0.0],
            [1.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0],
            [3.0, 0.0, 0.0],
        ]
    )
    for chunk_size in (1, 2, 3, None):
        for Xi in (X, sp.csr_matrix(X)):
            neighbors, similarities = top1_cosine_neighbors(
                Xi, exclude_duplicates=False, chunk_size=chunk_size
            )
            # 1 <- 2 and 4 (its duplicates), 2 <- 1, 4 <- 1: lowest index among ties.
            np.testing.assert_array_equal(neighbors, [1, 2, 1, -1, 1])
            neighbors, similarities = top1_cosine_neighbors(Xi, chunk_size=chunk_size)
            # Duplicates excluded: 1, 2 and 4 fall back to row 0.
            np.testing.assert_array_equal(neighbors, [1, 0, 0, -1, 0])
            np.testing.assert_allclose(similarities[[0, 1, 2, 4]], np.sqrt(0.5))


def test_exact_duplicates():
    X = sp.csr_matrix(
        np.array(
            [
                [1.0, 2.0, 0.0, 0.0],
                [0.0, 1.0, 1.0, 0.0],
                [1.0, 2.0, 0.0, 0.0],  # duplicate of 0
                [0.0, 0.0, 0.0, 5.0],  # shares no term with anyone
                [0.0, 0.0, 0.0, 5.0],  # ... except its own duplicate
            ]
        )
    )
    neighbors, similarities, has_duplicate = top1_cosine_neighbors(
        X, exclude_duplicates=False, return_duplicates=True
    )
    np.testing.assert_array_equal(neighbors, [2, 0, 0, 4, 3])
    np.testing.assert_allclose(similarities[[0, 2, 3, 4]], 1.0)
    np.testing.assert_array_equal(has_duplicate, [True, False, True, True, True])
    neighbors, similarities, has_duplicate = top1_cosine_neighbors(X, return_duplicates=True)
    # The best non-identical document instead; none left for the isolated duplicate pair.
    np.testing.assert_array_equal(neighbors, [1, 0, 1, -1, -1])
    np.testing.assert_allclose(similarities[[0, 1, 2]], 2 / np.sqrt(10))
    np.testing.assert_array_equal(similarities[[3, 4]], 0.0)
    np.testing.assert_array_equal(has_duplicate, [True, False, True, True, True])


def test_empty_and_isolated_rows():
    X = sp.csr_matrix(
        np.array(
            [
                [0.0, 0.0, 0.0],  # empty
                [1.0, 0.0, 0.0],
                [1.0, 1.0, 0.0],
                [0.0, 0.0, 2.0],  # no shared term
                [0.0, 0.0, 0.0],  # empty, last
            ]
        )
    )
    neighbors, similarities = top1_cosine_neighbors(X)
    np.testing.assert_array_equal(neighbors, [-1, 2, 1, -1, -1])
    np.testing.assert_array_equal(similarities[[0, 3, 4]], 0.0)
    # All rows empty: nothing defined, no error.
    neighbors, similarities = top1_cosine_neighbors(sp.csr_matrix((4, 3)))
    np.testing.assert_array_equal(neighbors, [-1] * 4)
    np.testing.assert_array_equal(similarities, [0.0] * 4)


def test_input_not_modified_and_not_normalised_ok():
    X = random_sparse(20, 8, 0.3, seed=2)
    X_copy = X.copy()
    assert_matches_reference(X * 7.0)
    np.testing.assert_array_equal(X.toarray(), X_copy.toarray())
    A = X.toarray()
    top1_cosine_neighbors(A)
    np.testing.assert_array_equal(A, X_copy.toarray())


def test_unsorted_indices_and_explicit_duplicated_entries():
    # Column 0 stored twice in row 0 (summed), unsorted indices in row 1.
    X = sp.csr_matrix(
        (
            np.array([1.0, 1.0, 1.0, 2.0, 2.0, 1.0]),
            np.array([0, 0, 1, 1, 0, 1]),
            np.array([0, 3, 5, 6]),
        ),
        shape=(3, 2),
    )
    assert_matches_reference(X)


@pytest.mark.parametrize("working_memory", [1e-4, 0.01, 1.0, None])
def test_working_memory_blocks(working_memory):
    X = random_sparse(60, 20, 0.1, seed=4)
    assert_matches_reference(X, working_memory=working_memory)
    blocks = list(_neighbors._blocks(_neighbors._check_normalized(X), None, working_memory or 1))
    assert blocks[0][0] == 0 and blocks[-1][1] == 60
    assert all(a[1] == b[0] and a[0] < a[1] for a, b in zip(blocks, blocks[1:]))
    if working_memory == 1e-4:  # ~1.6 entries: one row per block (an empty row costs 0)
        assert len(blocks) >= 59


def test_errors():
    with pytest.raises(ValueError, match="At least 2 rows"):
        top1_cosine_neighbors(np.ones((1, 3)))
    with pytest.raises(ValueError, match="At least 2 rows"):
        top1_cosine_neighbors(sp.csr_matrix((1, 3)))
    with pytest.raises(ValueError):
        top1_cosine_neighbors(np.ones((0, 3)))
    with pytest.raises(ValueError, match="chunk_size"):
        top1_cosine_neighbors(np.ones((3, 3)), chunk_size=0)
    with pytest.raises(TypeError, match="chunk_size"):
        top1_cosine_neighbors(np.ones((3, 3)), chunk_size=2.5)
    with pytest.raises(ValueError, match="working_memory"):
        top1_cosine_neighbors(np.ones((3, 3)), working_memory=0)
    with pytest.raises(ValueError):
        top1_cosine_neighbors(np.array([[1.0, np.nan], [1.0, 0.0]]))


@settings(deadline=None)  # examples: the profile's (tests/conftest.py)
@given(
    n=st.integers(2, 25),
    d=st.integers(1, 8),
    density=st.floats(0.05, 0.9),
    seed=st.integers(0, 2**31 - 1),
    integer=st.booleans(),
    chunk_size=st.one_of(st.none(), st.integers(1, 30)),
    exclude_duplicates=st.booleans(),
    n_copies=st.integers(0, 3),
)
def test_property_matches_reference(
    n, d, density, seed, integer, chunk_size, exclude_duplicates, n_copies
):
    rng = np.random.default_rng(seed)
    A = rng.random((n, d)) * (rng.random((n, d)) < density)
    if integer:
        A = np.ceil(A * 3)
    for _ in range(n_copies):  # duplicated rows, possibly rescaled
        A[rng.integers(n)] = A[rng.integers(n)] * rng.choice([1.0, 2.0])
    X = sp.csr_matrix(A)
    assert_matches_reference(X, exclude_duplicates=exclude_duplicates, chunk_size=chunk_size)


# --- mine_tfidf_positives ------------------------------------------------------------

DOCS = [
    "the cat sat on the mat with another cat",
    "a cat and a dog on the mat",
    "stock markets fell as bond prices rose",
    "markets rallied and stock prices rose again",
    "the rocket launched into orbit around the moon",
    "a rocket reached lunar orbit",
    "stock markets fell as bond prices rose",  # duplicate of 2
    "zebra",  # no term shared
    "",  # empty
]


def test_mine_tfidf_positives(corpus):
    documents, labels = corpus
    result = mine_tfidf_positives(documents)
    assert isinstance(result, TfidfNeighborPairs)
    pairs, similarities = result
    assert pairs.dtype == np.intp and pairs.shape == (len(documents), 2)
    assert similarities.shape == (len(documents),)
    assert np.all(pairs[:, 0] != pairs[:, 1])
    assert np.all((similarities > 0) & (similarities < 1))
    assert result.n_undefined == 0 and result.n_duplicates == 0
    assert pair_label_agreement(pairs, labels) > 0.9
    assert result.vectorizer.vocabulary_


def test_mine_tfidf_positives_duplicates_and_undefined():
    result = mine_tfidf_positives(DOCS, vectorizer={"min_df": 1})
    np.testing.assert_array_equal(result.neighbors, [1, 0, 3, 2, 5, 4, 3, -1, -1])
    np.testing.assert_array_equal(result.pairs[:, 0], np.arange(7))
    np.testing.assert_array_equal(result.pairs[:, 1], result.neighbors[:7])
    np.testing.assert_array_equal(result.has_duplicate, [0, 0, 1, 0, 0, 0, 1, 0, 0])
    assert result.n_undefined == 2 and result.n_duplicates == 2
    kept = mine_tfidf_positives(DOCS, vectorizer={"min_df": 1}, exclude_duplicates=False)
    assert kept.neighbors[2] == 6 and kept.neighbors[6] == 2
    np.testing.assert_allclose(kept.similarities[[2, 6]], 1.0)


def test_mine_tfidf_positives_vectorizer_options():
    # Defaults (min_df=2 with these 9 documents) vs. a dict overriding them.
    default = mine_tfidf_positives(DOCS)
    assert default.vectorizer.min_df == 2 and default.vectorizer.sublinear_tf
    override = mine_tfidf_positives(DOCS, vectorizer={"min_df": 1, "stop_words": None})
    assert override.vectorizer.min_df == 1 and override.vectorizer.stop_words is None
    assert override.vectorizer.sublinear_tf  # other defaults kept
    # An instance is cloned (the caller's stays unfitted) and used as is.
    vectorizer = TfidfVectorizer(min_df=1)
    result = mine_tfidf_positives(DOCS, vectorizer=vectorizer)
    assert not hasattr(vectorizer, "vocabulary_")
    assert result.vectorizer is not vectorizer and result.vectorizer.vocabulary_
    assert not result.vectorizer.sublinear_tf
    # Any iterable of documents.
    from_generator = mine_tfidf_positives((d for d in DOCS), vectorizer={"min_df": 1})
    np.testing.assert_array_equal(
        from_generator.pairs, mine_tfidf_positives(DOCS, vectorizer={"min_df": 1}).pairs
    )
    # Chunking does not change the result.
    chunked = mine_tfidf_positives(DOCS, vectorizer={"min_df": 1}, chunk_size=2)
    np.testing.assert_array_equal(
        chunked.pairs, mine_tfidf_positives(DOCS, vectorizer={"min_df": 1}).pairs
    )


def test_mine_tfidf_positives_errors():
    with pytest.raises(ValueError, match="At least 2 documents"):
        mine_tfidf_positives(["only one"])
    with pytest.raises(TypeError, match="single string"):
        mine_tfidf_positives("not a list")
    with pytest.raises(TypeError, match="vectorizer"):
        mine_tfidf_positives(DOCS, vectorizer="tfidf")
    with pytest.raises(ValueError, match="empty vocabulary"):
        mine_tfidf_positives(["a", "b"])  # no token of 2 characters or more
    with pytest.raises(ValueError, match="no terms remain"):
        mine_tfidf_positives(["cat", "dog"])  # min_df=2: no word in 2 documents


# --- pair_label_agreement ------------------------------------------------------------


def test_pair_label_agreement():
    assert pair_label_agreement([[0, 1]], [3, 3]) == 1.0
    assert pair_label_agreement(np.array([[0, 1], [1, 2]]), [0, 0, 1]) == 0.5
    assert pair_label_agreement([[0, 2], [2, 1]], np.array(["x", "y", "x"])) == 0.5
    assert isinstance(pair_label_agreement([[0, 1]], [1, 2]), float)


@pytest.mark.parametrize(
    "pairs, y, match",
    [
        ([0, 1], [0, 1], "shape"),
        ([[0, 1, 2]], [0, 1, 2], "shape"),
        (np.zeros((0, 2), dtype=int), [0, 1], "empty"),
        ([[0.0, 1.0]], [0, 1], "integer"),
        ([[0, 1]], [[0, 1]], "1-dimensional"),
        ([[0, 2]], [0, 1], "outside"),
        ([[-1, 0]], [0, 1], "outside"),
    ],
)
def test_pair_label_agreement_errors(pairs, y, match):
    with pytest.raises(ValueError, match=match):
        pair_label_agreement(pairs, y)

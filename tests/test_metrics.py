"""Tests of sklearn_shufdiv.metrics: clustering accuracy and the clustering scorers."""

import contextlib
import itertools
import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.cluster import AgglomerativeClustering, KMeans
from sklearn.datasets import make_blobs
from sklearn.decomposition import TruncatedSVD
from sklearn.exceptions import DataConversionWarning
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import confusion_matrix, make_scorer, silhouette_score
from sklearn.model_selection import GridSearchCV, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_shufdiv.metrics import (
    _accuracy,
    clustering_accuracy,
    clustering_accuracy_scorer,
    make_silhouette_scorer,
    match_clusters_to_classes,
    silhouette_scorer,
)

# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------

# The number of examples is the profile's (tests/conftest.py): 40, or 1000 with
# HYPOTHESIS_PROFILE=thorough.
HYPOTHESIS = settings(deadline=None)


def brute_force_accuracy(y_true, y_pred, sample_weight=None):
    """Best one-to-one matching by trying every injection of the smaller label set."""
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    w = np.ones(len(y_true)) if sample_weight is None else np.asarray(sample_weight, float)
    classes, clusters = np.unique(y_true), np.unique(y_pred)
    overlap = np.array(
        [[w[(y_true == a) & (y_pred == b)].sum() for b in clusters] for a in classes]
    )
    if len(classes) < len(clusters):
        overlap = overlap.T
    best = max(
        sum(overlap[row, col] for col, row in enumerate(rows))
        for rows in itertools.permutations(range(overlap.shape[0]), overlap.shape[1])
    )
    return best / w.sum()


@st.composite
def labelings(draw, max_k=5, max_n=30):
    """(y_true, y_pred): int arrays of n samples in up to max_k classes and clusters."""
    n = draw(st.integers(1, max_n))
    n_classes = draw(st.integers(1, max_k))
    n_clusters = draw(st.integers(1, max_k))
    y_true = draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n))
    y_pred = draw(st.lists(st.integers(0, n_clusters - 1), min_size=n, max_size=n))
    return np.array(y_true), np.array(y_pred)


TEXT = st.text(
    alphabet=st.characters(exclude_categories=("Cs",), exclude_characters="\x00"),
    max_size=12,
)
MIXED = st.one_of(st.integers(-(2**70), 2**70), TEXT, st.none())


def relabel(y, new_labels, dtype=None):
    """Rename the labels 0..k-1 of ``y`` by ``new_labels`` (an injection)."""
    table = np.empty(len(new_labels), dtype=object)
    table[:] = list(new_labels)
    out = table[y]
    return out if dtype is None else out.astype(dtype)


def representations(y):
    """The same partition as the int array ``y``, in several dtypes and label types."""
    k = int(y.max()) + 1
    reps = {
        "int64": y,
        "int8": (y - 3).astype(np.int8),
        "uint64 wide": y.astype(np.uint64) * np.uint64(2**61) + np.uint64(7),
        "int64 wide": y * (10**15) - 10**17,
        "float": y / 4 - 1.0,
        "float32": (y * 1.5).astype(np.float32),
        "datetime": (y * 86_400).astype("M8[s]"),
        "str long": np.array([f"label number {i}" for i in range(k)])[y],
        "str short": np.array(list("abcdefghij"[:k]))[y],
        "bytes": np.array([f"lbl{i:03d}".encode() for i in range(k)])[y],
        "str 3 chars": np.array([f"{i:03d}" for i in range(k)])[y],
        "bytes 7": np.array([f"b{i:06d}".encode() for i in range(k)])[y],
        "bytes 17": np.array([f"b{i:016d}".encode() for i in range(k)])[y],
        "object mixed": relabel(y, [None, "0", 0.5, "zero", -(2**70), 3, "x", 8, 9, 10][:k]),
        # Plain sequences: numpy would make "0" and 0 one string label.
        "list str and int": relabel(y, ["0", 0, "1", 1, "x", 2.5, b"0", "2", 2, 3][:k]).tolist(),
        "tuple": tuple(y.tolist()),
    }
    if k <= 2:
        reps["bool"] = y.astype(bool)
    if hasattr(np, "dtypes") and hasattr(np.dtypes, "StringDType"):
        reps["StringDType"] = np.array([f"s{i}" for i in range(k)], dtype=np.dtypes.StringDType())[
            y
        ]
    return reps


@contextlib.contextmanager
def patched(**values):
    """Temporarily set module constants of ``_accuracy`` (hypothesis-friendly)."""
    original = {name: getattr(_accuracy, name) for name in values}
    for name, value in values.items():
        setattr(_accuracy, name, value)
    try:
        yield
    finally:
        for name, value in original.items():
            setattr(_accuracy, name, value)


def reference_accuracy(y_true, y_pred):
    """The slow reference: confusion matrix of the union of labels, then Hungarian."""
    cm = confusion_matrix(y_true, y_pred)
    rows, cols = linear_sum_assignment(cm, maximize=True)
    return cm[rows, cols].sum() / len(y_true)


# --------------------------------------------------------------------------------------
# clustering_accuracy: examples
# --------------------------------------------------------------------------------------


def test_accuracy_simple_cases():
    assert clustering_accuracy([0, 0, 1, 1], [1, 1, 0, 0]) == 1.0
    assert clustering_accuracy([0, 0, 1, 1], [0, 0, 0, 0]) == 0.5
    assert clustering_accuracy([0, 0, 0, 0], [0, 1, 2, 3]) == 0.25
    assert clustering_accuracy(["a"], ["b"]) == 1.0
    # More clusters than classes: the unmatched cluster's samples are wrong.
    assert clustering_accuracy([0, 0, 0, 1, 1, 1], [0, 0, 5, 1, 1, 1]) == pytest.approx(5 / 6)
    # More classes than clusters: the unmatched class's samples are wrong.
    assert clustering_accuracy([0, 0, 1, 1, 2, 2], [7, 7, 8, 8, 8, 8]) == pytest.approx(4 / 6)
    assert isinstance(clustering_accuracy([0, 1], [1, 0]), float)


def test_accuracy_string_labels_against_int_clusters():
    y_true = ["sport", "sport", "space", "space", "cooking", "cooking"]
    y_pred = [2, 2, 0, 1, 1, 1]
    assert clustering_accuracy(y_true, y_pred) == pytest.approx(5 / 6)
    assert clustering_accuracy(np.array(y_true, dtype=object), y_pred) == pytest.approx(5 / 6)


def test_accuracy_agrees_with_confusion_matrix_reference():
    rng = np.random.default_rng(0)
    y_true = rng.integers(0, 20, 5000)
    y_pred = np.where(rng.random(5000) < 0.7, (y_true * 7) % 20, rng.integers(0, 20, 5000))
    expected = reference_accuracy(y_true, y_pred)
    assert clustering_accuracy(y_true, y_pred) == pytest.approx(expected, abs=1e-15)
    names = np.array([f"class {i}" for i in range(20)])
    assert clustering_accuracy(names[y_true], y_pred) == pytest.approx(expected, abs=1e-15)


def test_accuracy_does_not_modify_inputs():
    y_true = np.array([3, 3, 1, 1, 2])
    y_pred = np.array([0, 0, 1, 1, 1])
    copies = y_true.copy(), y_pred.copy()
    clustering_accuracy(y_true, y_pred)
    match_clusters_to_classes(y_true, y_pred)
    np.testing.assert_array_equal(y_true, copies[0])
    np.testing.assert_array_equal(y_pred, copies[1])


def test_accuracy_column_vector_warns_like_sklearn():
    with pytest.warns(DataConversionWarning):
        assert clustering_accuracy(np.array([[0], [0], [1]]), [1, 1, 0]) == 1.0


def test_accuracy_pandas_input():
    pd = pytest.importorskip("pandas")
    y_true = pd.Series(["a", "a", "b", "b"], dtype="category")
    y_pred = pd.Series([1, 1, 0, 1])
    assert clustering_accuracy(y_true, y_pred) == 0.75


def test_accuracy_many_labels_uses_sparse_matching():
    rng = np.random.default_rng(0)
    n = 20_000  # 20_000 x 20_000 labels: far beyond the dense limit
    y_true = rng.permutation(n)
    assert clustering_accuracy(y_true, np.arange(n)) == 1.0
    assert clustering_accuracy(y_true, np.arange(n) // 2) == 0.5
    y_pred = rng.integers(0, n // 3, n)
    expected = np.unique(y_pred).size / n  # every class is a single sample
    assert clustering_accuracy(y_true, y_pred) == pytest.approx(expected)


def test_accuracy_large_input():
    rng = np.random.default_rng(0)
    y_true = rng.integers(0, 20, 1_000_000)
    y_pred = (y_true + 3) % 20
    noisy = rng.random(y_true.size) < 0.1
    y_pred[noisy] = rng.integers(0, 20, noisy.sum())
    expected = 1 - noisy.mean() * 19 / 20
    assert clustering_accuracy(y_true, y_pred) == pytest.approx(expected, abs=2e-3)


# --------------------------------------------------------------------------------------
# clustering_accuracy: properties
# --------------------------------------------------------------------------------------


@HYPOTHESIS
@given(labelings())
def test_accuracy_matches_brute_force(labels):
    y_true, y_pred = labels
    assert clustering_accuracy(y_true, y_pred) == pytest.approx(
        brute_force_accuracy(y_true, y_pred), abs=1e-12
    )


@HYPOTHESIS
@given(labelings(), st.randoms(use_true_random=False), st.data())
def test_accuracy_invariant_to_relabelling(labels, random, data):
    y_true, y_pred = labels
    expected = clustering_accuracy(y_true, y_pred)
    class_names = data.draw(st.lists(TEXT, min_size=5, max_size=5, unique=True))
    cluster_ids = data.draw(
        st.lists(st.integers(-(2**63), 2**63 - 1), min_size=5, max_size=5, unique=True)
    )
    mixed = data.draw(
        st.lists(MIXED, min_size=5, max_size=5, unique_by=lambda x: (type(x).__name__, x))
    )
    permutation = list(range(5))
    random.shuffle(permutation)
    assert clustering_accuracy(np.array(permutation)[y_true], y_pred) == expected
    assert clustering_accuracy(relabel(y_true, class_names, str), y_pred) == expected
    assert clustering_accuracy(y_true, relabel(y_pred, cluster_ids, np.int64)) == expected
    assert clustering_accuracy(relabel(y_true, mixed), relabel(y_pred, class_names)) == expected


@HYPOTHESIS
@given(labelings(), st.randoms(use_true_random=False))
def test_accuracy_invariant_to_sample_order(labels, random):
    y_true, y_pred = labels
    order = list(range(len(y_true)))
    random.shuffle(order)
    assert clustering_accuracy(y_true[order], y_pred[order]) == clustering_accuracy(y_true, y_pred)


@HYPOTHESIS
@given(labelings())
def test_accuracy_same_for_every_label_representation(labels):
    y_true, y_pred = labels
    expected = clustering_accuracy(y_true, y_pred)
    for name, y in representations(y_true).items():
        assert clustering_accuracy(y, y_pred) == expected, name
    for name, y in representations(y_pred).items():
        assert clustering_accuracy(y_true, y) == expected, name


@HYPOTHESIS
@given(labelings(), st.data())
def test_accuracy_one_for_identical_partitions(labels, data):
    y_true, _ = labels
    assert clustering_accuracy(y_true, y_true) == 1.0
    renamed = data.draw(st.lists(TEXT, min_size=5, max_size=5, unique=True))
    assert clustering_accuracy(y_true, relabel(y_true, renamed, str)) == 1.0


@HYPOTHESIS
@given(labelings())
def test_accuracy_one_only_for_identical_partitions(labels):
    y_true, y_pred = labels
    same = all(len(set(y_pred[y_true == a])) == 1 for a in np.unique(y_true)) and len(
        np.unique(y_true)
    ) == len(np.unique(y_pred))
    assert (clustering_accuracy(y_true, y_pred) == 1.0) == same


@HYPOTHESIS
@given(labelings())
def test_accuracy_bounds(labels):
    y_true, y_pred = labels
    n = len(y_true)
    accuracy = clustering_accuracy(y_true, y_pred)
    n_classes, n_clusters = len(np.unique(y_true)), len(np.unique(y_pred))
    assert 1 / n <= accuracy <= 1.0
    # The contingency matrix splits into max(n_classes, n_clusters) matchings.
    assert accuracy >= 1 / max(n_classes, n_clusters) - 1e-12
    # At least the largest cell of the contingency matrix.
    largest_cell = max(np.sum((y_true == a) & (y_pred == b)) for a, b in zip(y_true, y_pred))
    assert accuracy >= largest_cell / n - 1e-12


@HYPOTHESIS
@given(labelings())
def test_accuracy_symmetric(labels):
    # The best matching of the transposed contingency matrix is the same matching,
    # so the score is symmetric whatever the numbers of classes and clusters.
    y_true, y_pred = labels
    assert clustering_accuracy(y_true, y_pred) == clustering_accuracy(y_pred, y_true)


@HYPOTHESIS
@given(labelings(max_n=15), st.data())
def test_accuracy_integer_weights_equal_repetitions(labels, data):
    y_true, y_pred = labels
    weights = np.array(
        data.draw(st.lists(st.integers(0, 3), min_size=len(y_true), max_size=len(y_true)))
    )
    if weights.sum() == 0:
        weights[0] = 1
    expected = clustering_accuracy(np.repeat(y_true, weights), np.repeat(y_pred, weights))
    assert clustering_accuracy(y_true, y_pred, sample_weight=weights) == pytest.approx(expected)
    assert clustering_accuracy(y_true, y_pred, sample_weight=2.5) == clustering_accuracy(
        y_true, y_pred
    )


@HYPOTHESIS
@given(labelings(), st.lists(st.floats(0, 10), min_size=30, max_size=30))
def test_accuracy_weighted_matches_brute_force(labels, weights):
    y_true, y_pred = labels
    weights = np.array(weights[: len(y_true)])
    if weights.sum() <= 0:
        weights[0] = 1.0
    expected = brute_force_accuracy(y_true, y_pred, weights)
    assert clustering_accuracy(y_true, y_pred, sample_weight=weights) == pytest.approx(expected)


@pytest.mark.parametrize("max_cells", [0, 1, 4, 9])
@HYPOTHESIS
@given(labels=labelings(), weights=st.lists(st.floats(0, 10), min_size=30, max_size=30))
def test_sparse_matching_agrees_with_dense(max_cells, labels, weights):
    y_true, y_pred = labels
    weights = np.array(weights[: len(y_true)])
    if weights.sum() <= 0:
        weights[0] = 1.0
    dense = clustering_accuracy(y_true, y_pred)
    dense_weighted = clustering_accuracy(y_true, y_pred, sample_weight=weights)
    with patched(_DENSE_MAX_CELLS=max_cells):
        assert clustering_accuracy(y_true, y_pred) == pytest.approx(dense, abs=1e-12)
        assert clustering_accuracy(y_true, y_pred, sample_weight=weights) == pytest.approx(
            dense_weighted
        )


# --------------------------------------------------------------------------------------
# match_clusters_to_classes
# --------------------------------------------------------------------------------------


def test_match_example():
    mapping = match_clusters_to_classes(["a", "a", "b", "b", "c"], [5, 5, 3, 3, 9])
    assert mapping == {3: "b", 5: "a", 9: "c"}
    assert list(mapping) == [3, 5, 9]
    assert all(type(k) is int for k in mapping) and all(type(v) is str for v in mapping.values())


def test_match_leaves_out_unmatched_clusters():
    mapping = match_clusters_to_classes([0, 0, 0, 1, 1, 1], [0, 0, 2, 1, 1, 1])
    assert mapping == {0: 0, 1: 1}


def test_match_mixed_label_types():
    y_true = np.array([None, None, "x", "x", 1], dtype=object)
    y_pred = np.array(["p", "p", "q", "q", "r"])
    assert match_clusters_to_classes(y_true, y_pred) == {"p": None, "q": "x", "r": 1}


@HYPOTHESIS
@given(labelings())
def test_match_is_one_to_one_and_scores_the_accuracy(labels):
    y_true, y_pred = labels
    mapping = match_clusters_to_classes(y_true, y_pred)
    assert len(set(mapping.values())) == len(mapping)
    assert set(mapping) <= set(y_pred.tolist())
    assert set(mapping.values()) <= set(y_true.tolist())
    n_right = sum(np.sum((y_pred == cluster) & (y_true == cls)) for cluster, cls in mapping.items())
    assert n_right / len(y_true) == pytest.approx(clustering_accuracy(y_true, y_pred))
    # Every listed pair shares samples.
    assert all(np.any((y_pred == k) & (y_true == v)) for k, v in mapping.items())


# --------------------------------------------------------------------------------------
# clustering_accuracy: errors
# --------------------------------------------------------------------------------------


def test_error_different_lengths():
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        clustering_accuracy([0, 1, 1], [0, 1])


@pytest.mark.parametrize("which", ["y_true", "y_pred"])
def test_error_empty(which):
    args = {"y_true": [0, 1], "y_pred": [0, 1]}
    args[which] = []
    with pytest.raises(ValueError, match=f"{which} is empty"):
        clustering_accuracy(**args)
    with pytest.raises(ValueError, match="empty"):
        clustering_accuracy([], [])


@pytest.mark.parametrize("which", ["y_true", "y_pred"])
@pytest.mark.parametrize(
    "bad", [np.zeros((3, 2)), [[0, 1], [1, 0], [0, 0]], 3, np.zeros((3, 1, 1))]
)
def test_error_not_1d(which, bad):
    args = {"y_true": [0, 1, 1], "y_pred": [0, 1, 1]}
    args[which] = bad
    with pytest.raises(ValueError, match=f"{which} must be 1-D"):
        clustering_accuracy(**args)


def test_error_complex_labels():
    with pytest.raises(ValueError, match="Invalid y_true: Complex data not supported"):
        clustering_accuracy(np.array([1j, 2j]), [0, 1])


def test_error_nan_labels():
    with pytest.raises(ValueError, match="y_pred contains NaN or infinity"):
        clustering_accuracy([0, 1, 1], [0.0, np.nan, 1.0])
    with pytest.raises(ValueError, match="y_true contains NaN or infinity"):
        clustering_accuracy([0.0, np.inf, 1.0], [0, 1, 1])


CONTAINERS = {
    "list": list,
    "tuple": tuple,
    "object array": lambda labels: relabel(np.arange(len(labels)), labels),
    "pandas Series": lambda labels: pytest.importorskip("pandas").Series(labels, dtype=object),
}


@pytest.mark.parametrize("container", CONTAINERS)
@pytest.mark.parametrize("bad", [float("nan"), np.nan, np.float32("nan"), np.inf, -np.inf])
def test_error_nan_labels_in_every_container(container, bad):
    # Two NaN objects are two dict keys: an object array of NaNs must not count two classes.
    labels = CONTAINERS[container]([bad, float("nan") if bad != bad else bad, "a", "a"])
    with pytest.raises(ValueError, match="y_true contains NaN or infinity"):
        clustering_accuracy(labels, [0, 0, 1, 1])
    with pytest.raises(ValueError, match="y_pred contains NaN or infinity"):
        match_clusters_to_classes([0, 0, 1, 1], labels)


@pytest.mark.parametrize("container", CONTAINERS)
def test_mixed_str_and_int_labels_are_distinct_in_every_container(container):
    # One rule: labels are equal when equal as Python values, so "1" and 1 are two labels
    # (numpy turned a list ["1", 1] into the strings "1", "1": 0.5 here, 1.0 for arrays).
    labels = CONTAINERS[container](["1", 1, "1", 1, 2])
    assert clustering_accuracy(labels, [0, 1, 0, 1, 2]) == 1.0
    assert clustering_accuracy(labels, [0, 0, 0, 0, 2]) == 0.6
    assert match_clusters_to_classes(labels, [5, 6, 5, 6, 7]) == {5: "1", 6: 1, 7: 2}


def test_error_unhashable_labels():
    y = np.empty(2, dtype=object)
    y[:] = [[1], [2]]
    with pytest.raises(ValueError, match="hashable"):
        clustering_accuracy(y, [0, 1])


def test_error_sample_weight():
    with pytest.raises(ValueError, match="non-negative"):
        clustering_accuracy([0, 1], [0, 1], sample_weight=[1, -1])
    with pytest.raises(ValueError, match="sums to zero"):
        clustering_accuracy([0, 1], [0, 1], sample_weight=[0, 0])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        clustering_accuracy([0, 1], [0, 1], sample_weight=[1, 1, 1])


def test_match_errors_like_accuracy():
    with pytest.raises(ValueError, match="y_true is empty"):
        match_clusters_to_classes([], [])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        match_clusters_to_classes([0], [0, 1])


# --------------------------------------------------------------------------------------
# Scorers
# --------------------------------------------------------------------------------------


class RandomClusterer(ClusterMixin, BaseEstimator):
    """A bad clusterer: random labels, whatever the data."""

    def __init__(self, n_clusters=3, random_state=0):
        self.n_clusters = n_clusters
        self.random_state = random_state

    def fit(self, X, y=None):
        self.labels_ = self.predict(X)
        return self

    def predict(self, X):
        rng = np.random.default_rng(self.random_state)
        return rng.integers(0, self.n_clusters, len(X))


class FixedClusterer(ClusterMixin, BaseEstimator):
    """Transductive: labels_ only (no predict), all in one cluster unless told."""

    def __init__(self, labels=None):
        self.labels = labels

    def fit(self, X, y=None):
        n = len(X)
        self.labels_ = np.zeros(n, dtype=int) if self.labels is None else np.asarray(self.labels)
        return self


@pytest.fixture(scope="module")
def blobs():
    """Four well-separated blobs in directions apart (for the cosine silhouette)."""
    X, y = make_blobs(n_samples=200, centers=8 * np.eye(4, 6), cluster_std=1.0, random_state=0)
    return X, y


def test_accuracy_scorer_value(blobs):
    X, y = blobs
    kmeans = KMeans(n_clusters=4, n_init=4, random_state=0).fit(X)
    expected = clustering_accuracy(y, kmeans.predict(X))
    assert clustering_accuracy_scorer(kmeans, X, y) == expected
    assert expected > 0.95
    # sklearn's make_scorer gives the same for clusterers with predict.
    assert make_scorer(clustering_accuracy)(kmeans, X, y) == expected
    pipe = make_pipeline(StandardScaler(), KMeans(n_clusters=4, n_init=4, random_state=0)).fit(X)
    assert clustering_accuracy_scorer(pipe, X, y) == clustering_accuracy(y, pipe.predict(X))


def test_accuracy_scorer_needs_y(blobs):
    X, _ = blobs
    kmeans = KMeans(n_clusters=4, n_init=2, random_state=0).fit(X)
    with pytest.raises(ValueError, match="needs the true labels y"):
        clustering_accuracy_scorer(kmeans, X)
    with pytest.raises(ValueError, match="needs the true labels y"):
        clustering_accuracy_scorer(kmeans, X, None)


def test_scorers_order_good_above_bad(blobs):
    X, y = blobs
    good = KMeans(n_clusters=4, n_init=4, random_state=0).fit(X)
    bad = RandomClusterer(n_clusters=4).fit(X)
    assert clustering_accuracy_scorer(good, X, y) > clustering_accuracy_scorer(bad, X, y)
    assert silhouette_scorer(good, X) > silhouette_scorer(bad, X)
    assert silhouette_scorer(good, X) > 0.8
    assert silhouette_scorer(bad, X) < 0.1


def test_accuracy_scorer_in_grid_search_and_cross_validate(blobs):
    X, y = blobs
    search = GridSearchCV(
        KMeans(n_init=4, random_state=0),
        {"n_clusters": [2, 3, 4, 5, 6]},
        scoring=clustering_accuracy_scorer,
        cv=3,
    ).fit(X, y)
    assert search.best_params_ == {"n_clusters": 4}
    scores = cross_validate(
        KMeans(n_clusters=4, n_init=4, random_state=0),
        X,
        y,
        cv=3,
        scoring={"accuracy": clustering_accuracy_scorer, "silhouette": silhouette_scorer},
    )
    assert scores["test_accuracy"].min() > 0.95
    assert scores["test_silhouette"].min() > 0.8


def test_silhouette_scorer_is_silhouette_in_clusterer_space(blobs):
    X, _ = blobs
    pipe = make_pipeline(
        StandardScaler(), TruncatedSVD(n_components=3, random_state=0), KMeans(4, n_init=4)
    ).fit(X)
    Xt = pipe[:-1].transform(X)
    expected = silhouette_score(Xt, pipe.predict(X), metric="cosine")
    assert silhouette_scorer(pipe, X) == pytest.approx(expected)
    assert make_silhouette_scorer(metric="euclidean")(pipe, X) == pytest.approx(
        silhouette_score(Xt, pipe.predict(X), metric="euclidean")
    )
    # A bare clusterer: X itself; a one-step pipeline likewise.
    kmeans = KMeans(4, n_init=4, random_state=0).fit(X)
    expected = silhouette_score(X, kmeans.predict(X), metric="cosine")
    assert silhouette_scorer(kmeans, X) == pytest.approx(expected)
    assert silhouette_scorer(make_pipeline(kmeans).fit(X), X) == pytest.approx(expected)


def test_silhouette_scorer_ignores_y(blobs):
    X, y = blobs
    kmeans = KMeans(4, n_init=4, random_state=0).fit(X)
    assert silhouette_scorer(kmeans, X, y) == silhouette_scorer(kmeans, X)


def test_silhouette_scorer_sparse_text(corpus):
    docs, y = corpus
    pipe = make_pipeline(TfidfVectorizer(), KMeans(4, n_init=10, random_state=0)).fit(docs)
    Xt = pipe[:-1].transform(docs)
    assert silhouette_scorer(pipe, docs) == pytest.approx(
        silhouette_score(Xt, pipe.predict(docs), metric="cosine")
    )
    assert clustering_accuracy_scorer(pipe, docs, y) > 0.9


def test_silhouette_sample_size(blobs):
    X, _ = blobs
    kmeans = KMeans(4, n_init=4, random_state=0).fit(X)
    labels = kmeans.predict(X)
    scorer = make_silhouette_scorer(sample_size=50, random_state=0)
    value = scorer(kmeans, X)
    # Reproducible with an int seed, and the sample silhouette_score draws.
    assert scorer(kmeans, X) == value
    assert value == pytest.approx(
        silhouette_score(X, labels, metric="cosine", sample_size=50, random_state=0)
    )
    full = silhouette_scorer(kmeans, X)
    assert value != full
    others = {make_silhouette_scorer(sample_size=50, random_state=s)(kmeans, X) for s in range(5)}
    assert len(others) > 1
    # The sample is respected: the silhouette is computed on 50 points only.
    rng = np.random.RandomState(0)
    idx = rng.permutation(len(X))[:50]
    assert value == pytest.approx(silhouette_score(X[idx], labels[idx], metric="cosine"))
    # A RandomState instance draws a new sample on each call.
    scorer = make_silhouette_scorer(sample_size=50, random_state=np.random.RandomState(0))
    assert len({scorer(kmeans, X) for _ in range(5)}) > 1
    # A sample as large as the data: all of it.
    assert make_silhouette_scorer(sample_size=len(X), random_state=0)(kmeans, X) == full
    assert make_silhouette_scorer(sample_size=10**6)(kmeans, X) == full


def test_silhouette_undefined_is_worst(blobs):
    X, _ = blobs
    one = KMeans(n_clusters=1, n_init=1, random_state=0).fit(X)
    assert silhouette_scorer(one, X) == -1.0
    X_small = X[:6]
    every = KMeans(n_clusters=6, n_init=1, random_state=0).fit(X_small)
    assert silhouette_scorer(every, X_small) == -1.0
    # A sample with one cluster only.
    two = FixedClusterer(labels=[0] * 199 + [1]).fit(X)
    assert make_silhouette_scorer(sample_size=2, random_state=1)(two, X) == -1.0


def test_silhouette_grid_search_without_labels(blobs):
    X, _ = blobs
    pipe = make_pipeline(
        TruncatedSVD(n_components=4, random_state=0), KMeans(n_init=4, random_state=0)
    )
    all_idx = np.arange(len(X))
    search = GridSearchCV(
        pipe,
        {"kmeans__n_clusters": [1, 2, 3, 4, 5, 6, 8]},
        scoring=silhouette_scorer,
        cv=[(all_idx, all_idx)],
    ).fit(X)
    assert search.best_params_ == {"kmeans__n_clusters": 4}
    assert search.cv_results_["mean_test_score"][0] == -1.0  # one cluster: undefined
    search = GridSearchCV(
        pipe,
        {"kmeans__n_clusters": [2, 3, 4, 5, 6]},
        scoring=make_silhouette_scorer(sample_size=100, random_state=0),
        cv=[(all_idx, all_idx)],
    ).fit(X)
    assert search.best_params_ == {"kmeans__n_clusters": 4}


def test_transductive_clusterer_scored_from_labels(blobs):
    X, y = blobs
    pipe = make_pipeline(StandardScaler(), AgglomerativeClustering())
    assert not hasattr(pipe, "predict")
    all_idx = np.arange(len(X))
    search = GridSearchCV(
        pipe,
        {"agglomerativeclustering__n_clusters": [2, 3, 4, 5]},
        scoring={"silhouette": silhouette_scorer, "accuracy": clustering_accuracy_scorer},
        refit="silhouette",
        cv=[(all_idx, all_idx)],
    ).fit(X, y)
    assert search.best_params_ == {"agglomerativeclustering__n_clusters": 4}
    fitted = search.best_estimator_
    labels = fitted[-1].labels_
    assert silhouette_scorer(fitted, X) == pytest.approx(
        silhouette_score(fitted[:-1].transform(X), labels, metric="cosine")
    )
    assert clustering_accuracy_scorer(fitted, X, y) == clustering_accuracy(y, labels)
    # Other data than the training data cannot be scored.
    with pytest.raises(ValueError, match="transductive"):
        silhouette_scorer(fitted, X[:50])
    with pytest.raises(ValueError, match="transductive"):
        clustering_accuracy_scorer(fitted, X[:50], y[:50])


def test_scorer_on_non_clusterer(blobs):
    X, y = blobs
    scaler = StandardScaler().fit(X)
    with pytest.raises(TypeError, match="neither a predict method nor a labels_"):
        silhouette_scorer(scaler, X)
    with pytest.raises(TypeError, match="neither a predict method nor a labels_"):
        clustering_accuracy_scorer(scaler, X, y)


def test_scorer_repr_and_pickle():
    assert repr(clustering_accuracy_scorer) == "clustering_accuracy_scorer"
    assert repr(silhouette_scorer) == (
        "make_silhouette_scorer(metric='cosine', sample_size=None, random_state=None)"
    )
    scorer = make_silhouette_scorer(metric="euclidean", sample_size=100, random_state=3)
    assert repr(scorer) == (
        "make_silhouette_scorer(metric='euclidean', sample_size=100, random_state=3)"
    )
    assert pickle.loads(pickle.dumps(clustering_accuracy_scorer)) is clustering_accuracy_scorer
    copy = pickle.loads(pickle.dumps(scorer))
    assert (copy.metric, copy.sample_size, copy.random_state) == ("euclidean", 100, 3)


@pytest.mark.parametrize("sample_size", [0, 1, 2.5, True, "10"])
def test_make_silhouette_scorer_rejects_bad_sample_size(sample_size):
    with pytest.raises(ValueError, match="sample_size"):
        make_silhouette_scorer(sample_size=sample_size)


def test_make_silhouette_scorer_rejects_bad_metric():
    with pytest.raises(TypeError, match="metric"):
        make_silhouette_scorer(metric=3)


def test_no_warnings_in_plain_use(blobs):
    X, y = blobs
    kmeans = KMeans(4, n_init=4, random_state=0).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clustering_accuracy_scorer(kmeans, X, y)
        silhouette_scorer(kmeans, X)
        clustering_accuracy(y, kmeans.labels_)


def test_cosine_silhouette_is_sklearns_and_nan_when_undefined(blobs):
    from sklearn_shufdiv.metrics import cosine_silhouette

    X, y = blobs
    assert cosine_silhouette(X, y) == pytest.approx(silhouette_score(X, y, metric="cosine"))
    sampled = cosine_silhouette(X, y, sample_size=50, random_state=3)
    assert sampled == pytest.approx(
        silhouette_score(X, y, metric="cosine", sample_size=50, random_state=3))
    assert sampled != pytest.approx(cosine_silhouette(X, y))
    assert np.isnan(cosine_silhouette(X, np.zeros(len(X), dtype=int)))
    assert np.isnan(cosine_silhouette(X[:3], [0, 1, 2]))  # as many clusters as samples

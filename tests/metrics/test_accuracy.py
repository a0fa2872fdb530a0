"""Tests of clustering_accuracy and match_clusters_to_classes."""

import contextlib
import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment
from sklearn.exceptions import DataConversionWarning
from sklearn.metrics import confusion_matrix

from sklearn_shufdiv.metrics import (
    _accuracy,
    clustering_accuracy,
    match_clusters_to_classes,
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
# clustering_accuracy: labels of every kind
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("y", [
    np.array(["2020-01-01", "NaT", "2020-01-01", "NaT"], dtype="datetime64[D]"),
    np.array([1, "NaT", 1, "NaT"], dtype="timedelta64[s]"),
    [np.datetime64("2020-01-01"), np.datetime64("NaT"), np.datetime64("2020-01-01"),
     np.datetime64("NaT")],
    pd.Series(pd.to_datetime(["2020-01-01", None, "2020-01-01", None])),
], ids=["datetime64", "timedelta64", "list", "series"])
def test_clustering_accuracy_rejects_nat_as_it_rejects_nan(y):
    for args in ((y, [0, 0, 1, 1]), ([0, 0, 1, 1], y)):
        name = "y_true" if args[0] is y else "y_pred"
        with pytest.raises(ValueError, match=rf"{name} contains NaT"):
            clustering_accuracy(*args)
    with pytest.raises(ValueError, match="y_true contains NaN"):
        clustering_accuracy([0.0, np.nan, 0.0, np.nan], [0, 0, 1, 1])


def test_clustering_accuracy_of_dates_without_nat_is_unchanged():
    y = np.array(["2020-01-01", "2021-01-01", "2020-01-01", "2021-01-01"],
                 dtype="datetime64[D]")
    assert clustering_accuracy(y, [0, 1, 0, 0]) == 0.75


@pytest.mark.parametrize("y_true", [
    [(1, "a"), (1, "a"), 3, 3],
    [(1, "a"), (1, "a"), (2, "b"), (2, "b")],
    ((1, "a"), (1, "a"), "x", "x"),
], ids=["tuples-and-scalars", "tuples", "tuple-container"])
def test_clustering_accuracy_takes_tuples_as_labels(y_true):
    expected = np.empty(4, dtype=object)
    for i, label in enumerate(y_true):
        expected[i] = label
    assert clustering_accuracy(y_true, [0, 0, 1, 1]) == clustering_accuracy(
        expected, [0, 0, 1, 1]) == 1.0
    assert clustering_accuracy(y_true, [0, 1, 1, 1]) == 0.75
    assert clustering_accuracy([0, 1, 1, 1], y_true) == 0.75


def test_a_list_of_lists_is_still_two_dimensional():
    with pytest.raises(ValueError, match=r"y_true must be 1-D, got an input of shape \(2, 2\)"):
        clustering_accuracy([[0, 1], [1, 0]], [0, 1])

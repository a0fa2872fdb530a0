"""Array arguments of the public functions: lengths that do not match, missing values of
every kind, labels of any hashable type."""

import numpy as np
import pandas as pd
import pytest

from sklearn_shufdiv.inspection import representative_documents
from sklearn_shufdiv.metrics import clustering_accuracy


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

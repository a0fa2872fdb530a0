"""Array arguments of the public functions: lengths that do not match, missing values of
every kind, labels of any hashable type."""

import numpy as np
import pytest

from sklearn_shufdiv.inspection import representative_documents


@pytest.mark.parametrize("n_labels", [3, 6])
def test_representative_documents_checks_the_number_of_labels(n_labels):
    labels = [0, 1] * (n_labels // 2) + [0] * (n_labels % 2)
    # Before: 3 labels for 5 rows answered from the first 3 rows; 6 gave an IndexError.
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

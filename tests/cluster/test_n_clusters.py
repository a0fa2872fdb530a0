"""Tests of the number of clusters without labels: choose_n_clusters and n_clusters="auto"."""

import itertools
import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import sphere_blobs
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_shufdiv.cluster import (
    NClustersCriterion,
    SphericalKMeans,
    choose_n_clusters,
    spherical_kmeans,
)
from sklearn_shufdiv.cluster import _stability as stability
from sklearn_shufdiv.cluster._n_clusters import count_distinct_directions
from sklearn_shufdiv.cluster._numerics import scaled_rows


class Largest(NClustersCriterion):
    """A toy criterion through the public protocol: the largest candidate wins."""

    name = "largest"

    def choose(self, sample, ks, random_state, verbose=0):
        return {"score": ks.astype(float), "draws": sample.weights.sum()}, int(ks[-1])


def test_disagreement_is_the_best_matching_by_brute_force():
    rng = np.random.default_rng(0)
    for k in (2, 3, 4):
        a, b, w = rng.integers(k, size=50), rng.integers(k, size=50), rng.uniform(size=50)
        best = max(w[np.array(perm)[a] == b].sum() for perm in itertools.permutations(range(k)))
        assert stability._disagreement(a, b, w, k) == pytest.approx(1 - best / w.sum())
    # Random labellings into k classes disagree on about 1 - 1/k of the rows (a bit less:
    # the best matching profits from chance).
    for k in (2, 5):
        random = stability._random_disagreement(5000, k, np.random.RandomState(0))
        assert 1 - 1 / k - 0.05 < random < 1 - 1 / k


def test_stability_is_one_where_halves_agree_and_normalised_by_random_labels():
    X, _ = sphere_blobs(4, n_samples=200)
    _, scores = choose_n_clusters(X, k_range=(2, 6), k_selection="stability", random_state=0)
    assert scores.score[2] == 1.0 and scores.score_std[2] == 0.0  # k = 4
    assert (scores.score[[0, 1, 3, 4]] < 1).all()


def test_fitted_attributes_and_function():
    X, _ = sphere_blobs(3)
    model = SphericalKMeans("auto", k_range=(2, 6), random_state=0).fit(X)
    assert model.n_clusters_ == 3 and model.cluster_centers_.shape == (3, X.shape[1])
    assert np.unique(model.labels_).size == 3 and model.transform(X).shape == (len(X), 3)
    scores = model.n_clusters_scores_
    assert set(scores) >= {"k", "score", "criterion", "n_clusters", "runner_up"}
    assert scores.k.tolist() == [2, 3, 4, 5, 6] and scores.n_clusters == 3
    second = scores.k[np.argsort(np.nan_to_num(scores.score, nan=-np.inf))[-2]]
    assert scores.runner_up == second != 3
    centers, labels, inertia = spherical_kmeans(X, "auto", k_range=(2, 6), random_state=0)
    np.testing.assert_array_equal(labels, model.labels_)
    assert inertia == model.inertia_
    fixed = SphericalKMeans(3, random_state=0).fit(X)
    assert fixed.n_clusters_ == 3 and fixed.n_clusters_scores_ is None


def test_int_n_clusters_ignores_the_search_parameters():
    X, _ = sphere_blobs(3, spread=0.4)
    plain = SphericalKMeans(4, random_state=0).fit(X)
    other = SphericalKMeans(4, k_range=(5, 9), k_selection=Largest(), random_state=0).fit(X)
    np.testing.assert_array_equal(plain.labels_, other.labels_)
    np.testing.assert_array_equal(plain.cluster_centers_, other.cluster_centers_)


@pytest.mark.parametrize("k_selection", ["stability", "largest"])
def test_same_random_state_same_choice_and_labels(k_selection):
    k_selection = Largest() if k_selection == "largest" else k_selection
    X, _ = sphere_blobs(4, n_samples=300, spread=0.35)
    first, second = (SphericalKMeans("auto", k_range=(2, 8), k_selection=k_selection,
                                     random_state=np.random.RandomState(7)).fit(X)
                     for _ in range(2))
    assert first.n_clusters_ == second.n_clusters_
    np.testing.assert_array_equal(first.labels_, second.labels_)
    np.testing.assert_array_equal(first.n_clusters_scores_.score,
                                  second.n_clusters_scores_.score)


def test_large_input_is_sampled_and_sparse_input_agrees():
    X, _ = sphere_blobs(5, n_samples=3000)
    k, scores = choose_n_clusters(X, k_range=(2, 8), sample_size=500, random_state=0)
    assert k == 5
    k_sparse, sparse = choose_n_clusters(sp.csr_matrix(X), k_range=(2, 8), sample_size=500,
                                         random_state=0)
    assert k_sparse == 5
    np.testing.assert_allclose(sparse.score, scores.score, atol=1e-8)


def test_clone_and_get_params():
    model = SphericalKMeans("auto", k_range=(3, 7), k_selection=Largest(), random_state=2)
    copy = clone(model)
    assert copy.get_params()["k_range"] == (3, 7)
    assert isinstance(copy.k_selection, Largest) and copy.k_selection is not model.k_selection
    assert copy.set_params(k_selection="stability").k_selection == "stability"
    X, _ = sphere_blobs(3, n_samples=60)
    fitted = pickle.loads(pickle.dumps(model.fit(X)))
    assert fitted.n_clusters_ == 7 and fitted.n_clusters_scores_.criterion == "largest"


@pytest.mark.parametrize("k_range, match", [
    ((), r"k_range must be a pair"),
    ((3,), r"k_range must be a pair"),
    ((2.0, 4), r"k_range must be a pair"),
    ((5, 3), r"k_range=\(5, 3\) must satisfy 2 <= min <= max"),
    ((1, 4), r"k_range=\(1, 4\) must satisfy 2 <= min <= max"),
    ((2, 6), r"k_range=\(2, 6\) reaches the 6 distinct directions"),
])
def test_bad_k_range_raises(k_range, match):
    X = np.vstack([np.eye(6), np.eye(6)[:2]])  # 8 rows, 6 distinct
    with pytest.raises(ValueError, match=match):
        SphericalKMeans("auto", k_range=k_range).fit(X)
    with pytest.raises(ValueError, match=match):
        choose_n_clusters(X, k_range=k_range)


def test_default_k_range_stays_below_the_distinct_directions():
    X = np.repeat(np.eye(5), 10, axis=0) + 0.01 * np.random.default_rng(0).random((50, 5))
    assert choose_n_clusters(X[:5], random_state=0)[1].k.tolist() == [2, 3, 4]
    copies = np.repeat(np.eye(4), 20, axis=0)  # 80 rows, 4 distinct
    assert choose_n_clusters(copies, random_state=0)[1].k.tolist() == [2, 3]
    with pytest.raises(ValueError, match="X has 2 distinct direction"):
        SphericalKMeans("auto").fit(np.repeat(np.eye(3)[:2], 4, axis=0))


def test_count_distinct_directions_dense_and_sparse():
    X = np.array([[1.0, 0], [1.0, 0], [2.0, 0], [0, 0], [0, -0.0], [0, 3.0], [1.0, 1.0]])
    mass = np.array([1, 1, 1, 0, 0, 0, 1.0])  # zero rows and rows of weight 0 left out
    X, inv_norm = scaled_rows(X)
    assert count_distinct_directions(X, inv_norm, mass) == 2  # [1, 0] and [1, 1]
    X, inv_norm = scaled_rows(sp.csr_matrix(X))
    assert count_distinct_directions(X, inv_norm, mass) == 2


def test_partial_fit_chooses_on_the_first_batch():
    X, _ = sphere_blobs(3, n_samples=300)
    model = SphericalKMeans("auto", k_range=(2, 6), random_state=0)
    first = model.partial_fit(X[:150]).n_clusters_scores_
    expected = choose_n_clusters(X[:150], k_range=(2, 6), random_state=0)
    assert model.n_clusters_ == expected[0] == 3
    np.testing.assert_array_equal(first.score, expected[1].score)
    model.partial_fit(X[150:])  # later batches keep the choice
    assert model.n_clusters_ == 3 and model.n_clusters_scores_ is first
    assert model.cluster_centers_.shape[0] == 3


def test_auto_with_given_centers_or_bad_parameters_raises():
    X, _ = sphere_blobs(3)
    with pytest.raises(ValueError, match="init as an array"):
        SphericalKMeans("auto", init=X[:3]).fit(X)
    with pytest.raises(ValueError, match="'k_selection' parameter"):
        SphericalKMeans("auto", k_selection="elbow").fit(X)
    with pytest.raises(ValueError, match="'k_selection' parameter"):
        SphericalKMeans("auto", k_selection=len).fit(X)
    with pytest.raises(ValueError, match="'n_clusters' parameter"):
        SphericalKMeans("many").fit(X)


def test_verbose_shows_progress(capsys):
    X, _ = sphere_blobs(3, n_samples=60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        choose_n_clusters(X, k_range=(2, 4), verbose=1, random_state=0)
        assert "modularity:" in capsys.readouterr().err
        choose_n_clusters(X, k_range=(2, 4), k_selection="stability", verbose=1,
                          random_state=0)
        assert "splits:" in capsys.readouterr().err
        choose_n_clusters(X, k_range=(2, 4), random_state=0)
        assert capsys.readouterr().err == ""


@parametrize_with_checks([SphericalKMeans("auto", n_init=1, k_range=None)])
def test_sklearn_estimator_checks_with_auto(estimator, check):
    check(estimator)


def test_a_criterion_object_plugs_in_through_the_protocol():
    X, _ = sphere_blobs(3, n_samples=60)
    k, scores = choose_n_clusters(X, k_range=(2, 5), k_selection=Largest(), random_state=0)
    assert k == 5 == scores.n_clusters and scores.criterion == "largest"
    assert scores.score.tolist() == [2, 3, 4, 5] and scores.runner_up == 4
    assert scores.draws == 60
    model = SphericalKMeans("auto", k_range=(2, 5), k_selection=Largest(), random_state=0)
    assert model.fit(X).n_clusters_ == 5

    class Smallest(Largest):
        greater_is_better = False

        def choose(self, sample, ks, random_state, verbose=0):
            return {"score": ks.astype(float)}, int(ks[0])

    assert choose_n_clusters(X, k_range=(2, 5), k_selection=Smallest())[1].runner_up == 3


def test_a_criterion_choosing_outside_the_candidates_is_an_error():
    class Outside(Largest):
        def choose(self, sample, ks, random_state, verbose=0):
            return {"score": ks.astype(float)}, 99

    with pytest.raises(ValueError, match=r"chose k=99, which is not one of the candidates"):
        choose_n_clusters(sphere_blobs(3, n_samples=60)[0], k_range=(2, 5),
                          k_selection=Outside())


def blobs(n_blobs, size, n_features=10):
    """``n_blobs`` tight blobs of ``size`` points around orthogonal directions."""
    noise = 0.05 * np.random.default_rng(0).standard_normal((n_blobs * size, n_features))
    return np.repeat(np.eye(n_features)[:n_blobs], size, axis=0) + noise


@pytest.mark.parametrize("n_blobs, size", [(3, 6), (5, 6)])
def test_every_point_its_own_cluster_is_never_a_candidate(n_blobs, size):
    X = blobs(n_blobs, size)
    _, scores = choose_n_clusters(X, random_state=0)
    assert scores.k.max() == min(30, len(X) - 1)
    with pytest.raises(ValueError, match=f"lower its max to at most {len(X) - 1}"):
        choose_n_clusters(X, k_range=(2, len(X)))


def test_rows_differing_only_in_length_are_one_direction():
    X = np.vstack([[1.0, 0, 0, 1], [0, 1, 1, 0], [1, 1, 0, 0]] * 6) * np.arange(1, 19)[:, None]
    for rows in (X, sp.csr_matrix(X)):
        with pytest.warns(UserWarning, match="X has 3 distinct directions"):
            _, scores = choose_n_clusters(rows, random_state=0)
        assert scores.k.tolist() == [2]  # only k = 2 is below the 3 directions
    with pytest.raises(ValueError, match="X has 2 distinct direction"):
        SphericalKMeans("auto", random_state=0).fit(X[np.arange(18) % 3 < 2])


def test_fractional_weights_whose_scale_changes_the_sample_warn():
    X = blobs(3, 10, n_features=6)
    with pytest.warns(UserWarning, match=r"sample_weight is read as counts.*sample_size=2000"):
        choose_n_clusters(X, sample_weight=np.full(30, 2.5), k_range=(2, 6), random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for weight in (1.0, 0.01, 10.0):  # each row once, or whole copies of it
            choose_n_clusters(X, sample_weight=np.full(30, weight), k_range=(2, 6),
                              random_state=0)
        choose_n_clusters(X, sample_weight=np.full(30, 2.5), k_range=(2, 6), sample_size=20,
                          random_state=0)


def test_weights_of_one_scale_give_one_choice_once_the_sample_is_full():
    X = blobs(3, 10, n_features=6)
    choices = [choose_n_clusters(X, sample_weight=np.full(30, weight), k_range=(2, 6),
                                 sample_size=20, random_state=0) for weight in (0.5, 1, 10)]
    for k, scores in choices[1:]:
        assert k == choices[0][0] == 3
        np.testing.assert_array_equal(scores.score, choices[0][1].score)


def test_a_single_default_candidate_is_returned_unscored_with_a_warning():
    X = blobs(3, 1)  # 3 documents: only k = 2 is below their directions
    with pytest.warns(UserWarning, match=r"k=2, the only candidate below them, is returned "
                                         r"unscored\. Pass an int n_clusters"):
        k, scores = choose_n_clusters(X, random_state=0)
    assert k == 2 and scores.runner_up is None and np.isnan(scores.score).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a range of one asked for: no warning
        assert choose_n_clusters(blobs(3, 5), k_range=(3, 3))[0] == 3


def test_no_candidate_scored_is_an_error_naming_sample_size():
    X = blobs(3, 10, n_features=6)
    with pytest.raises(ValueError, match=r"could score none of the candidates 2 to 29 on a "
                                         r"sample of 2 draws: raise sample_size"):
        choose_n_clusters(X, sample_size=2, random_state=0)

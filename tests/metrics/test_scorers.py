"""Tests of the scorers of sklearn_shufdiv.metrics in the clusterer's own space, and of
cosine_silhouette."""

import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.cluster import AgglomerativeClustering, KMeans
from sklearn.datasets import make_blobs
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import make_scorer, silhouette_score
from sklearn.metrics.pairwise import cosine_distances
from sklearn.model_selection import GridSearchCV, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_shufdiv.metrics import (
    clustering_accuracy,
    clustering_accuracy_scorer,
    cosine_silhouette,
    make_silhouette_scorer,
    silhouette_scorer,
)

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
    X, y = blobs
    assert cosine_silhouette(X, y) == pytest.approx(silhouette_score(X, y, metric="cosine"))
    sampled = cosine_silhouette(X, y, sample_size=50, random_state=3)
    assert sampled == pytest.approx(
        silhouette_score(X, y, metric="cosine", sample_size=50, random_state=3))
    assert sampled != pytest.approx(cosine_silhouette(X, y))
    assert np.isnan(cosine_silhouette(X, np.zeros(len(X), dtype=int)))
    assert np.isnan(cosine_silhouette(X[:3], [0, 1, 2]))  # as many clusters as samples


# --------------------------------------------------------------------------------------
# Inputs of every container, with sample_size
# --------------------------------------------------------------------------------------

CONTAINERS = {
    "list": lambda X: X.tolist(),
    "tuple": lambda X: tuple(map(tuple, X)),
    "coo": sp.coo_matrix,
    "csc": sp.csc_matrix,
    "lil": sp.lil_matrix,
    "dia": sp.dia_matrix,
    "coo_array": sp.coo_array,
}


@pytest.fixture(scope="module")
def three_blobs():
    """Three tight blobs of 10 points in 6 dimensions, and a fitted k-means of them."""
    rng = np.random.default_rng(0)
    X = np.repeat(np.eye(6)[:3], 10, 0) + 0.05 * rng.standard_normal((30, 6))
    return X, KMeans(3, n_init=2, random_state=0).fit(X)


@pytest.mark.parametrize("container", CONTAINERS.values(), ids=CONTAINERS.keys())
def test_cosine_silhouette_samples_rows_of_every_container(three_blobs, container):
    X, kmeans = three_blobs
    expected = cosine_silhouette(X, kmeans.labels_, sample_size=20, random_state=0)
    assert cosine_silhouette(container(X), kmeans.labels_, sample_size=20,
                             random_state=0) == pytest.approx(expected)


def test_cosine_silhouette_samples_a_precomputed_coo_distance_matrix(three_blobs):
    X, kmeans = three_blobs
    distances = cosine_distances(X)
    expected = cosine_silhouette(distances, kmeans.labels_, metric="precomputed",
                                 sample_size=20, random_state=0)
    assert cosine_silhouette(sp.coo_matrix(distances), kmeans.labels_, metric="precomputed",
                             sample_size=20, random_state=0) == pytest.approx(expected)


def test_cosine_silhouette_names_rows_and_labels_of_different_lengths(three_blobs):
    X, kmeans = three_blobs
    with pytest.raises(ValueError, match=r"inconsistent numbers of samples: \[29, 30\]"):
        cosine_silhouette(X[:29].tolist(), kmeans.labels_, sample_size=20)


@pytest.mark.parametrize("container", CONTAINERS.values(), ids=CONTAINERS.keys())
def test_sampled_silhouette_scorers_take_every_container(three_blobs, container):
    X, kmeans = three_blobs
    expected = cosine_silhouette(X, kmeans.labels_, sample_size=20, random_state=0)
    as_space = make_silhouette_scorer(sample_size=20, random_state=0, space=container(X))
    assert as_space(kmeans, X) == pytest.approx(expected)
    own = make_silhouette_scorer(sample_size=20, random_state=0)
    assert own(kmeans, container(X)) == pytest.approx(expected)


@pytest.mark.parametrize("container", CONTAINERS.values(), ids=CONTAINERS.keys())
def test_sampled_silhouette_in_a_grid_search_of_every_container(three_blobs, container):
    X, _ = three_blobs
    all_idx = np.arange(len(X))
    grid = {"n_clusters": [2, 3]}
    scorers = {"own": make_silhouette_scorer(sample_size=20, random_state=0),
               "fixed": make_silhouette_scorer(sample_size=20, random_state=0,
                                               space=container(X))}
    kmeans = KMeans(n_init=2, random_state=0)
    search = GridSearchCV(kmeans, grid, scoring=scorers, refit="fixed",
                          cv=[(all_idx, all_idx)]).fit(container(X))
    reference = GridSearchCV(kmeans, grid, scoring=scorers["own"],
                             cv=[(all_idx, all_idx)]).fit(X)
    for name in scorers:
        np.testing.assert_allclose(search.cv_results_[f"mean_test_{name}"],
                                   reference.cv_results_["mean_test_score"])
    assert search.best_params_ == {"n_clusters": 3}

"""Several scores of one clustering from one pass: make_clustering_scorers."""

import pickle

import numpy as np
import pytest
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.cluster import AgglomerativeClustering, KMeans
from sklearn.metrics import adjusted_rand_score, make_scorer
from sklearn.model_selection import GridSearchCV, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_shufdiv.exceptions import InvalidParameterError
from sklearn_shufdiv.metrics import (
    clustering_accuracy_scorer,
    make_clustering_scorers,
    make_silhouette_scorer,
    silhouette_scorer,
)


class CountingEmbedder(TransformerMixin, BaseEstimator):
    """A stand-in for a document embedder: a fixed projection whose ``transform`` calls
    (embedding passes after fit) are counted over all its clones."""

    passes = 0

    def __init__(self, n_components=2):
        self.n_components = n_components

    def fit(self, X, y=None):
        self.components_ = np.eye(X.shape[1])[:, :self.n_components]
        return self

    def fit_transform(self, X, y=None):
        return X @ self.fit(X).components_

    def transform(self, X):
        type(self).passes += 1
        return X @ self.components_


@pytest.fixture
def data():
    rng = np.random.RandomState(0)
    y = np.repeat([0, 1, 2], 20)
    X = 4 * np.eye(4)[y] + rng.normal(size=(60, 4))
    return X, y


def pipe():
    return make_pipeline(CountingEmbedder(), KMeans(n_clusters=3, n_init=2, random_state=0))


def three_scorers():
    return {"fixed": make_silhouette_scorer(space=StandardScaler()),
            "own": silhouette_scorer, "acc": clustering_accuracy_scorer}


def search(scoring, X, y):
    all_idx = np.arange(len(X))
    grid = {"countingembedder__n_components": [1, 2, 4]}
    CountingEmbedder.passes = 0
    result = GridSearchCV(pipe(), grid, scoring=scoring, refit=False,
                          cv=[(all_idx, all_idx)]).fit(X, y)
    return result.cv_results_, CountingEmbedder.passes / len(grid[
        "countingembedder__n_components"])


def test_one_embedding_pass_per_candidate_gives_every_score(data):
    X, y = data
    separate, separate_passes = search(three_scorers(), X, y)
    shared, shared_passes = search(make_clustering_scorers(three_scorers()), X, y)
    assert separate_passes == 3
    assert shared_passes == 1
    for name in ("fixed", "own", "acc"):
        np.testing.assert_allclose(shared[f"mean_test_{name}"], separate[f"mean_test_{name}"])
    assert shared["mean_test_acc"].max() > 0.9


def test_scores_are_those_of_each_scorer_alone(data):
    X, y = data
    fitted = pipe().fit(X)
    scorers = three_scorers()
    expected = {name: scorer(fitted, X, y) for name, scorer in scorers.items()}
    assert make_clustering_scorers(scorers)(fitted, X, y) == pytest.approx(expected)


def test_a_refitted_estimator_is_scored_afresh(data):
    X, y = data
    scorer = make_clustering_scorers({"own": silhouette_scorer,
                                      "acc": clustering_accuracy_scorer})
    estimator = pipe().fit(X)
    first = scorer(estimator, X, y)
    estimator.set_params(kmeans__n_clusters=2).fit(X)
    refitted = scorer(estimator, X, y)
    assert refitted == pytest.approx(make_clustering_scorers(
        {"own": silhouette_scorer, "acc": clustering_accuracy_scorer})(
        pipe().set_params(kmeans__n_clusters=2).fit(X), X, y))
    assert refitted["acc"] != pytest.approx(first["acc"])
    other = X[::2] * 3.0
    assert scorer(estimator, other, y[::2])["own"] == pytest.approx(
        silhouette_scorer(estimator, other))


def test_scorers_of_other_packages_are_called_as_they_are(data):
    X, y = data
    fitted = pipe().fit(X)
    ari = make_scorer(adjusted_rand_score)
    scores = make_clustering_scorers({"ari": ari, "own": silhouette_scorer})(fitted, X, y)
    assert scores["ari"] == pytest.approx(adjusted_rand_score(y, fitted.predict(X)))
    assert list(scores) == ["ari", "own"]


def test_a_transductive_clusterer_in_cross_validate(data):
    X, y = data
    all_idx = np.arange(len(X))
    scoring = make_clustering_scorers({"own": silhouette_scorer,
                                       "acc": clustering_accuracy_scorer})
    results = cross_validate(AgglomerativeClustering(3), X, y, scoring=scoring,
                             cv=[(all_idx, all_idx)])
    fitted = AgglomerativeClustering(3).fit(X)
    assert results["test_own"][0] == pytest.approx(silhouette_scorer(fitted, X))
    assert results["test_acc"][0] == pytest.approx(clustering_accuracy_scorer(fitted, X, y))


def test_accuracy_among_them_still_needs_y(data):
    X, _ = data
    scorer = make_clustering_scorers({"acc": clustering_accuracy_scorer})
    with pytest.raises(ValueError, match="needs the true labels y"):
        scorer(pipe().fit(X), X)


def test_pickled_scorers_score_the_same(data):
    X, y = data
    scorer = make_clustering_scorers(three_scorers())
    fitted = pipe().fit(X)
    assert pickle.loads(pickle.dumps(scorer))(fitted, X, y) == pytest.approx(
        scorer(fitted, X, y))
    assert repr(scorer).startswith("make_clustering_scorers({'fixed': make_silhouette_scorer(")


@pytest.mark.parametrize("scorers, error, match", [
    ({}, ValueError, "scorers is empty"),
    ({1: silhouette_scorer}, TypeError, "names of scorers must be str"),
    ({"own": "silhouette"}, TypeError, r"scorers\['own'\] must be a scorer"),
    ([silhouette_scorer], InvalidParameterError, "scorers"),
])
def test_bad_scorers_are_named(scorers, error, match):
    with pytest.raises(error, match=match):
        make_clustering_scorers(scorers)

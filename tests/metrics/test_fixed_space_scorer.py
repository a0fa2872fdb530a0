"""The silhouette scorer in a fixed space (``make_silhouette_scorer(space=...)``)."""

import pickle

import numpy as np
import pytest
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.cluster import AgglomerativeClustering, KMeans
from sklearn.decomposition import PCA
from sklearn.metrics import silhouette_score
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler

from sklearn_shufdiv.exceptions import InvalidParameterError
from sklearn_shufdiv.metrics import clustering_accuracy, make_silhouette_scorer


class CountingScaler(TransformerMixin, BaseEstimator):
    """StandardScaler that counts the fits of all its clones (class attribute)."""

    fits = 0

    def fit(self, X, y=None):
        type(self).fits += 1
        self.mean_, self.scale_ = X.mean(axis=0), X.std(axis=0)
        return self

    def transform(self, X):
        return (X - self.mean_) / self.scale_


@pytest.fixture
def data():
    """Three blobs in 3 dimensions beside a wide uniform dimension without blobs: PCA's
    first component is the uniform one."""
    rng = np.random.RandomState(0)
    y = np.repeat([0, 1, 2], 50)
    X = np.hstack([4 * np.eye(3)[y] + rng.normal(size=(150, 3)),
                   rng.uniform(-5, 5, size=(150, 1))])
    return X, y


def pipe(n_components):
    return make_pipeline(PCA(n_components, random_state=0),
                         KMeans(n_clusters=3, n_init=4, random_state=0))


def test_array_space_is_the_silhouette_there(data):
    X, _ = data
    space = StandardScaler().fit_transform(X)
    fitted = pipe(2).fit(X)
    labels = fitted.predict(X)
    for metric in ("cosine", "euclidean"):
        scorer = make_silhouette_scorer(metric=metric, space=space)
        assert scorer(fitted, X) == pytest.approx(silhouette_score(space, labels,
                                                                   metric=metric))
    # Not the silhouette in the clusterer's own space.
    own = make_silhouette_scorer(metric="euclidean")(fitted, X)
    assert own == pytest.approx(silhouette_score(fitted[:-1].transform(X), labels,
                                                 metric="euclidean"))
    assert own != pytest.approx(make_silhouette_scorer(metric="euclidean", space=space)(
        fitted, X))


def test_transformer_space_is_fitted_once_per_data(data):
    X, _ = data
    CountingScaler.fits = 0
    template = CountingScaler()
    scorer = make_silhouette_scorer(metric="euclidean", space=template)
    expected_space = StandardScaler().fit_transform(X)
    for n_components in (1, 2, 4):
        fitted = pipe(n_components).fit(X)
        assert scorer(fitted, X) == pytest.approx(
            silhouette_score(expected_space, fitted.predict(X), metric="euclidean"))
    assert CountingScaler.fits == 1
    assert not hasattr(template, "mean_")  # a clone is fitted, not the object given
    other = X[:100] * 2.0
    fitted = pipe(2).fit(other)
    assert scorer(fitted, other) == pytest.approx(silhouette_score(
        StandardScaler().fit_transform(other), fitted.predict(other), metric="euclidean"))
    assert CountingScaler.fits == 2


def test_grid_search_picks_by_the_fixed_space(data):
    X, y = data
    all_idx = np.arange(len(X))
    grid = {"pca__n_components": [1, 2, 4]}
    space = StandardScaler().fit_transform(X)
    # Each candidate's silhouette in the fixed space, computed directly.
    direct = [silhouette_score(space, pipe(c).fit(X).predict(X), metric="euclidean")
              for c in grid["pca__n_components"]]
    search = GridSearchCV(pipe(1), grid, cv=[(all_idx, all_idx)], scoring=make_silhouette_scorer(
        metric="euclidean", space=StandardScaler())).fit(X)
    np.testing.assert_allclose(search.cv_results_["mean_test_score"], direct)
    assert search.best_params_ == {"pca__n_components": 4}
    assert clustering_accuracy(y, search.predict(X)) > 0.95
    # Scored in its own space, the 1-d candidate wins with the wrong clusters.
    own = GridSearchCV(pipe(1), grid, cv=[(all_idx, all_idx)],
                       scoring=make_silhouette_scorer(metric="euclidean")).fit(X)
    assert own.best_params_ == {"pca__n_components": 1}
    assert clustering_accuracy(y, own.predict(X)) < 0.5


def test_clusterer_without_predict_uses_its_labels(data):
    X, _ = data
    space = StandardScaler().fit_transform(X)
    agglomerative = AgglomerativeClustering(n_clusters=3).fit(X)
    scorer = make_silhouette_scorer(space=space)
    assert scorer(agglomerative, X) == pytest.approx(
        silhouette_score(space, agglomerative.labels_, metric="cosine"))


def test_array_space_of_other_samples_is_refused(data):
    X, _ = data
    scorer = make_silhouette_scorer(space=X[:100])
    with pytest.raises(ValueError, match=r"space has 100 rows but X has 150.*cv=\[\(all_idx"):
        scorer(pipe(2).fit(X), X)


def test_invalid_space_is_refused():
    with pytest.raises(InvalidParameterError, match="space"):
        make_silhouette_scorer(space="untuned")
    with pytest.raises(InvalidParameterError, match="space"):
        make_silhouette_scorer(space=3)


def test_undefined_silhouette_in_a_fixed_space(data):
    X, _ = data
    one_cluster = make_pipeline(KMeans(n_clusters=1, n_init=1)).fit(X)
    assert make_silhouette_scorer(space=X)(one_cluster, X) == -1.0


def test_pickled_scorer_refits_its_space_and_scores_the_same(data):
    X, _ = data
    CountingScaler.fits = 0
    scorer = make_silhouette_scorer(space=CountingScaler())
    fitted = pipe(2).fit(X)
    value = scorer(fitted, X)
    copy = pickle.loads(pickle.dumps(scorer))
    assert copy(fitted, X) == value
    assert CountingScaler.fits == 2


def test_repr_says_the_space(data):
    X, _ = data
    assert repr(make_silhouette_scorer(space=StandardScaler())) == (
        "make_silhouette_scorer(metric='cosine', sample_size=None, random_state=None, "
        "space=StandardScaler(...))")
    assert repr(make_silhouette_scorer(space=X)).endswith("space=ndarray of shape (150, 4))")
    assert repr(make_silhouette_scorer()) == (
        "make_silhouette_scorer(metric='cosine', sample_size=None, random_state=None)")


@pytest.mark.parametrize("change", [
    lambda scorer: scorer.space.set_params(n_components=3),
    lambda scorer: setattr(scorer, "space", PCA(3, random_state=0)),
], ids=["set_params", "another-space"])
def test_a_changed_space_is_fitted_again(data, change):
    X, _ = data
    fitted = pipe(3).fit(X)
    scorer = make_silhouette_scorer(metric="euclidean", space=PCA(1, random_state=0))
    in_one_component = scorer(fitted, X)
    change(scorer)
    fresh = make_silhouette_scorer(metric="euclidean", space=PCA(3, random_state=0))
    assert scorer(fitted, X) == pytest.approx(fresh(fitted, X))
    assert scorer(fitted, X) != pytest.approx(in_one_component)


def test_a_space_with_a_lambda_parameter_is_fitted_and_scored(data):
    X, _ = data
    fitted = pipe(3).fit(X)
    first_column = FunctionTransformer(lambda rows: rows[:, :1])
    scorer = make_silhouette_scorer(metric="euclidean", space=first_column)
    expected = silhouette_score(X[:, :1], fitted.predict(X), metric="euclidean")
    assert scorer(fitted, X) == pytest.approx(expected)
    scorer.space.set_params(func=lambda rows: rows[:, :3])
    assert scorer(fitted, X) == pytest.approx(
        silhouette_score(X[:, :3], fitted.predict(X), metric="euclidean"))

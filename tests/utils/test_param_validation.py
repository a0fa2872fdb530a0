"""Parameter validation: the constraints, the error, and one check at each public entry."""

import math
import pickle
from numbers import Integral, Real

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import config_context

from sklearn_shufdiv import utils
from sklearn_shufdiv.cluster import SphericalKMeans, spherical_kmeans
from sklearn_shufdiv.embedders import ShuffleDivideEmbedder, TfidfPositiveEmbedder
from sklearn_shufdiv.embedders._text._neighbors import top1_cosine_neighbors
from sklearn_shufdiv.embedders._text._positives import mine_tfidf_positives
from sklearn_shufdiv.exceptions import InvalidParameterError
from sklearn_shufdiv.metrics import cosine_silhouette, make_silhouette_scorer
from sklearn_shufdiv.utils import _param_validation as pv
from sklearn_shufdiv.utils._param_validation import (
    HasMethods,
    Interval,
    Options,
    fit_context,
    validate_parameter_constraints,
    validate_params,
)

DOCS = ["One sentence. Two sentences. Three of them. And four.",
        "Another document. With sentences. Quite a few. Yes, four."] * 3


def test_error_is_both_value_error_and_type_error():
    assert issubclass(InvalidParameterError, ValueError)
    assert issubclass(InvalidParameterError, TypeError)
    assert utils.InvalidParameterError is InvalidParameterError
    error = pickle.loads(pickle.dumps(InvalidParameterError("message")))
    assert isinstance(error, InvalidParameterError) and str(error) == "message"


@pytest.mark.parametrize("value", [float("nan"), np.nan, np.float32("nan"), math.inf, -math.inf,
                                   np.float64("inf")])
@pytest.mark.parametrize("interval", [Interval(Real, 0, None, closed="neither"),
                                      Interval(Real, None, None), Interval(Real, 0, None),
                                      Interval(Real, -math.inf, math.inf)])
def test_interval_rejects_nan_and_infinity(interval, value):
    assert not interval.is_satisfied_by(value)


@pytest.mark.parametrize(
    "interval, inside, outside",
    [(Interval(Real, 0, 1, closed="both"), [0, 0.0, 0.5, 1, np.float32(1)], [-1e-9, 1.5, True]),
     (Interval(Real, 0, 1, closed="neither"), [1e-9, 0.5], [0, 1, 0.0]),
     (Interval(Real, 0, 1, closed="left"), [0, 0.5], [1]),
     (Interval(Real, 0, 1, closed="right"), [1, 0.5], [0]),
     (Interval(Integral, 1, None), [1, 10**30, np.int64(3)], [0, 2.0, 1.5, False, "3"])],
)
def test_interval_bounds(interval, inside, outside):
    assert all(interval.is_satisfied_by(v) for v in inside)
    assert not any(interval.is_satisfied_by(v) for v in outside)


@pytest.mark.parametrize("value", [[1, 2], (1,), np.zeros(3), np.zeros((2, 2)), range(3),
                                   sp.csr_matrix((2, 2))])
def test_array_like_accepts_sequences_and_arrays(value):
    assert pv._satisfies(value, "array-like")


@pytest.mark.parametrize("value", ["abc", "", b"abc", np.str_("a"), np.array(3.0), 3, 2.5, None,
                                   object()])
def test_array_like_rejects_strings_and_scalars(value):
    assert not pv._satisfies(value, "array-like")


def test_other_constraints():
    assert Options({"a", "b"}).is_satisfied_by("a")
    assert not Options({"a", "b"}).is_satisfied_by(["a"])
    assert HasMethods(["fit", "transform"]).is_satisfied_by(SphericalKMeans())
    assert not HasMethods(["fit_transform", "predict_proba"]).is_satisfied_by(SphericalKMeans())
    assert pv._satisfies(sp.csr_array((2, 2)), "sparse matrix")
    assert not pv._satisfies(np.zeros((2, 2)), "sparse matrix")
    assert not pv._satisfies(1, "boolean") and pv._satisfies(np.True_, "boolean")
    assert not pv._satisfies(True, "random_state")
    assert pv._satisfies(np.random.RandomState(0), "random_state")


def test_message_names_parameter_caller_and_constraints():
    constraints = {"init": [Options({"random"}), "array-like"]}
    with pytest.raises(InvalidParameterError) as error:
        validate_parameter_constraints(constraints, {"init": "kmeans"}, "Thing")
    assert str(error.value) == (
        "The 'init' parameter of Thing must be a str among ['random'] or an array-like "
        "(not a str). Got 'kmeans' instead.")


# -- the estimators and functions of the package -------------------------------------------


@pytest.mark.parametrize("Embedder", [ShuffleDivideEmbedder, TfidfPositiveEmbedder])
@pytest.mark.parametrize("name", ["temperature", "learning_rate", "weight_decay"])
def test_embedders_reject_nan_before_loading_the_model(Embedder, name):
    # The model does not exist: the parameter is refused before anything is loaded.
    embedder = Embedder("/no/such/model", max_epochs=0, **{name: float("nan")})
    with pytest.raises(InvalidParameterError, match=f"'{name}' parameter of {Embedder.__name__}"):
        embedder.fit(DOCS)
    for caught in (ValueError, TypeError):
        with pytest.raises(caught):
            embedder.fit(DOCS)


@pytest.mark.parametrize(
    "call, match",
    [(lambda: spherical_kmeans("abc", 2), "'X' parameter of spherical_kmeans"),
     (lambda: spherical_kmeans(b"abc", 2), "'X' parameter of spherical_kmeans"),
     (lambda: SphericalKMeans(2, init="abc").fit(np.eye(3)), "'init' parameter of Spherical"),
     (lambda: spherical_kmeans(np.eye(3), 2, sample_weight="abc"), "'sample_weight'"),
     (lambda: cosine_silhouette("abc", [0, 1]), "'X' parameter of cosine_silhouette"),
     (lambda: cosine_silhouette(np.eye(2), "ab"), "'labels' parameter of cosine_silhouette"),
     (lambda: top1_cosine_neighbors("abc"), "'X' parameter of top1_cosine_neighbors")],
)
def test_a_str_for_an_array_like_parameter_is_rejected(call, match):
    with pytest.raises(InvalidParameterError, match=match) as error:
        call()
    assert isinstance(error.value, ValueError) and isinstance(error.value, TypeError)


@pytest.mark.parametrize(
    "call, match",
    [(lambda: SphericalKMeans(2, tol=float("nan")).fit(np.eye(3)), "'tol'"),
     (lambda: SphericalKMeans(2, max_iter=np.inf).fit(np.eye(3)), "'max_iter'"),
     (lambda: SphericalKMeans(True).partial_fit(np.eye(3)), "'n_clusters'"),
     (lambda: spherical_kmeans(np.eye(3), 2, return_n_iter="yes"), "'return_n_iter'"),
     (lambda: make_silhouette_scorer(sample_size=True), "'sample_size'"),
     (lambda: make_silhouette_scorer(random_state="0"), "'random_state'"),
     (lambda: cosine_silhouette(np.eye(3), [0, 0, 1], sample_size=1), "'sample_size'"),
     (lambda: top1_cosine_neighbors(np.eye(3), working_memory=float("nan")), "working_memory"),
     (lambda: top1_cosine_neighbors(np.eye(3), working_memory=math.inf), "working_memory"),
     (lambda: top1_cosine_neighbors(np.eye(3), exclude_duplicates=1), "exclude_duplicates"),
     (lambda: mine_tfidf_positives(DOCS, chunk_size=0), "'chunk_size'"),
     (lambda: mine_tfidf_positives(DOCS, vectorizer=object()), "'vectorizer'")],
)
def test_invalid_values_are_rejected_with_the_one_error(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call()


def test_each_entry_validates_once(monkeypatch):
    # The function validates its arguments; the estimator it wraps does not check them again.
    calls = []
    original = pv.validate_parameter_constraints
    monkeypatch.setattr(pv, "validate_parameter_constraints",
                        lambda *args: calls.append(args[2]) or original(*args))
    spherical_kmeans(np.eye(3), 2, random_state=0)
    assert calls == ["spherical_kmeans"]
    calls.clear()
    SphericalKMeans(2, random_state=0).fit(np.eye(3))
    assert calls == ["SphericalKMeans"]


def test_partial_fit_validates_its_first_call_only():
    model = SphericalKMeans(2, random_state=0).partial_fit(np.eye(3))
    model.n_clusters = 0  # a fitted model keeps its centers: later batches are not checked
    model.partial_fit(np.eye(3))
    with pytest.raises(InvalidParameterError, match="n_clusters"):
        SphericalKMeans(0).partial_fit(np.eye(3))


def test_scikit_learn_skip_parameter_validation_is_honoured():
    with config_context(skip_parameter_validation=True):
        make_silhouette_scorer(sample_size=1)  # not checked
        with pytest.raises(ValueError, match="n_samples=3 should be >= n_clusters=5"):
            spherical_kmeans(np.eye(3), 5.0)  # the data check still runs
    with pytest.raises(InvalidParameterError):
        make_silhouette_scorer(sample_size=1)


def test_decorators_require_every_parameter_and_keep_the_signature():
    with pytest.raises(ValueError, match=r"no constraints for \['b'\]"):
        validate_params({"a": [int]})(lambda a, b: a)

    @validate_params({"a": [int], "b": [Interval(Integral, 0, None)]})
    def add(a, b=1):
        """Add."""
        return a + b

    assert add(1) == 2 and add(a=1, b=2) == 3 and add.__doc__ == "Add."
    with pytest.raises(InvalidParameterError, match="'b' parameter of .*add must be an int"):
        add(1, b=-1)

    class Estimator(SphericalKMeans):
        @fit_context()
        def fit(self, X, y=None):
            """Fit."""
            return self

    assert Estimator.fit.__doc__ == "Fit."
    with pytest.raises(InvalidParameterError, match="'tol' parameter of Estimator"):
        Estimator(tol=-1.0).fit(np.eye(3))

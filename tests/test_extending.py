"""Extensions through the public protocols only: a number-of-clusters criterion
(``k_selection=``), a training objective (``objective=``) and an epoch-selection
criterion (``selection=``) of one's own, used by value without touching the package."""

import pickle

import numpy as np
import pytest
from sklearn.base import clone

from sklearn_shufdiv.cluster import NClustersCriterion, SphericalKMeans, choose_n_clusters
from sklearn_shufdiv.embedders import (
    NTXent,
    Objective,
    SelectionCriterion,
    ShuffleDivideEmbedder,
)

TINY = dict(max_epochs=1, batch_size=8, mini_batch_size=8, max_length=32, random_state=0,
            verbose=0, n_clusters=None)


# -- a number-of-clusters criterion ----------------------------------------------------
class Elbow(NClustersCriterion):
    """The ``k`` whose last cluster lowers the spherical k-means objective the most, as a
    ratio: ``inertia(k - 1) / inertia(k)`` (NaN for the first candidate)."""

    name = "elbow"

    def choose(self, sample, ks, random_state, verbose=0):
        inertia = np.array([run.inertia for run in sample.clusterings(ks, random_state)])
        gain = np.r_[np.nan, inertia[:-1] / inertia[1:]]
        return {"score": gain, "inertia": inertia}, int(ks[np.nanargmax(gain)])


class Outside(NClustersCriterion):
    """A faulty criterion: it chooses a ``k`` that was not offered."""

    def choose(self, sample, ks, random_state, verbose=0):
        return {"score": np.zeros(len(ks))}, int(ks[-1]) + 1


@pytest.fixture(scope="module")
def four_directions():
    """200 rows around 4 orthogonal directions of R^6."""
    rng = np.random.default_rng(0)
    return np.repeat(np.eye(6)[:4], 50, axis=0) + 0.05 * rng.standard_normal((200, 6))


def test_a_k_criterion_of_ones_own_chooses_k(four_directions):
    k, scores = choose_n_clusters(four_directions, k_range=(2, 7), k_selection=Elbow(),
                                  random_state=0)
    assert k == 4
    assert scores.criterion == "elbow" and scores.n_clusters == 4
    assert scores.k.tolist() == [2, 3, 4, 5, 6, 7]
    assert np.isnan(scores.score[0]) and scores.score[2] == np.nanmax(scores.score)
    assert scores.runner_up != 4 and scores.runner_up in scores.k
    assert np.all(np.diff(scores.inertia) <= 1e-9)  # the criterion's own array, returned


def test_spherical_kmeans_takes_the_criterion_as_k_selection(four_directions):
    model = SphericalKMeans("auto", k_range=(2, 7), k_selection=Elbow(), random_state=0)
    labels = model.fit_predict(four_directions)
    assert model.n_clusters_ == 4 and model.n_clusters_scores_.criterion == "elbow"
    truth = np.repeat(np.arange(4), 50)
    assert len(set(zip(labels, truth, strict=True))) == 4  # one cluster per direction
    assert isinstance(clone(model).get_params()["k_selection"], Elbow)
    again = pickle.loads(pickle.dumps(model))
    assert isinstance(again.k_selection, Elbow)
    np.testing.assert_array_equal(again.predict(four_directions), labels)
    refit = clone(model).fit(four_directions)  # the same choice from the same seed
    assert refit.n_clusters_ == 4
    np.testing.assert_array_equal(refit.labels_, labels)


def test_a_criterion_choosing_outside_the_candidates_is_named(four_directions):
    with pytest.raises(ValueError, match=r"k_selection=Outside\(\) chose k=8, which is "
                                         r"not one of the candidates 2 to 7"):
        choose_n_clusters(four_directions, k_range=(2, 7), k_selection=Outside(),
                          random_state=0)
    with pytest.raises(ValueError, match="k_selection"):
        SphericalKMeans("auto", k_range=(2, 7), k_selection=Outside()).fit(four_directions)


def test_a_k_criterion_must_be_a_name_or_an_instance(four_directions):
    with pytest.raises(ValueError, match="'k_selection' parameter"):
        choose_n_clusters(four_directions, k_selection=Elbow)  # the class, not an instance


# -- a training objective --------------------------------------------------------------
class ScaledTemperature(Objective):
    """NT-Xent at ``factor`` times the embedder's temperature."""

    def __init__(self, factor=2.0):
        self.factor = factor

    def check(self, n_clusters, sample_size):
        if not self.factor > 0:
            raise ValueError(f"objective={self!r}: factor must be positive.")

    def make_loss(self, temperature):
        return NTXent().make_loss(temperature * self.factor)


def train_losses(embedder):
    """The training loss of each epoch (epoch 0, the untuned encoder, has none)."""
    return [row["train_loss"] for row in embedder.history_ if row["epoch"] > 0]


def test_an_objective_of_ones_own_is_the_loss_trained_on(tiny_bert_path, corpus):
    docs, _ = corpus
    docs = docs[::2]
    mine = ShuffleDivideEmbedder(tiny_bert_path, objective=ScaledTemperature(2.0),
                                 temperature=0.1, **TINY).fit(docs)
    same = ShuffleDivideEmbedder(tiny_bert_path, objective="nt-xent", temperature=0.2,
                                 **TINY).fit(docs)
    unscaled = ShuffleDivideEmbedder(tiny_bert_path, objective="nt-xent", temperature=0.1,
                                     **TINY).fit(docs)
    assert len(train_losses(mine)) == 1
    assert train_losses(mine) == pytest.approx(train_losses(same), rel=1e-5)
    assert train_losses(mine) != pytest.approx(train_losses(unscaled), rel=1e-3)
    assert mine.objective_ == ScaledTemperature(2.0)
    assert mine.objective_ is not mine.objective  # the fit works on its own copy


def test_an_objective_of_ones_own_is_a_parameter(tiny_bert_path, corpus):
    embedder = ShuffleDivideEmbedder(objective=ScaledTemperature(3.0))
    assert embedder.get_params()["objective__factor"] == 3.0
    assert clone(embedder).get_params()["objective"] == ScaledTemperature(3.0)
    embedder.set_params(objective__factor=0.5)
    assert embedder.objective == ScaledTemperature(0.5)
    assert repr(ScaledTemperature(0.5)) == "ScaledTemperature(factor=0.5)"
    docs, _ = corpus
    with pytest.raises(ValueError, match=r"objective=ScaledTemperature\(factor=0\).*positive"):
        ShuffleDivideEmbedder(tiny_bert_path, objective=ScaledTemperature(0),
                              **TINY).fit(docs)


# -- an epoch-selection criterion ------------------------------------------------------
class Latest(SelectionCriterion):
    """Always keep the last epoch (the epoch number as score)."""

    name = "latest"

    def score(self, candidate, context):
        return float(candidate.epoch)


def test_a_selection_criterion_of_ones_own_keeps_its_epoch(tiny_bert_path, corpus):
    docs, _ = corpus
    criterion = Latest()
    embedder = ShuffleDivideEmbedder(tiny_bert_path, selection=criterion,
                                     **{**TINY, "max_epochs": 2, "n_clusters": 4}).fit(docs)
    assert [row["latest"] for row in embedder.history_] == [0.0, 1.0, 2.0]
    assert [row["selection_score"] for row in embedder.history_] == [0.0, 1.0, 2.0]
    assert embedder.best_epoch_ == 2
    assert isinstance(embedder.selection_, Latest) and embedder.selection_ is not criterion

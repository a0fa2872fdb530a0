"""Epoch selection as a strategy: the clustering it scores, and the criterion interface."""

import numpy as np
import pytest
from conftest import SMALL

from sklearn_shufdiv.cluster import SphericalKMeans, clustering_stability
from sklearn_shufdiv.cluster import cluster_on_sphere as cluster
from sklearn_shufdiv.cluster._seeding import DEFAULT_N_INIT
from sklearn_shufdiv.embedders import (
    Candidate,
    SelectionCriterion,
    ShuffleDivideEmbedder,
)
from sklearn_shufdiv.embedders._spaces._lexical import fuse
from sklearn_shufdiv.metrics import cosine_silhouette

CLUSTERED = {**SMALL, "n_clusters": 4}


@pytest.fixture(scope="module")
def points():
    rng = np.random.default_rng(0)
    return rng.normal(size=(60, 5)) + 3 * np.repeat(np.eye(5)[:3], 20, axis=0)


def test_the_clustering_is_the_estimators(points):
    """What a user gets clustering the normalised embeddings (transform's output)."""
    clustering = cluster(points, 3, random_state=7)
    unit = points / np.linalg.norm(points, axis=1, keepdims=True)
    np.testing.assert_allclose(clustering.unit, unit, rtol=1e-6)
    expected = SphericalKMeans(3, random_state=7).fit(unit)
    np.testing.assert_array_equal(clustering.labels, expected.labels_)
    assert clustering.inertia == pytest.approx(expected.inertia_)


def test_every_run_is_replayed_and_the_best_is_chosen(points):
    noisy = np.random.default_rng(1).normal(size=(80, 6))  # no structure: runs disagree
    clustering = cluster(noisy, 5, random_state=3, n_init=6)
    labels, inertias = clustering.runs
    assert labels.shape == (6, 80) and inertias.shape == (6,)
    assert len({tuple(row) for row in labels}) > 1  # the runs are distinct runs
    best = int(np.argmin(inertias))
    np.testing.assert_array_equal(labels[best], clustering.labels)
    assert inertias[best] == pytest.approx(clustering.inertia)
    assert clustering.labels.tolist() == SphericalKMeans(
        5, n_init=6, random_state=3).fit(clustering.unit).labels_.tolist()


class Recording(SelectionCriterion):
    """A criterion that records what it is given; scores favour epoch 1."""

    name = "recorded"

    def __init__(self):
        self.prepared, self.seen = 0, []

    def prepare(self, context):
        self.prepared += 1

    def score(self, candidate, context):
        self.seen.append((candidate.epoch, sorted(context.labels), len(context.texts),
                          candidate.embeddings.shape, candidate.clustering.runs[0].shape))
        return [0.1, 0.9, 0.5][candidate.epoch]


def fitted_criterion(embedder):
    assert embedder.selection_ is dict(embedder.net_.callbacks_)["selection"].criterion
    return embedder.selection_


def test_a_criterion_sees_each_candidate_and_its_scores_go_to_history(tiny_bert_path,
                                                                       corpus):
    docs, _ = corpus
    criterion = Recording()
    embedder = ShuffleDivideEmbedder(tiny_bert_path, selection=criterion,
                                     selection_sample_size=40, **CLUSTERED).fit(docs)
    assert criterion.seen == []  # the fit works on its own copy
    used = fitted_criterion(embedder)
    assert used.prepared == 1
    runs = (DEFAULT_N_INIT, 40)  # the estimator's default ("auto") restarts
    dim = 32 + embedder.lexical_.n_components_  # transform's space: the encoder, the words
    assert used.seen == [(0, [], 40, (40, dim), runs), (1, [0], 40, (40, dim), runs),
                         (2, [0, 1], 40, (40, dim), runs)]
    assert [row["recorded"] for row in embedder.history_] == [0.1, 0.9, 0.5]
    assert [row["selection_score"] for row in embedder.history_] == [0.1, 0.9, 0.5]
    assert embedder.net_.history[:, "recorded"] == [0.9, 0.5]
    assert embedder.best_epoch_ == 1
    one_epoch = ShuffleDivideEmbedder(tiny_bert_path, **{**CLUSTERED, "max_epochs": 1,
                                                         "n_clusters": None}).fit(docs)
    np.testing.assert_array_equal(embedder.transform(docs), one_epoch.transform(docs))


class LastButOne(SelectionCriterion):
    """Chooses only at the end (epoch max - 1), so it keeps every epoch's weights."""

    name = "none"
    keep_all_weights = True

    def score(self, candidate, context):
        return float("nan")

    def choose(self, context):
        return max(context.scores) - 1


def test_a_criterion_may_keep_all_weights_and_choose_at_the_end(tiny_bert_path, corpus,
                                                                 tmp_path, interrupt_at):
    docs, _ = corpus
    params = {**CLUSTERED, "max_epochs": 3, "selection": LastButOne()}
    whole = ShuffleDivideEmbedder(tiny_bert_path, **params).fit(docs)
    assert whole.best_epoch_ == 2
    two_epochs = ShuffleDivideEmbedder(tiny_bert_path,
                                       **{**CLUSTERED, "n_clusters": None}).fit(docs)
    np.testing.assert_array_equal(whole.transform(docs), two_epochs.transform(docs))
    # Interrupted in epoch 3 and resumed: the kept weights came back from the checkpoint.
    restore = interrupt_at(6 * 2 + 2)
    with pytest.warns(RuntimeWarning, match="interrupted after 2 of 3"):
        ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=tmp_path, **params).fit(docs)
    restore()
    resumed = ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=tmp_path, **params).fit(docs)
    assert resumed.best_epoch_ == 2
    np.testing.assert_array_equal(resumed.transform(docs), whole.transform(docs))


class ChoosesWithoutKeeping(LastButOne):
    keep_all_weights = False

    def score(self, candidate, context):
        return float(candidate.epoch)  # the best is the last; it chooses another


def test_a_choice_whose_weights_were_not_kept_is_an_error(tiny_bert_path, corpus):
    docs, _ = corpus
    with pytest.raises(RuntimeError, match="keep_all_weights = True"):
        ShuffleDivideEmbedder(tiny_bert_path, selection=ChoosesWithoutKeeping(),
                              **CLUSTERED).fit(docs)


def test_bad_selection(tiny_bert_path, corpus):
    with pytest.raises(ValueError, match="'selection' parameter"):
        ShuffleDivideEmbedder(tiny_bert_path, selection="consensus", **CLUSTERED).fit(corpus[0])


def test_the_untuned_silhouette_scores_each_clustering_in_epoch_0s_space(points):
    from sklearn.metrics import silhouette_score

    from sklearn_shufdiv.embedders import SelectionContext
    from sklearn_shufdiv.embedders._training._criteria import UntunedSilhouetteCriterion

    rng = np.random.default_rng(2)
    tuned = points + rng.normal(scale=2.0, size=points.shape)  # another space
    context = SelectionContext([], np.arange(len(points)), 3, 0, untuned=points)
    criterion = UntunedSilhouetteCriterion()
    unit = points / np.linalg.norm(points, axis=1, keepdims=True)
    for space in (points, tuned):
        candidate = Candidate(1, space, cluster(space, 3))
        # The chosen run's labels, scored in the untuned space, not in their own.
        assert criterion.score(candidate, context) == pytest.approx(
            silhouette_score(unit, candidate.labels, metric="cosine"), abs=1e-9)
    # One cluster: undefined, the worst score.
    candidate = Candidate(1, points, cluster(points, 3))
    candidate.clustering.labels = np.zeros(len(points), dtype=int)
    assert criterion.score(candidate, context) == -1


@pytest.mark.parametrize("lexical_weight", [0.5, 0])
def test_the_untuned_silhouette_in_a_fit(tiny_bert_path, corpus, lexical_weight):
    """Every epoch's clustering (found in transform's space) scored in the untuned
    encoder's space as transform returns it, the words included by default."""
    docs, _ = corpus
    embedder = ShuffleDivideEmbedder(tiny_bert_path, selection="untuned-silhouette",
                                     selection_sample_size=40, lexical_weight=lexical_weight,
                                     **CLUSTERED).fit(docs)
    sample = [docs[i] for i in embedder.selection_indices_]
    untuned = ShuffleDivideEmbedder(tiny_bert_path, lexical_weight=lexical_weight, head=None,
                                    **{**CLUSTERED, "max_epochs": 0}).fit(docs)
    space = untuned.net_.embed(sample)  # as the selection computes it: the encoder's,
    if lexical_weight:  # fused with the words as transform fuses them
        space = fuse(space, untuned.lexical_.transform(sample), lexical_weight)
    np.testing.assert_allclose(space / np.linalg.norm(space, axis=1, keepdims=True),
                               untuned.transform(sample), atol=1e-6)
    at_0 = cluster(space, 4, 0)
    np.testing.assert_array_equal(embedder.selection_labels_[0], at_0.labels)
    scores = [row["untuned_silhouette"] for row in embedder.history_]
    expected = [cosine_silhouette(space, labels) for labels in embedder.selection_labels_]
    np.testing.assert_allclose(scores, expected, atol=1e-6)
    assert [row["selection_score"] for row in embedder.history_] == scores
    assert embedder.best_epoch_ == int(np.argmax(scores))
    # Released after the fit: the space is not pickled with the embedder.
    assert dict(embedder.net_.callbacks_)["selection"].context.untuned is None


def test_stability_is_the_mean_pairwise_ari_of_seeded_clusterings(points):
    from sklearn.metrics import adjusted_rand_score

    stability = clustering_stability
    noisy = np.random.default_rng(1).normal(size=(80, 6))  # no structure: seeds disagree
    runs = [cluster(noisy, 5, 3 + i).labels for i in range(4)]
    expected = np.mean([adjusted_rand_score(runs[i], runs[j])
                        for i in range(4) for j in range(i + 1, 4)])
    assert stability(noisy, 5, seed=3, n_clusterings=4) == pytest.approx(expected)
    assert stability(noisy, 5, seed=3, n_clusterings=4, first=runs[0]) == pytest.approx(
        expected)
    assert expected < 0.9
    assert stability(points, 3, seed=3) == pytest.approx(1.0)  # three clear clusters


@pytest.mark.parametrize("scores, chosen, final", [
    ({0: 0.95, 1: 0.97, 2: 0.99}, 2, False),   # stable throughout: the last epoch
    ({0: 0.95, 1: 0.97, 2: 0.80}, 1, False),   # epoch 2 lost it: the last stable one
    ({0: 0.95, 1: 0.80, 2: 0.99}, 0, False),   # stable again after a break: not kept
    ({0: 0.80, 1: 0.99, 2: 0.99}, 0, True),    # unstable untuned clusters: epoch 0
    ({0: float("nan"), 1: 0.99}, 0, True),     # undefined counts as unstable
    ({0: 0.9}, 0, False),                      # the threshold itself is stable
])
def test_the_stability_criterion_keeps_the_last_epoch_of_a_stable_run(scores, chosen, final):
    from sklearn_shufdiv.embedders import SelectionContext, StabilityCriterion

    context = SelectionContext([], np.arange(4), 2, 0, scores=scores)
    assert StabilityCriterion().choose(context) == chosen
    assert StabilityCriterion().final(context) is final
    assert StabilityCriterion(min_stability=0.5).choose(context) == (
        0 if np.isnan(scores[0]) else max(scores))


@pytest.mark.parametrize("stable, best_epoch, epochs", [(1.0, 2, 3), (0.5, 0, 1)])
def test_the_stability_criterion_in_a_fit(tiny_bert_path, corpus, monkeypatch, capsys,
                                          stable, best_epoch, epochs):
    """Stable clusters: training runs and its last epoch is kept. Unstable ones: training
    is skipped, and the fit returns the untuned encoder."""
    from sklearn_shufdiv.embedders._training import _criteria

    monkeypatch.setattr(_criteria, "clustering_stability", lambda *args, **kwargs: stable)
    docs, _ = corpus
    embedder = ShuffleDivideEmbedder(tiny_bert_path, selection="stability",
                                     **{**CLUSTERED, "verbose": 1}).fit(docs)
    assert embedder.best_epoch_ == best_epoch
    assert [row["stability"] for row in embedder.history_] == [stable] * epochs
    assert len(embedder.net_.history) == epochs - 1
    trained = ShuffleDivideEmbedder(tiny_bert_path, **{**CLUSTERED, "n_clusters": None,
                                                       "max_epochs": best_epoch}).fit(docs)
    np.testing.assert_array_equal(embedder.transform(docs), trained.transform(docs))
    skipped = "the selection will keep no later epoch: training skipped"
    assert (skipped in capsys.readouterr().out) is (stable < 0.9)


def test_the_stability_criterion_in_a_real_fit_and_its_validation(tiny_bert_path, corpus):
    from sklearn_shufdiv.embedders import StabilityCriterion

    docs, _ = corpus
    embedder = ShuffleDivideEmbedder(tiny_bert_path, selection=StabilityCriterion(0.01, 3),
                                     selection_sample_size=40, lexical_weight=0,
                                     **CLUSTERED).fit(docs)
    sample = [docs[i] for i in embedder.selection_indices_]
    untuned = ShuffleDivideEmbedder(tiny_bert_path, lexical_weight=0,
                                    **{**CLUSTERED, "max_epochs": 0}).fit(docs)
    assert embedder.history_[0]["stability"] == pytest.approx(
        clustering_stability(untuned.net_.embed(sample), 4, seed=0, n_clusterings=3))
    for bad, match in ((StabilityCriterion(0), "min_stability=0"),
                       (StabilityCriterion(n_clusterings=1), "n_clusterings=1")):
        with pytest.raises(ValueError, match=match):
            ShuffleDivideEmbedder(tiny_bert_path, selection=bad, **CLUSTERED).fit(docs)


def test_fit_transform_reuses_the_chosen_epochs_embeddings(tiny_bert_path, corpus,
                                                           embed_calls):
    """A criterion that keeps every epoch's weights and chooses at the end (here the
    epoch before the last) also has the chosen epoch's embeddings of the whole corpus:
    fit_transform embeds nothing again."""
    docs, _ = corpus
    params = {**CLUSTERED, "selection": LastButOne(), "selection_sample_size": None}
    embedder = ShuffleDivideEmbedder(tiny_bert_path, **params)
    embeddings = embedder.fit_transform(docs)
    assert embedder.best_epoch_ == 1
    assert embed_calls == [len(docs)] * 3  # epochs 0, 1, 2; no transform after the fit
    np.testing.assert_allclose(embeddings, embedder.transform(docs), rtol=1e-6, atol=1e-7)

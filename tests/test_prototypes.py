"""prototype_weight: ProtoNCE's term, with the epoch selection's clusters as prototypes;
pseudo_clusters and pseudo_fraction: training's pseudo-labels from an over-clustering of
its sample, and only their confident part."""

import numpy as np
import pytest

from sklearn_shufdiv.embedders import ShuffleDivideEmbedder, _training
from sklearn_shufdiv.embedders._selection import cluster, cluster_centres, confident_labels

SMALL = dict(max_epochs=2, batch_size=8, mini_batch_size=6, max_length=32, random_state=0,
             verbose=0, n_clusters=4)


def test_cluster_centres_are_unit_means_of_unit_rows():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(30, 5))
    labels = rng.integers(0, 3, size=30)
    centres = cluster_centres(x, labels, 4)
    unit = x / np.linalg.norm(x, axis=1, keepdims=True)
    for k in range(3):
        mean = unit[labels == k].mean(0)
        np.testing.assert_allclose(centres[k], mean / np.linalg.norm(mean), rtol=1e-5)
    assert (centres[3] == 0).all()  # an empty cluster
    unlabelled = labels.copy()
    unlabelled[labels == 2] = -1  # left out, not counted in any centre
    np.testing.assert_allclose(cluster_centres(x, unlabelled, 4)[:2], centres[:2], rtol=1e-6)
    assert (cluster_centres(x, unlabelled, 4)[2:] == 0).all()


@pytest.mark.parametrize("fraction", [0.3, 0.5, 1.0])
def test_confident_labels_keep_each_clusters_largest_margins(fraction):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(40, 6))
    labels = rng.integers(0, 3, size=40)
    kept = confident_labels(x, labels, 3, fraction)
    unit = x / np.linalg.norm(x, axis=1, keepdims=True)
    centres = cluster_centres(x, labels, 3)
    for i in range(40):  # written out row by row
        own = unit[i] @ centres[labels[i]]
        other = max(unit[i] @ centres[k] for k in range(3) if k != labels[i])
        members = np.flatnonzero(labels == labels[i])
        margins = [unit[j] @ centres[labels[i]] - max(unit[j] @ centres[k] for k in range(3)
                                                       if k != labels[i]) for j in members]
        rank = sum(m > own - other + 1e-9 for m in margins)  # members more confident
        n_kept = int(np.ceil(fraction * len(members)))
        assert kept[i] == (labels[i] if rank < n_kept else -1), i
    for k in range(3):
        assert (kept == k).sum() == int(np.ceil(fraction * (labels == k).sum()))


def spy_training(monkeypatch):
    """What the loss sees each step (epoch, pseudo-labels, prototypes) and every sample
    embedding the selection computed, in order."""
    seen, embedded = [], []
    batch_loss = _training.ContrastiveNet.batch_loss
    embed = _training.ContrastiveNet.embed

    def spy_loss(net, views, batch):
        prototypes = None if net.prototypes_ is None else net.prototypes_.numpy().copy()
        seen.append((len(net.history), net.pseudo_labels_.copy(), prototypes))
        return batch_loss(net, views, batch)

    def spy_embed(net, texts, *args, **kwargs):
        out = embed(net, texts, *args, **kwargs)
        embedded.append(out)
        return out

    monkeypatch.setattr(_training.ContrastiveNet, "batch_loss", spy_loss)
    monkeypatch.setattr(_training.ContrastiveNet, "embed", spy_embed)
    return seen, embedded


def test_the_prototypes_are_the_previous_epochs_centres(tiny_bert_path, corpus, monkeypatch):
    docs, _ = corpus
    seen, embedded = spy_training(monkeypatch)
    embedder = ShuffleDivideEmbedder(tiny_bert_path, prototype_weight=1.0,
                                     selection_sample_size=30, **SMALL).fit(docs)
    assert embedder.net_.criterion_.same_group is None  # NT-Xent itself is unchanged
    assert {epoch for epoch, _, _ in seen} == {1, 2}
    sample = embedder.selection_indices_
    for epoch, labels, prototypes in seen:
        # Epoch e: the selection's clusters after epoch e - 1 and their centres in the
        # encoder's space, from the sample's embeddings by that epoch's weights.
        np.testing.assert_array_equal(labels[sample], embedder.selection_labels_[epoch - 1])
        expected = cluster_centres(embedded[epoch - 1], embedder.selection_labels_[epoch - 1], 4)
        np.testing.assert_allclose(prototypes, expected, rtol=1e-5, atol=1e-6)
        assert prototypes.shape == (4, embedded[0].shape[1])
    assert embedder.net_.prototypes_ is None  # not kept (nor pickled) after the fit


@pytest.mark.parametrize("pseudo", [{"pseudo_clusters": 7}, {"pseudo_fraction": 0.5},
                                    {"pseudo_clusters": 7, "pseudo_fraction": 0.5}])
@pytest.mark.parametrize("extra", [{"prototype_weight": 1.0},
                                   {"cluster_negatives": "exclude"}])
def test_pseudo_labels_over_cluster_and_keep_the_confident(tiny_bert_path, corpus,
                                                           monkeypatch, extra, pseudo):
    docs, _ = corpus
    seen, embedded = spy_training(monkeypatch)
    # Words left out: the space clustered is the sample's embeddings themselves.
    embedder = ShuffleDivideEmbedder(tiny_bert_path, lexical_weight=0,
                                     selection_sample_size=30,
                                     **{**SMALL, "prototype_weight": 0.0, **extra, **pseudo}
                                     ).fit(docs)
    context = dict(embedder.net_.callbacks_)["selection"].context
    sample = embedder.selection_indices_
    k = pseudo.get("pseudo_clusters", 4)
    assert {epoch for epoch, _, _ in seen} == {1, 2}
    for epoch, labels, prototypes in seen:
        # Epoch e trains on a k-cluster k-means (same seed) of epoch e - 1's sample
        # (with pseudo_clusters; else the selection's own), its confident half kept
        # (with pseudo_fraction) ...
        expected = (cluster(embedded[epoch - 1], k, random_state=0).labels
                    if "pseudo_clusters" in pseudo else embedder.selection_labels_[epoch - 1])
        if "pseudo_fraction" in pseudo:
            expected = confident_labels(embedded[epoch - 1], expected, k, 0.5)
            assert 0 < (expected == -1).sum() < len(expected)
        np.testing.assert_array_equal(labels[sample], expected)
        np.testing.assert_array_equal(context.pseudo_labels[epoch - 1], expected)
        assert (np.delete(labels, sample) == -1).all()
        if "prototype_weight" in extra:  # ... and on the centres of those labelled
            np.testing.assert_allclose(prototypes, cluster_centres(
                embedded[epoch - 1], expected, k), rtol=1e-5, atol=1e-6)
        else:
            assert prototypes is None
    # The selection itself still clusters into n_clusters.
    for labels in embedder.selection_labels_:
        assert set(np.unique(labels)) <= set(range(4))
    if "pseudo_clusters" in pseudo:
        assert max(len(np.unique(labels[labels >= 0]))
                   for labels in context.pseudo_labels.values()) > 4


def test_pseudo_clusters_has_no_effect_without_pseudo_labels(tiny_bert_path, corpus):
    docs, _ = corpus
    plain = ShuffleDivideEmbedder(tiny_bert_path, prototype_weight=0.0, **SMALL).fit(docs)
    ignored = ShuffleDivideEmbedder(tiny_bert_path, pseudo_clusters=7, pseudo_fraction=0.5,
                                    prototype_weight=0.0, **SMALL).fit(docs)
    assert dict(ignored.net_.callbacks_)["selection"].context.pseudo_labels == {}
    np.testing.assert_array_equal(ignored.transform(docs), plain.transform(docs))
    # pseudo_clusters = n_clusters is the selection's clustering itself, as None.
    proto = ShuffleDivideEmbedder(tiny_bert_path, prototype_weight=1.0, **SMALL).fit(docs)
    same = ShuffleDivideEmbedder(tiny_bert_path, prototype_weight=1.0, pseudo_clusters=4,
                                 **SMALL).fit(docs)
    assert dict(same.net_.callbacks_)["selection"].context.pseudo_labels == {}
    np.testing.assert_array_equal(same.transform(docs), proto.transform(docs))


def test_pseudo_clusters_and_fraction_are_validated(tiny_bert_path, corpus):
    docs, _ = corpus
    with pytest.raises(ValueError, match="pseudo_clusters=31 is more clusters than the 30"):
        ShuffleDivideEmbedder(tiny_bert_path, prototype_weight=1.0, pseudo_clusters=31,
                              selection_sample_size=30, **SMALL).fit(docs)
    with pytest.raises(ValueError, match="pseudo_clusters"):
        ShuffleDivideEmbedder(tiny_bert_path, prototype_weight=1.0, pseudo_clusters=1,
                              **SMALL).fit(docs)
    for fraction in (0.0, 1.5):
        with pytest.raises(ValueError, match="pseudo_fraction"):
            ShuffleDivideEmbedder(tiny_bert_path, prototype_weight=1.0,
                                  pseudo_fraction=fraction, **SMALL).fit(docs)


def test_prototype_weight_changes_training(tiny_bert_path, corpus):
    docs, _ = corpus
    plain = ShuffleDivideEmbedder(tiny_bert_path, prototype_weight=0.0, **SMALL).fit(docs)
    proto = ShuffleDivideEmbedder(tiny_bert_path, prototype_weight=1.0, **SMALL).fit(docs)
    losses = [row["train_loss"] for row in proto.history_[1:]]
    assert all(np.isfinite(losses))
    # Same seed, views and weights before epoch 1: the added term is all that differs,
    # and it is positive (a cross-entropy).
    assert losses[0] > plain.history_[1]["train_loss"] + 1e-3
    # Only the prototype term keeps (and checkpoints) the clusters' centres.
    assert dict(plain.net_.callbacks_)["selection"].context.centres == {}
    assert sorted(dict(proto.net_.callbacks_)["selection"].context.centres) == [0, 1, 2]


def test_prototype_weight_needs_n_clusters_and_is_validated(tiny_bert_path, corpus):
    docs, _ = corpus
    with pytest.raises(ValueError, match="prototype_weight=1.0.*needs n_clusters"):
        ShuffleDivideEmbedder(tiny_bert_path, prototype_weight=1.0,
                              **{**SMALL, "n_clusters": None}).fit(docs)
    with pytest.raises(ValueError, match="prototype_weight"):
        ShuffleDivideEmbedder(tiny_bert_path, prototype_weight=-1.0, **SMALL).fit(docs)
    with pytest.raises(ValueError, match="prototype_weight"):
        ShuffleDivideEmbedder(tiny_bert_path, prototype_weight="on", **SMALL).fit(docs)


@pytest.mark.parametrize("n_clusters, weight", [(4, 1.0), (None, 0.0)])
def test_auto_prototype_weight_is_the_term_with_n_clusters_only(tiny_bert_path, corpus,
                                                                n_clusters, weight):
    docs, _ = corpus
    params = {**SMALL, "n_clusters": n_clusters}
    auto = ShuffleDivideEmbedder(tiny_bert_path, prototype_weight="auto", **params).fit(docs)
    fixed = ShuffleDivideEmbedder(tiny_bert_path, prototype_weight=weight, **params).fit(docs)
    assert auto.prototype_weight_ == weight == fixed.prototype_weight_
    assert auto.prototype_weight == "auto"  # the parameter is left as it was set
    np.testing.assert_array_equal(auto.transform(docs), fixed.transform(docs))
    assert [row["train_loss"] for row in auto.history_] == [
        row["train_loss"] for row in fixed.history_]

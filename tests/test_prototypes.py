"""prototype_weight: ProtoNCE's term, with the epoch selection's clusters as prototypes."""

import numpy as np
import pytest

from sklearn_shufdiv.embedders import ShuffleDivideEmbedder, _training
from sklearn_shufdiv.embedders._selection import cluster_centres

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


def test_the_prototypes_are_the_previous_epochs_centres(tiny_bert_path, corpus, monkeypatch):
    docs, _ = corpus
    seen, embedded = [], []
    batch_loss = _training.ContrastiveNet.batch_loss
    embed = _training.ContrastiveNet.embed

    def spy_loss(net, views, batch):
        seen.append((len(net.history), net.pseudo_labels_.copy(),
                     net.prototypes_.numpy().copy()))
        return batch_loss(net, views, batch)

    def spy_embed(net, texts, *args, **kwargs):
        out = embed(net, texts, *args, **kwargs)
        embedded.append(out)
        return out

    monkeypatch.setattr(_training.ContrastiveNet, "batch_loss", spy_loss)
    monkeypatch.setattr(_training.ContrastiveNet, "embed", spy_embed)
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


def test_prototype_weight_changes_training(tiny_bert_path, corpus):
    docs, _ = corpus
    plain = ShuffleDivideEmbedder(tiny_bert_path, **SMALL).fit(docs)
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

"""cluster_negatives: pseudo-labels from the epoch selection's clustering shape the loss."""

import numpy as np
import pytest

from sklearn_shufdiv.embedders import ShuffleDivideEmbedder, _training

SMALL = dict(max_epochs=2, batch_size=8, mini_batch_size=6, max_length=32, random_state=0,
             verbose=0, n_clusters=4)


def test_the_groups_are_the_previous_epochs_clusters(tiny_bert_path, corpus, monkeypatch):
    docs, _ = corpus
    seen = []
    batch_loss = _training.ContrastiveNet.batch_loss

    def spy(net, views, batch):
        seen.append((len(net.history), batch.documents.copy(), net.pseudo_labels_.copy()))
        return batch_loss(net, views, batch)

    monkeypatch.setattr(_training.ContrastiveNet, "batch_loss", spy)
    embedder = ShuffleDivideEmbedder(tiny_bert_path, cluster_negatives="positive",
                                     selection_sample_size=30, **SMALL).fit(docs)
    assert {epoch for epoch, _, _ in seen} == {1, 2}
    sample = embedder.selection_indices_
    outside = np.setdiff1d(np.arange(len(docs)), sample)
    for epoch, documents, labels in seen:
        # Epoch e trains with the clusters the selection found after epoch e - 1 (0: the
        # untuned encoder); documents outside the selection's sample have none (-1).
        np.testing.assert_array_equal(labels[sample], embedder.selection_labels_[epoch - 1])
        assert (labels[outside] == -1).all() and len(outside) == len(docs) - 30
        assert len(documents) % 2 == 0 and set(documents) <= set(range(len(docs)))
    assert embedder.net_.pseudo_labels_ is None  # not kept (nor pickled) after the fit


@pytest.mark.parametrize("mode", ["exclude", "positive"])
def test_cluster_negatives_change_training(tiny_bert_path, corpus, mode):
    docs, _ = corpus
    plain = ShuffleDivideEmbedder(tiny_bert_path, **SMALL).fit(docs)
    aware = ShuffleDivideEmbedder(tiny_bert_path, cluster_negatives=mode, **SMALL).fit(docs)
    assert aware.net_.criterion_.same_group == mode
    losses = [row["train_loss"] for row in aware.history_[1:]]
    assert all(np.isfinite(losses))
    # Same seed, same views, same weights before epoch 1: only the loss differs.
    assert abs(losses[0] - plain.history_[1]["train_loss"]) > 1e-4


def test_cluster_negatives_need_n_clusters(tiny_bert_path, corpus):
    docs, _ = corpus
    with pytest.raises(ValueError, match="cluster_negatives='exclude'.*needs n_clusters"):
        ShuffleDivideEmbedder(tiny_bert_path, cluster_negatives="exclude",
                              **{**SMALL, "n_clusters": None}).fit(docs)
    with pytest.raises(ValueError, match="cluster_negatives"):
        ShuffleDivideEmbedder(tiny_bert_path, cluster_negatives="drop", **SMALL).fit(docs)

"""Checkpoints: an interrupted fit resumes from its last completed epoch, nothing lost."""

import os

import numpy as np
import pytest

from sklearn_shufdiv.embedders import ShuffleDivideEmbedder

PARAMS = dict(max_epochs=3, batch_size=8, mini_batch_size=6, max_length=32, random_state=0,
              verbose=0, n_clusters=4)


def test_interrupted_fit_resumes_to_the_same_result(tiny_bert_path, corpus, tmp_path,
                                                    interrupt_at):
    docs, _ = corpus
    whole = ShuffleDivideEmbedder(tiny_bert_path, **PARAMS).fit(docs)

    restore = interrupt_at(6 * 2 + 3)  # 6 batches an epoch: stop inside epoch 3
    embedder = ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=tmp_path, **PARAMS)
    with pytest.warns(RuntimeWarning, match="interrupted after 2 of 3 epochs.*checkpoint_dir"):
        embedder.fit(docs)
    # The newest checkpoint, and the one before to fall back to should it be unreadable.
    assert sorted(os.listdir(tmp_path)) == ["epoch-1", "epoch-2"]
    restore()

    resumed = ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=tmp_path, **PARAMS).fit(docs)
    assert sorted(os.listdir(tmp_path)) == ["epoch-2", "epoch-3"]
    def without_durations(history):
        return [{k: v for k, v in row.items() if k != "duration"} for row in history]

    assert without_durations(resumed.history_) == without_durations(whole.history_)
    assert resumed.best_epoch_ == whole.best_epoch_
    np.testing.assert_array_equal(resumed.transform(docs), whole.transform(docs))


def test_a_complete_checkpoint_is_loaded_without_training(tiny_bert_path, corpus, tmp_path,
                                                          interrupt_at):
    docs, _ = corpus
    first = ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=tmp_path, **PARAMS).fit(docs)
    interrupt_at(1)  # any training step would now stop the fit
    again = ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=tmp_path, **PARAMS).fit(docs)
    np.testing.assert_array_equal(again.transform(docs), first.transform(docs))


def test_a_checkpoint_of_another_fit_is_refused(tiny_bert_path, corpus, tmp_path):
    docs, _ = corpus
    params = {**PARAMS, "max_epochs": 1, "n_clusters": None}
    ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=tmp_path, **params).fit(docs)
    with pytest.raises(ValueError, match="other parameters or other documents"):
        ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=tmp_path,
                              **{**params, "learning_rate": 1e-3}).fit(docs)
    with pytest.raises(ValueError, match="other parameters or other documents"):
        ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=tmp_path, **params).fit(docs[1:])
    # More epochs continue the same fit.
    longer = ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=tmp_path,
                                   **{**params, "max_epochs": 2}).fit(docs)
    assert [row["epoch"] for row in longer.history_] == [0, 1, 2]

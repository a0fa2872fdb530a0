"""The skorch engine: users' callbacks, the history keys they monitor, Ctrl-C, batching,
and a progress bar that moves within a batch."""

import os
import signal
import time
import warnings

import numpy as np
import pytest
import torch
from conftest import SMALL
from skorch.callbacks import (
    Callback,
    EarlyStopping,
    Freezer,
    GradientNormClipping,
    LRScheduler,
)
from torch.optim.lr_scheduler import LambdaLR

from sklearn_shufdiv.__main__ import main
from sklearn_shufdiv.embedders import ShuffleDivideEmbedder
from sklearn_shufdiv.embedders._training import _engine
from sklearn_shufdiv.embedders._training._engine import EpochBatches, batch_count
from sklearn_shufdiv.exceptions import FitInterruptedWarning

# The engine's tests score epochs by the untuned silhouette, which keeps the best score
# (the default, stability, can skip training where the tiny model's clusters are unstable).
TRAINING = {**SMALL, "selection": "untuned-silhouette"}


def warm_up_then_decay(step):
    """Linear warm-up over 4 steps, then linear decay to 0 at step 20."""
    return min(1.0, (step + 1) / 4) * max(0.0, 1 - step / 20)


class Recorder(Callback):
    """A user's callback: what it sees of the history and of the gradients."""

    def initialize(self):
        self.epoch_rows, self.lrs, self.gradient_norms = [], [], []
        return self

    def on_batch_begin(self, net, **kwargs):
        self.lrs.append(net.optimizer_.param_groups[0]["lr"])

    def on_grad_computed(self, net, named_parameters, **kwargs):
        grads = [p.grad for _, p in named_parameters if p.grad is not None]
        self.gradient_norms.append(float(torch.linalg.vector_norm(
            torch.stack([torch.linalg.vector_norm(g) for g in grads]))))

    def on_epoch_end(self, net, **kwargs):
        self.epoch_rows.append(dict(net.history[-1]))


def test_user_callbacks_lr_schedule_and_clipping_plug_into_fit(tiny_bert_path, corpus):
    docs, _ = corpus
    recorder = Recorder()
    embedder = ShuffleDivideEmbedder(tiny_bert_path, n_clusters=4, **TRAINING, callbacks=[
        ("lr", LRScheduler(LambdaLR, lr_lambda=warm_up_then_decay, step_every="batch")),
        GradientNormClipping(gradient_clip_value=0.05),
        ("recorder", recorder),
    ]).fit(docs)
    # The schedule drove AdamW: batch b ran at learning_rate * lambda(b).
    n_batches = 6 * embedder.max_epochs
    expected = [3e-5 * warm_up_then_decay(b) for b in range(n_batches)]
    np.testing.assert_allclose(recorder.lrs, expected, rtol=1e-6)
    # The user's callbacks run after the engine's: clipping (before the recorder) holds.
    assert len(recorder.gradient_norms) == n_batches
    assert max(recorder.gradient_norms) <= 0.05 * (1 + 1e-4)
    # The documented keys are there for monitors, equal to history_.
    for row, mine in zip(recorder.epoch_rows, embedder.history_[1:]):
        assert ({"train_loss", "selection_score", "selection_score_best", "untuned_silhouette"}
                <= set(row))
        assert row["train_loss"] == mine["train_loss"]
        assert row["selection_score"] == row["untuned_silhouette"] == mine["selection_score"]
    best = [row["selection_score_best"] for row in recorder.epoch_rows]
    scores = [row["selection_score"] for row in embedder.history_]
    assert best == [scores[e] > max(scores[:e]) for e in (1, 2)]


class ParameterChanges(Callback):
    """Which of the encoder's parameters training changed, from its first step to its end."""

    def on_train_begin(self, net, **kwargs):
        self.before = {n: p.detach().clone() for n, p in net.module_.named_parameters()}

    def on_train_end(self, net, **kwargs):
        self.changed = {n: not torch.equal(p.detach(), self.before[n])
                        for n, p in net.module_.named_parameters()}


def test_skorch_freezer_keeps_the_lower_layers_as_they_were(tiny_bert_path, corpus):
    """Staying near the pretrained geometry by freezing layers is skorch's Freezer, a value
    passed in ``callbacks``: the matched parameters do not move (AdamW's weight decay
    included), the others train."""
    docs, _ = corpus
    changes = ParameterChanges()
    ShuffleDivideEmbedder(tiny_bert_path, n_clusters=4, **TRAINING, callbacks=[
        Freezer(["*embeddings*", "*layer.0.*"]), ("changes", changes)]).fit(docs)
    frozen = {n for n in changes.changed if "embeddings" in n or ".layer.0." in n}
    assert frozen and len(frozen) < len(changes.changed)
    assert not any(changes.changed[n] for n in frozen)
    # Every other one trains, but BERT's pooler, which mean pooling does not use.
    assert [n for n, c in changes.changed.items() if n not in frozen and not c] == [
        "transformer.pooler.dense.weight", "transformer.pooler.dense.bias"]


def test_early_stopping_monitors_the_selection_score(tiny_bert_path, corpus, tmp_path):
    docs, _ = corpus
    # A threshold no score can beat after the first: EarlyStopping stops after epoch 2.
    stopper = EarlyStopping(monitor="selection_score", lower_is_better=False, patience=1,
                            threshold=10.0, threshold_mode="abs")
    with warnings.catch_warnings():
        warnings.simplefilter("error", FitInterruptedWarning)  # a stop is no interruption
        embedder = ShuffleDivideEmbedder(
            tiny_bert_path, n_clusters=4, checkpoint_dir=tmp_path,
            **{**TRAINING, "max_epochs": 4}, callbacks=[stopper]).fit(docs)
    assert [row["epoch"] for row in embedder.history_] == [0, 1, 2]
    assert embedder.best_epoch_ in (0, 1, 2)
    # The epoch it ended was checkpointed (the checkpoint runs after the stop request).
    assert (tmp_path / "epoch-2" / "checkpoint.json").is_file()


def test_bad_callbacks(tiny_bert_path, corpus):
    docs, _ = corpus
    with pytest.raises(TypeError, match="callbacks must be a list of skorch callbacks"):
        ShuffleDivideEmbedder(tiny_bert_path, **TRAINING, callbacks=[print]).fit(docs)
    with pytest.raises(ValueError, match="'progress' is taken by one of the engine's"):
        ShuffleDivideEmbedder(tiny_bert_path, **TRAINING,
                              callbacks=[("progress", Recorder())]).fit(docs)


def test_ctrl_c_returns_the_last_completed_epoch(tiny_bert_path, corpus, interrupt_at):
    """Interrupted in epoch 2 of 3, the model is epoch 1's, as history_ says."""
    docs, _ = corpus
    params = {**TRAINING, "max_epochs": 3}
    interrupt_at(6 + 3)  # 6 batches an epoch: stop inside epoch 2
    with pytest.warns(FitInterruptedWarning, match="after 1 of 3 epochs.*weights of epoch 1"):
        interrupted = ShuffleDivideEmbedder(tiny_bert_path, **params).fit(docs)
    assert [row["epoch"] for row in interrupted.history_] == [0, 1]
    assert interrupted.best_epoch_ == 1
    one_epoch = ShuffleDivideEmbedder(tiny_bert_path, **{**params, "max_epochs": 1}).fit(docs)
    np.testing.assert_array_equal(interrupted.transform(docs), one_epoch.transform(docs))


def test_ctrl_c_in_the_command_line_exits_130_saying_how_to_resume(
        tiny_bert_path, corpus, tmp_path, capsys, interrupt_at):
    docs, _ = corpus
    (tmp_path / "docs.txt").write_text("\n".join(docs[:16]))
    argv = ["cluster", str(tmp_path / "docs.txt"), "-k", "4", "-o", str(tmp_path / "out.csv"),
            "--model", tiny_bert_path, "--max-epochs", "2", "--batch-size", "4",
            "--max-length", "32", "--quiet", "--checkpoint-dir", str(tmp_path / "ck")]
    interrupt_at(4 + 2)  # 4 batches an epoch: inside epoch 2
    assert main(argv) == 130
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error: interrupted during training; run the same command "
                              "again to resume"), err
    assert (tmp_path / "ck" / "epoch-1").is_dir() and not (tmp_path / "out.csv").exists()
    interrupt_at(4 + 2)
    assert main(argv[:-2]) == 130  # without checkpoints, it says how to keep them
    assert "add --checkpoint-dir DIR" in capsys.readouterr().err


class CountingBar(_engine.tqdm):
    updates = []

    def update(self, n=1):
        CountingBar.updates.append(n)
        return super().update(n)


def test_the_progress_bar_moves_within_a_batch(tiny_bert_path, corpus, monkeypatch, capsys):
    """One batch of 24 pairs in mini-batches of 6 views: the bar moves with each of them,
    not once per batch, and ends full."""
    docs, _ = corpus
    CountingBar.updates = []
    monkeypatch.setattr(_engine, "tqdm", CountingBar)
    ShuffleDivideEmbedder(tiny_bert_path, **{**TRAINING, "max_epochs": 1, "batch_size": 48,
                                             "verbose": 1}).fit(docs[:24])
    assert len(CountingBar.updates) > 8  # 48 views / 6 a mini-batch, twice
    assert sum(CountingBar.updates) == 2 * 48  # each view embedded, then back-propagated
    captured = capsys.readouterr()
    assert "batch 1/1, loss" in captured.err and "epoch 1: loss" in captured.out + captured.err


@pytest.mark.parametrize("n_pairs, batch_size, world_size, sizes", [
    (5, 2, 1, [3, 2]), (7, 2, 1, [3, 2, 2]), (6, 2, 1, [2, 2, 2]), (48, 10, 1, [10, 10, 10, 9, 9]),
    (5, 4, 2, [3, 2]), (3, 3, 1, [3]),
])
def test_no_batch_is_left_with_a_single_pair(n_pairs, batch_size, world_size, sizes):
    n = batch_count(n_pairs, batch_size, world_size)
    assert sorted(map(len, np.array_split(np.arange(n_pairs), n)), reverse=True) == sizes


def test_batch_size_2_with_an_odd_number_of_documents_trains(tiny_bert_path, corpus):
    """5 trainable documents in batches of 2 pairs: no batch is left with a single pair
    (which the loss refuses: "Need an even number of at least 4 views")."""
    docs, _ = corpus
    embedder = ShuffleDivideEmbedder(tiny_bert_path, **{**TRAINING, "batch_size": 2,
                                                        "max_epochs": 1, "lexical_weight": 0}
                                     ).fit(docs[:5])
    assert embedder.net_.history[-1, "train_batch_count"] == 2
    batches = EpochBatches(embedder._make_positives().fit(docs[:5]), 2, 0)
    batches.set_epoch(1)
    assert sorted(len(b) // 2 for b in batches.batches) == [2, 3]


# -- interruptions -----------------------------------------------------------------------
# Ctrl-C while a user callback runs is an interruption, not that callback's stop request.
INTERRUPTED = {**SMALL, "max_epochs": 3, "mini_batch_size": "auto", "lexical_weight": 0}


class CtrlCDuringEpochEnd(Callback):
    """Receives a SIGINT (as from Ctrl-C) while it runs, at the end of epoch 1."""

    def on_epoch_end(self, net, **kwargs):
        if len(net.history) == 1:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)  # the signal interrupts the sleep


class StopsAfterEpochOne(Callback):
    def on_epoch_end(self, net, **kwargs):
        if len(net.history) == 1:
            raise KeyboardInterrupt  # skorch's way to ask for a stop


@pytest.fixture
def python_sigint():
    """Python's own SIGINT handler (Ctrl-C raises KeyboardInterrupt) for the test, as in
    an interactive session; a process started in the background ignores SIGINT."""
    try:
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    except ValueError:  # not the main thread
        pytest.skip("signal handlers can only be set in the main thread")
    yield
    signal.signal(signal.SIGINT, previous)


def test_ctrl_c_inside_a_user_callback_is_an_interruption(tiny_bert_path, corpus,
                                                          python_sigint):
    start = time.monotonic()
    with pytest.warns(FitInterruptedWarning, match="interrupted after 1 of 3 epochs"):
        embedder = ShuffleDivideEmbedder(tiny_bert_path, **INTERRUPTED,
                                         callbacks=[CtrlCDuringEpochEnd()]).fit(corpus[0])
    assert time.monotonic() - start < 120
    assert [row["epoch"] for row in embedder.history_] == [0, 1]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back


def test_a_callback_that_raises_the_stop_itself_is_a_stop_request(tiny_bert_path, corpus):
    with warnings.catch_warnings():
        warnings.simplefilter("error", FitInterruptedWarning)
        embedder = ShuffleDivideEmbedder(tiny_bert_path, **INTERRUPTED,
                                         callbacks=[StopsAfterEpochOne()]).fit(corpus[0])
    assert [row["epoch"] for row in embedder.history_] == [0, 1]
    assert embedder.net_.stop_requested_by_ == "StopsAfterEpochOne"

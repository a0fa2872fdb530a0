"""Ctrl-C while a user callback runs is an interruption, not that callback's stop request."""

import os
import signal
import time
import warnings

import pytest
from skorch.callbacks import Callback

from sklearn_shufdiv.embedders import FitInterruptedWarning, ShuffleDivideEmbedder

SMALL = dict(max_epochs=3, batch_size=8, max_length=32, random_state=0, verbose=0,
             lexical_weight=0)


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
        embedder = ShuffleDivideEmbedder(tiny_bert_path, **SMALL,
                                         callbacks=[CtrlCDuringEpochEnd()]).fit(corpus[0])
    assert time.monotonic() - start < 120
    assert [row["epoch"] for row in embedder.history_] == [0, 1]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back


def test_a_callback_that_raises_the_stop_itself_is_a_stop_request(tiny_bert_path, corpus):
    with warnings.catch_warnings():
        warnings.simplefilter("error", FitInterruptedWarning)
        embedder = ShuffleDivideEmbedder(tiny_bert_path, **SMALL,
                                         callbacks=[StopsAfterEpochOne()]).fit(corpus[0])
    assert [row["epoch"] for row in embedder.history_] == [0, 1]
    assert embedder.net_.stop_requested_by_ == "StopsAfterEpochOne"

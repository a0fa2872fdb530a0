"""max_epochs="auto" (no training on a CPU, said and recorded) and max_time, the fit's
time budget, measured here on a fake clock that advances 10 s per training step."""

import pickle
import types
import warnings

import numpy as np
import pytest
from sklearn.base import clone

from sklearn_shufdiv import ShuffleDivideEmbedder, TfidfPositiveEmbedder
from sklearn_shufdiv.embedders._encoder._device import resolve_max_epochs
from sklearn_shufdiv.embedders._training import _budget, _engine
from sklearn_shufdiv.exceptions import FitInterruptedWarning, InvalidParameterError

PARAMS = dict(max_length=32, mini_batch_size=6, random_state=0, verbose=0)
STEP_SECONDS = 10.0


@pytest.fixture
def steps(monkeypatch):
    """A fake clock for the engine: every training step takes ``STEP_SECONDS``.
    Returns the list of the clock's readings at the end of each step."""
    now, ends = [0.0], []
    monkeypatch.setattr(_budget, "time", types.SimpleNamespace(monotonic=lambda: now[0]))
    step = _engine.ContrastiveNet.train_step_single

    def timed(net, batch, **kwargs):
        result = step(net, batch, **kwargs)
        now[0] += STEP_SECONDS
        ends.append(now[0])
        return result

    monkeypatch.setattr(_engine.ContrastiveNet, "train_step_single", timed)
    return ends


def _budget_warnings(records):
    return [str(r.message) for r in records if "max_time" in str(r.message)]


@pytest.mark.parametrize("Embedder", [ShuffleDivideEmbedder, TfidfPositiveEmbedder])
def test_auto_epochs_do_not_train_on_a_cpu_and_say_so(Embedder, tiny_bert_path, corpus,
                                                      steps, capsys):
    docs, _ = corpus
    embedder = Embedder(tiny_bert_path, **{**PARAMS, "verbose": 1}).fit(docs)
    assert embedder.get_params()["max_epochs"] == "auto"
    assert embedder.max_epochs_ == 0 and steps == []
    assert [row["epoch"] for row in embedder.history_] == [0]
    assert embedder.max_epochs_reason_.startswith(
        "max_epochs='auto' on a CPU: the encoder is not trained")
    assert embedder.max_epochs_reason_ in capsys.readouterr().out


def test_auto_epochs_train_on_a_gpu_and_an_int_is_kept():
    assert resolve_max_epochs("auto", "cuda:0")[0] == 3
    assert resolve_max_epochs("auto", "cpu")[0] == 0
    assert resolve_max_epochs(5, "cpu") == (5, "max_epochs=5: 5 epochs")


def test_max_time_stops_after_the_epoch_when_the_next_would_end_past_it(
        tiny_bert_path, corpus, steps, capsys):
    docs, _ = corpus  # 48 pairs: 2 batches of 24, 20 s an epoch
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        embedder = ShuffleDivideEmbedder(tiny_bert_path, max_epochs=3, max_time=35,
                                         batch_size=24, n_clusters=4,
                                         **{**PARAMS, "verbose": 1}).fit(docs)
    assert steps == [10, 20]
    assert [row["epoch"] for row in embedder.history_] == [0, 1]
    assert embedder.best_epoch_ in (0, 1) and embedder.stopped_by_max_time_
    assert not _budget_warnings(records)  # the first epoch fitted the budget
    assert not [r for r in records if issubclass(r.category, FitInterruptedWarning)]
    assert ("max_time=35: training stops (20 s spent after epoch 1, and another would end "
            "past it)") in capsys.readouterr().out


def test_max_time_spent_mid_epoch_drops_that_epoch_and_warns_first(tiny_bert_path, corpus,
                                                                   steps):
    docs, _ = corpus  # 3 batches of 16 pairs: the first epoch is estimated at 30 s
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        embedder = ShuffleDivideEmbedder(tiny_bert_path, max_epochs=2, max_time=15,
                                         batch_size=16, lexical_weight=0,
                                         **{**PARAMS, "verbose": 1}).fit(docs)
    assert steps == [10, 20]  # stopped at the end of the batch that spent the budget
    embedder = pickle.loads(pickle.dumps(embedder))  # no progress bar left open
    assert [row["epoch"] for row in embedder.history_] == [0]
    assert embedder.best_epoch_ == 0 and embedder.stopped_by_max_time_
    assert len(_budget_warnings(records)) == 1
    assert "estimated at about 30 s (3 batches)" in _budget_warnings(records)[0]
    assert not [r for r in records if issubclass(r.category, FitInterruptedWarning)]
    untuned = ShuffleDivideEmbedder(tiny_bert_path, max_epochs=0, lexical_weight=0,
                                    **PARAMS).fit(docs)
    np.testing.assert_array_equal(embedder.transform(docs), untuned.transform(docs))


def test_without_max_time_every_epoch_trains(tiny_bert_path, corpus, steps):
    docs, _ = corpus
    embedder = ShuffleDivideEmbedder(tiny_bert_path, max_epochs=2, batch_size=24,
                                     lexical_weight=0, **PARAMS).fit(docs)
    assert len(steps) == 4 and not embedder.stopped_by_max_time_
    assert [row["epoch"] for row in embedder.history_] == [0, 1, 2]


def test_a_fit_stopped_by_max_time_resumes_from_its_checkpoint(tiny_bert_path, corpus, steps,
                                                               tmp_path):
    docs, _ = corpus
    params = dict(max_epochs=3, batch_size=24, checkpoint_dir=tmp_path, lexical_weight=0,
                  **PARAMS)
    ShuffleDivideEmbedder(tiny_bert_path, max_time=35, **params).fit(docs)
    assert len(steps) == 2
    resumed = ShuffleDivideEmbedder(tiny_bert_path, **params).fit(docs)
    assert len(steps) == 6  # epochs 2 and 3 only
    assert [row["epoch"] for row in resumed.history_] == [0, 1, 2, 3]
    assert not resumed.stopped_by_max_time_


@pytest.mark.parametrize("params, name", [({"max_time": 0}, "max_time"),
                                          ({"max_time": -5.0}, "max_time"),
                                          ({"max_epochs": "all"}, "max_epochs")])
def test_bad_budget_or_epochs_are_named(tiny_bert_path, corpus, params, name):
    docs, _ = corpus
    with pytest.raises(InvalidParameterError, match=f"'{name}' parameter"):
        ShuffleDivideEmbedder(tiny_bert_path, **{**PARAMS, **params}).fit(docs)


def test_budget_parameters_clone_and_pickle():
    embedder = TfidfPositiveEmbedder(max_epochs="auto", max_time=90.5)
    assert clone(embedder).get_params()["max_time"] == 90.5
    restored = pickle.loads(pickle.dumps(embedder))
    assert restored.get_params() == embedder.get_params()

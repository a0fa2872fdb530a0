"""Checkpoints: an interrupted fit resumes from its last completed epoch, nothing lost;
nothing in a checkpoint runs code, and a checkpoint of another fit is refused."""

import errno
import hashlib
import json
import os
import pickle
import shutil
import signal
import subprocess
import sys
import textwrap
import types

import numpy as np
import pytest
import torch
from _unprivileged import run_python
from conftest import SMALL
from sklearn.model_selection import GridSearchCV

from sklearn_shufdiv import exceptions
from sklearn_shufdiv.embedders import ProtoNCE, ShuffleDivideEmbedder
from sklearn_shufdiv.embedders._training import _checkpoint

PARAMS = {**SMALL, "max_epochs": 3, "n_clusters": 4}


@pytest.mark.parametrize("extra", [{"selection": "stability"},
                                   {"selection": "untuned-silhouette"},
                                   {"objective": "prototype"},
                                   {"objective": ProtoNCE(n_pseudo_clusters=6, fraction=0.5)}])
def test_interrupted_fit_resumes_to_the_same_result(tiny_bert_path, corpus, tmp_path,
                                                    interrupt_at, extra):
    # The untuned silhouette scores every epoch in epoch 0's space, which the
    # checkpoint carries: resumed at epoch 2, epoch 3 is scored as without the stop.
    # A cluster-aware objective's pseudo-labels of epoch 2 (and the prototype term's
    # centers) are in the checkpoint too, over-clustered and cut as they were trained on.
    docs, _ = corpus
    params = {**PARAMS, **extra}
    whole = ShuffleDivideEmbedder(tiny_bert_path, **params).fit(docs)

    restore = interrupt_at(6 * 2 + 3)  # 6 batches an epoch: stop inside epoch 3
    embedder = ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=tmp_path, **params)
    with pytest.warns(RuntimeWarning, match="interrupted after 2 of 3 epochs.*checkpoint_dir"):
        embedder.fit(docs)
    # The newest checkpoint, and the one before to fall back to should it be unreadable.
    assert sorted(os.listdir(tmp_path)) == ["epoch-1", "epoch-2"]
    restore()

    resumed = ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=tmp_path, **params).fit(docs)
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
    interrupt_at(1)  # any training step would now stop the fit, and is counted
    again = ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=tmp_path, **PARAMS).fit(docs)
    assert interrupt_at.steps["n"] == 0  # not a step was attempted (skorch swallows Ctrl-C)
    np.testing.assert_array_equal(again.transform(docs), first.transform(docs))
    assert again.history_ == first.history_


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


def test_a_checkpoint_of_another_objective_is_refused(tiny_bert_path, corpus, tmp_path):
    docs, _ = corpus
    params = {**PARAMS, "max_epochs": 1}
    ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=tmp_path, objective=ProtoNCE(),
                          **params).fit(docs)
    for other in ("nt-xent", ProtoNCE(weight=0.5)):
        with pytest.raises(ValueError, match="objective was .*ProtoNCE.*, now"):
            ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=tmp_path, objective=other,
                                  **params).fit(docs)
    # The name of the same objective resumes it.
    longer = ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=tmp_path,
                                   objective="prototype", **{**params, "max_epochs": 2}
                                   ).fit(docs)
    assert [row["epoch"] for row in longer.history_] == [0, 1, 2]


def split_on_periods(text):
    """A module-level sentence splitter: recognised by name in another process."""
    return [part.strip() + "." for part in text.split(".") if part.strip()]


def without_durations(history):
    return [{k: v for k, v in row.items() if k != "duration"} for row in history]


# -- nothing loaded from a checkpoint runs code -----------------------------------------
def crafted_pickle(marker):
    """A pickle whose object reduces to a function call (here: making a folder)."""
    class Payload:
        def __reduce__(self):
            return (os.mkdir, (str(marker),))
    return pickle.dumps(Payload())


@pytest.mark.filterwarnings("ignore:Detected pickle protocol")
def test_a_crafted_checkpoint_runs_no_code(tiny_bert_path, corpus, tmp_path):
    docs, _ = corpus
    params = {**PARAMS, "max_epochs": 1, "n_clusters": None}
    marker = tmp_path / "code-ran"
    # 1. The old format: a state.pt whose object reduces to a function call.
    old = tmp_path / "old" / "epoch-1"
    old.mkdir(parents=True)
    (old / "state.pt").write_bytes(crafted_pickle(marker))
    with pytest.raises(ValueError, match="earlier version.*not loaded.*Delete"):
        ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=old.parent, **params).fit(docs)
    assert not marker.exists()
    # 2. A checkpoint of this fit whose optimizer.pt was replaced, with its hash updated.
    ck = tmp_path / "ck"
    ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=ck, **params).fit(docs)
    (ck / "epoch-1" / "optimizer.pt").write_bytes(crafted_pickle(marker))
    manifest = json.loads((ck / "epoch-1" / "checkpoint.json").read_text())
    manifest["files"]["optimizer.pt"] = hashlib.sha256(
        (ck / "epoch-1" / "optimizer.pt").read_bytes()).hexdigest()
    (ck / "epoch-1" / "checkpoint.json").write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match="no readable checkpoint.*could not be loaded"):
        ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=ck, **params).fit(docs)
    assert not marker.exists()


# -- the fingerprint is of what the fit is -----------------------------------------------
def test_another_model_under_the_same_name_is_refused(tiny_bert_path, corpus, tmp_path,
                                                      monkeypatch):
    from transformers import BertModel

    docs, _ = corpus
    for folder, seed in (("a", None), ("b", 1)):
        shutil.copytree(tiny_bert_path, tmp_path / folder / "model")
        if seed is not None:  # the same architecture, other weights
            model = BertModel.from_pretrained(tmp_path / folder / "model")
            torch.manual_seed(seed)
            with torch.no_grad():
                for parameter in model.parameters():
                    parameter.add_(0.1 * torch.randn_like(parameter))
            model.save_pretrained(tmp_path / folder / "model")
    params = {**PARAMS, "max_epochs": 1, "n_clusters": None}
    ck = tmp_path / "ck"
    monkeypatch.chdir(tmp_path / "a")
    ShuffleDivideEmbedder("model", checkpoint_dir=ck, **params).fit(docs)
    monkeypatch.chdir(tmp_path / "b")
    with pytest.raises(ValueError, match="the model differs"):
        ShuffleDivideEmbedder("model", checkpoint_dir=ck, **params).fit(docs)
    # The same model under another path is the same model: it resumes.
    moved = ShuffleDivideEmbedder(str(tmp_path / "a" / "model"), checkpoint_dir=ck,
                                  **{**params, "max_epochs": 2}).fit(docs)
    assert [row["epoch"] for row in moved.history_] == [0, 1, 2]


def test_a_random_state_instance_resumes(tiny_bert_path, corpus, tmp_path, interrupt_at):
    docs, _ = corpus
    params = {**PARAMS, "max_epochs": 2}
    whole = ShuffleDivideEmbedder(tiny_bert_path, **{**params, "random_state":
                                                     np.random.RandomState(0)}).fit(docs)
    restore = interrupt_at(6 + 2)
    with pytest.warns(RuntimeWarning, match="interrupted after 1 of 2"):
        ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=tmp_path, **{
            **params, "random_state": np.random.RandomState(0)}).fit(docs)
    restore()
    resumed = ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=tmp_path, **{
        **params, "random_state": np.random.RandomState(0)}).fit(docs)
    assert without_durations(resumed.history_) == without_durations(whole.history_)
    np.testing.assert_array_equal(resumed.transform(docs), whole.transform(docs))


def test_a_function_is_recognised_by_name_and_a_lambda_refused(tiny_bert_path, corpus,
                                                                tmp_path):
    docs, _ = corpus
    params = {**PARAMS, "max_epochs": 1, "n_clusters": None}
    ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=tmp_path,
                          sentence_splitter=split_on_periods, **params).fit(docs)
    # The same function as another process loads it: another object, the same name.
    reloaded = types.FunctionType(split_on_periods.__code__, split_on_periods.__globals__,
                                  split_on_periods.__name__)
    assert reloaded is not split_on_periods
    longer = ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=tmp_path,
                                   sentence_splitter=reloaded,
                                   **{**params, "max_epochs": 2}).fit(docs)
    assert [row["epoch"] for row in longer.history_] == [0, 1, 2]
    with pytest.raises(ValueError, match="sentence_splitter.*lambda.*top level of a module"):
        ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=tmp_path / "other",
                              sentence_splitter=lambda text: text.split("."),
                              **params).fit(docs)


# -- damaged checkpoints -----------------------------------------------------------------
@pytest.fixture(scope="module")
def finished(tiny_bert_path, corpus, tmp_path_factory):
    """A whole 3-epoch fit, and the checkpoints of the same fit (epochs 2 and 3 kept)."""
    docs, _ = corpus
    whole = ShuffleDivideEmbedder(tiny_bert_path, **PARAMS).fit(docs)
    ck = tmp_path_factory.mktemp("finished")
    ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=ck, **PARAMS).fit(docs)
    assert sorted(os.listdir(ck)) == ["epoch-2", "epoch-3"]
    return whole, ck


def truncate(path):
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


DAMAGES = {
    "params truncated": lambda d: truncate(d / "params.safetensors"),
    "optimizer empty": lambda d: (d / "optimizer.pt").write_bytes(b""),
    "history truncated": lambda d: truncate(d / "history.json"),
    "tensors missing": lambda d: (d / "tensors.safetensors").unlink(),
    "manifest truncated": lambda d: truncate(d / "checkpoint.json"),
}


@pytest.mark.parametrize("damage", DAMAGES, ids=list(DAMAGES))
def test_a_damaged_checkpoint_falls_back_to_the_previous_epoch(tiny_bert_path, corpus,
                                                               tmp_path, finished, damage):
    docs, _ = corpus
    whole, source = finished
    ck = tmp_path / "ck"
    shutil.copytree(source, ck)
    DAMAGES[damage](ck / "epoch-3")
    with pytest.warns(RuntimeWarning, match=r"epoch-3.*(damaged|unreadable|incomplete).*"
                                            r"Resuming from epoch 2 instead"):
        resumed = ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=ck, **PARAMS).fit(docs)
    assert without_durations(resumed.history_) == without_durations(whole.history_)
    np.testing.assert_array_equal(resumed.transform(docs), whole.transform(docs))
    assert sorted(os.listdir(ck)) == ["epoch-2", "epoch-3"]  # epoch 3 written again


def test_no_readable_checkpoint_is_a_clear_error(tiny_bert_path, corpus, tmp_path, finished):
    docs, _ = corpus
    shutil.copytree(finished[1], tmp_path / "ck")
    for epoch in (2, 3):
        truncate(tmp_path / "ck" / f"epoch-{epoch}" / "params.safetensors")
    with pytest.raises(ValueError, match=r"holds no readable checkpoint.*epoch-3.*"
                                         r"params.safetensors.*Delete the folder"):
        ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=tmp_path / "ck",
                              **PARAMS).fit(docs)


# -- weak spots ------------------------------------------------------------------------
def test_an_unwritable_checkpoint_dir_fails_before_training(tiny_bert_path, corpus,
                                                            tmp_path, interrupt_at):
    docs, _ = corpus
    (tmp_path / "a-file").write_text("")
    interrupt_at(10**9)  # counts the steps
    with pytest.raises(OSError, match="checkpoint_dir=.*cannot be written"):
        ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=tmp_path / "a-file" / "ck",
                              **PARAMS).fit(docs)
    assert interrupt_at.steps["n"] == 0


def test_a_grid_search_over_one_checkpoint_dir_is_a_clear_error(tiny_bert_path, corpus,
                                                                tmp_path):
    docs, _ = corpus
    embedder = ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=tmp_path,
                                     **{**PARAMS, "max_epochs": 1, "n_clusters": None})
    everything = np.arange(len(docs))
    search = GridSearchCV(embedder, {"learning_rate": [1e-4, 1e-3]}, error_score="raise",
                          scoring=lambda est, X, y=None: 0.0, cv=[(everything, everything)])
    with pytest.raises(ValueError, match=r"learning_rate was 0.0001, now 0.001.*GridSearchCV"):
        search.fit(docs)


# -- checkpoints on a hostile filesystem -------------------------------------------------
# Checkpoints on a hostile filesystem: manifests of unknown formats or absurd nesting,
# writes that fail, names taken by files or links, stale partial writes, two fits on one
# folder, a read-only folder with nothing left to write, and ``~`` in the path.
ON_DISK = {**SMALL, "mini_batch_size": 8, "lexical_weight": 0}


@pytest.fixture(scope="module")
def two_epochs(tiny_bert_path, corpus, tmp_path_factory):
    """A 2-epoch fit without checkpoints, and a folder of the same fit's checkpoints."""
    docs = corpus[0][:24]
    whole = ShuffleDivideEmbedder(tiny_bert_path, **ON_DISK).fit(docs)
    ck = tmp_path_factory.mktemp("finished") / "ck"
    ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=ck, **ON_DISK).fit(docs)
    assert sorted(os.listdir(ck)) == ["epoch-1", "epoch-2"]
    return docs, whole, ck


def _copy(two_epochs, tmp_path):
    return shutil.copytree(two_epochs[2], tmp_path / "ck")


def _edit_manifest(directory, change):
    path = directory / "checkpoint.json"
    manifest = json.loads(path.read_text())
    change(manifest)
    path.write_text(json.dumps(manifest))


# -- manifests ---------------------------------------------------------------------------
def test_an_unknown_format_is_not_resumed(tiny_bert_path, two_epochs, tmp_path):
    docs, whole, _ = two_epochs
    ck = _copy(two_epochs, tmp_path)
    _edit_manifest(ck / "epoch-2", lambda m: m.update(format=999))
    with pytest.warns(RuntimeWarning, match=r"epoch-2 has format 999, which this version .* "
                                            r"reads format 1.*Resuming from epoch 1 instead"):
        resumed = ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=ck, **ON_DISK).fit(docs)
    np.testing.assert_array_equal(resumed.transform(docs), whole.transform(docs))

    for epoch in (1, 2):
        _edit_manifest(ck / f"epoch-{epoch}", lambda m: m.pop("format"))
    with pytest.raises(ValueError, match=r"holds no readable checkpoint.*has format None"):
        ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=ck, **ON_DISK).fit(docs)


def test_a_deeply_nested_manifest_is_an_unreadable_checkpoint(tiny_bert_path, two_epochs,
                                                              tmp_path):
    docs, whole, _ = two_epochs
    ck = _copy(two_epochs, tmp_path)
    (ck / "epoch-2" / "checkpoint.json").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.warns(RuntimeWarning, match=r"epoch-2 is unreadable \(checkpoint.json: nested "
                                            r"too deeply.*Resuming from epoch 1"):
        resumed = ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=ck, **ON_DISK).fit(docs)
    np.testing.assert_array_equal(resumed.transform(docs), whole.transform(docs))


def test_a_manifest_whose_files_entry_is_not_an_object_is_unreadable(tiny_bert_path,
                                                                     two_epochs, tmp_path):
    docs, _, _ = two_epochs
    ck = _copy(two_epochs, tmp_path)
    _edit_manifest(ck / "epoch-2", lambda m: m.update(files=["params.safetensors"]))
    with pytest.warns(RuntimeWarning, match=r"'files' is list, not an object"):
        ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=ck, **ON_DISK).fit(docs)


# -- writes that fail --------------------------------------------------------------------
def test_a_failed_write_raises_one_error_and_keeps_the_model(tiny_bert_path, two_epochs,
                                                            tmp_path, monkeypatch):
    docs, whole, _ = two_epochs
    written = []
    save_file = _checkpoint.save_file

    def full_disk_at_epoch_2(tensors, path, *args, **kwargs):
        written.append(path)
        if len(written) == 2:
            raise OSError(errno.EFBIG, "File too large", str(path))
        return save_file(tensors, path, *args, **kwargs)

    monkeypatch.setattr(_checkpoint, "save_file", full_disk_at_epoch_2)
    embedder = ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=tmp_path / "ck",
                                     **{**ON_DISK, "max_epochs": 3})
    with pytest.raises(exceptions.CheckpointWriteError,
                       match=r"checkpoint_dir=.*ck': the checkpoint of epoch 2 could not be "
                             r"written \(OSError: .*File too large.*Training stopped after "
                             r"epoch 2.*The last checkpoint written is epoch 1"):
        embedder.fit(docs)
    assert f".epoch-1.{os.getpid()}.partial" in str(written[0])  # this process' name
    assert [row["epoch"] for row in embedder.history_] == [0, 1, 2]
    # The model of the two epochs trained, as a 2-epoch fit gives it.
    np.testing.assert_array_equal(embedder.transform(docs), whole.transform(docs))
    assert sorted(os.listdir(tmp_path / "ck")) == ["epoch-1"]  # no partial write left


def test_a_file_size_limit_stops_the_fit_with_a_clear_error(tiny_bert_path, tmp_path,
                                                           corpus):
    script = textwrap.dedent(f"""
        import resource, sys
        from sklearn_shufdiv.embedders import ShuffleDivideEmbedder
        docs = {corpus[0][:16]!r}
        embedder = ShuffleDivideEmbedder({tiny_bert_path!r}, checkpoint_dir=sys.argv[1],
                                         **{ON_DISK!r})
        resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, resource.RLIM_INFINITY))
        try:
            embedder.fit(docs)
        except OSError as exc:
            print(type(exc).__name__, exc)
        resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY,) * 2)
        print("shape", embedder.transform(docs).shape)
    """)
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "ck")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "CheckpointWriteError checkpoint_dir=" in done.stdout, done.stdout
    assert "the checkpoint of epoch 1 could not be written" in done.stdout
    assert "No checkpoint was written" in done.stdout
    assert "shape (16, 32)" in done.stdout
    assert os.listdir(tmp_path / "ck") == []


@pytest.mark.parametrize("obstacle", ["file", "link", "stale partial file",
                                      "stale partial folder"])
def test_names_taken_in_the_folder_do_not_stop_the_fit(tiny_bert_path, two_epochs, tmp_path,
                                                       obstacle):
    docs, whole, _ = two_epochs
    ck = tmp_path / "ck"
    ck.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("not the fit's")
    if obstacle == "file":
        (ck / "epoch-1").write_text("a file of that name")
    elif obstacle == "link":
        (ck / "epoch-1").symlink_to(elsewhere)
    elif obstacle == "stale partial file":
        (ck / ".epoch-1.partial").write_text("left by an older version")
        (ck / ".epoch-2.4242.partial").write_text("left by a killed process")
    else:
        (ck / ".epoch-1.4242.partial").mkdir()
        (ck / ".epoch-1.4242.partial" / "params.safetensors").write_bytes(b"half")
    fitted = ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=ck, **ON_DISK).fit(docs)
    np.testing.assert_array_equal(fitted.transform(docs), whole.transform(docs))
    assert sorted(os.listdir(ck)) == ["epoch-1", "epoch-2"]
    assert (ck / "epoch-1").is_dir() and not (ck / "epoch-1").is_symlink()
    assert os.listdir(elsewhere) == ["keep.txt"]  # a link's target is never written


# -- two fits, one folder ----------------------------------------------------------------
_HOLD = textwrap.dedent("""
    import sys, time
    from sklearn_shufdiv.embedders._training._dirlock import FolderLock
    lock = FolderLock(sys.argv[1])
    lock.acquire()
    print("locked", flush=True)
    time.sleep(300)
""")


def test_a_folder_in_use_by_another_fit_is_refused(tiny_bert_path, corpus, tmp_path):
    docs = corpus[0][:24]
    ck = tmp_path / "ck"
    ck.mkdir()
    holder = subprocess.Popen([sys.executable, "-c", _HOLD, str(ck)], stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(exceptions.CheckpointInUseError,
                           match=rf"checkpoint_dir=.*ck' is in use by process {holder.pid}"):
            ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=ck, **ON_DISK).fit(docs)
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    # The killed holder's lock went with it (its .lock file stays): the folder is free.
    assert os.listdir(ck) == [".lock"]
    ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=ck, **ON_DISK).fit(docs)
    assert sorted(os.listdir(ck)) == ["epoch-1", "epoch-2"]


def test_a_fit_that_failed_does_not_lock_out_the_next_in_the_same_process(
        tiny_bert_path, corpus, tmp_path, monkeypatch):
    docs = corpus[0][:24]
    ck = tmp_path / "ck"

    def broken(*args, **kwargs):
        raise MemoryError("out of memory (test)")

    monkeypatch.setattr(_checkpoint.CheckpointDir, "resume", broken)
    failed = ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=ck, **ON_DISK)
    with pytest.raises(MemoryError) as info:
        failed.fit(docs)
    monkeypatch.undo()
    assert (ck / ".lock").read_text() == str(os.getpid())  # held: the traceback lives on
    ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=ck, **ON_DISK).fit(docs)
    assert sorted(os.listdir(ck)) == ["epoch-1", "epoch-2"]
    del info


# -- nothing to write; "~" ---------------------------------------------------------------
def test_a_complete_checkpoint_is_resumed_from_a_read_only_folder(tiny_bert_path, two_epochs,
                                                                  tmp_path, monkeypatch):
    docs, whole, _ = two_epochs
    ck = _copy(two_epochs, tmp_path)

    def refuse(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(_checkpoint.Path, "write_bytes", refuse)
    monkeypatch.setattr(_checkpoint.FolderLock, "acquire", refuse)
    resumed = ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=ck, **ON_DISK).fit(docs)
    np.testing.assert_array_equal(resumed.transform(docs), whole.transform(docs))
    # With an epoch left to train, the check still refuses the folder before training.
    with pytest.raises(OSError, match=r"ck' cannot be written \(Permission denied\)"):
        ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=ck,
                              **{**ON_DISK, "max_epochs": 3}).fit(docs)


def test_a_read_only_folder_under_real_permissions(tiny_bert_path, two_epochs, tmp_path):
    docs, _, _ = two_epochs
    ck = _copy(two_epochs, tmp_path)
    script = textwrap.dedent(f"""
        import sys
        from sklearn_shufdiv.embedders import ShuffleDivideEmbedder
        docs = {docs!r}
        for epochs in (2, 3):
            params = {{**{ON_DISK!r}, "max_epochs": epochs}}
            try:
                ShuffleDivideEmbedder({tiny_bert_path!r}, checkpoint_dir=sys.argv[1],
                                      **params).fit(docs)
                print(epochs, "fitted")
            except OSError as exc:
                print(epochs, "error:", exc)
    """)
    for path in (ck, *ck.iterdir()):
        path.chmod(0o555)
    try:
        done = run_python(script, ck, timeout=300)
    finally:
        for path in (ck, *ck.iterdir()):
            path.chmod(0o755)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[0] == "2 fitted", done.stdout
    assert lines[1].startswith("3 error: checkpoint_dir=") and "cannot be written" in lines[1]


def test_a_tilde_in_checkpoint_dir_is_the_home_folder(tiny_bert_path, corpus, tmp_path,
                                                      monkeypatch):
    home, cwd = tmp_path / "home", tmp_path / "cwd"
    home.mkdir()
    cwd.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(cwd)
    ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir="~/ck", **ON_DISK).fit(corpus[0][:24])
    assert os.listdir(cwd) == []
    assert sorted(os.listdir(home / "ck")) == ["epoch-1", "epoch-2"]

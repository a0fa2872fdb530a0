"""Checkpoints on a hostile filesystem: manifests of unknown formats or absurd nesting,
writes that fail, names taken by files or links, stale partial writes, two fits on one
folder, a read-only folder with nothing left to write, and ``~`` in the path."""

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from _unprivileged import run_python

from sklearn_shufdiv import exceptions
from sklearn_shufdiv.embedders import ShuffleDivideEmbedder
from sklearn_shufdiv.embedders._training import _checkpoint

PARAMS = dict(max_epochs=2, batch_size=8, mini_batch_size=8, max_length=32, random_state=0,
              verbose=0, lexical_weight=0)


@pytest.fixture(scope="module")
def finished(tiny_bert_path, corpus, tmp_path_factory):
    """A 2-epoch fit without checkpoints, and a folder of the same fit's checkpoints."""
    docs = corpus[0][:24]
    whole = ShuffleDivideEmbedder(tiny_bert_path, **PARAMS).fit(docs)
    ck = tmp_path_factory.mktemp("finished") / "ck"
    ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=ck, **PARAMS).fit(docs)
    assert sorted(os.listdir(ck)) == ["epoch-1", "epoch-2"]
    return docs, whole, ck


def _copy(finished, tmp_path):
    return shutil.copytree(finished[2], tmp_path / "ck")


def _edit_manifest(directory, change):
    path = directory / "checkpoint.json"
    manifest = json.loads(path.read_text())
    change(manifest)
    path.write_text(json.dumps(manifest))


# -- manifests ---------------------------------------------------------------------------
def test_an_unknown_format_is_not_resumed(tiny_bert_path, finished, tmp_path):
    docs, whole, _ = finished
    ck = _copy(finished, tmp_path)
    _edit_manifest(ck / "epoch-2", lambda m: m.update(format=999))
    with pytest.warns(RuntimeWarning, match=r"epoch-2 has format 999, which this version .* "
                                            r"reads format 1.*Resuming from epoch 1 instead"):
        resumed = ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=ck, **PARAMS).fit(docs)
    np.testing.assert_array_equal(resumed.transform(docs), whole.transform(docs))

    for epoch in (1, 2):
        _edit_manifest(ck / f"epoch-{epoch}", lambda m: m.pop("format"))
    with pytest.raises(ValueError, match=r"holds no readable checkpoint.*has format None"):
        ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=ck, **PARAMS).fit(docs)


def test_a_deeply_nested_manifest_is_an_unreadable_checkpoint(tiny_bert_path, finished,
                                                              tmp_path):
    docs, whole, _ = finished
    ck = _copy(finished, tmp_path)
    (ck / "epoch-2" / "checkpoint.json").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.warns(RuntimeWarning, match=r"epoch-2 is unreadable \(checkpoint.json: nested "
                                            r"too deeply.*Resuming from epoch 1"):
        resumed = ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=ck, **PARAMS).fit(docs)
    np.testing.assert_array_equal(resumed.transform(docs), whole.transform(docs))


def test_a_manifest_whose_files_entry_is_not_an_object_is_unreadable(tiny_bert_path,
                                                                     finished, tmp_path):
    docs, _, _ = finished
    ck = _copy(finished, tmp_path)
    _edit_manifest(ck / "epoch-2", lambda m: m.update(files=["params.safetensors"]))
    with pytest.warns(RuntimeWarning, match=r"'files' is list, not an object"):
        ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=ck, **PARAMS).fit(docs)


# -- writes that fail --------------------------------------------------------------------
def test_a_failed_write_raises_one_error_and_keeps_the_model(tiny_bert_path, finished,
                                                            tmp_path, monkeypatch):
    docs, whole, _ = finished
    written = []
    save_file = _checkpoint.save_file

    def full_disk_at_epoch_2(tensors, path, *args, **kwargs):
        written.append(path)
        if len(written) == 2:
            raise OSError(errno.EFBIG, "File too large", str(path))
        return save_file(tensors, path, *args, **kwargs)

    monkeypatch.setattr(_checkpoint, "save_file", full_disk_at_epoch_2)
    embedder = ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=tmp_path / "ck",
                                     **{**PARAMS, "max_epochs": 3})
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
                                         **{PARAMS!r})
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
def test_names_taken_in_the_folder_do_not_stop_the_fit(tiny_bert_path, finished, tmp_path,
                                                       obstacle):
    docs, whole, _ = finished
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
    fitted = ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=ck, **PARAMS).fit(docs)
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
            ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=ck, **PARAMS).fit(docs)
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    # The killed holder's lock went with it (its .lock file stays): the folder is free.
    assert os.listdir(ck) == [".lock"]
    ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=ck, **PARAMS).fit(docs)
    assert sorted(os.listdir(ck)) == ["epoch-1", "epoch-2"]


def test_a_fit_that_failed_does_not_lock_out_the_next_in_the_same_process(
        tiny_bert_path, corpus, tmp_path, monkeypatch):
    docs = corpus[0][:24]
    ck = tmp_path / "ck"

    def broken(*args, **kwargs):
        raise MemoryError("out of memory (test)")

    monkeypatch.setattr(_checkpoint.CheckpointDir, "resume", broken)
    failed = ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=ck, **PARAMS)
    with pytest.raises(MemoryError) as info:
        failed.fit(docs)
    monkeypatch.undo()
    assert (ck / ".lock").read_text() == str(os.getpid())  # held: the traceback lives on
    ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=ck, **PARAMS).fit(docs)
    assert sorted(os.listdir(ck)) == ["epoch-1", "epoch-2"]
    del info


# -- nothing to write; "~" ---------------------------------------------------------------
def test_a_complete_checkpoint_is_resumed_from_a_read_only_folder(tiny_bert_path, finished,
                                                                  tmp_path, monkeypatch):
    docs, whole, _ = finished
    ck = _copy(finished, tmp_path)

    def refuse(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(_checkpoint.Path, "write_bytes", refuse)
    monkeypatch.setattr(_checkpoint.FolderLock, "acquire", refuse)
    resumed = ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=ck, **PARAMS).fit(docs)
    np.testing.assert_array_equal(resumed.transform(docs), whole.transform(docs))
    # With an epoch left to train, the check still refuses the folder before training.
    with pytest.raises(OSError, match=r"ck' cannot be written \(Permission denied\)"):
        ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir=ck,
                              **{**PARAMS, "max_epochs": 3}).fit(docs)


def test_a_read_only_folder_under_real_permissions(tiny_bert_path, finished, tmp_path):
    docs, _, _ = finished
    ck = _copy(finished, tmp_path)
    script = textwrap.dedent(f"""
        import sys
        from sklearn_shufdiv.embedders import ShuffleDivideEmbedder
        docs = {docs!r}
        for epochs in (2, 3):
            params = {{**{PARAMS!r}, "max_epochs": epochs}}
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
    ShuffleDivideEmbedder(tiny_bert_path, checkpoint_dir="~/ck", **PARAMS).fit(corpus[0][:24])
    assert os.listdir(cwd) == []
    assert sorted(os.listdir(home / "ck")) == ["epoch-1", "epoch-2"]

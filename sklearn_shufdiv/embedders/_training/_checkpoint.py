"""Checkpoints of a fit: a directory per completed epoch, from which nothing can run code.

``checkpoint_dir/epoch-K/`` holds:

- ``params.safetensors``: the encoder's parameters (skorch's ``save_params``, safetensors);
- ``optimizer.pt``: AdamW's state, tensors and numbers only, loaded with
  ``torch.load(..., weights_only=True)``, which refuses anything else;
- ``history.json``: skorch's history;
- ``tensors.safetensors``: the random generators' states and the tensors of the fit's
  stateful callbacks (the epoch selection's clusters of each scored epoch and the weights
  it keeps; a cluster-aware objective's pseudo-labels and centers);
- ``checkpoint.json``, written last: the fit's fingerprint, its parameters as JSON (to say
  which one differs when a checkpoint is refused), the callbacks' metadata (the
  selection's scores, ...) and the SHA-256 of each file above, checked before anything is
  loaded.

A directory is written under a temporary name (of the writing process), flushed to disk
and renamed when complete, so a crash mid-write never leaves a checkpoint that looks whole.
The previous epoch's checkpoint is kept beside the newest, and a resumed fit falls back to
it (with a warning) when the newest cannot be read. A fit that writes checkpoints locks the
folder (``checkpoint_dir/.lock``): a second fit on it fails at once, naming the first's
process. A checkpoint that cannot be written (a full disk, a file-size limit) stops training
after that epoch with one :class:`CheckpointWriteError`; the embedder keeps the model of the
epochs trained.

Why not skorch's ``Checkpoint``, ``TrainEndCheckpoint`` and ``LoadInitState``: they write
the files of an epoch in place, one after the other (a crash in between leaves a mixed
checkpoint, and no previous one to fall back to); they report a failed write with a printed
line, which ``verbose=0`` hides (the work is then lost without a word); the state beyond
parameters, optimizer and history (the random generators, which the bit-for-bit resume
needs, and the selection) could only go into ``f_pickle``, a pickle of the whole net, which
runs code when loaded; and ``LoadInitState`` checks no fingerprint. What skorch does well
is used: ``save_params``/``load_params`` for the parameters (safetensors) and the history.
"""

import hashlib
import json
import os
import pickle
import shutil
import warnings
from pathlib import Path

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file
from skorch.callbacks import Callback

from ...exceptions import CheckpointInUseError, CheckpointWriteError, UnreadableCheckpointError  # noqa: F401
from ._dirlock import FolderInUse, FolderLock

_MANIFEST = "checkpoint.json"
_FILES = ("params.safetensors", "optimizer.pt", "history.json", "tensors.safetensors")
_FORMAT = 1


def _remove(path):
    """Remove ``path`` whatever it is (a folder, a file, a link); nothing if absent."""
    if path.is_symlink() or path.is_file():
        path.unlink(missing_ok=True)
    elif path.exists():
        shutil.rmtree(path)


def _is_partial(path):
    return path.name.startswith(".epoch-") and path.name.endswith(".partial")


def _sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _fsync(path):
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _epoch_of(path):
    name = path.name
    if name.startswith("epoch-") and name[len("epoch-"):].isdigit():
        return int(name[len("epoch-"):])
    return None


class CheckpointDir:
    """The checkpoints of one fit in ``path``.

    Parameters
    ----------
    path : str or path-like
    fingerprint : str
        What the checkpoints must carry to be resumed (see ``_fingerprint.py``).
    described : dict
        ``{"params": ..., "documents": ..., "model": ...}``: what the fingerprint hashes,
        stored to explain a refusal.
    """

    def __init__(self, path, fingerprint, described):
        self.path = Path(path).expanduser()
        self.fingerprint = fingerprint
        self.described = described
        self.lock = FolderLock(self.path)
        self.failure = None

    def __repr__(self):
        return f"CheckpointDir({str(self.path)!r})"

    def check_writable(self, max_epochs=None):
        """Fail before training, not after the first epoch, if checkpoints cannot be
        written, or if another process writes in the folder (then lock it for this fit).

        Nothing is checked when a complete checkpoint of ``max_epochs`` epochs is there:
        then nothing will be written (a read-only folder can be resumed from).
        """
        if max_epochs is not None and self._newest_epoch() >= max_epochs:
            return
        probe = self.path / f".write-probe-{os.getpid()}"
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            probe.write_bytes(b"")
            probe.unlink()
            self.lock.acquire()
        except FolderInUse as exc:
            raise CheckpointInUseError(
                f"checkpoint_dir={str(self.path)!r} is in use by process {exc.holder}, "
                "another fit writing its checkpoints there. Wait for it to end, or give "
                "this fit another folder."
            ) from None
        except OSError as exc:
            raise OSError(
                f"checkpoint_dir={str(self.path)!r} cannot be written "
                f"({exc.strerror or exc}). Choose a folder you can write to, or leave "
                "checkpoint_dir=None."
            ) from exc

    def finish(self):
        """End the fit: release the folder; raise the :class:`CheckpointWriteError` of a
        checkpoint that could not be written (after the embedder kept its model)."""
        self.lock.release()
        if self.failure is not None:
            failure, self.failure = self.failure, None
            raise failure

    def _newest_epoch(self):
        try:
            return max((epoch for epoch, _ in self.epochs()), default=0)
        except OSError:
            return 0

    def epochs(self):
        """``(epoch, directory)`` of the complete checkpoints, newest first."""
        if not self.path.is_dir():
            return []
        try:
            found = [(_epoch_of(child), child) for child in self.path.iterdir()]
        except OSError as exc:
            raise OSError(f"checkpoint_dir={str(self.path)!r} cannot be read "
                          f"({exc.strerror or exc}).") from exc
        return sorted(((epoch, child) for epoch, child in found
                       if epoch is not None and (child / _MANIFEST).is_file()), reverse=True)

    # -- writing ---------------------------------------------------------------------
    def save(self, net, epoch, parts):
        """Write epoch ``epoch`` atomically; keep it and the one before.

        ``parts``: name -> a stateful callback of the fit (its ``state(epoch)`` gives
        ``(metadata, tensors)``, its ``load_state`` takes them back).
        """
        for child in self.path.iterdir():  # left by a process that died mid-write
            if _is_partial(child):
                _remove(child)
        partial = self.path / f".epoch-{epoch}.{os.getpid()}.partial"
        partial.mkdir(parents=True)
        net.save_params(f_params=partial / "params.safetensors", use_safetensors=True)
        torch.save(net.optimizer_.state_dict(), partial / "optimizer.pt")
        net.save_params(f_history=partial / "history.json")
        meta, tensors = {}, {}
        for name, part in parts.items():
            meta[name], own = part.state(epoch)
            tensors.update({f"{name}.{key}": value for key, value in own.items()})
        tensors["rng.cpu"] = torch.get_rng_state()
        if torch.device(net.device).type == "cuda":
            tensors["rng.cuda"] = torch.cuda.get_rng_state(net.device)
        save_file({name: value.contiguous() for name, value in tensors.items()},
                  partial / "tensors.safetensors")
        manifest = {"format": _FORMAT, "epoch": epoch, "fingerprint": self.fingerprint,
                    **self.described, "parts": meta,
                    "files": {name: _sha256(partial / name) for name in _FILES}}
        (partial / _MANIFEST).write_text(json.dumps(manifest, indent=1))
        for name in (*_FILES, _MANIFEST):
            _fsync(partial / name)
        final = self.path / f"epoch-{epoch}"
        _remove(final)  # an older write of this epoch, or a file or link of its name
        os.replace(partial, final)
        _fsync(self.path)
        for child in self.path.iterdir():  # older epochs, and any later (abandoned) ones
            other = _epoch_of(child)
            if other is not None and other not in (epoch, epoch - 1):
                shutil.rmtree(child, ignore_errors=True)
            elif _is_partial(child):
                shutil.rmtree(child, ignore_errors=True)

    def fail(self, epoch, exc):
        """Note that epoch ``epoch`` could not be written (``exc``), the partial write
        removed: :meth:`finish` raises it once the embedder kept its model."""
        for child in self.path.glob(f".epoch-{epoch}.*.partial"):
            try:
                _remove(child)
            except OSError:
                pass
        last = self._newest_epoch()
        then = (f"The last checkpoint written is epoch {last}: fix the cause, then fit "
                "again with this checkpoint_dir to resume from it." if last else
                "No checkpoint was written: fix the cause (or pass checkpoint_dir=None) "
                "and fit again.")
        self.failure = CheckpointWriteError(
            f"checkpoint_dir={str(self.path)!r}: the checkpoint of epoch {epoch} could not "
            f"be written ({type(exc).__name__}: {str(exc)[:300]}). Training stopped after "
            f"epoch {epoch}; the embedder holds the model of the epochs trained (see "
            f"best_epoch_ and history_) and can be used as is. {then}")
        self.failure.__cause__ = exc

    # -- reading ---------------------------------------------------------------------
    def resume(self, net, parts, max_epochs):
        """Load the newest readable checkpoint into ``net`` and ``parts`` (as for
        :meth:`save`).

        Returns
        -------
        start : int
            The number of completed epochs (0 when there is no checkpoint).
        """
        self._refuse_old_format()
        problems = []
        for epoch, directory in self.epochs():
            try:
                manifest = self._verified_manifest(directory)
            except UnreadableCheckpointError as exc:
                problems.append(str(exc))
                continue
            self._check_same_fit(manifest, epoch, max_epochs)
            try:
                self._load(net, directory, manifest, parts)
            except UnreadableCheckpointError as exc:
                problems.append(str(exc))
                continue
            if problems:
                warnings.warn(" ".join(problems) + f" Resuming from epoch {epoch} instead.",
                              RuntimeWarning, stacklevel=4)
            return epoch
        if problems:
            raise UnreadableCheckpointError(
                f"checkpoint_dir={str(self.path)!r} holds no readable checkpoint: "
                + " ".join(problems) + " Delete the folder to start the fit over."
            )
        return 0

    def _refuse_old_format(self):
        if not self.path.is_dir():
            return
        for child in self.path.iterdir():
            if _epoch_of(child) is not None and (child / "state.pt").exists() \
                    and not (child / _MANIFEST).exists():
                raise ValueError(
                    f"checkpoint_dir={str(self.path)!r} holds a checkpoint written by an "
                    f"earlier version of sklearn-shufdiv ({child.name}/state.pt), which is "
                    "not loaded: its format could run code. Delete the folder to start over."
                )

    def _verified_manifest(self, directory):
        where = f"The checkpoint {directory}"
        try:
            manifest = json.loads((directory / _MANIFEST).read_text())
            files = manifest["files"]
            if not isinstance(files, dict):
                raise TypeError(f"'files' is {type(files).__name__}, not an object")
        except RecursionError as exc:
            raise UnreadableCheckpointError(
                f"{where} is unreadable ({_MANIFEST}: nested too deeply to be "
                "parsed).") from exc
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise UnreadableCheckpointError(
                f"{where} is unreadable ({_MANIFEST}: {exc}).") from exc
        if manifest.get("format") != _FORMAT:
            raise UnreadableCheckpointError(
                f"{where} has format {manifest.get('format')!r}, which this version of "
                f"sklearn-shufdiv does not read (it reads format {_FORMAT}); a newer "
                "version may have written it.")
        for name in _FILES:
            path = directory / name
            if not path.is_file():
                raise UnreadableCheckpointError(f"{where} is incomplete: {name} is missing.")
            if _sha256(path) != files.get(name):
                raise UnreadableCheckpointError(
                    f"{where} is damaged: {name} is not the file that was written "
                    "(truncated or altered).")
        return manifest

    def _check_same_fit(self, manifest, epoch, max_epochs):
        if manifest.get("fingerprint") != self.fingerprint:
            raise ValueError(
                f"checkpoint_dir={str(self.path)!r} holds a checkpoint of a fit with other "
                f"parameters or other documents: {self._difference(manifest)}. Use another "
                "folder, or delete this one to start over. (A parameter search such as "
                "GridSearchCV fits many candidates: leave checkpoint_dir=None there, or give "
                "each candidate its own folder.)"
            )
        if epoch > max_epochs:
            raise ValueError(
                f"The checkpoint in {str(self.path)!r} has {epoch} epochs, more than "
                f"max_epochs={max_epochs}. Raise max_epochs or use another directory."
            )

    def _difference(self, manifest):
        theirs, ours = manifest.get("params", {}), self.described["params"]
        differ = [f"{name} was {theirs.get(name)!r}, now {ours.get(name)!r}"
                  for name in sorted(set(theirs) | set(ours)) if theirs.get(name) != ours.get(name)]
        if manifest.get("documents") != self.described["documents"]:
            differ.append("the documents differ")
        if manifest.get("model") != self.described["model"]:
            differ.append("the model differs (its configuration, weights or vocabulary)")
        return "; ".join(differ) or "the fingerprint differs"

    def _load(self, net, directory, manifest, parts):
        try:
            net.load_params(f_params=directory / "params.safetensors", use_safetensors=True)
            optimizer = torch.load(directory / "optimizer.pt", map_location="cpu",
                                   weights_only=True)
            net.optimizer_.load_state_dict(optimizer)
            net.load_params(f_history=directory / "history.json")
            tensors = load_file(directory / "tensors.safetensors")
            for name, part in parts.items():
                prefix = f"{name}."
                part.load_state(manifest["parts"][name], {
                    key[len(prefix):]: value for key, value in tensors.items()
                    if key.startswith(prefix)}, net, manifest["epoch"])
        except (OSError, ValueError, KeyError, RuntimeError, SafetensorError,
                pickle.UnpicklingError, RecursionError) as exc:
            raise UnreadableCheckpointError(
                f"The checkpoint {directory} could not be loaded ({type(exc).__name__}: "
                f"{str(exc)[:300]}).") from exc
        torch.set_rng_state(tensors["rng.cpu"])
        if "rng.cuda" in tensors and torch.device(net.device).type == "cuda":
            torch.cuda.set_rng_state(tensors["rng.cuda"], net.device)


class EpochCheckpoint(Callback):
    """skorch callback: save the fit at the end of each epoch (after the callbacks whose
    state it saves, ``parts``: name -> callback, as for :meth:`CheckpointDir.save`)."""

    def __init__(self, checkpoints, parts):
        self.checkpoints = checkpoints
        self.parts = parts

    def on_epoch_end(self, net, **kwargs):
        epoch = len(net.history)
        try:
            self.checkpoints.save(net, epoch, self.parts)
        except (OSError, RuntimeError, SafetensorError) as exc:  # torch.save: RuntimeError
            self.checkpoints.fail(epoch, exc)
            net.stop_requested_by_ = "checkpoint"  # a stop, not Ctrl-C
            raise KeyboardInterrupt from exc

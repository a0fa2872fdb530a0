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

A directory is written under a temporary name, flushed to disk and renamed when complete,
so a crash mid-write never leaves a checkpoint that looks whole. The previous epoch's
checkpoint is kept beside the newest, and a resumed fit falls back to it (with a warning)
when the newest cannot be read.

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

_MANIFEST = "checkpoint.json"
_FILES = ("params.safetensors", "optimizer.pt", "history.json", "tensors.safetensors")
_FORMAT = 1


class UnreadableCheckpointError(ValueError):
    """A checkpoint directory whose files are missing, truncated or altered."""


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
        self.path = Path(path)
        self.fingerprint = fingerprint
        self.described = described

    def __repr__(self):
        return f"CheckpointDir({str(self.path)!r})"

    def check_writable(self):
        """Fail before training, not after the first epoch, if checkpoints cannot be written."""
        probe = self.path / ".write-probe"
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as exc:
            raise OSError(
                f"checkpoint_dir={str(self.path)!r} cannot be written "
                f"({exc.strerror or exc}). Choose a folder you can write to, or leave "
                "checkpoint_dir=None."
            ) from exc

    def epochs(self):
        """``(epoch, directory)`` of the complete checkpoints, newest first."""
        if not self.path.is_dir():
            return []
        found = [(_epoch_of(child), child) for child in self.path.iterdir()]
        return sorted(((epoch, child) for epoch, child in found
                       if epoch is not None and (child / _MANIFEST).is_file()), reverse=True)

    # -- writing ---------------------------------------------------------------------
    def save(self, net, epoch, parts):
        """Write epoch ``epoch`` atomically; keep it and the one before.

        ``parts``: name -> a stateful callback of the fit (its ``state(epoch)`` gives
        ``(metadata, tensors)``, its ``load_state`` takes them back).
        """
        partial = self.path / f".epoch-{epoch}.partial"
        shutil.rmtree(partial, ignore_errors=True)
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
        shutil.rmtree(final, ignore_errors=True)
        os.replace(partial, final)
        _fsync(self.path)
        for child in self.path.iterdir():  # older epochs, and any later (abandoned) ones
            other = _epoch_of(child)
            if other is not None and other not in (epoch, epoch - 1):
                shutil.rmtree(child, ignore_errors=True)
            elif child.name.startswith(".epoch-") and child.name.endswith(".partial"):
                shutil.rmtree(child, ignore_errors=True)

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
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise UnreadableCheckpointError(
                f"{where} is unreadable ({_MANIFEST}: {exc}).") from exc
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
                pickle.UnpicklingError) as exc:
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
        self.checkpoints.save(net, len(net.history), self.parts)

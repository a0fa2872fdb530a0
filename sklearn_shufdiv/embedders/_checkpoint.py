"""Checkpoints of a fit: one directory per completed epoch, written atomically.

``checkpoint_dir/epoch-K/`` holds the encoder's parameters, the optimizer state, skorch's
history and our own state (random generator, epoch selection, a fingerprint of the fit's
parameters and data). A directory is first written under a temporary name and renamed
when complete, so a crash mid-write never leaves a half checkpoint that looks whole.
"""

import hashlib
import json
import os
import shutil
from pathlib import Path

import torch
from skorch.callbacks import Callback

_STATE = "state.pt"


def fingerprint(params, documents):
    """A hash of the parameters that shape training and of the corpus."""
    digest = hashlib.sha256()
    digest.update(json.dumps(params, sort_keys=True, default=repr).encode())
    for document in documents:
        digest.update(hashlib.sha256(document.encode("utf-8", "surrogatepass")).digest())
    return digest.hexdigest()


def latest(checkpoint_dir):
    """The last complete epoch directory and its epoch number, or (None, 0)."""
    path = Path(checkpoint_dir)
    if not path.is_dir():
        return None, 0
    epochs = [
        (int(child.name.split("-")[1]), child) for child in path.iterdir()
        if child.name.startswith("epoch-") and child.name.split("-")[1].isdigit()
        and (child / _STATE).is_file()
    ]
    if not epochs:
        return None, 0
    epoch, directory = max(epochs)
    return directory, epoch


def save(net, checkpoint_dir, epoch, state):
    """Write epoch ``epoch`` (net parameters, optimizer, history, ``state``) atomically."""
    root = Path(checkpoint_dir)
    root.mkdir(parents=True, exist_ok=True)
    final = root / f"epoch-{epoch}"
    partial = root / f".epoch-{epoch}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir()
    net.save_params(
        f_params=partial / "params.pt", f_optimizer=partial / "optimizer.pt",
        f_history=partial / "history.json",
    )
    torch.save(state, partial / _STATE)
    shutil.rmtree(final, ignore_errors=True)
    os.replace(partial, final)
    for child in root.iterdir():  # earlier epochs are superseded
        if child.name.startswith("epoch-") and child != final:
            shutil.rmtree(child, ignore_errors=True)


def load(net, directory):
    """Load the parameters, optimizer state and history of a checkpoint into ``net``."""
    directory = Path(directory)
    net.load_params(
        f_params=directory / "params.pt", f_optimizer=directory / "optimizer.pt",
        f_history=directory / "history.json",
    )


class EpochCheckpoint(Callback):
    """skorch callback: save the fit at the end of each epoch (after the selection)."""

    def __init__(self, checkpoint_dir, fingerprint, selection=None):
        self.checkpoint_dir = checkpoint_dir
        self.fingerprint = fingerprint
        self.selection = selection

    def on_epoch_end(self, net, **kwargs):
        state = {
            "fingerprint": self.fingerprint,
            "rng": torch.get_rng_state(),
            "cuda_rng": (torch.cuda.get_rng_state(net.device)
                         if torch.device(net.device).type == "cuda" else None),
            "selection": None if self.selection is None else self.selection.state_dict(),
        }
        save(net, self.checkpoint_dir, len(net.history), state)


def resume(net, checkpoint_dir, fingerprint, selection, max_epochs):
    """Load the last completed epoch from ``checkpoint_dir`` into ``net`` and ``selection``.

    Returns
    -------
    start : int
        The number of completed epochs (0 when there is no checkpoint).
    initial_score : float or None
        The silhouette of the untuned encoder, when it was recorded.
    """
    directory, epoch = latest(checkpoint_dir)
    if directory is None:
        return 0, None
    state = torch.load(directory / _STATE, map_location="cpu", weights_only=False)
    if state["fingerprint"] != fingerprint:
        raise ValueError(
            f"checkpoint_dir={str(checkpoint_dir)!r} holds a checkpoint of a fit with other "
            "parameters or other documents. Use another directory, or delete it to start over."
        )
    if epoch > max_epochs:
        raise ValueError(
            f"The checkpoint in {str(checkpoint_dir)!r} has {epoch} epochs, more than "
            f"max_epochs={max_epochs}. Raise max_epochs or use another directory."
        )
    load(net, directory)
    torch.set_rng_state(state["rng"])
    if state["cuda_rng"] is not None and torch.device(net.device).type == "cuda":
        torch.cuda.set_rng_state(state["cuda_rng"], net.device)
    if selection is not None and state["selection"] is not None:
        selection.load_state_dict(state["selection"])
    initial = state["selection"]["initial_score"] if state["selection"] else None
    return epoch, initial

"""The training engine: a skorch ``NeuralNet`` that takes GradCache steps, and its callbacks.

skorch runs the loop (epochs, history, callbacks, device placement, the optimizer and its
``on_grad_computed`` hook); what is ours is the data of an epoch (:class:`EpochBatches`:
batches of pairs of views, redrawn each epoch), one training step (tokenise the batch's
views, cached contrastive backward) and the engine's callbacks: the epoch's views, the
epoch selection (``_selection.py``), a cluster-aware objective's pseudo-labels
(``_pseudo_labels.py``), the progress bar, the checkpoints (``_checkpoint.py``) and the
time budget. The user's skorch callbacks run after the first four, and see the history
keys they write (``train_loss``, ``selection_score``, ...); the checkpoints and the time
budget come last.

skorch's way for a callback to stop training is to raise ``KeyboardInterrupt`` (its
``EarlyStopping`` does), which it catches; :class:`ContrastiveNet` tells such a request
from a real Ctrl-C, which the estimator reports as an interruption.
"""

from dataclasses import dataclass, field

import numpy as np
import torch
from skorch import NeuralNet
from skorch.callbacks import Callback, EpochTimer, PassthroughScoring
from torch.utils.data import Dataset
from tqdm.auto import tqdm

from .._encoder._batching import graph_prefix, padded_groups, tokenize
from .._encoder._device import supports_fused_adamw
from .._encoder._pooling import encode
from ._gradcache import cached_backward
from ._interrupts import stop_request
from ._loss import NTXentLoss

#: Names of the engine's callbacks (a user's callbacks need other names).
ENGINE_CALLBACKS = ("epoch_timer", "train_loss", "views", "average_gradients", "selection",
                    "pseudo_labels", "progress", "checkpoint", "time_budget")


def check_callbacks(callbacks):
    """Check the ``callbacks`` parameter: skorch callbacks or ``(name, callback)`` pairs,
    none named as one of the engine's."""
    for item in callbacks or []:
        name, callback = item if isinstance(item, tuple) and len(item) == 2 else (None, item)
        is_callback = isinstance(callback, Callback) or (
            isinstance(callback, type) and issubclass(callback, Callback))
        if not is_callback or (name is not None and not isinstance(name, str)):
            raise TypeError(
                "callbacks must be a list of skorch callbacks (skorch.callbacks.Callback "
                f"instances) or (name, callback) pairs; got {item!r}.")
        if name in ENGINE_CALLBACKS:
            raise ValueError(
                f"callbacks: the name {name!r} is taken by one of the engine's callbacks "
                f"({', '.join(ENGINE_CALLBACKS)}); choose another.")


def epoch_rng(seed, epoch):
    """The random generator of one epoch: the same for a resumed fit as for a whole one."""
    return np.random.default_rng([seed, epoch])


@dataclass
class ViewBatch:
    """One training batch: ``2N`` views, the ``N`` "a" views then their ``N`` partners.

    Attributes
    ----------
    texts : list of str
        The views.
    keys : torch.Tensor of shape (2N,)
        The content key of each view's document (equal for copies of one text): the loss
        never uses one copy as a negative of another.
    documents : ndarray of shape (2N,)
        The index, in the fitted corpus, of each view's document (for losses that need it).
    """

    texts: list
    keys: torch.Tensor
    documents: np.ndarray = field(repr=False)

    def __len__(self):  # what skorch records as ``train_batch_size``: views
        return len(self.texts)


def batch_count(n_pairs, batch_size, world_size=1):
    """Batches of an epoch: as few as ``batch_size`` allows, but never one with fewer than
    2 pairs (or ``world_size`` pairs across processes), which the loss cannot use. With
    ``batch_size=2`` and an odd number of pairs, one batch then holds 3 pairs."""
    return max(1, min(-(-n_pairs // batch_size), n_pairs // max(2, world_size)))


class EpochBatches(Dataset):
    """The batches of positive pairs of the current epoch, one :class:`ViewBatch` per item.

    At the start of each epoch, :meth:`set_epoch` redraws the views (the shuffle of Shuffle
    & Divide) and the order of the pairs from the epoch's generator, and cuts them into
    :func:`batch_count` batches of nearly equal size. Across processes
    (``world_size > 1``) every process draws the same batches and keeps its contiguous
    share of each, trimmed to a multiple of ``world_size`` pairs.
    """

    def __init__(self, positives, batch_size, seed, keys=None, rank=0, world_size=1):
        self.positives = positives
        self.batch_size = batch_size
        self.seed = seed
        self.keys = keys  # document index -> content key (see content_keys)
        self.rank, self.world_size = rank, world_size
        self.n_batches = batch_count(positives.n_pairs, batch_size, world_size)
        self.batches = None

    def set_epoch(self, epoch):
        rng = epoch_rng(self.seed, epoch)
        pairs = self.positives.sample(rng)
        chunks = np.array_split(rng.permutation(len(pairs)), self.n_batches)
        if self.world_size > 1:  # this process's contiguous share; equal shares for all
            chunks = [np.array_split(chunk[: len(chunk) - len(chunk) % self.world_size],
                                     self.world_size)[self.rank] for chunk in chunks]
        keys_a, keys_b = pairs.keys_a, pairs.keys_b
        if self.keys is not None:
            keys_a, keys_b = self.keys[keys_a], self.keys[keys_b]
        self.batches = [
            ViewBatch(
                [pairs.texts_a[i] for i in chunk] + [pairs.texts_b[i] for i in chunk],
                torch.as_tensor(np.concatenate([keys_a[chunk], keys_b[chunk]])),
                np.concatenate([pairs.keys_a[chunk], pairs.keys_b[chunk]]),
            )
            for chunk in chunks
        ]

    @property
    def n_views(self):
        """Views of the current epoch, in all its batches (of this process)."""
        return sum(len(batch) for batch in self.batches)

    def __len__(self):
        return self.n_batches

    def __getitem__(self, index):
        return self.batches[index]


class ContrastiveNet(NeuralNet):
    """A skorch net whose training step is a GradCache contrastive step over a batch of pairs.

    The embedders build it (``net_``); it is public so that skorch callbacks, and the
    benchmarks, can use it. Other keyword arguments are skorch's ``NeuralNet``'s.

    Parameters
    ----------
    module : MeanPoolingEncoder
        The encoder.
    tokenizer : transformers tokenizer
    max_length : int
        Tokens per window, special tokens included.
    mini_batch_size : int
        Windows per forward pass; bounds activation memory. Also the batch size of
        :meth:`embed`.
    max_windows : int or None, default=1
        Windows per embedded document (:meth:`embed`) at most; None reads it whole.
        Training views are truncated at ``max_length``.
    amp_dtype : torch.dtype or None
        Autocast dtype of training on CUDA (bf16).
    cpu_amp_dtype : torch.dtype or None, default=None
        Autocast dtype of training on the CPU (``torch.bfloat16`` on a CPU with bfloat16
        instructions); None computes in float32.
    inference_dtype : {"float32", "bfloat16", "int8"}, default="float32"
        The precision :meth:`embed` computes in (see ``_precision``).

    The optimizer defaults to ``torch.optim.AdamW``, fused where torch has a fused kernel
    for the device. The criterion (default :class:`~._loss.NTXentLoss`; an objective's
    ``make_loss``) is called as ``criterion_(views, keys, groups, prototypes)`` on the
    batch's ``(2N, dim)`` embeddings, the groups and prototypes being None unless
    pseudo-labels are set.
    """

    def __init__(self, module, *, tokenizer, max_length, mini_batch_size, amp_dtype=None,
                 cpu_amp_dtype=None, inference_dtype="float32", max_windows=1, **kwargs):
        kwargs.setdefault("criterion", NTXentLoss)
        kwargs.setdefault("optimizer", torch.optim.AdamW)
        kwargs.setdefault("train_split", None)
        if kwargs["optimizer"] is torch.optim.AdamW:
            kwargs.setdefault("optimizer__fused",
                              supports_fused_adamw(kwargs.get("device", "cpu")))
        super().__init__(module, **kwargs)
        self.tokenizer = tokenizer
        self.max_length = max_length
        self.mini_batch_size = mini_batch_size
        self.amp_dtype = amp_dtype
        self.cpu_amp_dtype = cpu_amp_dtype
        self.inference_dtype = inference_dtype
        self.max_windows = max_windows

    @property
    def _default_callbacks(self):
        # skorch's, less the validation loss (there is no validation split) and PrintLog
        # (the progress bar prints a line per epoch).
        return [("epoch_timer", EpochTimer()),
                ("train_loss", PassthroughScoring(name="train_loss", on_train=True))]

    def get_iterator(self, dataset, training=False):
        """The dataset itself: :class:`EpochBatches` yields ready batches."""
        return dataset

    def notify(self, method_name, **cb_kwargs):
        """skorch's notify, noting which user callback asked to stop training.

        The checkpoint callback comes last, after the user's, so that a checkpoint holds
        what they recorded; it also runs when one of them stopped training, so that the
        epoch it ended is saved. A ``KeyboardInterrupt`` raised by an engine callback, or
        by Ctrl-C while a user callback runs, goes straight up (see ``_interrupts.py``).
        """
        getattr(self, method_name)(self, **cb_kwargs)
        stop = None
        for name, callback in self.callbacks_:
            if stop is not None and name != "checkpoint":
                continue
            if name in ENGINE_CALLBACKS:  # a KeyboardInterrupt here is Ctrl-C: it goes up
                getattr(callback, method_name)(self, **cb_kwargs)
            elif (request := stop_request(getattr(callback, method_name), self,
                                          **cb_kwargs)) is not None:
                self.stop_requested_by_, stop = name, request
        if stop is not None:
            raise stop

    def train_epochs(self, batches, epochs):
        """Train ``epochs`` epochs on ``batches`` (an :class:`EpochBatches`).

        Returns
        -------
        interrupted : bool
            Whether a ``KeyboardInterrupt`` (Ctrl-C) ended training early; a user
            callback's stop request (``EarlyStopping``) is not one.
        """
        self.stop_requested_by_ = None
        self.partial_fit(batches, epochs=epochs)
        return self.interrupted_

    def fit_loop(self, X, y=None, epochs=None, **fit_params):
        self.interrupted_ = False
        try:
            return super().fit_loop(X, y, epochs=epochs, **fit_params)
        except KeyboardInterrupt:
            self.interrupted_ = self.stop_requested_by_ is None
            raise  # partial_fit catches it and ends training (on_train_end)

    def mini_batches(self, texts):
        """How a training step runs ``texts``: ``(batches, order, keep)``.

        Each view is truncated at ``max_length`` tokens. Mini-batches of at most
        ``mini_batch_size`` views of similar lengths, the longest first; ``order`` maps
        their rows back to ``texts``. The first ``keep`` of them (as many as fit in the
        activations of ``mini_batch_size`` views of the longest length, the memory
        GradCache needs anyway) keep their graph: no second forward pass. A batch that
        fits whole takes an ordinary forward and backward.
        """
        token_ids = tokenize(self.tokenizer, texts, self.max_length)
        batches, order = padded_groups(token_ids, self.mini_batch_size,
                                       self.tokenizer.pad_token_id, self.device)
        budget = min(len(token_ids), self.mini_batch_size) * max(map(len, token_ids))
        return batches, order, graph_prefix(batches, budget)

    def batch_loss(self, views, batch):
        """The criterion on the ``(2N, dim)`` embeddings ``views`` of ``batch``; with
        ``pseudo_labels_`` set (a cluster-aware objective), each view's group is its
        document's pseudo-label, and ``prototypes_`` their clusters' centers."""
        pseudo_labels = getattr(self, "pseudo_labels_", None)
        groups = (None if pseudo_labels is None
                  else torch.as_tensor(pseudo_labels[batch.documents]))
        return self.criterion_(views, batch.keys, groups, getattr(self, "prototypes_", None))

    def train_step_single(self, batch, **fit_params):
        self.module_.train()
        batches, order, keep = self.mini_batches(batch.texts)
        loss = cached_backward(
            self.module_, batches, order, lambda views: self.batch_loss(views, batch),
            self.autocast_dtype, keep=keep, progress=self._report_views,
        )
        return {"loss": loss, "y_pred": None}

    def _report_views(self, n_views):
        """Tell the callbacks that have an ``on_views_done`` method (the progress bar)
        that ``n_views`` views were embedded, or back-propagated, within the step."""
        for _, callback in self.callbacks_:
            if hasattr(callback, "on_views_done"):
                callback.on_views_done(self, n_views=n_views)

    def embed(self, texts, batch_size=None, verbose=0, **settings):
        """Embeddings of ``texts`` by the current weights (float32 numpy array).

        ``max_windows``, ``max_length`` and ``inference_dtype`` may be passed to override
        the net's.
        """
        settings = {"max_windows": self.max_windows, "max_length": self.max_length,
                    "inference_dtype": getattr(self, "inference_dtype", "float32"),
                    **settings}
        return encode(
            self.module_, self.tokenizer, texts, max_length=settings.pop("max_length"),
            batch_size=batch_size or self.mini_batch_size, device=self.device,
            dtype=settings.pop("inference_dtype"), verbose=verbose, **settings,
        )

    @property
    def autocast_dtype(self):
        """``amp_dtype`` on CUDA, ``cpu_amp_dtype`` on the CPU (also for a net trained on
        CUDA and unpickled on a CPU), None (float32) elsewhere."""
        device_type = torch.device(self.device).type
        if device_type == "cuda":
            return self.amp_dtype
        return getattr(self, "cpu_amp_dtype", None) if device_type == "cpu" else None


class SetEpochViews(Callback):
    """Redraws the training views at the start of every epoch."""

    def on_epoch_begin(self, net, dataset_train=None, **kwargs):
        dataset_train.set_epoch(len(net.history))


class ProgressBar(Callback):
    """A tqdm bar over the views of each epoch, with the batch and the running loss.

    Each view counts half when the step embeds it and half when its gradient is
    back-propagated, so that the bar moves with every mini-batch: a CPU step of a large
    batch takes minutes.
    """

    def __init__(self, verbose=1, selection_name=None):
        self.verbose = verbose
        self.selection_name = selection_name

    def on_epoch_begin(self, net, dataset_train=None, **kwargs):
        self.batch_, self.n_batches_ = 0, len(dataset_train)
        self.bar_ = tqdm(
            total=2 * dataset_train.n_views, unit="view", unit_scale=0.5,
            desc=f"epoch {len(net.history)}/{net.max_epochs}",
            bar_format="{l_bar}{bar}| {n:.0f}/{total:.0f} views [{elapsed}<{remaining}"
                       "{postfix}]",
            disable=not self.verbose, leave=self.verbose > 1,
        )

    def on_views_done(self, net, n_views, **kwargs):
        self.bar_.update(n_views)

    def on_batch_end(self, net, batch=None, training=None, loss=None, **kwargs):
        self.batch_ += 1
        self.bar_.set_postfix_str(f"batch {self.batch_}/{self.n_batches_}, "
                                  f"loss {float(loss):.4f}")

    def on_epoch_end(self, net, **kwargs):
        self.on_train_end(net)
        if self.verbose:
            row = net.history[-1]
            text = f"epoch {row['epoch']}: loss {row.get('train_loss', float('nan')):.4f}"
            if self.selection_name in row:
                text += f", {self.selection_name} {row[self.selection_name]:.4f}"
            tqdm.write(text)

    def on_train_end(self, net, **kwargs):
        """Close the bar, also that of an epoch stopped midway (a tqdm bar holds a
        stream, which cannot be pickled)."""
        if hasattr(self, "bar_"):
            self.bar_.close()
            del self.bar_


@dataclass
class FitState:
    """What one call of ``fit`` works with: built once, then read by each step of the fit.

    Attributes
    ----------
    documents : list of str
    device : str
    seed : int
        Seeds the epochs' views and batches, dropout and the selection's k-means.
    rank, world_size : int
        This process and the number of processes (``torch.distributed``).
    positives : object or None
        The fitted positive-pair strategy (None when nothing is trained).
    lexical : LexicalSpace or None
        The corpus' lexical space (None when ``lexical_weight=0``).
    lexical_rows : ndarray of shape (n_documents, n_components) or None
        The corpus' rows in it, computed once for the selection and ``fit_transform``.
    selection : EpochSelection
    pseudo_labels : PseudoLabels or None
        The objective's pseudo-labels (None unless it is cluster-aware).
    checkpoints : CheckpointDir or None
    max_epochs : int
        The epochs to train (``max_epochs``, or what "auto" chose for the device).
    started : float
        When the fit began, on :func:`clock`.
    """

    documents: list = field(repr=False)
    device: str
    seed: int
    rank: int = 0
    world_size: int = 1
    positives: object = field(default=None, repr=False)
    lexical: object = field(default=None, repr=False)
    lexical_rows: object = field(default=None, repr=False)
    selection: object = field(default=None, repr=False)
    pseudo_labels: object = field(default=None, repr=False)
    checkpoints: object = None
    max_epochs: int = 0
    started: float = 0.0

    @property
    def stateful(self):
        """Name -> the callbacks whose state the checkpoints keep."""
        parts = {"selection": self.selection}
        if self.pseudo_labels is not None:
            parts["pseudo_labels"] = self.pseudo_labels
        return parts

"""The training engine: a skorch ``NeuralNet`` that takes GradCache steps, and its callbacks.

skorch runs the loop (epochs, batches, history, callbacks, device placement); what is ours
is one training step (tokenise the batch's views, cached contrastive backward) and three
callbacks: the epoch's views, the progress bar, and the selection of the best epoch.
"""

import numpy as np
import torch
from skorch import NeuralNet
from skorch.callbacks import Callback
from torch.utils.data import Dataset
from tqdm.auto import tqdm

from ._batching import graph_prefix, padded_groups, tokenize
from ._encoder import encode
from ._gradcache import cached_backward
from ._loss import NTXentLoss


def epoch_rng(seed, epoch):
    """The random generator of one epoch: the same for a resumed fit as for a whole one."""
    return np.random.default_rng([seed, epoch])


class EpochBatches(Dataset):
    """The batches of positive pairs of the current epoch, one item per batch.

    At the start of each epoch, :meth:`set_epoch` redraws the views (the shuffle of Shuffle
    & Divide) and the order of the pairs from the epoch's generator, and cuts them into
    batches of nearly equal size, none larger than ``batch_size``. Across processes
    (``world_size > 1``) every process draws the same batches and keeps its contiguous
    share of each, trimmed to a multiple of ``world_size`` pairs.
    """

    def __init__(self, positives, batch_size, seed, keys=None, rank=0, world_size=1):
        self.positives = positives
        self.batch_size = batch_size
        self.seed = seed
        self.keys = keys  # document index -> content key (see content_keys)
        self.rank, self.world_size = rank, world_size
        self.n_batches = -(-positives.n_pairs // batch_size)
        self.batches = None

    def set_epoch(self, epoch):
        rng = epoch_rng(self.seed, epoch)
        pairs = self.positives.sample(rng)
        chunks = np.array_split(rng.permutation(len(pairs)), self.n_batches)
        if self.world_size > 1:  # this process's contiguous share; equal shares for all
            chunks = [np.array_split(chunk[: len(chunk) - len(chunk) % self.world_size],
                                     self.world_size)[self.rank] for chunk in chunks]
        # The keys come first: skorch measures a batch by its first item, and would take a
        # list of strings for a list of arrays of unequal lengths.
        keys_a, keys_b = pairs.keys_a, pairs.keys_b
        if self.keys is not None:
            keys_a, keys_b = self.keys[keys_a], self.keys[keys_b]
        self.batches = [
            (
                torch.as_tensor(np.concatenate([keys_a[chunk], keys_b[chunk]])),
                [pairs.texts_a[i] for i in chunk] + [pairs.texts_b[i] for i in chunk],
            )
            for chunk in chunks
        ]

    def __len__(self):
        return self.n_batches

    def __getitem__(self, index):
        return self.batches[index]


def _as_batch(item):
    return item


class ContrastiveNet(NeuralNet):
    """A skorch net whose training step is a GradCache NT-Xent step over a batch of pairs.

    Parameters (beyond skorch's)
    ----------------------------
    tokenizer : transformers tokenizer
    max_length : int
        Tokens kept per view.
    mini_batch_size : int
        Views per forward pass; bounds activation memory.
    amp_dtype : torch.dtype or None
        Autocast dtype on CUDA (bf16); the CPU always computes in float32.
    """

    def __init__(self, module, *, tokenizer, max_length, mini_batch_size, amp_dtype=None,
                 **kwargs):
        kwargs.setdefault("criterion", NTXentLoss)
        kwargs.setdefault("train_split", None)
        kwargs.setdefault("iterator_train__batch_size", None)
        kwargs.setdefault("iterator_train__collate_fn", _as_batch)
        kwargs.setdefault("iterator_train__shuffle", False)
        super().__init__(module, **kwargs)
        self.tokenizer = tokenizer
        self.max_length = max_length
        self.mini_batch_size = mini_batch_size
        self.amp_dtype = amp_dtype

    def train_step_single(self, batch, **fit_params):
        keys, texts = batch
        self.module_.train()
        token_ids = tokenize(self.tokenizer, texts, self.max_length)
        # Mini-batches of at most mini_batch_size views of similar lengths. The first ones
        # (longest views), as many as fit in the activations of mini_batch_size views of
        # the longest length (the memory GradCache needs anyway), keep their graph: no
        # second forward pass. A batch that fits whole takes an ordinary forward/backward.
        batches, order = padded_groups(
            token_ids, self.mini_batch_size, self.tokenizer.pad_token_id, self.device
        )
        budget = min(len(token_ids), self.mini_batch_size) * max(map(len, token_ids))
        loss = cached_backward(
            self.module_, batches, order, lambda views: self.criterion_(views, keys),
            self.autocast_dtype, keep=graph_prefix(batches, budget),
        )
        return {"loss": loss, "y_pred": None}

    def embed(self, texts, batch_size=None, verbose=0):
        """Embeddings of ``texts`` by the current weights (float32 numpy array)."""
        return encode(
            self.module_, self.tokenizer, texts, max_length=self.max_length,
            batch_size=batch_size or self.mini_batch_size, device=self.device,
            amp_dtype=self.autocast_dtype, verbose=verbose,
        )

    @property
    def autocast_dtype(self):
        """``amp_dtype`` on CUDA; None (float32) elsewhere, e.g. after unpickling on a CPU."""
        return self.amp_dtype if torch.device(self.device).type == "cuda" else None


class SetEpochViews(Callback):
    """Redraws the training views at the start of every epoch."""

    def on_epoch_begin(self, net, dataset_train=None, **kwargs):
        dataset_train.set_epoch(len(net.history))


class ProgressBar(Callback):
    """A tqdm bar over the batches of each epoch, with the running loss."""

    def __init__(self, max_epochs, verbose=1):
        self.max_epochs = max_epochs
        self.verbose = verbose

    def on_epoch_begin(self, net, dataset_train=None, **kwargs):
        self.bar_ = tqdm(
            total=len(dataset_train), desc=f"epoch {len(net.history)}/{self.max_epochs}",
            unit="batch", disable=not self.verbose, leave=self.verbose > 1,
        )

    def on_batch_end(self, net, batch=None, training=None, loss=None, **kwargs):
        self.bar_.update(1)
        self.bar_.set_postfix(loss=f"{float(loss):.4f}")

    def on_epoch_end(self, net, **kwargs):
        self.bar_.close()
        del self.bar_  # a tqdm bar holds a stream, which cannot be pickled
        if self.verbose:
            row = net.history[-1]
            text = f"epoch {row['epoch']}: loss {row.get('train_loss', float('nan')):.4f}"
            if "silhouette" in row:
                text += f", silhouette {row['silhouette']:.4f}"
            tqdm.write(text)


# k-means runs per scored epoch, the best objective kept. One run can land in a poor local
# optimum whose silhouette still looks good: on BBC (TF-IDF positives, 1 epoch) one run gave
# ACC 0.668 at silhouette 0.183, while best-of-10 runs on the same embeddings give
# 0.949 +- 0.001 (benchmarks/README.md). The runs cost far less than embedding the sample.
SELECTION_N_INIT = 10


class SilhouetteSelection(Callback):
    """Scores each epoch by the cosine silhouette of a spherical k-means clustering.

    The untuned encoder is scored too (:meth:`score_initial`), so the selection can decide
    that fine-tuning did not help. The weights of the best epoch are kept (on the CPU) and
    loaded back when training ends. With ``keep_embeddings=True`` the sample's (raw)
    embeddings by the best weights are kept too, as ``best_embeddings``: when the sample is
    the whole corpus, ``fit_transform`` returns them instead of embedding it once more.
    """

    def __init__(self, texts, n_clusters, seed, keep_embeddings=False):
        self.texts = texts
        self.n_clusters = n_clusters
        self.seed = seed
        self.keep_embeddings = keep_embeddings
        self.best_epoch = None
        self.best_score = -np.inf
        self.best_state = None
        self.best_embeddings = None
        self.initial_score = None
        self.labels = {}  # epoch -> cluster labels of the sample

    def cluster(self, net):
        """The sample's (raw) embeddings by the current weights, their clusters and the
        clusters' silhouette."""
        from ..cluster import SphericalKMeans
        from ..metrics import cosine_silhouette

        raw = net.embed(self.texts)
        unit = raw / np.maximum(np.linalg.norm(raw, axis=1, keepdims=True), 1e-12)
        labels = SphericalKMeans(self.n_clusters, n_init=SELECTION_N_INIT,
                                 random_state=self.seed).fit_predict(unit)
        score = cosine_silhouette(unit, labels)
        return raw, labels, -1.0 if np.isnan(score) else score

    def silhouette(self, net):
        return self.cluster(net)[2]

    def _consider(self, net, epoch, score, embeddings):
        if score > self.best_score:
            self.best_epoch, self.best_score = epoch, score
            self.best_state = {
                name: value.detach().to("cpu", copy=True)
                for name, value in net.module_.state_dict().items()
            }
            self.best_embeddings = embeddings if self.keep_embeddings else None

    def score_initial(self, net):
        embeddings, self.labels[0], self.initial_score = self.cluster(net)
        self._consider(net, 0, self.initial_score, embeddings)

    def on_epoch_end(self, net, **kwargs):
        epoch = len(net.history)
        embeddings, self.labels[epoch], score = self.cluster(net)
        net.history.record("silhouette", score)
        self._consider(net, epoch, score, embeddings)

    def restore_best(self, net):
        net.module_.load_state_dict(self.best_state)

    def release(self):
        """Drop what only training needs (the texts, the best weights and embeddings)."""
        self.texts = self.best_state = self.best_embeddings = None

    def state_dict(self):
        return {"best_epoch": self.best_epoch, "best_score": float(self.best_score),
                "best_state": self.best_state, "initial_score": self.initial_score,
                "labels": self.labels}

    def load_state_dict(self, state):
        self.best_epoch, self.best_score = state["best_epoch"], state["best_score"]
        self.best_state, self.initial_score = state["best_state"], state["initial_score"]
        self.labels = state["labels"]

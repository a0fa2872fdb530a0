"""The estimator shared by the embedders: validation, the fit loop's wiring, selection,
checkpoints, transform and export. Subclasses only say how positive pairs are made."""

import json
import warnings
from numbers import Integral, Real
from pathlib import Path

import numpy as np
import torch
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ..utils._param_validation import Interval, validate_params
from . import _checkpoint
from ._distributed import AverageGradients, CrossProcessNTXentLoss, rank_and_world
from ._encoder import checked_max_length, load_encoder
from ._loss import NTXentLoss
from ._positives import content_keys
from ._training import ContrastiveNet, EpochBatches, ProgressBar, SetEpochViews, SilhouetteSelection
from ._validation import check_documents


def resolve_device(device):
    """``"auto"`` -> CUDA when available, else CPU; other names are checked."""
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    try:
        parsed = torch.device(device)
    except (RuntimeError, TypeError) as exc:
        raise ValueError(f"Unknown device {device!r}; use 'auto', 'cpu' or 'cuda'.") from exc
    if parsed.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device={device!r} was asked for but CUDA is not available here.")
    return device


class BaseContrastiveEmbedder(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Fine-tunes a transformer encoder contrastively on a corpus and embeds documents.

    Subclasses set ``_make_positives`` (the positive-pair strategy) and list their
    parameters in ``__init__``; everything else is here.
    """

    _parameter_constraints = {
        "model_name_or_path": [str, Path],
        "max_length": [Interval(Integral, 8, None), None],
        "temperature": [Interval(Real, 0, None, closed="neither")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "weight_decay": [Interval(Real, 0, None)],
        "batch_size": [Interval(Integral, 2, None)],
        "mini_batch_size": [Interval(Integral, 1, None)],
        "max_epochs": [Interval(Integral, 0, None)],
        "n_clusters": [Interval(Integral, 2, None), None],
        "selection_sample_size": [Interval(Integral, 2, None), None],
        "normalize": ["boolean"],
        "device": [str],
        "checkpoint_dir": [str, Path, None],
        "random_state": ["random_state"],
        "verbose": [Interval(Integral, 0, None), "boolean"],
    }

    # -- fit ---------------------------------------------------------------------------
    def fit(self, X, y=None):
        """Fine-tune the encoder on the documents ``X`` (no labels).

        Parameters
        ----------
        X : list, tuple, 1-D array or pandas Series of str
            The corpus.
        y : None
            Ignored; present for API consistency.

        Returns
        -------
        self : object
            The fitted embedder.
        """
        self._fit(X)
        return self

    def fit_transform(self, X, y=None):
        """Fine-tune the encoder on ``X``, then embed ``X``.

        Equal to ``fit(X).transform(X)``. When the epoch selection embedded the whole
        corpus (``n_clusters`` set and ``selection_sample_size`` at least the number of
        documents), its embeddings by the selected weights are returned instead of
        embedding the corpus once more.

        Parameters
        ----------
        X : list, tuple, 1-D array or pandas Series of str
            The corpus.
        y : None
            Ignored; present for API consistency.

        Returns
        -------
        embeddings : ndarray of shape (n_documents, dim), float32
            As :meth:`transform` returns them.
        """
        embeddings = self._fit(X)
        if embeddings is None:
            return self.transform(X)
        return self._postprocess(embeddings)

    def _fit(self, X):
        """Fit; return the corpus' embeddings by the selected weights if the selection
        kept them, else None."""
        validate_params(self.get_params(deep=False), self._parameter_constraints,
                        type(self).__name__)
        documents = check_documents(X)
        device = resolve_device(self.device)
        rng = check_random_state(self.random_state)
        seed = int(self.random_state) if isinstance(self.random_state, Integral) else int(
            rng.randint(np.iinfo(np.int32).max))
        tokenizer, encoder = load_encoder(self.model_name_or_path, self.verbose)
        max_length = checked_max_length(self.max_length, tokenizer, encoder,
                                        self.model_name_or_path)

        rank, world_size = rank_and_world()
        if self.batch_size < 2 * world_size:
            raise ValueError(f"batch_size={self.batch_size} leaves fewer than 2 pairs for each "
                             f"of the {world_size} processes; raise it.")
        positives = None
        if self.max_epochs > 0:
            positives = self._make_positives().fit(documents, seed)
            if positives.n_pairs < 2 * world_size:
                raise ValueError(
                    f"{type(self).__name__} needs at least {2 * world_size} training pairs, "
                    "but "
                    + positives.describe_shortage(len(documents))
                )
            self._on_positives(positives)
        selection = None
        if self.n_clusters is not None:
            size = self.selection_sample_size or len(documents)
            self.selection_indices_ = np.sort(rng.permutation(len(documents))[:size])
            selection = SilhouetteSelection(
                [documents[i] for i in self.selection_indices_], self.n_clusters, seed,
                keep_embeddings=size >= len(documents))
        # Hashing the corpus is done once, for the checkpoints' compatibility check.
        fingerprint = (self._fingerprint(documents) if self.checkpoint_dir is not None
                       else None)
        net = ContrastiveNet(
            encoder.to(device), tokenizer=tokenizer, max_length=max_length,
            mini_batch_size=self.mini_batch_size, amp_dtype=torch.bfloat16,
            criterion=CrossProcessNTXentLoss if world_size > 1 else NTXentLoss,
            optimizer=torch.optim.AdamW, lr=self.learning_rate,
            optimizer__weight_decay=self.weight_decay, criterion__temperature=self.temperature,
            max_epochs=self.max_epochs, batch_size=self.batch_size,
            callbacks=self._callbacks(selection, fingerprint, rank, world_size),
            device=device, verbose=0,
        )
        cuda = [torch.device(device)] if torch.device(device).type == "cuda" else []
        with torch.random.fork_rng(devices=cuda):
            torch.manual_seed(seed)
            net.initialize()
            embeddings = self._train(net, positives, seed, selection, documents, fingerprint,
                                     (rank, world_size))
        self.net_ = net
        self._n_features_out = encoder.dim
        return embeddings

    def _callbacks(self, selection, fingerprint, rank, world_size):
        callbacks = [("views", SetEpochViews())]
        if world_size > 1:
            callbacks.append(("average_gradients", AverageGradients()))
        if selection is not None:  # before the progress bar, which prints its score
            callbacks.append(("selection", selection))
        verbose = self.verbose if rank == 0 else 0
        callbacks.append(("progress", ProgressBar(self.max_epochs, verbose)))
        if self.checkpoint_dir is not None and rank == 0:
            callbacks.append(("checkpoint", _checkpoint.EpochCheckpoint(
                self.checkpoint_dir, fingerprint, selection)))
        return callbacks

    def _train(self, net, positives, seed, selection, documents, fingerprint, world):
        start, initial = 0, None
        if self.checkpoint_dir is not None:
            start, initial = _checkpoint.resume(
                net, self.checkpoint_dir, fingerprint, selection,
                self.max_epochs,
            )
        if selection is not None and start == 0:
            selection.score_initial(net)
        initial = selection.initial_score if selection is not None else initial
        if self.max_epochs > start:
            batches = EpochBatches(positives, self.batch_size, seed, content_keys(documents),
                                   *world)
            net.partial_fit(batches, epochs=self.max_epochs - start)
        completed = sum("train_loss" in row for row in net.history)
        del net.history[completed:]  # the row of an interrupted epoch
        if completed < self.max_epochs:
            where = (f" Resume it by calling fit again with checkpoint_dir="
                     f"{str(self.checkpoint_dir)!r}." if self.checkpoint_dir else "")
            warnings.warn(f"Training was interrupted after {completed} of "
                          f"{self.max_epochs} epochs.{where}", RuntimeWarning, stacklevel=3)
        self.history_ = [{"epoch": 0, "train_loss": None, "silhouette": initial}] + [
            {"epoch": int(row["epoch"]), "train_loss": float(row["train_loss"]),
             "silhouette": row.get("silhouette"), "duration": float(row["dur"])}
            for row in net.history
        ]
        embeddings = None
        if selection is not None:
            selection.restore_best(net)
            self.best_epoch_ = selection.best_epoch
            self.selection_labels_ = np.vstack(
                [selection.labels[row["epoch"]] for row in self.history_])
            embeddings = selection.best_embeddings
            selection.release()
        else:
            self.best_epoch_ = completed
        net.optimizer_.state.clear()  # the optimizer state lives on in the checkpoints
        return embeddings

    def _on_positives(self, positives):
        """Hook: expose what the positive-pair strategy found as fitted attributes."""

    def _fingerprint(self, documents):
        params = self.get_params(deep=False)
        for name in ("verbose", "checkpoint_dir", "device", "max_epochs"):
            params.pop(name)
        params["model_name_or_path"] = str(params["model_name_or_path"])
        return _checkpoint.fingerprint(params, documents)

    # -- use ---------------------------------------------------------------------------
    @property
    def encoder_(self):
        """The fine-tuned :class:`MeanPoolingEncoder` (transformer + mean pooling)."""
        check_is_fitted(self)
        return self.net_.module_

    @property
    def tokenizer_(self):
        """The tokenizer of the encoder."""
        check_is_fitted(self)
        return self.net_.tokenizer

    def transform(self, X):
        """Embed each document.

        Parameters
        ----------
        X : list, tuple, 1-D array or pandas Series of str
            Documents; those too short for training are embedded too.

        Returns
        -------
        embeddings : ndarray of shape (n_documents, dim), float32
            Mean-pooled last hidden states of at most ``max_length`` tokens per document,
            L2-normalised when ``normalize=True``.
        """
        check_is_fitted(self)
        documents = check_documents(X)
        return self._postprocess(self.net_.embed(documents, verbose=self.verbose))

    def _postprocess(self, embeddings):
        if self.normalize:
            norms = np.linalg.norm(embeddings, axis=1, keepdims=True)
            embeddings /= np.maximum(norms, np.finfo(np.float32).tiny)
        return embeddings

    def transform_iter(self, documents, chunk_size=4096):
        """Embed a stream of documents chunk by chunk, in bounded memory.

        Parameters
        ----------
        documents : iterable of str
            Any iterable, e.g. a generator over the lines of a large file or the documents
            of one partition of a Dask bag; it is read ``chunk_size`` documents at a time.
        chunk_size : int, default=4096
            Documents embedded (and held in memory) at a time.

        Yields
        ------
        embeddings : ndarray of shape (n_chunk, dim), float32
            The embeddings of the next chunk of documents, in order, as ``transform``
            computes them.
        """
        check_is_fitted(self)
        if isinstance(documents, (str, bytes)):
            check_documents(documents)  # raises the single-string error
        chunk = []
        for document in documents:
            chunk.append(document)
            if len(chunk) == chunk_size:
                yield self.transform(chunk)
                chunk = []
        if chunk:
            yield self.transform(chunk)

    def save_pretrained(self, path):
        """Export the tuned encoder and tokenizer in Hugging Face format.

        The directory loads again with ``transformers.AutoModel.from_pretrained(path)``, as
        this package's ``model_name_or_path``, and with
        ``sentence_transformers.SentenceTransformer(path)`` (mean pooling, and
        normalisation when ``normalize=True``).

        Parameters
        ----------
        path : str or os.PathLike
            The directory to write (created if needed).
        """
        check_is_fitted(self)
        path = Path(path)
        self.encoder_.transformer.save_pretrained(path)
        self.tokenizer_.save_pretrained(path)
        modules = [
            {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
            {"idx": 1, "name": "1", "path": "1_Pooling",
             "type": "sentence_transformers.models.Pooling"},
        ]
        if self.normalize:
            modules.append({"idx": 2, "name": "2", "path": "2_Normalize",
                            "type": "sentence_transformers.models.Normalize"})
            (path / "2_Normalize").mkdir(exist_ok=True)
        (path / "1_Pooling").mkdir(exist_ok=True)
        (path / "1_Pooling" / "config.json").write_text(json.dumps(
            {"word_embedding_dimension": self.encoder_.dim, "pooling_mode_mean_tokens": True}))
        (path / "modules.json").write_text(json.dumps(modules, indent=2))
        (path / "sentence_bert_config.json").write_text(json.dumps(
            {"max_seq_length": self.net_.max_length, "do_lower_case": False}))
        return path

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.input_tags.string = True
        return tags

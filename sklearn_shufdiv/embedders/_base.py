"""The estimator shared by the embedders: validation, the fit's wiring, transform and
export. Subclasses only say how positive pairs are made."""

import warnings
from numbers import Integral, Real
from pathlib import Path

import numpy as np
import torch
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted
from skorch.callbacks import Callback
from tqdm.auto import tqdm

from ..utils._param_validation import Interval, Options, validate_estimator_params
from ._checkpoint import CheckpointDir, EpochCheckpoint
from ._coverage import training_fraction
from ._device import resolve_device, resolve_mini_batch_size
from ._distributed import AverageGradients, CrossProcessNTXentLoss, rank_and_world
from ._encoder import save_pretrained
from ._fingerprint import describe_params, documents_digest, fingerprint, model_digest
from ._lexical import AUTO_FALLBACK_WEIGHT, FusedSpace, LexicalSpace, fuse
from ._loading import checked_max_length, load_encoder
from ._loss import NTXentLoss
from ._positives import content_keys
from ._selection import (
    CRITERIA,
    EpochSelection,
    SelectionContext,
    SelectionCriterion,
    criterion_name,
    make_criterion,
)
from ._training import (
    ENGINE_CALLBACKS,
    ContrastiveNet,
    EpochBatches,
    FitState,
    ProgressBar,
    PseudoLabels,
    SetEpochViews,
)
from ._validation import check_documents, check_selection_sample, document_chunks
from ._windows import window_body

#: The prototype term's weight of ``prototype_weight="auto"`` when ``n_clusters`` is set:
#: weight 1, the term and NT-Xent even (the one screened; 2 was no better).
AUTO_PROTOTYPE_WEIGHT = 1.0


class FitInterruptedWarning(RuntimeWarning):
    """``fit`` was interrupted (Ctrl-C) and returned the model of its completed epochs."""


def check_callbacks(callbacks):
    """Check the ``callbacks`` parameter: skorch callbacks or ``(name, callback)`` pairs."""
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


class BaseContrastiveEmbedder(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Fine-tunes a transformer encoder contrastively on a corpus and embeds documents.

    Subclasses set ``_make_positives`` (the positive-pair strategy) and list their
    parameters in ``__init__``; everything else is here.
    """

    _parameter_constraints = {
        "model_name_or_path": [str, Path],
        "max_length": [Interval(Integral, 8, None), None],
        "max_windows": [Interval(Integral, 1, None), None],
        "window_stride": [Interval(Integral, 1, None), None],
        "max_view_windows": [Interval(Integral, 1, None), None],
        "lexical_weight": [Interval(Real, 0, 1, closed="left"), Options({"auto"})],
        "lexical_components": [Interval(Integral, 1, None)],
        "cluster_negatives": [Options({"exclude", "positive"}), None],
        "prototype_weight": [Interval(Real, 0, None, closed="left"), Options({"auto"})],
        "pseudo_clusters": [Interval(Integral, 2, None), None],
        "pseudo_fraction": [Interval(Real, 0, 1, closed="right")],
        "temperature": [Interval(Real, 0, None, closed="neither")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "weight_decay": [Interval(Real, 0, None)],
        "batch_size": [Interval(Integral, 2, None)],
        "mini_batch_size": [Interval(Integral, 1, None), Options({"auto"})],
        "max_epochs": [Interval(Integral, 0, None)],
        "n_clusters": [Interval(Integral, 2, None), None],
        "selection": [Options(set(CRITERIA)), SelectionCriterion],
        "selection_sample_size": [Interval(Integral, 2, None), None],
        "normalize": ["boolean"],
        "device": [str],
        "checkpoint_dir": [str, Path, None],
        "random_state": ["random_state"],
        "verbose": [Interval(Integral, 0, None), "boolean"],
        "callbacks": [list, None],
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
        embeddings : ndarray of shape (n_documents, n_features_out), float32
            As :meth:`transform` returns them.
        """
        embeddings, lexical = self._fit(X)
        if embeddings is None:
            return self.transform(X)
        return self._postprocess(embeddings, lexical)

    def _fit(self, X):
        """Fit; return the corpus' encoder embeddings by the selected weights if the
        selection kept them (else None), and the corpus' lexical rows (None without
        words)."""
        validate_estimator_params(self)
        check_callbacks(self.callbacks)
        # Described before the fit draws from a RandomState passed as random_state.
        params = (None if self.checkpoint_dir is None
                  else describe_params(self.get_params(deep=False)))
        documents = check_documents(X)
        check_selection_sample(self.n_clusters, self.selection_sample_size, len(documents))
        tokenizer, encoder = load_encoder(self.model_name_or_path, self.verbose)
        max_length = checked_max_length(self.max_length, tokenizer, encoder,
                                        self.model_name_or_path)
        window_body(tokenizer, max_length, self.window_stride)  # checks window_stride
        if self.cluster_negatives is not None and self.n_clusters is None:
            raise ValueError(
                f"cluster_negatives={self.cluster_negatives!r} takes its pseudo-labels from "
                "the epoch selection's clustering, which needs n_clusters: set n_clusters, "
                "or cluster_negatives=None.")
        if self._prototype_weight() > 0 and self.n_clusters is None:  # "auto" is 0 then
            raise ValueError(
                f"prototype_weight={self.prototype_weight!r} takes its prototypes from the "
                "epoch selection's clustering, which needs n_clusters: set n_clusters, or "
                "prototype_weight=0.")
        fit = self._begin_fit(documents)
        if params is not None:  # every process resumes; rank 0 writes
            described = {"params": params, "documents": documents_digest(fit.documents),
                         "model": model_digest(tokenizer, encoder)}
            fit.checkpoints = CheckpointDir(self.checkpoint_dir, fingerprint(**described),
                                            described)
            if fit.rank == 0:
                fit.checkpoints.check_writable(self.max_epochs)
        net = self._make_net(fit, tokenizer, encoder, max_length)
        cuda = [torch.device(fit.device)] if torch.device(fit.device).type == "cuda" else []
        with torch.random.fork_rng(devices=cuda):
            torch.manual_seed(fit.seed)
            net.initialize()
            interrupted = self._train(net, fit)
        self.net_ = net
        self.lexical_ = fit.lexical
        self.lexical_weight_ = self._fitted_lexical_weight(fit)
        self.prototype_weight_ = self._prototype_weight()
        self._n_features_out = encoder.dim + (
            0 if fit.lexical is None else fit.lexical.n_components_)
        embeddings = fit.selection.best_embeddings
        fit.selection.release()
        if interrupted:
            self._warn_interrupted()
        if fit.checkpoints is not None:  # releases the folder; raises a failed write
            fit.checkpoints.finish()
        return embeddings, fit.lexical_rows

    def _fitted_lexical_weight(self, fit):
        """The weight of the words the fit settled: ``lexical_weight``, or with "auto"
        the selection space's choice (the fallback without ``n_clusters``)."""
        if self.lexical_weight != "auto":
            return float(self.lexical_weight)
        space = fit.selection.space
        return AUTO_FALLBACK_WEIGHT if space is None else space.weight_

    def _lexical_weight(self):
        """The weight ``transform`` uses: ``lexical_weight`` as it is set now, "auto"
        being the fitted choice."""
        return self.lexical_weight_ if self.lexical_weight == "auto" else self.lexical_weight

    def _trains_on_pseudo_labels(self):
        """Whether training reads the selection's pseudo-labels: cluster-aware negatives
        or the prototype term."""
        return self.cluster_negatives is not None or self._prototype_weight() > 0

    def _prototype_weight(self):
        """The prototype term's weight: ``prototype_weight``, "auto" being
        :data:`AUTO_PROTOTYPE_WEIGHT` with ``n_clusters`` (the selection's clustering
        gives the prototypes) and 0 without."""
        if self.prototype_weight != "auto":
            return float(self.prototype_weight)
        return AUTO_PROTOTYPE_WEIGHT if self.n_clusters is not None else 0.0

    def _pseudo_labels(self, sample_size):
        """How the epoch selection makes training's pseudo-labels (its ``pseudo_clusters``
        and ``pseudo_fraction``): nothing when none are trained on, so that the two
        parameters have no effect then."""
        if not self._trains_on_pseudo_labels():
            return {}
        if self.pseudo_clusters is not None and self.pseudo_clusters > sample_size:
            raise ValueError(
                f"pseudo_clusters={self.pseudo_clusters} is more clusters than the "
                f"{sample_size} documents of the selection's sample: lower it, or raise "
                "selection_sample_size.")
        return {"pseudo_clusters": self.pseudo_clusters,
                "pseudo_fraction": self.pseudo_fraction}

    def _begin_fit(self, documents):
        """The :class:`FitState` of a fit on ``documents``: device, seed, processes, the
        fitted positive pairs, the lexical space and the epoch selection."""
        rng = check_random_state(self.random_state)
        seed = int(self.random_state) if isinstance(self.random_state, Integral) else int(
            rng.randint(np.iinfo(np.int32).max))
        rank, world_size = rank_and_world()
        fit = FitState(documents, resolve_device(self.device), seed, rank, world_size)
        if self.batch_size < 2 * world_size:
            raise ValueError(f"batch_size={self.batch_size} leaves fewer than 2 pairs for each "
                             f"of the {world_size} processes; raise it.")
        if self.max_epochs > 0:
            fit.positives = self._make_positives().fit(documents, seed)
            if fit.positives.n_pairs < 2 * world_size:
                raise ValueError(
                    f"{type(self).__name__} needs at least {2 * world_size} training pairs, "
                    "but " + fit.positives.describe_shortage(len(documents)))
            self._on_positives(fit.positives)
        self.training_fraction_ = training_fraction(self, fit.positives, len(documents),
                                                    self.verbose and rank == 0)
        if self.lexical_weight == "auto" or self.lexical_weight > 0:  # for the selection
            # and fit_transform: the corpus' lexical rows
            fit.lexical = LexicalSpace(self.lexical_components, seed).fit(documents)
            fit.lexical_rows = fit.lexical.transform(documents)
        criterion = context = space = None
        size = len(documents)
        if self.n_clusters is not None:
            size = min(self.selection_sample_size or size, size)
            self.selection_indices_ = np.sort(rng.permutation(len(documents))[:size])
            context = SelectionContext([documents[i] for i in self.selection_indices_],
                                       self.selection_indices_, self.n_clusters, seed)
            criterion = make_criterion(self.selection)
            if fit.lexical is not None:  # epochs are scored in the space transform returns
                space = FusedSpace(fit.lexical_rows[self.selection_indices_],
                                   self.lexical_weight, self.n_clusters, seed)
        fit.selection = EpochSelection(criterion, context, last_epoch=self.max_epochs,
                                       keep_embeddings=size >= len(documents),
                                       keep_centres=self._prototype_weight() > 0,
                                       **self._pseudo_labels(size),
                                       space=space)
        return fit

    def _make_net(self, fit, tokenizer, encoder, max_length):
        """The skorch net of the fit: our step and callbacks, then the user's callbacks."""
        callbacks = [("views", SetEpochViews())]
        if self._trains_on_pseudo_labels():
            callbacks.append(("pseudo_labels", PseudoLabels(
                fit.selection, len(fit.documents), prototypes=self._prototype_weight() > 0)))
        if fit.world_size > 1:
            callbacks.append(("average_gradients", AverageGradients()))
        # The selection comes before the progress bar, which prints its score, and the
        # user's callbacks, which may monitor it; the checkpoints come last, to save what
        # all of them recorded (see ContrastiveNet.notify).
        callbacks.append(("selection", fit.selection))
        verbose = self.verbose if fit.rank == 0 else 0
        callbacks.append(("progress", ProgressBar(verbose, fit.selection.name)))
        callbacks += list(self.callbacks or [])
        if fit.checkpoints is not None and fit.rank == 0:
            callbacks.append(("checkpoint", EpochCheckpoint(fit.checkpoints, fit.selection)))
        return ContrastiveNet(
            encoder.to(fit.device), tokenizer=tokenizer,
            max_length=max_length, max_windows=self.max_windows,
            window_stride=self.window_stride, max_view_windows=self.max_view_windows,
            mini_batch_size=resolve_mini_batch_size(self.mini_batch_size, fit.device),
            amp_dtype=torch.bfloat16,
            criterion=CrossProcessNTXentLoss if fit.world_size > 1 else NTXentLoss,
            lr=self.learning_rate, optimizer__weight_decay=self.weight_decay,
            criterion__temperature=self.temperature,
            criterion__same_group=self.cluster_negatives,
            criterion__prototype_weight=self._prototype_weight(),
            max_epochs=self.max_epochs,
            callbacks=callbacks, device=fit.device,
            verbose=verbose,
        )

    def _train(self, net, fit):
        """Resume or start, train the remaining epochs, keep the selected epoch's weights;
        return whether training was interrupted."""
        start = 0
        if fit.checkpoints is not None:
            start = fit.checkpoints.resume(net, fit.selection, self.max_epochs)
        fit.selection.begin(net, start)
        interrupted = False
        if self.max_epochs > start and fit.selection.final():
            if self.verbose and fit.rank == 0:
                tqdm.write(f"epoch {start}: {fit.selection.name} "
                           f"{fit.selection.context.scores[start]:.4f}; the selection will "
                           "keep no later epoch: training skipped")
        elif self.max_epochs > start:
            batches = EpochBatches(fit.positives, self.batch_size, fit.seed,
                                   content_keys(fit.documents), fit.rank, fit.world_size)
            interrupted = net.train_epochs(batches, self.max_epochs - start)
        del net.history[fit.selection.completed:]  # the row of an unfinished epoch
        self.best_epoch_ = fit.selection.restore(net)
        self.history_ = self._history(net, fit.selection)
        if fit.selection.criterion is not None:
            labels = fit.selection.context.labels
            self.selection_labels_ = np.vstack([labels[row["epoch"]] for row in self.history_])
        net.optimizer_.state.clear()  # the optimizer state lives on in the checkpoints
        return interrupted

    def _history(self, net, selection):
        name = criterion_name(self.selection)
        scores = selection.context.scores if selection.context is not None else {}
        first = {"epoch": 0, "train_loss": None, "selection_score": scores.get(0),
                 name: scores.get(0)}
        return [first] + [
            {"epoch": int(row["epoch"]), "train_loss": float(row["train_loss"]),
             "selection_score": row.get("selection_score"), name: row.get(name),
             "duration": float(row["dur"])}
            for row in net.history
        ]

    def _warn_interrupted(self):
        where = (f" Resume it by calling fit again with checkpoint_dir="
                 f"{str(self.checkpoint_dir)!r}." if self.checkpoint_dir is not None else "")
        warnings.warn(FitInterruptedWarning(
            f"Training was interrupted after {len(self.history_) - 1} of {self.max_epochs} "
            f"epochs; the model holds the weights of epoch {self.best_epoch_} "
            f"(best_epoch_), which history_ describes.{where}"), stacklevel=4)

    def _on_positives(self, positives):
        """Hook: expose what the positive-pair strategy found as fitted attributes."""

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
        embeddings : ndarray of shape (n_documents, n_features_out), float32
            Each document's mean-pooled last hidden states over the windows of
            ``max_length`` tokens that cover it (at most ``max_windows`` of them): the
            token-weighted mean of the windows' embeddings (see :ref:`long-documents`),
            L2-normalised when ``normalize=True``; with ``lexical_weight`` above 0,
            followed by the document's vector in the corpus' LSA space, the two parts
            weighted so that rows have norm 1 (see :ref:`lexical`).

        Notes
        -----
        ``max_windows``, ``window_stride`` and ``lexical_weight`` are read when
        ``transform`` is called: ``set_params(max_windows=...)`` on a fitted embedder
        changes how it reads the documents without fitting again, and
        ``set_params(lexical_weight=0)`` returns the encoder's embeddings alone.
        """
        check_is_fitted(self)
        validate_estimator_params(self)  # window_stride is checked where windows are cut
        documents = check_documents(X)
        weight = self._lexical_weight()
        if weight > 0 and self.lexical_ is None:
            raise ValueError(
                f"lexical_weight={self.lexical_weight}: this embedder was fitted with "
                "lexical_weight=0, so it has no lexical space; fit it again with the "
                "lexical_weight to use.")
        # "auto" keeps the fused shape even where it chose 0 (zero lexical columns).
        words = self.lexical_ is not None and (self.lexical_weight == "auto" or weight > 0)
        lexical = self.lexical_.transform(documents) if words else None
        return self._postprocess(self.net_.embed(
            documents, verbose=self.verbose, max_windows=self.max_windows,
            window_stride=self.window_stride), lexical)

    def _postprocess(self, embeddings, lexical):
        """``transform``'s output from the encoder's embeddings and the documents'
        lexical rows (None: the encoder alone)."""
        fused = lexical is not None
        if fused:  # rows of norm 1 up to rounding (or below, a document without its words)
            embeddings = fuse(embeddings, lexical, self._lexical_weight())
        # Normalised as the selection's clustering normalises its space, to the last bit.
        if self.normalize or fused:
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
            Documents embedded (and held in memory) at a time, at least 1.

        Yields
        ------
        embeddings : ndarray of shape (n_chunk, dim), float32
            The embeddings of the next chunk of documents, in order, as ``transform``
            computes them.
        """
        check_is_fitted(self)
        for chunk in document_chunks(documents, chunk_size):
            yield self.transform(chunk)

    def save_pretrained(self, path):
        """Export the tuned encoder and tokenizer in Hugging Face format.

        The export is the encoder: it embeds as ``transform`` does with
        ``lexical_weight=0``. The lexical space (``lexical_``, a scikit-learn TF-IDF and
        SVD) is not a transformer and stays with the pickled embedder.

        The directory loads again with ``transformers.AutoModel.from_pretrained(path)``, as
        this package's ``model_name_or_path``, and with
        ``sentence_transformers.SentenceTransformer(path)`` (mean pooling, and
        normalisation when ``normalize=True``).

        Parameters
        ----------
        path : str or os.PathLike
            The directory to write (created if needed).

        Returns
        -------
        path : pathlib.Path
            The directory written.
        """
        check_is_fitted(self)
        return save_pretrained(self.encoder_, self.tokenizer_, path,
                               max_length=self.net_.max_length, normalize=self.normalize)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.input_tags.string = True
        return tags

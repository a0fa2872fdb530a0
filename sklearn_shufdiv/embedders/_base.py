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
from tqdm.auto import tqdm

from ..exceptions import FitInterruptedWarning
from ..utils._param_validation import Interval, Options, validate_estimator_params
from ._encoder._device import resolve_device, resolve_max_epochs, resolve_mini_batch_size
from ._encoder._loading import checked_max_length, load_encoder, resolve_model
from ._encoder._pooling import save_pretrained
from ._encoder._precision import INFERENCE_DTYPE_OPTIONS, resolve_inference_dtype
from ._spaces._lexical import (
    FusedSpace,
    LexicalSpace,
    join_words,
    resolve_lexical_weight,
    uses_words,
)
from ._text._coverage import training_fraction
from ._text._positives import content_keys
from ._text._validation import check_documents, check_selection_sample, document_chunks
from ._training._budget import TimeBudget, clock
from ._training._checkpoint import CheckpointDir, EpochCheckpoint
from ._training._criteria import (
    CRITERIA,
    SelectionContext,
    SelectionCriterion,
    criterion_name,
    resolve_criterion,
)
from ._training._distributed import AverageGradients, CrossProcessLoss, rank_and_world
from ._training._engine import (
    ContrastiveNet,
    EpochBatches,
    FitState,
    ProgressBar,
    SetEpochViews,
    check_callbacks,
)
from ._training._fingerprint import describe_params, documents_digest, fingerprint, model_digest
from ._training._head import (
    HEAD_OPTIONS,
    MAX_SENTENCES,
    SENTENCE_TOKENS,
    LinearHead,
    PseudoLabelSpace,
    apply_head,
    resolve_head,
    train_head,
    view_agreement,
)
from ._training._objectives import OBJECTIVES, Objective, resolve_objective
from ._training._pseudo_labels import PseudoLabels
from ._training._selection import EpochSelection


class BaseContrastiveEmbedder(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Fine-tunes a transformer encoder contrastively on a corpus and embeds documents.

    Subclasses set ``_make_positives`` (the positive-pair strategy) and list their
    parameters in ``__init__``; everything else is here.
    """

    _parameter_constraints = {
        "model_name_or_path": [str, Path],
        "max_length": [Interval(Integral, 8, None), None],
        "max_windows": [Interval(Integral, 1, None), None],
        "lexical_weight": [Interval(Real, 0, 1, closed="left"), Options({"auto"})],
        "lexical_components": [Interval(Integral, 1, None)],
        "objective": [Options(set(OBJECTIVES)), Objective],
        "head": [Options(set(HEAD_OPTIONS)), LinearHead, None],
        "temperature": [Interval(Real, 0, None, closed="neither")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "weight_decay": [Interval(Real, 0, None)],
        "batch_size": [Interval(Integral, 2, None)],
        "mini_batch_size": [Interval(Integral, 1, None), Options({"auto"})],
        "max_epochs": [Interval(Integral, 0, None), Options({"auto"})],
        "max_time": [Interval(Real, 0, None, closed="neither"), None],
        "n_clusters": [Interval(Integral, 2, None), Options({"auto"}), None],
        "selection": [Options(set(CRITERIA)), SelectionCriterion],
        "selection_sample_size": [Interval(Integral, 2, None), None],
        "normalize": ["boolean"],
        "device": [str],
        "inference_dtype": [Options(set(INFERENCE_DTYPE_OPTIONS))],
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
        started = clock()
        validate_estimator_params(self)
        check_callbacks(self.callbacks)
        objective = resolve_objective(self.objective)
        # Described before the fit draws from a RandomState passed as random_state; the
        # objective as resolved, so that "prototype" resumes a fit of ProtoNCE().
        params = (None if self.checkpoint_dir is None else describe_params(
            {**self.get_params(deep=False), "objective": objective}))
        documents = check_documents(X)
        check_selection_sample(self.n_clusters, self.selection_sample_size, len(documents))
        objective.check(self.n_clusters, self._sample_size(len(documents)))
        if isinstance(self.head, LinearHead):
            self.head.check(self.n_clusters, self._sample_size(len(documents)))
        self.model_name_or_path_ = resolve_model(self.model_name_or_path)
        if self.verbose and self.model_name_or_path_ is not self.model_name_or_path:
            tqdm.write(f"model: {self.model_name_or_path_} "
                       f"(model_name_or_path={self.model_name_or_path!r})")
        tokenizer, encoder = load_encoder(self.model_name_or_path_, self.verbose)
        max_length = checked_max_length(self.max_length, tokenizer, encoder,
                                        self.model_name_or_path_)
        fit = self._begin_fit(documents, objective, started)
        if params is not None:  # every process resumes; rank 0 writes
            described = {"params": params, "documents": documents_digest(fit.documents),
                         "model": model_digest(tokenizer, encoder)}
            fit.checkpoints = CheckpointDir(self.checkpoint_dir, fingerprint(**described),
                                            described)
            if fit.rank == 0:
                fit.checkpoints.check_writable(fit.max_epochs)
        net = self._make_net(fit, tokenizer, encoder, max_length, objective)
        cuda = [torch.device(fit.device)] if torch.device(fit.device).type == "cuda" else []
        with torch.random.fork_rng(devices=cuda):
            torch.manual_seed(fit.seed)
            net.initialize()
            interrupted = self._train(net, fit)
        self.net_, self.lexical_ = net, fit.lexical
        space = fit.selection.space  # with "auto" and n_clusters, it chose the weight
        self.lexical_weight_ = resolve_lexical_weight(
            self.lexical_weight, None if space is None else space.weight_)
        self.head_ = self._fit_head(net, fit)
        self.objective_ = objective
        self.selection_ = fit.selection.criterion
        self.n_clusters_, self.n_clusters_scores_ = fit.selection.n_clusters()
        self._n_features_out = encoder.dim + (
            0 if fit.lexical is None else fit.lexical.n_components_)
        embeddings = fit.selection.best_embeddings
        if embeddings is not None:
            embeddings = apply_head(self.head_, embeddings)
        fit.selection.release()
        if interrupted:
            self._warn_interrupted()
        if fit.checkpoints is not None:  # releases the folder; raises a failed write
            fit.checkpoints.finish()
        return embeddings, fit.lexical_rows

    def _sample_size(self, n_documents):
        """Documents of the selection's sample: ``selection_sample_size``, at most all."""
        return min(self.selection_sample_size or n_documents, n_documents)

    def _begin_fit(self, documents, objective, started):
        """The :class:`FitState` of a fit on ``documents`` begun at ``started``: device,
        epochs, seed, processes, the fitted positive pairs, the lexical space, the epoch
        selection and the ``objective``'s pseudo-labels."""
        rng = check_random_state(self.random_state)
        seed = int(self.random_state) if isinstance(self.random_state, Integral) else int(
            rng.randint(np.iinfo(np.int32).max))
        rank, world_size = rank_and_world()
        fit = FitState(documents, resolve_device(self.device), seed, rank, world_size,
                       started=started)
        self.max_epochs_, self.max_epochs_reason_ = resolve_max_epochs(self.max_epochs,
                                                                       fit.device)
        fit.max_epochs = self.max_epochs_
        if self.verbose and rank == 0 and self.max_epochs == "auto":
            tqdm.write(self.max_epochs_reason_)
        self.inference_dtype_ = resolve_inference_dtype(self.inference_dtype, fit.device)
        if self.batch_size < 2 * world_size:
            raise ValueError(f"batch_size={self.batch_size} leaves fewer than 2 pairs for each "
                             f"of the {world_size} processes; raise it.")
        if fit.max_epochs > 0:
            fit.positives = self._make_positives().fit(documents, seed)
            if fit.positives.n_pairs < 2 * world_size:
                raise ValueError(
                    f"{type(self).__name__} needs at least {2 * world_size} training pairs, "
                    "but " + fit.positives.describe_shortage(len(documents)))
            self._on_positives(fit.positives)
        self.training_fraction_ = training_fraction(self, fit.positives, len(documents),
                                                    self.verbose and rank == 0)
        if uses_words(self.lexical_weight):  # the corpus' lexical rows, for the selection
            fit.lexical = LexicalSpace(self.lexical_components, seed).fit(documents)
            fit.lexical_rows = fit.lexical.transform(documents)
        fit.selection = self._make_selection(fit, rng)
        if objective.needs_pseudo_labels:
            fit.pseudo_labels = PseudoLabels(objective, fit.selection, len(documents))
        return fit

    def _make_selection(self, fit, rng):
        """The fit's :class:`EpochSelection`: with ``n_clusters``, its criterion scores a
        random sample of the documents in the space ``transform`` returns."""
        if self.n_clusters is None:
            return EpochSelection(last_epoch=fit.max_epochs)
        size = self._sample_size(len(fit.documents))
        self.selection_indices_ = np.sort(rng.permutation(len(fit.documents))[:size])
        context = SelectionContext([fit.documents[i] for i in self.selection_indices_],
                                   self.selection_indices_, self.n_clusters, fit.seed)
        space = None if fit.lexical is None else FusedSpace(
            fit.lexical_rows[self.selection_indices_], self.lexical_weight, self.n_clusters,
            fit.seed)
        return EpochSelection(resolve_criterion(self.selection), context,
                              last_epoch=fit.max_epochs,
                              keep_embeddings=size >= len(fit.documents), space=space)

    def _make_net(self, fit, tokenizer, encoder, max_length, objective):
        """The skorch net of the fit: our step and callbacks, then the user's callbacks."""
        callbacks = [("views", SetEpochViews())]
        if fit.world_size > 1:
            callbacks.append(("average_gradients", AverageGradients()))
        # The selection comes before the pseudo-labels it feeds, the progress bar, which
        # prints its score, and the user's callbacks, which may monitor it; the
        # checkpoints come last, to save what all of them recorded (ContrastiveNet.notify).
        callbacks.append(("selection", fit.selection))
        if fit.pseudo_labels is not None:
            callbacks.append(("pseudo_labels", fit.pseudo_labels))
        verbose = self.verbose if fit.rank == 0 else 0
        callbacks.append(("progress", ProgressBar(verbose, fit.selection.name)))
        callbacks += list(self.callbacks or [])
        if fit.checkpoints is not None and fit.rank == 0:
            callbacks.append(("checkpoint", EpochCheckpoint(fit.checkpoints, fit.stateful)))
        if self.max_time is not None:
            if fit.world_size > 1:  # each process would stop at its own time
                raise ValueError("max_time is not supported across processes "
                                 "(torch.distributed); pass max_time=None.")
            callbacks.append(("time_budget", TimeBudget(self.max_time, fit.started, verbose)))
        loss = objective.make_loss(self.temperature)
        return ContrastiveNet(
            encoder.to(fit.device), tokenizer=tokenizer,
            max_length=max_length, max_windows=self.max_windows,
            mini_batch_size=resolve_mini_batch_size(self.mini_batch_size, fit.device),
            amp_dtype=torch.bfloat16, inference_dtype=self.inference_dtype_,
            criterion=CrossProcessLoss(loss) if fit.world_size > 1 else loss,
            lr=self.learning_rate, optimizer__weight_decay=self.weight_decay,
            max_epochs=fit.max_epochs,
            callbacks=callbacks, device=fit.device,
            verbose=verbose,
        )

    def _train(self, net, fit):
        """Resume or start, train the remaining epochs, keep the selected epoch's weights;
        return whether training was interrupted."""
        start = 0
        if fit.checkpoints is not None:
            start = fit.checkpoints.resume(net, fit.stateful, fit.max_epochs)
        fit.selection.begin(net, start)
        interrupted = False
        if fit.max_epochs > start and fit.selection.final():
            if self.verbose and fit.rank == 0:
                tqdm.write(f"epoch {start}: {fit.selection.name} "
                           f"{fit.selection.context.scores[start]:.4f}; the selection will "
                           "keep no later epoch: training skipped")
        elif fit.max_epochs > start:
            batches = EpochBatches(fit.positives, self.batch_size, fit.seed,
                                   content_keys(fit.documents), fit.rank, fit.world_size)
            interrupted = net.train_epochs(batches, fit.max_epochs - start)
        self.stopped_by_max_time_ = getattr(net, "stop_requested_by_", None) == "time_budget"
        del net.history[fit.selection.completed:]  # the row of an unfinished epoch
        self.best_epoch_ = fit.selection.restore(net)
        self.history_ = fit.selection.history(net, criterion_name(self.selection))
        if fit.selection.criterion is not None:
            labels = fit.selection.context.labels
            self.selection_labels_ = np.vstack([labels[row["epoch"]] for row in self.history_])
        net.optimizer_.state.clear()  # the optimizer state lives on in the checkpoints
        return interrupted

    def _fit_head(self, net, fit):
        """Resolve ``head`` (``head_reason_``) and train it on the encoder as it now is;
        return the trained ``torch.nn.Linear``, or None."""
        n_clusters = fit.selection.n_clusters()[0]

        def agreement():
            if fit.lexical is None:
                return None
            return view_agreement(self._sample_embeddings(net, fit),
                                  fit.lexical_rows[self.selection_indices_], n_clusters,
                                  fit.seed)

        head, self.head_reason_ = resolve_head(self.head, max_epochs=self.max_epochs_,
                                               n_clusters=n_clusters, agreement=agreement,
                                               gated=self._head_gated)
        verbose = self.verbose and fit.rank == 0
        if verbose:
            tqdm.write(self.head_reason_)
        if head is None:
            return None
        positives = fit.positives or self._make_positives().fit(fit.documents, fit.seed)
        if positives.n_pairs < 2:
            self.head_reason_ += "; not trained: " + positives.describe_shortage(
                len(fit.documents))
            return None
        sentence_batch = net.mini_batch_size * max(1, net.max_length // SENTENCE_TOKENS)

        def embed(texts, sentences):  # sentences truncated; documents whole, as transform
            if sentences:
                return net.embed(texts, batch_size=sentence_batch, max_windows=1,
                                 max_length=min(SENTENCE_TOKENS, net.max_length),
                                 verbose=verbose)
            return net.embed(texts, max_windows=self.max_windows, verbose=verbose)

        views = positives.frozen_views(embed, max_sentences=MAX_SENTENCES)
        objective = head.resolved_objective(n_clusters)
        keys = content_keys(fit.documents)[views.documents]
        return train_head(views, net.module_.dim, head, objective=objective,
                          temperature=self.temperature, batch_size=self.batch_size,
                          pseudo_space=self._pseudo_label_space(net, fit, views, objective),
                          n_clusters=n_clusters, keys=keys, random_state=fit.seed,
                          verbose=verbose)

    def _sample_embeddings(self, net, fit):
        """The encoder's embeddings of the selection's sample by the kept weights: those
        the selection computed, else (a later epoch scored last, or a resumed fit) a pass
        over the sample."""
        candidate = fit.selection.candidate
        if (candidate is not None and candidate.epoch == self.best_epoch_
                and candidate.encoded is not None):
            return candidate.encoded
        return net.embed([fit.documents[i] for i in self.selection_indices_])

    def _pseudo_label_space(self, net, fit, views, objective):
        """Where a cluster-aware head draws its pseudo-labels: the selection's sample, in
        the space ``transform`` returns (None for other objectives)."""
        if not objective.needs_pseudo_labels:
            return None
        sample = self.selection_indices_
        rows = None if fit.lexical is None else fit.lexical_rows[sample]
        weight = self.lexical_weight_
        return PseudoLabelSpace.of_sample(
            self._sample_embeddings(net, fit), sample, views.documents,
            None if rows is None else (lambda mapped: join_words(mapped, rows, weight)))

    def _warn_interrupted(self):
        where = (f" Resume it by calling fit again with checkpoint_dir="
                 f"{str(self.checkpoint_dir)!r}." if self.checkpoint_dir is not None else "")
        warnings.warn(FitInterruptedWarning(
            f"Training was interrupted after {len(self.history_) - 1} of {self.max_epochs_} "
            f"epochs; the model holds the weights of epoch {self.best_epoch_} "
            f"(best_epoch_), which history_ describes.{where}"), stacklevel=4)

    #: Whether ``head="auto"`` needs the encoder's clusters to agree with the words'
    #: (``_training._head.resolve_head``): a Shuffle & Divide head amplifies the encoder's
    #: partition, TF-IDF pairs carry the words themselves.
    _head_gated = True

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
        ``max_windows``, ``lexical_weight`` and ``inference_dtype`` are read when
        ``transform`` is called: ``set_params(max_windows=...)`` on a fitted embedder
        changes how it reads the documents without fitting again, and
        ``set_params(lexical_weight=0)`` returns the encoder's embeddings alone.
        """
        check_is_fitted(self)
        validate_estimator_params(self)
        documents = check_documents(X)
        weight = resolve_lexical_weight(self.lexical_weight, self.lexical_weight_)
        if weight > 0 and self.lexical_ is None:
            raise ValueError(
                f"lexical_weight={self.lexical_weight}: this embedder was fitted with "
                "lexical_weight=0, so it has no lexical space; fit it again with the "
                "lexical_weight to use.")
        words = self.lexical_ is not None and uses_words(self.lexical_weight)
        lexical = self.lexical_.transform(documents) if words else None
        dtype = resolve_inference_dtype(self.inference_dtype, self.net_.device)
        return self._postprocess(apply_head(getattr(self, "head_", None), self.net_.embed(
            documents, verbose=self.verbose, max_windows=self.max_windows,
            inference_dtype=dtype)), lexical)

    def _postprocess(self, embeddings, lexical):
        """``transform``'s output from the encoder's embeddings and the documents'
        lexical rows (None: the encoder alone)."""
        return join_words(embeddings, lexical,
                          resolve_lexical_weight(self.lexical_weight, self.lexical_weight_),
                          normalize=self.normalize)

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

        The export is the encoder: with sentence-transformers it embeds a text that fits
        in ``max_length`` tokens as ``transform`` does with ``lexical_weight=0`` (longer
        texts it truncates, where ``transform`` reads them in windows). The lexical
        space (``lexical_``, a scikit-learn TF-IDF and SVD) is not a transformer and stays
        with the pickled embedder.

        The directory loads with ``sentence_transformers.SentenceTransformer(path)`` (mean
        pooling, the head ``head_`` as a ``Dense`` module, and normalisation when
        ``normalize=True``), and with ``transformers.AutoModel.from_pretrained(path)``,
        or as this package's ``model_name_or_path``: the transformer alone, without the
        head.

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
                               max_length=self.net_.max_length, normalize=self.normalize,
                               head=getattr(self, "head_", None))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.input_tags.string = True
        return tags

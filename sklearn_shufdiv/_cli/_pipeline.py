"""Embed, cluster and score: the steps the commands share."""

import contextlib
import dataclasses
import sys
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
from sklearn.metrics import adjusted_mutual_info_score

from ..cluster import choose_n_clusters, cluster_on_sphere
from ..embedders import ShuffleDivideEmbedder, TfidfPositiveEmbedder
from ..exceptions import CheckpointWriteError, FitInterruptedWarning
from ..metrics import clustering_accuracy, cosine_silhouette
from . import CLIError, CLIInterrupted
from ._settings import clusters_a_sample, default_model
from ._text import note, plural

#: Above this many documents, the silhouette is computed on a random sample of this size
#: (its cost is quadratic in the number of documents).
SILHOUETTE_SAMPLE_SIZE = 10_000


@dataclass
class RunResult:
    """What :func:`embed_and_cluster` found.

    Parameters
    ----------
    clusters : ndarray of int
        The cluster of each document.
    silhouette : float
        Cosine silhouette of the clustering
        (:func:`~sklearn_shufdiv.metrics.cosine_silhouette`; NaN when undefined).
    epoch : int
        The epoch whose weights embedded the documents (0: the untuned encoder).
    max_epochs : int
        The epochs trained.
    selected : bool
        Whether ``epoch`` was chosen by the selection criterion (else it is the last one).
    seconds : float
        Wall time of fitting, embedding and clustering.
    embeddings : ndarray of shape (n_documents, dim)
        The documents' (unit) embeddings.
    history : list of dict
        The embedder's ``history_``: epoch, train_loss, selection_score per epoch, 0
        included.
    criterion : str or None
        The selection criterion's name in words (e.g. "untuned silhouette"), when
        ``selected``.
    lexical_weight : float or None
        The weight of the words the embeddings have (``lexical_weight_``: with "auto",
        the one chosen).
    inference_dtype : str or None
        The precision the documents were embedded in (``inference_dtype_``: with "auto",
        the one chosen).
    scored_documents : int or None
        How many documents the epoch selection clustered (None: no selection).
    n_clusters : int or None
        The number of clusters.
    n_clusters_scores : Bunch or None
        With ``--n-clusters auto``, the per-candidate scores of the choice
        (:func:`~sklearn_shufdiv.cluster.choose_n_clusters`'s).
    acc, ami : float or None
        Accuracy and adjusted mutual information against the labels, if any.
    encoder_dim : int or None
        The encoder's part of ``embeddings``: its first ``encoder_dim`` columns.
    embedding_seconds : float
        Wall time of fitting and embedding alone.
    """

    clusters: np.ndarray
    silhouette: float
    epoch: int
    max_epochs: int
    selected: bool
    seconds: float
    embeddings: np.ndarray = None
    history: list = field(default_factory=list)
    scored_documents: int | None = None
    criterion: str | None = None
    lexical_weight: float | None = None
    inference_dtype: str | None = None
    n_clusters: int | None = None
    n_clusters_scores: object = None
    acc: float | None = None
    ami: float | None = None
    encoder_dim: int | None = None
    embedding_seconds: float = 0.0


def make_embedder(args, settings, method, n_clusters, *, select=True):
    """The embedder of ``method`` configured from the command line's options.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options (model, seed, checkpoint folder, quiet).
    settings : Settings
        Device, length, batch size and epochs (see :func:`plan_run`).
    method : {"shuffle-divide", "tfidf", "frozen"}
        "frozen" is the Shuffle & Divide embedder with ``max_epochs=0`` and no head.
    n_clusters : int or "auto"
        Passed on when ``select`` is true and there is training, so that the epoch
        is chosen by silhouette (with "auto", on the number the embedder chooses), or
        without encoder epochs, so that ``head="auto"`` can decide on a head.
    select : bool, default=True
        Choose the epoch by silhouette.

    Returns
    -------
    embedder : ShuffleDivideEmbedder or TfidfPositiveEmbedder
    """
    params = {"max_length": settings.max_length, "max_windows": settings.max_windows,
              "lexical_weight": settings.lexical_weight,
              "device": settings.device, "inference_dtype": settings.inference_dtype,
              "batch_size": settings.batch_size, "random_state": args.seed,
              "verbose": 0 if args.quiet else 1}
    if method == "frozen":
        params["max_epochs"] = 0
        params["head"] = None
    else:
        params["checkpoint_dir"] = args.checkpoint_dir
        params["max_epochs"] = settings.max_epochs
        params["max_time"] = args.max_time
        params["objective"] = settings.objective
    cls = TfidfPositiveEmbedder if method == "tfidf" else ShuffleDivideEmbedder
    embedder = cls(args.model or default_model(), **params)
    if clusters_a_sample(select, embedder.max_epochs, settings, method):
        embedder.set_params(n_clusters=n_clusters)
    return embedder


@contextlib.contextmanager
def progress_to_stderr():
    """Send printed progress to stderr: the embedders print a line per epoch on stdout,
    which holds the results here (``--quiet`` is ``verbose=0``, which prints nothing and
    hides transformers' weight-loading bar)."""
    with contextlib.redirect_stdout(sys.stderr):
        yield


def fit_transform(args, embedder, texts):
    """``embedder.fit_transform(texts)``, with its errors and a Ctrl-C said in one line.

    Raises
    ------
    CLIError
        For a bad model, device or documents.
    CLIInterrupted
        When training was interrupted: the message says how to resume.

    A checkpoint that cannot be written stops training but not the run: the error is
    printed as a warning and the documents are embedded with the model of the epochs
    trained.
    """
    try:
        with progress_to_stderr(), warnings.catch_warnings():
            # The embedder returns after a Ctrl-C (with the epochs completed) and warns.
            warnings.simplefilter("error", FitInterruptedWarning)
            return embedder.fit_transform(texts)
    except FitInterruptedWarning:
        if embedder.checkpoint_dir is None:
            how = ("no checkpoint was kept: add --checkpoint-dir DIR to be able to resume "
                   "an interrupted run")
        else:
            how = (f"run the same command again to resume from the last completed epoch "
                   f"(checkpoints in {embedder.checkpoint_dir})")
        raise CLIInterrupted(f"interrupted during training; {how}") from None
    except CheckpointWriteError as exc:
        # Training stopped at the failed write, but the embedder holds the model of the
        # epochs trained: the run goes on with it rather than losing it.
        print(f"warning: {exc}", file=sys.stderr, flush=True)
        with progress_to_stderr():
            return embedder.transform(texts)
    except (OSError, ValueError) as exc:
        raise CLIError(str(exc)) from exc


def criterion_words(embedder):
    """The fitted embedder's selection criterion in words: its history key, spaced."""
    return embedder.selection_.name.replace("_", " ")


def selection_clusters(embedder, n_documents):
    """The clusters the epoch selection found for the chosen epoch, when it clustered
    every document (else None): the summary then reports the very clustering, and
    clustering that the epoch was chosen on. None after a head was trained: the
    selection clustered the encoder's space before the head mapped it."""
    indices = getattr(embedder, "selection_indices_", None)
    if indices is None or len(indices) != n_documents or embedder.head_ is not None:
        return None
    row = [entry["epoch"] for entry in embedder.history_].index(embedder.best_epoch_)
    return np.asarray(embedder.selection_labels_[row])


def chosen_clusters(args, embedder, embeddings, n_clusters):
    """``(k, scores)``: the number of clusters and, with "auto", the scores of the
    choice: the embedder's where its epoch selection chose it, else
    :func:`~sklearn_shufdiv.cluster.choose_n_clusters` on the documents' embeddings."""
    if n_clusters != "auto":
        return n_clusters, None
    if getattr(embedder, "n_clusters_scores_", None) is not None:
        return embedder.n_clusters_, embedder.n_clusters_scores_
    note(args, "choosing the number of clusters")
    try:
        return choose_n_clusters(embeddings, random_state=args.seed,
                                 verbose=0 if args.quiet else 1)
    except ValueError as exc:
        raise CLIError(f"--n-clusters auto: {exc} Give --n-clusters K.") from exc


def embed_and_cluster(args, settings, texts, n_clusters, *, method, select=True,
                      labels=None):
    """Fit the embedder of ``method`` on ``texts``, embed them and cluster them.

    The clusters are those of the epoch selection when it clustered every document;
    otherwise the same clustering the selection makes
    (:func:`~sklearn_shufdiv.cluster.cluster_on_sphere`, seeded by ``--seed``).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options.
    settings : Settings
        Device, length, batch size and epochs.
    texts : list of str
        The documents.
    n_clusters : int or "auto"
        Clusters of the spherical k-means; "auto": the number the embedder chose for its
        epoch selection, else :func:`~sklearn_shufdiv.cluster.choose_n_clusters` on the
        embeddings (seeded by ``--seed``).
    method : {"shuffle-divide", "tfidf", "frozen"}
        The embedder.
    select : bool, default=True
        Choose the epoch by silhouette.
    labels : sequence or None
        True labels; when given, ACC and AMI are computed.

    Returns
    -------
    result : RunResult
    """
    start = time.perf_counter()
    embedder = make_embedder(args, settings, method, n_clusters, select=select)
    note(args, f"{method}: fitting {embedder.model_name_or_path} on "
               f"{plural(len(texts), 'document')}")
    embeddings = fit_transform(args, embedder, texts)
    n_clusters, scores = chosen_clusters(args, embedder, embeddings, n_clusters)
    clusters = selection_clusters(embedder, len(texts))
    indices = getattr(embedder, "selection_indices_", None)
    elapsed = time.perf_counter() - start
    result = RunResult(clusters, np.nan, int(embedder.best_epoch_), embedder.max_epochs,
                       embedder.n_clusters is not None, elapsed, embedding_seconds=elapsed,
                       embeddings=embeddings, history=list(embedder.history_),
                       scored_documents=None if indices is None else len(indices),
                       criterion=criterion_words(embedder) if embedder.n_clusters else None,
                       lexical_weight=embedder.lexical_weight_,
                       inference_dtype=embedder.inference_dtype_, n_clusters=n_clusters,
                       n_clusters_scores=scores, encoder_dim=embedder.encoder_.dim)
    return score_clusters(args, result, labels)


def score_clusters(args, result, labels=None):
    """Complete ``result``: its clusters when it has none (spherical k-means of its
    embeddings, seeded by ``--seed``), their silhouette, ACC and AMI against ``labels``,
    and the time it took since ``result.seconds`` (the time its embeddings took)."""
    start = time.perf_counter() - result.seconds
    if result.clusters is None:
        result.clusters = cluster_on_sphere(result.embeddings, result.n_clusters,
                                            random_state=args.seed).labels
    result.silhouette = cosine_silhouette(result.embeddings, result.clusters,
                                          sample_size=SILHOUETTE_SAMPLE_SIZE,
                                          random_state=args.seed)
    if labels is not None:
        labels = np.asarray(labels)
        result.acc = float(clustering_accuracy(labels, result.clusters))
        result.ami = float(adjusted_mutual_info_score(labels, result.clusters))
    result.seconds = time.perf_counter() - start
    return result


def encoder_alone(args, result, labels=None):
    """The run of the encoder alone, from ``result``, a frozen run with the words: its
    embeddings' encoder part (the first ``encoder_dim`` columns, the encoder's unit
    embedding scaled by one factor a row), rows made unit again, clustered and scored
    without running the encoder again.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options (the seed).
    result : RunResult
        A run without training (``max_epochs == 0``).
    labels : sequence or None
        True labels; when given, ACC and AMI are computed.

    Returns
    -------
    alone : RunResult
        Its ``seconds``: those of ``result``'s embedding, and of its own clustering.
    """
    start = time.perf_counter()
    part = result.embeddings[:, :result.encoder_dim].astype(np.float64)
    part /= np.maximum(np.linalg.norm(part, axis=1, keepdims=True), np.finfo(np.float32).tiny)
    alone = dataclasses.replace(
        result, clusters=None, silhouette=np.nan, embeddings=part.astype(np.float32),
        selected=False, criterion=None, scored_documents=None, lexical_weight=0.0,
        seconds=result.embedding_seconds + time.perf_counter() - start)
    return score_clusters(args, alone, labels)

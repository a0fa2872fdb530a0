"""The ``demo`` command: the encoder alone, with the corpus' words, and fine-tuned, on a
labelled benchmark."""

import numpy as np
import torch

from . import CLIError
from ._pipeline import embed_and_cluster, encoder_alone
from ._settings import default_model, plan_run
from ._text import epoch_text, note, score_text

#: ``--corpus`` choice -> loader of :mod:`sklearn_shufdiv.datasets`.
LOADERS = {
    "bbc": "fetch_bbc",
    "bbcsport": "fetch_bbcsport",
    "20news": "fetch_20newsgroups_clean",
    "reuters": "fetch_reuters21578",
}


def load_corpus(name, *, data_home=None, download=True):
    """Load a benchmark corpus with the package's loader.

    Parameters
    ----------
    name : {"bbc", "bbcsport", "20news", "reuters"}
        The corpus.
    data_home : str or None, default=None
        The data home (None: scikit-learn's, which honours ``SCIKIT_LEARN_DATA``).
    download : bool, default=True
        Download the corpus when it is missing.

    Returns
    -------
    bunch : sklearn.utils.Bunch
        With ``data``, ``target`` and ``target_names``.
    """
    from .. import datasets

    fetch = getattr(datasets, LOADERS[name])
    try:
        return fetch(data_home=data_home, download_if_missing=download)
    except (OSError, ValueError) as exc:
        raise CLIError(f"cannot load the {name} corpus: {exc}") from exc


def stratified_sample(target, n_docs, seed):
    """Sorted indices of a stratified sample of ``n_docs`` documents (0: all of them).

    Parameters
    ----------
    target : ndarray of int
        The class of each document.
    n_docs : int
        Sample size; 0, or at least the corpus' size, keeps every document.
    seed : int
        Seed of the draw.

    Returns
    -------
    indices : ndarray of int
    """
    from sklearn.model_selection import train_test_split

    everything = np.arange(len(target))
    if n_docs == 0 or n_docs >= len(target):
        return everything
    try:
        sample, _ = train_test_split(everything, train_size=n_docs, stratify=target,
                                     random_state=seed)
    except ValueError as exc:
        raise CLIError(f"--n-docs {n_docs}: cannot draw a stratified sample ({exc})") from None
    return np.sort(sample)


def run_demo(args):
    """Run ``sklearn-shufdiv demo`` with the parsed ``args``.

    Parameters
    ----------
    args : argparse.Namespace
        Options of the ``demo`` command.

    Returns
    -------
    status : int
        0 on success.
    """
    bunch = load_corpus(args.corpus, data_home=args.data_home, download=not args.no_download)
    sample = stratified_sample(bunch.target, args.n_docs, args.seed)
    texts = [bunch.data[i] for i in sample]
    target = np.asarray(bunch.target)[sample]
    n_classes = len(np.unique(target))
    if n_classes < 2:
        raise CLIError(f"the {args.corpus} sample has a single class; raise --n-docs.")
    note(args, f"{args.corpus}: {len(texts)} of {len(bunch.data)} documents, "
               f"{n_classes} classes")
    if args.max_epochs is None and not _on_gpu(args.device):
        args.max_epochs = 0  # on a CPU, training is opt-in: --max-epochs N
    trains = args.max_epochs != 0
    settings = plan_run(args, texts, methods=["frozen"] + (["shuffle-divide"] if trains
                                                           else []))
    # The encoder runs once for both frozen rows: the row of the encoder alone is the
    # encoder's part of the embeddings with the words.
    words = embed_and_cluster(args, settings, texts, n_classes, method="frozen",
                              labels=target)
    results = {"encoder": encoder_alone(args, words, target), "encoder+words": words}
    if trains:
        results["shuffle-divide"] = embed_and_cluster(args, settings, texts, n_classes,
                                                      method="shuffle-divide", labels=target)
    print(f"corpus:       {args.corpus}, {len(texts)} of {len(bunch.data)} documents, "
          f"{n_classes} classes = clusters")
    print(f"model:        {args.model or default_model()}")
    print(f"settings:     {settings.describe(training=trains)}")
    print(f"{'':16}{'ACC':>8}{'AMI':>8}{'silhouette':>12}{'time (s)':>10}")
    for name, result in results.items():
        print(f"{name:16}{score_text(result.acc):>8}{score_text(result.ami):>8}"
              f"{score_text(result.silhouette):>12}{result.seconds:>10.1f}")
    print(f"{'':16}(encoder and encoder+words share one pass of the encoder: "
          f"{words.embedding_seconds:.1f} s)")
    if trains:
        print(f"chosen epoch: {epoch_text(results['shuffle-divide'])}")
    else:
        print("fine-tuning:  not run (on a CPU the demo trains only when asked: "
              "--max-epochs 1 adds a Shuffle & Divide row)")
    if settings.lexical_weight == "auto":
        print("words:        weighted " + ", ".join(
            f"{result.lexical_weight:g} ({name})" for name, result in results.items()))
    return 0


def _on_gpu(device):
    """Whether ``--device`` resolves to a CUDA device."""
    return device.startswith("cuda") or (device == "auto" and torch.cuda.is_available())

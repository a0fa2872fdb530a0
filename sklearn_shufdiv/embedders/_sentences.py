"""Sentence splitting with nltk's Punkt: pretrained when available, else trained on the corpus.

Punkt is unsupervised: it learns abbreviations, collocations and sentence starters from raw
text. nltk's pretrained English model (``punkt_tab``) must be downloaded separately; where it
is absent (offline machines) a model trained on the documents being fitted is the next best
thing, and needs no download. Nothing here ever downloads.
"""

import nltk
import numpy as np
from nltk.tokenize.punkt import PunktSentenceTokenizer, PunktTrainer

# Enough text for Punkt's statistics to settle; training cost grows linearly beyond it.
_TRAINING_CHARS = 2_000_000


def pretrained_punkt(language="english"):
    """nltk's pretrained Punkt model for ``language``, or None when it is not installed."""
    try:
        nltk.data.find(f"tokenizers/punkt_tab/{language}/")
    except LookupError:
        return None
    return nltk.tokenize.PunktTokenizer(language)


def train_punkt(documents, random_state=None):
    """A Punkt sentence tokenizer trained, unsupervised, on (a sample of) ``documents``."""
    rng = np.random.default_rng(random_state)
    trainer = PunktTrainer()
    total = 0
    for index in rng.permutation(len(documents)):
        trainer.train(documents[index], finalize=False)
        total += len(documents[index])
        if total >= _TRAINING_CHARS:
            break
    trainer.finalize_training()
    return PunktSentenceTokenizer(trainer.get_params())


def make_sentence_splitter(splitter, documents, random_state=None):
    """Resolve the ``sentence_splitter`` parameter into a ``str -> list[str]`` callable.

    Parameters
    ----------
    splitter : {"auto", "punkt", "punkt-corpus"} or callable
        ``"auto"``: pretrained English Punkt when nltk finds it, else Punkt trained on
        ``documents``; ``"punkt"``: pretrained Punkt, an error when it is missing;
        ``"punkt-corpus"``: always train on ``documents``; a callable is used as is.
    documents : list of str
        The corpus, for training.
    random_state : int or None
        Chooses the training sample on large corpora.
    """
    if callable(splitter):
        return splitter
    if splitter in ("auto", "punkt"):
        tokenizer = pretrained_punkt()
        if tokenizer is not None:
            return tokenizer.tokenize
        if splitter == "punkt":
            raise LookupError(
                "nltk's pretrained Punkt model ('punkt_tab') is not installed. Install it with "
                "nltk.download('punkt_tab') where a network is available, or use "
                "sentence_splitter='punkt-corpus' to train Punkt on the corpus itself."
            )
    return train_punkt(documents, random_state).tokenize

"""Sentence splitting with nltk's Punkt: pretrained when available, else trained on the corpus.

Punkt is unsupervised: it learns abbreviations, collocations and sentence starters from raw
text. nltk's pretrained English model (``punkt_tab``) must be downloaded separately; where it
is absent (offline machines) a model trained on the documents being fitted is the next best
thing, and needs no download. Nothing here ever downloads.
"""

import re

import nltk
import numpy as np
from nltk.tokenize.punkt import PunktSentenceTokenizer, PunktTrainer

# Enough text for Punkt's statistics to settle; training cost grows linearly beyond it.
_TRAINING_CHARS = 2_000_000


#: Sentence-final marks of other scripts than the Latin one, which Punkt does not know:
#: ideographic and fullwidth stops (Chinese, Japanese), the Arabic question mark, the
#: Urdu full stop, the Devanagari dandas, the Ethiopic, Armenian and Myanmar full stops.
FINAL_MARKS = "\u3002\uff61\uff01\uff1f\u061f\u06d4\u0964\u0965\u1362\u1367\u0589\u104b"
#: Closing quotes and brackets that stay with the sentence they end.
_CLOSERS = "\u300d\u300f\u3011\uff09\u3015\u300b\u3009\u201d\u2019\u00bb\"')"
_AFTER_FINAL_MARK = re.compile(
    rf"(?:(?<=[{FINAL_MARKS}])|(?<=[{FINAL_MARKS}][{_CLOSERS}]))"
    rf"(?![{FINAL_MARKS}{_CLOSERS}])\s*")


def split_final_marks(text):
    """Cut ``text`` after each run of :data:`FINAL_MARKS` (and the closing quotes that
    follow), the mark staying with its sentence.

    Examples
    --------
    >>> split_final_marks("今天下雨。我们在家！你呢？")
    ['今天下雨。', '我们在家！', '你呢？']
    >>> split_final_marks("هل أنت بخير؟ نعم")
    ['هل أنت بخير؟', 'نعم']
    >>> split_final_marks("No mark here. Punkt splits this.")
    ['No mark here. Punkt splits this.']
    """
    return [piece for piece in _AFTER_FINAL_MARK.split(text) if piece]


def with_final_marks(tokenize):
    """``tokenize`` (Punkt's) applied to each piece :func:`split_final_marks` cuts."""
    def split(text):
        return [sentence for piece in split_final_marks(text) for sentence in tokenize(piece)]
    return split


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
        ``documents``, either also cutting after the sentence-final marks of other
        scripts (:data:`FINAL_MARKS`: ``。！？؟۔।`` and others); ``"punkt"``:
        pretrained Punkt, an error when it is missing;
        ``"punkt-corpus"``: always train on ``documents``; a callable is used as is.
    documents : list of str
        The corpus, for training.
    random_state : int or None
        Chooses the training sample on large corpora.
    """
    if callable(splitter):
        return splitter
    tokenize = None
    if splitter in ("auto", "punkt"):
        tokenizer = pretrained_punkt()
        tokenize = None if tokenizer is None else tokenizer.tokenize
        if tokenize is None and splitter == "punkt":
            raise LookupError(
                "nltk's pretrained Punkt model ('punkt_tab') is not installed. Install it with "
                "nltk.download('punkt_tab') where a network is available, or use "
                "sentence_splitter='punkt-corpus' to train Punkt on the corpus itself."
            )
    if tokenize is None:
        tokenize = train_punkt(documents, random_state).tokenize
    return with_final_marks(tokenize) if splitter == "auto" else tokenize


def split_sentences(split, document, index):
    """The non-blank sentences ``split`` (the resolved ``sentence_splitter``) gives for
    ``document``, the ``index``-th of the corpus.

    Raises
    ------
    TypeError
        If ``split`` returns anything but an iterable of str (a str itself would be
        read as its characters), naming ``sentence_splitter`` and the document.

    Examples
    --------
    >>> split_sentences(lambda text: text.split("."), "One. Two. ", 0)
    ['One', ' Two']
    >>> split_sentences(lambda text: text, "One. Two.", 3)
    Traceback (most recent call last):
    ...
    TypeError: sentence_splitter must return a list of str (the document's sentences); ...
    """
    sentences = split(document)
    problem = None
    if isinstance(sentences, (str, bytes)) or not hasattr(sentences, "__iter__"):
        problem = f"{type(sentences).__name__} ({sentences!r:.60})"
    else:
        sentences = list(sentences)
        bad = [s for s in sentences if not isinstance(s, str)][:1]
        if bad:
            problem = f"a list holding {type(bad[0]).__name__} ({bad[0]!r:.60})"
    if problem is not None:
        raise TypeError(
            "sentence_splitter must return a list of str (the document's sentences); "
            f"for document {index} it returned {problem}.")
    return [sentence for sentence in sentences if sentence.strip()]

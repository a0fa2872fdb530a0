"""Checks of the documents given to the embedders."""

from collections.abc import Mapping, Set
from numbers import Integral

import numpy as np

from ...utils._param_validation import Interval, validate_parameter_constraints


def check_documents(X, *, name="X"):
    """A list of str from a list, tuple, 1-D numpy array or pandas Series of strings.

    Raises
    ------
    TypeError
        For a single string, a mapping (whose iteration gives its keys), a set (whose
        order is arbitrary), a 2-D input or an item that is not a string.
    ValueError
        For an empty corpus, or a document that is not valid Unicode (a lone surrogate,
        as text decoded with ``errors="surrogateescape"`` holds): it is named, rather
        than replaced, because replacing would change the text without a word.

    Examples
    --------
    >>> check_documents(("one document.", "another one."))
    ['one document.', 'another one.']
    >>> check_documents("one document.")
    Traceback (most recent call last):
    ...
    TypeError: X must be an iterable of documents (str), got a single str. Wrap it in a list.
    >>> check_documents({"a.txt": "one document."})
    Traceback (most recent call last):
    ...
    TypeError: X is a dict, a mapping: iterating it would embed its keys, not its ...
    """
    _check_container(X, name)
    if hasattr(X, "to_numpy") or isinstance(X, np.ndarray):
        X = np.asarray(X, dtype=object).tolist()
    try:
        documents = list(X)
    except TypeError:
        raise TypeError(
            f"{name} must be an iterable of documents (str); got {type(X).__name__}."
        ) from None
    for index, document in enumerate(documents):
        _check_document(document, index, name)
    if not documents:
        raise ValueError(f"{name} is empty: there is no document to embed.")
    return documents


def _check_container(X, name):
    """Refuse what is not a sequence of documents: a string, a mapping, a set, 2-D data."""
    if isinstance(X, (str, bytes)):
        raise TypeError(
            f"{name} must be an iterable of documents (str), got a single "
            f"{type(X).__name__}. Wrap it in a list."
        )
    if isinstance(X, Mapping):
        raise TypeError(
            f"{name} is a {type(X).__name__}, a mapping: iterating it would embed its keys, "
            "not its values. Pass the documents as a list, e.g. list(X.values()), and keep "
            "the keys (list(X)) to match the embeddings to them."
        )
    if isinstance(X, Set):
        raise TypeError(
            f"{name} is a {type(X).__name__}: a set has no order, so the embeddings could "
            "not be matched to the documents. Pass a list, e.g. sorted(X)."
        )
    if getattr(X, "ndim", 1) != 1:
        raise TypeError(
            f"{name} must be one-dimensional (one document per entry); got an array of "
            f"shape {X.shape}. Select the text column, e.g. df['text']."
        )


def _check_document(document, index, name, where=""):
    """Raise if item ``index`` (``where``: in what) of ``name`` is not a str of valid
    Unicode, naming it and saying what to do."""
    if not isinstance(document, str):
        raise TypeError(
            f"{name} must contain only str documents; item {index}{where} is "
            f"{type(document).__name__} ({document!r:.60}). Convert or drop it first."
        )
    if not document.isascii():
        _check_unicode(document, index, name)


def _check_unicode(document, index, name):
    """Raise if ``document`` holds a lone surrogate, which no tokenizer can encode."""
    try:
        document.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(
            f"{name}[{index}] is not valid Unicode: it holds the lone surrogate "
            f"{document[exc.start]!r} at character {exc.start} (text decoded with "
            "errors='surrogateescape' keeps undecodable bytes so). Decode the bytes with "
            "their real encoding, or with errors='replace'."
        ) from None


def check_selection_sample(n_clusters, selection_sample_size, n_documents):
    """Refuse an epoch selection with fewer documents to cluster than ``n_clusters``.

    Raises
    ------
    ValueError
        Naming ``n_clusters`` when the corpus is too small, else
        ``selection_sample_size``.

    Examples
    --------
    >>> check_selection_sample(4, 5000, 100)
    >>> check_selection_sample(4, 3, 100)
    Traceback (most recent call last):
    ...
    ValueError: selection_sample_size=3 is fewer documents than n_clusters=4: ...
    """
    if n_clusters is None or n_clusters == "auto":  # "auto": at most the sample's documents
        return
    if n_clusters > n_documents:
        raise ValueError(
            f"n_clusters={n_clusters} is more clusters than the {n_documents} documents "
            "to fit: lower n_clusters, or pass more documents.")
    if selection_sample_size is not None and n_clusters > selection_sample_size:
        raise ValueError(
            f"selection_sample_size={selection_sample_size} is fewer documents than "
            f"n_clusters={n_clusters}: the epoch selection clusters a sample of that many "
            f"documents. Raise selection_sample_size to {n_clusters} or more (None: all "
            "documents).")


def document_chunks(documents, chunk_size, *, caller="transform_iter"):
    """Lists of at most ``chunk_size`` documents read from the iterable ``documents``,
    each document checked as it is read (named by its position in the stream).

    Raises
    ------
    InvalidParameterError
        If ``chunk_size`` is not an integer of at least 1 (0 or less would hold the
        whole stream in memory at once).
    TypeError, ValueError
        As :func:`check_documents`, for the container and for the item at a position
        of the stream.

    Examples
    --------
    >>> [len(chunk) for chunk in document_chunks(iter("abcde"), 2)]
    [2, 2, 1]
    >>> list(document_chunks(["a", "b", None], 2))
    Traceback (most recent call last):
    ...
    TypeError: documents must contain only str documents; item 2 of the stream is ...
    """
    validate_parameter_constraints({"chunk_size": [Interval(Integral, 1, None)]},
                                   {"chunk_size": chunk_size}, caller)
    _check_container(documents, "documents")
    chunk = []
    for position, document in enumerate(documents):
        _check_document(document, position, "documents", " of the stream")
        chunk.append(document)
        if len(chunk) == chunk_size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk

"""Checks of the documents given to the embedders."""

import numpy as np


def check_documents(X, *, name="X"):
    """A list of str from a list, tuple, 1-D numpy array or pandas Series of strings.

    Raises
    ------
    TypeError
        For a single string, a 2-D input or an item that is not a string.
    ValueError
        For an empty corpus.

    Examples
    --------
    >>> check_documents(("one document.", "another one."))
    ['one document.', 'another one.']
    >>> check_documents("one document.")
    Traceback (most recent call last):
    ...
    TypeError: X must be an iterable of documents (str), got a single str. Wrap it in a list.
    """
    if isinstance(X, (str, bytes)):
        raise TypeError(
            f"{name} must be an iterable of documents (str), got a single "
            f"{type(X).__name__}. Wrap it in a list."
        )
    if getattr(X, "ndim", 1) != 1:
        raise TypeError(
            f"{name} must be one-dimensional (one document per entry); got an array of "
            f"shape {X.shape}. Select the text column, e.g. df['text']."
        )
    if hasattr(X, "to_numpy") or isinstance(X, np.ndarray):
        X = np.asarray(X, dtype=object).tolist()
    try:
        documents = list(X)
    except TypeError:
        raise TypeError(
            f"{name} must be an iterable of documents (str); got {type(X).__name__}."
        ) from None
    for index, document in enumerate(documents):
        if not isinstance(document, str):
            raise TypeError(
                f"{name} must contain only str documents; item {index} is "
                f"{type(document).__name__} ({document!r:.60}). Convert or drop it first."
            )
    if not documents:
        raise ValueError(f"{name} is empty: there is no document to embed.")
    return documents

"""Whole documents through a fixed-length encoder: windows of tokens, pooled back.

A document longer than ``max_length`` tokens is cut into *windows* that cover it, each
with the model's special tokens; every window is mean-pooled by the encoder, and the
document's embedding is the mean of its windows' embeddings weighted by their token
counts (special tokens included). This is exactly mean pooling over all the document's
tokens, with attention limited to each window:

    embedding(d) = sum_w sum_{t in w} h_t / sum_w |w|

A document's first ``max_windows * body`` tokens are kept (``body`` = ``max_length``
minus the special tokens; all of them when ``max_windows`` is None) and split into the
fewest windows of at most ``body`` tokens, of near-equal sizes, so that no window is a
short tail with little context. ``max_windows=1`` is plain truncation at ``max_length``.

The windows of all documents are packed together (length-sorted, dynamically padded, as
:func:`~._batching.padded_groups` makes them) and scattered back per document with one
weighted sum: no Python loop over documents on the hot path beyond tokenisation.
"""

from dataclasses import dataclass

import numpy as np
import torch


@dataclass
class Windows:
    """The windows of a list of documents, ready for :func:`~._batching.padded_groups`.

    token_ids : list of list of int
        Each window's token ids, special tokens included.
    owners : ndarray of shape (n_windows,)
        The document (position in the input list) each window belongs to.
    n_documents : int
        How many documents were cut.
    """

    token_ids: list
    owners: np.ndarray
    n_documents: int

    @property
    def weights(self):
        """Each window's token count, special tokens included: its weight in the mean."""
        return np.fromiter(map(len, self.token_ids), dtype=np.float64,
                           count=len(self.token_ids))


def _spans(n_tokens, body, max_windows):
    """``(start, stop)`` of each window of a document of ``n_tokens`` tokens: the fewest
    windows of at most ``body`` tokens, of near-equal sizes."""
    if max_windows is not None:
        n_tokens = min(n_tokens, max_windows * body)
    if n_tokens <= body:
        return [(0, n_tokens)]
    count = -(-n_tokens // body)
    bounds = np.linspace(0, n_tokens, count + 1).round().astype(int)
    return list(zip(bounds[:-1].tolist(), bounds[1:].tolist()))


def cut_windows(tokenizer, texts, max_length, *, max_windows=None):
    """Tokenise ``texts`` whole and cut each into windows of at most ``max_length`` tokens.

    Parameters
    ----------
    tokenizer : transformers tokenizer
        Adds the model's special tokens to each window.
    texts : sequence of str
        The documents.
    max_length : int
        Tokens per window, special tokens included.
    max_windows : int or None, default=None
        Windows per document at most (the first ones are kept); None covers each whole
        document; 1 is truncation at ``max_length``.

    Returns
    -------
    windows : Windows
    """
    prefix, suffix, body = _template(tokenizer, max_length)
    if not len(texts):
        return Windows([], np.empty(0, dtype=np.int64), 0)
    encoded = _tokenize_whole(tokenizer, texts,
                              None if max_windows is None else max_windows * body)
    token_ids, owners = [], []
    for document, ids in enumerate(encoded):
        for start, stop in _spans(len(ids), body, max_windows):
            token_ids.append(prefix + ids[start:stop] + suffix)
            owners.append(document)
    return Windows(token_ids, np.asarray(owners, dtype=np.int64), len(encoded))


def _template(tokenizer, max_length):
    """``(prefix, suffix, body)``: the special tokens around a window's text and the text
    tokens it holds; a ``ValueError`` naming ``max_length`` when it leaves no room for
    text."""
    prefix, suffix = special_tokens(tokenizer)
    body = max_length - len(prefix) - len(suffix)
    if body < 1:
        raise ValueError(f"max_length={max_length} leaves no room for text beside the "
                         "model's special tokens; raise it.")
    return prefix, suffix, body


def special_tokens(tokenizer):
    """The ids the tokenizer puts before and after a single text (e.g. [CLS] and [SEP]).

    Read off a probe text encoded with and without special tokens, which works for any
    tokenizer whatever its template (BERT's, RoBERTa's, ...).
    """
    plain = tokenizer("a", add_special_tokens=False)["input_ids"]
    full = tokenizer("a", add_special_tokens=True)["input_ids"]
    for start in range(len(full) - len(plain) + 1):
        if full[start : start + len(plain)] == plain:
            return full[:start], full[start + len(plain) :]
    raise ValueError(f"Cannot tell where {type(tokenizer).__name__} puts its special "
                     "tokens; windowed encoding needs a tokenizer that keeps a text's ids "
                     "whole between them.")


def _tokenize_whole(tokenizer, texts, limit=None):
    """Token ids of each text without special tokens: all of them, or the first ``limit``
    (what ``max_windows`` windows can hold: tokenising the rest of a long text would be
    wasted). ``verbose=False``: transformers would warn that a text exceeds the model's
    limit; windows are cut before they reach the model."""
    kwargs = {"truncation": False} if limit is None else {"truncation": True,
                                                          "max_length": limit}
    return tokenizer(list(texts), add_special_tokens=False, verbose=False,
                     return_attention_mask=False, return_token_type_ids=False,
                     **kwargs)["input_ids"]


def pool_windows(embeddings, windows):
    """Each document's embedding: the token-weighted mean of its windows' embeddings.

    Parameters
    ----------
    embeddings : torch.Tensor of shape (n_windows, dim)
        One embedding per window, in the order of ``windows.token_ids``.
    windows : Windows
        What :func:`cut_windows` returned.

    Returns
    -------
    pooled : torch.Tensor of shape (windows.n_documents, dim)
        ``embeddings`` itself when every document has a single window.
    """
    if len(windows.owners) == windows.n_documents:  # one window each, in order
        return embeddings
    device = embeddings.device
    weights = torch.as_tensor(windows.weights, dtype=embeddings.dtype, device=device)
    owners = torch.as_tensor(windows.owners, device=device)
    shape = (windows.n_documents, embeddings.shape[1])
    sums = torch.zeros(shape, dtype=embeddings.dtype, device=device).index_add(
        0, owners, embeddings * weights[:, None])
    totals = torch.zeros(windows.n_documents, dtype=embeddings.dtype,
                         device=device).index_add(0, owners, weights)
    return sums / totals.clamp(min=1.0)[:, None]

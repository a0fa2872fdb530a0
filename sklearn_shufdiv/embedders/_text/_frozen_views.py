"""Positive pairs over frozen embeddings: the views a :class:`LinearHead` trains on.

Each text is embedded once; a draw of the views only recombines those embeddings, so
that an epoch of the head costs a few matrix products.
"""

import numpy as np
import torch

__all__ = ["HalfViews", "PairViews"]


class HalfViews:
    """Shuffle & Divide over frozen sentence embeddings.

    Each draw shuffles the sentences of every document and cuts them in two halves (the
    first ``n // 2`` and the rest, as the text views are cut); a view is the mean of its
    half's sentence embeddings.

    Parameters
    ----------
    embeddings : ndarray of shape (n_sentences, dim)
        The sentences' embeddings, document after document.
    offsets : ndarray of shape (n_views_documents + 1,)
        Document i's sentences are ``embeddings[offsets[i]:offsets[i + 1]]`` (at least 2).
    documents : ndarray of shape (n_views_documents,)
        Each document's index in the corpus.

    Examples
    --------
    >>> import numpy as np
    >>> views = HalfViews(np.eye(4, dtype=np.float32), np.array([0, 4]), np.array([7]))
    >>> a, b = views.sample(np.random.RandomState(0))
    >>> tuple(a.shape), float((a + b).sum())  # halves of two sentences: the means sum to 2
    ((1, 4), 2.0)
    """

    def __init__(self, embeddings, offsets, documents):
        self.embeddings = torch.as_tensor(np.asarray(embeddings, dtype=np.float32))
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self.documents = np.asarray(documents, dtype=np.int64)
        self._lengths = np.diff(self.offsets)
        self._owner = np.repeat(np.arange(len(self._lengths)), self._lengths)

    def sample(self, rng):
        """``(a, b)``: tensors of shape (n_documents, dim), the halves of each document."""
        order = np.lexsort((rng.random_sample(len(self._owner)), self._owner))
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order)) - self.offsets[self._owner[order]]
        second = rank >= self._lengths[self._owner] // 2
        segment = torch.as_tensor(self._owner * 2 + second)
        n = 2 * len(self._lengths)
        sums = torch.zeros(n, self.embeddings.shape[1]).index_add_(0, segment, self.embeddings)
        counts = torch.bincount(segment, minlength=n).clamp(min=1).unsqueeze(1)
        halves = (sums / counts).view(len(self._lengths), 2, -1)
        return halves[:, 0], halves[:, 1]

    @property
    def pairs(self):
        """``(first, second)``: the document (an index into :attr:`documents`) of each
        pair's two views: both halves are of one document."""
        index = np.arange(len(self.documents))
        return index, index

    def document_embeddings(self):
        """Each document's mean sentence embedding: the whole document's frozen view."""
        sums = np.add.reduceat(self.embeddings.double().numpy(), self.offsets[:-1], axis=0)
        return (sums / self._lengths[:, None]).astype(np.float32)


class PairViews:
    """Fixed positive pairs of frozen document embeddings (TF-IDF neighbors).

    Parameters
    ----------
    embeddings : ndarray of shape (n_views_documents, dim)
        The embeddings of the documents the pairs use.
    documents : ndarray of shape (n_views_documents,)
        Each embedded document's index in the corpus.
    first, second : ndarray of shape (n_pairs,)
        The pairs, as indices into ``embeddings``.
    """

    def __init__(self, embeddings, documents, first, second):
        self.embeddings = torch.as_tensor(np.asarray(embeddings, dtype=np.float32))
        self.documents = np.asarray(documents, dtype=np.int64)
        self.first, self.second = np.asarray(first), np.asarray(second)

    def sample(self, rng):
        return self.embeddings[self.first], self.embeddings[self.second]

    @property
    def pairs(self):
        """``(first, second)``: the document (an index into :attr:`documents`) of each
        pair's two views."""
        return self.first, self.second

    def document_embeddings(self):
        """The documents' frozen embeddings."""
        return self.embeddings.numpy()

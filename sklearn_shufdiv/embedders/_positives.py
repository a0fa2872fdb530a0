"""How positive pairs are made: the one thing that varies between the embedders.

A strategy (:class:`ShuffleDividePositives`, :class:`TfidfNeighborPositives`) is fitted
once on the corpus and then draws the epoch's :class:`PositivePairs` of views from a
random generator. Each pair carries the document index of both views as *keys*: the loss
uses them to keep two copies of one text from being each other's negatives.
"""

from dataclasses import dataclass

import numpy as np

from ._neighbors import mine_tfidf_positives
from ._sentences import make_sentence_splitter


@dataclass
class PositivePairs:
    """The epoch's positive pairs: ``texts_a[i]`` and ``texts_b[i]`` are views of one meaning."""

    texts_a: list
    texts_b: list
    keys_a: np.ndarray
    keys_b: np.ndarray

    def __len__(self):
        return len(self.texts_a)


def content_keys(documents):
    """For each document, the index of the first document with the same text.

    Views keyed alike are copies of one text: the loss never uses one as a negative of
    another (a corpus with duplicated documents would otherwise teach the encoder to
    separate identical texts).

    Examples
    --------
    >>> content_keys(["a", "b", "a", "c", "b"]).tolist()
    [0, 1, 0, 3, 1]
    """
    first = {}
    return np.fromiter((first.setdefault(document, index)
                        for index, document in enumerate(documents)),
                       dtype=np.int64, count=len(documents))


def shuffle_divide(sentences, rng):
    """Shuffle ``sentences`` and cut the shuffled list in two halves, joined by spaces.

    Examples
    --------
    >>> import numpy as np
    >>> a, b = shuffle_divide(["S1.", "S2.", "S3.", "S4.", "S5."], np.random.default_rng(0))
    >>> sorted((a + " " + b).split()) == ["S1.", "S2.", "S3.", "S4.", "S5."]
    True
    """
    shuffled = [sentences[i] for i in rng.permutation(len(sentences))]
    half = len(shuffled) // 2
    return " ".join(shuffled[:half]), " ".join(shuffled[half:])


class ShuffleDividePositives:
    """Shuffle & Divide: a document's shuffled halves are a positive pair.

    Parameters
    ----------
    min_sentences : int
        Documents with fewer sentences are not used for training.
    sentence_splitter : {"auto", "punkt", "punkt-corpus"} or callable
        See :func:`~sklearn_shufdiv.embedders._sentences.make_sentence_splitter`.
    """

    def __init__(self, min_sentences=4, sentence_splitter="auto"):
        self.min_sentences = min_sentences
        self.sentence_splitter = sentence_splitter

    def fit(self, documents, random_state=None):
        split = make_sentence_splitter(self.sentence_splitter, documents, random_state)
        self.sentences_, indices = [], []
        for index, document in enumerate(documents):
            sentences = [s for s in split(document) if s.strip()]
            if len(sentences) >= self.min_sentences:
                indices.append(index)
                self.sentences_.append(sentences)
        self.document_indices_ = np.asarray(indices, dtype=np.int64)
        return self

    @property
    def n_pairs(self):
        return len(self.document_indices_)

    def describe_shortage(self, n_documents):
        return (
            f"only {len(self.document_indices_)} of {n_documents} documents have at least "
            f"min_sentences={self.min_sentences} sentences. Lower min_sentences, pass "
            "longer documents, or check the sentence splitter."
        )

    def sample(self, rng):
        halves = [shuffle_divide(sentences, rng) for sentences in self.sentences_]
        return PositivePairs(
            [a for a, _ in halves], [b for _, b in halves],
            self.document_indices_, self.document_indices_,
        )


class TfidfNeighborPositives:
    """TF-IDF neighbor positives: each document is paired with its most TF-IDF-similar
    other document (mined once, by :func:`~._neighbors.mine_tfidf_positives`).

    Parameters
    ----------
    tfidf_params : dict or None
        Keyword arguments of :class:`~sklearn.feature_extraction.text.TfidfVectorizer`.
    exclude_duplicates : bool
        Never pair a document with a copy of its own text: neighbors are mined among
        distinct texts, and each copy gets its original's neighbor.
    """

    def __init__(self, tfidf_params=None, exclude_duplicates=True):
        self.tfidf_params = tfidf_params
        self.exclude_duplicates = exclude_duplicates

    def fit(self, documents, random_state=None):
        self.documents_ = documents
        keys = content_keys(documents)
        # Mine among distinct texts, so that no document is paired with a copy of itself
        # (identical views teach nothing); copies then share their original's neighbor.
        distinct = np.unique(keys) if self.exclude_duplicates else np.arange(len(documents))
        try:
            pairs, similarities = mine_tfidf_positives(
                [documents[i] for i in distinct], vectorizer=self.tfidf_params,
                exclude_duplicates=False,
            )
        except ValueError as exc:  # e.g. an empty vocabulary after min_df pruning
            raise ValueError(
                f"Could not mine TF-IDF neighbors: {exc} Pass more documents or change "
                "tfidf_params (for example min_df=1)."
            ) from exc
        neighbor = np.full(len(documents), -1)
        similarity = np.zeros(len(documents))
        neighbor[distinct[pairs[:, 0]]] = distinct[pairs[:, 1]]
        similarity[distinct[pairs[:, 0]]] = similarities
        neighbor, similarity = neighbor[keys], similarity[keys]  # copies: the original's
        has_pair = neighbor >= 0
        self.pairs_ = np.column_stack([np.flatnonzero(has_pair), neighbor[has_pair]])
        self.similarities_ = similarity[has_pair]
        self.document_indices_ = np.unique(self.pairs_)
        return self

    @property
    def n_pairs(self):
        return len(self.pairs_)

    def describe_shortage(self, n_documents):
        return (
            f"only {len(self.pairs_)} of {n_documents} documents have a TF-IDF neighbor "
            "(a document sharing at least one term). Pass more documents or change "
            "tfidf_params."
        )

    def sample(self, rng):
        first, second = self.pairs_[:, 0], self.pairs_[:, 1]
        return PositivePairs(
            [self.documents_[i] for i in first], [self.documents_[i] for i in second],
            first, second,
        )

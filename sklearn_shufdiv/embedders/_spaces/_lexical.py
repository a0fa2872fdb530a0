"""The lexical part of an embedding: the corpus' LSA space, and its fusion with the encoder's.

Where a bag of words clusters a corpus better than the encoder does, the encoder misses
what the words say (see :ref:`lexical`). With ``lexical_weight=w`` the embedders return

    [sqrt(1 - w) * e / |e|,  sqrt(w) * l]

for a document's encoder embedding ``e`` and its LSA vector ``l`` (unit norm): each row has
norm 1, and the cosine of two documents is ``(1 - w)`` times their encoder cosine plus
``w`` times their LSA cosine. The LSA space is fitted on the corpus ``fit`` sees, as the
bag-of-words baseline of the benchmarks makes it: sublinear TF-IDF of the words (English
stop words removed, terms in at least 2 documents and at most half of them), truncated SVD,
rows L2-normalised. "auto" is resolved in one place, :func:`resolve_lexical_weight`.
"""

import numpy as np
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import TfidfVectorizer

from ...cluster import unit_rows
from ._views import choose_view_weights

__all__ = ["AUTO_WEIGHTS", "LexicalSpace", "choose_lexical_weight", "fuse",
           "resolve_lexical_weight", "uses_words"]

#: ``lexical_weight="auto"`` without ``n_clusters`` (no clustering to choose by): the even mix.
AUTO_FALLBACK_WEIGHT = 0.5

#: The weights ``lexical_weight="auto"`` chooses among: 0 (the encoder alone) to 0.9.
AUTO_WEIGHTS = tuple(i / 10 for i in range(10))

#: Neighbours of each document in a space's graph when "auto" chooses the weight (chosen
#: leaving each benchmark corpus out: see :ref:`lexical`).
AUTO_NEIGHBORS = 20

#: The TF-IDF of the lexical space: the benchmarks' bag-of-words baseline.
LEXICAL_TFIDF_PARAMS = {"sublinear_tf": True, "stop_words": "english", "min_df": 2,
                        "max_df": 0.5}


def uses_words(lexical_weight):
    """Whether the ``lexical_weight`` parameter joins the words to the encoder's space:
    "auto" (even where it chooses 0, for a shape that does not depend on the choice) or
    a weight above 0."""
    return lexical_weight == "auto" or lexical_weight > 0


def resolve_lexical_weight(lexical_weight, chosen=None):
    """The weight of the words that the ``lexical_weight`` parameter gives.

    The value itself; for ``"auto"``, the weight the fit chose (``chosen``: a number, or
    a function that chooses it, called only then), or :data:`AUTO_FALLBACK_WEIGHT` where
    nothing chose (no ``n_clusters``: no clustering to choose by).

    Examples
    --------
    >>> resolve_lexical_weight(0.3), resolve_lexical_weight("auto", 0.7)
    (0.3, 0.7)
    >>> resolve_lexical_weight("auto")
    0.5
    """
    if lexical_weight != "auto":
        return float(lexical_weight)
    if callable(chosen):
        chosen = chosen()
    return AUTO_FALLBACK_WEIGHT if chosen is None else float(chosen)


def fuse(embeddings, lexical, weight):
    """The fused embedding ``[sqrt(1 - weight) * unit(embeddings), sqrt(weight) * lexical]``.

    Parameters
    ----------
    embeddings : ndarray of shape (n_documents, dim)
        The encoder's embeddings (any norm: each row is normalised).
    lexical : ndarray of shape (n_documents, n_components)
        The documents' rows of the :class:`LexicalSpace` (unit norm, or zero for a
        document with none of the vocabulary's words).
    weight : float in [0, 1)
        The lexical share of the cosine.

    Returns
    -------
    fused : ndarray of shape (n_documents, dim + n_components), float32

    Examples
    --------
    >>> import numpy as np
    >>> fused = fuse(np.array([[3.0, 4.0]]), np.array([[1.0, 0.0]]), 0.5)
    >>> np.round(fused, 3).tolist(), round(float(np.linalg.norm(fused)), 6)
    ([[0.424, 0.566, 0.707, 0.0]], 1.0)
    """
    if len(embeddings) != len(lexical):
        raise ValueError(f"fuse: {len(embeddings)} embeddings but {len(lexical)} lexical rows.")
    return np.hstack([unit_rows(np.asarray(embeddings, dtype=np.float64)) * np.sqrt(1.0 - weight),
                      np.asarray(lexical, dtype=np.float64) * np.sqrt(weight)]
                     ).astype(np.float32)


def join_words(embeddings, lexical, weight, normalize=True):
    """What the embedders' ``transform`` returns: the encoder's ``embeddings`` fused with
    the documents' ``lexical`` rows at ``weight`` (:func:`fuse`; None: the encoder
    alone), rows L2-normalised when fused or ``normalize``, as the epoch selection's
    clustering normalises its space, to the last bit."""
    fused = lexical is not None
    if fused:  # rows of norm 1 up to rounding (or below, a document without its words)
        embeddings = fuse(embeddings, lexical, weight)
    if normalize or fused:
        norms = np.linalg.norm(embeddings, axis=1, keepdims=True)
        embeddings /= np.maximum(norms, np.finfo(np.float32).tiny)
    return embeddings


class LexicalSpace:
    """The LSA space of a corpus: TF-IDF, truncated SVD, rows of norm 1.

    Parameters
    ----------
    n_components : int, default=100
        SVD components at most; fewer when the corpus has fewer documents or terms
        (``n_components_`` says how many).
    random_state : int, default=0
        Seeds the randomised SVD.

    Attributes
    ----------
    vectorizer_ : TfidfVectorizer
    svd_ : TruncatedSVD
    n_components_ : int

    Examples
    --------
    >>> docs = ["goal match team", "team coach match", "rocket orbit moon",
    ...         "moon launch rocket", "match goal coach", "orbit launch moon"]
    >>> space = LexicalSpace(n_components=2).fit(docs)
    >>> space.transform(["a rocket to the moon"]).shape
    (1, 2)
    """

    def __init__(self, n_components=100, random_state=0):
        self.n_components = n_components
        self.random_state = random_state

    def fit(self, documents):
        """Fit the TF-IDF vocabulary and the SVD on ``documents`` (a list of str)."""
        fix = ("Fit on more documents, or set lexical_weight=0 (--lexical-weight 0 on the "
               "command line) to embed with the encoder alone.")
        min_df = LEXICAL_TFIDF_PARAMS["min_df"]
        if len(documents) < 2 * min_df:
            raise ValueError(
                f"lexical_weight: the corpus' lexical space keeps the words of {min_df} "
                f"documents to half of them, which needs at least {2 * min_df} documents; "
                f"got {len(documents)}. {fix}")
        self.vectorizer_ = TfidfVectorizer(**LEXICAL_TFIDF_PARAMS)
        try:
            counts = self.vectorizer_.fit_transform(documents)
        except ValueError:  # no term left
            counts = None
        n_components = 0 if counts is None else min(
            self.n_components, counts.shape[1] - 1, counts.shape[0] - 1)
        if n_components < 1:
            n_terms = 0 if counts is None else counts.shape[1]
            raise ValueError(
                f"lexical_weight: the corpus' lexical space would have no dimension: {n_terms} word"
                f"{'s are' if n_terms != 1 else ' is'} in {min_df} documents to half of the "
                f"{len(documents)} (English stop words aside); it needs at least 2. {fix}")
        self.svd_ = TruncatedSVD(n_components, random_state=self.random_state).fit(counts)
        self.n_components_ = n_components
        return self

    def transform(self, documents):
        """The documents' unit rows in the space (zero for a document without its words)."""
        reduced = self.svd_.transform(self.vectorizer_.transform(documents))
        norms = np.linalg.norm(reduced, axis=1, keepdims=True)
        return np.divide(reduced, norms, out=np.zeros_like(reduced), where=norms > 1e-12)


def choose_lexical_weight(embeddings, lexical, n_clusters, *, weights=AUTO_WEIGHTS,
                          random_state=0, n_init=None):
    """The weight of the words whose clustering best fits both spaces' neighbourhoods.

    What ``lexical_weight="auto"`` chooses: the views' weights of
    ``choose_view_weights`` for the encoder's and the LSA space. Each weight's fused space
    (:func:`fuse`) is clustered by spherical k-means (the best of ``n_init`` runs seeded
    by ``random_state``) and scored by the sum of that partition's modularities on the
    two spaces' graphs of each document's :data:`AUTO_NEIGHBORS` nearest neighbours;
    those graphs are the same for every weight, so the scores compare. Ties (the same
    partition) go to the weight where it is tightest. No labels. See :ref:`lexical` for
    how its choices compare with fixed weights.

    Parameters
    ----------
    embeddings : ndarray of shape (n_documents, dim)
        The encoder's embeddings.
    lexical : ndarray of shape (n_documents, n_components)
        The documents' rows of the :class:`LexicalSpace`.
    n_clusters : int
        Clusters of each clustering.
    weights : sequence of float in [0, 1), default=AUTO_WEIGHTS
        The candidates, 0 to 0.9 by 0.1.
    random_state : int, default=0
        Seeds every k-means.
    n_init : int, "auto" or None, default=None
        k-means runs per clustering (the best kept); None: SphericalKMeans' default.

    Returns
    -------
    weight : float
        The chosen candidate.
    scores : dict of float to float
        Every candidate's score: at most 2.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> topic = np.repeat([0, 1, 2], 30)
    >>> enc = np.eye(3)[topic] + 0.3 * rng.normal(size=(90, 3))
    >>> noise = rng.normal(size=(90, 3))
    >>> noise /= np.linalg.norm(noise, axis=1, keepdims=True)
    >>> choose_lexical_weight(enc, noise, 3)[0]  # words that say nothing get no weight
    0.0
    """
    encoder = unit_rows(np.asarray(embeddings, dtype=np.float64))
    lexical = np.asarray(lexical, dtype=np.float64)
    n_neighbors = max(1, min(AUTO_NEIGHBORS, len(encoder) - 1))
    chosen, scores = choose_view_weights(
        [encoder, lexical], n_clusters, candidates=[(1 - w, w) for w in weights],
        n_neighbors=n_neighbors, random_state=random_state, n_init=n_init)
    return float(chosen[1]), {float(w[1]): float(score) for w, score in scores.items()}


class FusedSpace:
    """The epoch selection's space: the sample's encoder embeddings fused with its lexical
    rows at the weight ``lexical_weight`` gives; ``"auto"`` chooses it
    (:func:`choose_lexical_weight`) from the first embeddings it maps, the untuned
    encoder's, and keeps it (``weight_``, saved in checkpoints through :meth:`state`)."""

    def __init__(self, lexical, lexical_weight, n_clusters, seed):
        self.lexical = lexical
        self.lexical_weight = lexical_weight
        self.n_clusters = n_clusters
        self.seed = seed
        self.weight_ = None

    def __call__(self, embeddings):
        if self.weight_ is None:
            self.weight_ = resolve_lexical_weight(
                self.lexical_weight, lambda: choose_lexical_weight(
                    embeddings, self.lexical, self.n_clusters, random_state=self.seed)[0])
        return fuse(embeddings, self.lexical, self.weight_)

    def provisional(self, embeddings):
        """The space at the weight fixed before any clustering: ``lexical_weight``, or
        the fallback of "auto" (whose choice needs the number of clusters)."""
        return fuse(embeddings, self.lexical, resolve_lexical_weight(self.lexical_weight))

    def state(self):
        return {"weight": self.weight_}

    def load_state(self, state):
        self.weight_ = state["weight"]

"""Describe clusters: class-based TF-IDF terms and the documents nearest the centroids."""

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.preprocessing import normalize


def class_tfidf(documents, labels, *, vectorizer=None, reduce_frequent_words=False):
    """Class-based TF-IDF: one row of term weights per cluster (c-TF-IDF).

    The documents of each cluster are pooled into one "class document", whose term
    counts ``tf[c, t]`` are L1-normalised per cluster and weighted by
    ``log(1 + A / f[t])``, where ``f[t]`` is the term's count over all clusters and
    ``A`` the mean number of words per cluster -- the weighting of BERTopic's
    ``ClassTfidfTransformer`` (which rounds ``A`` down to an integer; here it is not).
    A term weighs most in a cluster where it is frequent and which holds most of its
    occurrences. With ``reduce_frequent_words=True`` the normalised frequencies are
    square-rooted first (BERTopic's option of that name), which lowers words frequent
    everywhere ("said" in news) against rarer, more telling ones.

    Parameters
    ----------
    documents : sequence of str
        The documents.
    labels : array-like of shape (n_documents,)
        Their clusters.
    vectorizer : sklearn.feature_extraction.text.CountVectorizer, default=None
        Counts the terms; None uses ``CountVectorizer(stop_words="english")``. Any
        vectorizer with ``fit_transform`` and ``get_feature_names_out`` giving counts
        will do (n-grams, a vocabulary, another tokenizer).
    reduce_frequent_words : bool, default=False
        Square-root the normalised term frequencies before the weighting.

    Returns
    -------
    weights : scipy.sparse.csr_matrix of shape (n_clusters, n_terms)
        Row ``i`` holds the weights of cluster ``clusters[i]``.
    terms : ndarray of str of shape (n_terms,)
        The vocabulary.
    clusters : ndarray of shape (n_clusters,)
        The distinct labels, sorted.

    Examples
    --------
    >>> from sklearn_shufdiv.inspection import class_tfidf
    >>> docs = ["goal match team", "team goal win", "oven bake bread", "bread flour bake"]
    >>> weights, terms, clusters = class_tfidf(docs, [0, 0, 1, 1])
    >>> [str(terms[i]) for i in weights[1].toarray().ravel().argsort()[::-1][:2]]
    ['bread', 'bake']
    """
    labels = np.asarray(labels)
    if labels.shape != (len(documents),):
        raise ValueError(f"labels must have one entry per document ({len(documents)}); "
                         f"got shape {labels.shape}.")
    vectorizer = CountVectorizer(stop_words="english") if vectorizer is None else vectorizer
    counts = sp.csr_matrix(vectorizer.fit_transform(documents), dtype=np.float64)
    clusters, index = np.unique(labels, return_inverse=True)
    membership = sp.csr_matrix((np.ones(len(labels)), (index, np.arange(len(labels)))),
                               shape=(len(clusters), len(labels)))
    per_cluster = membership @ counts
    frequency = np.asarray(per_cluster.sum(axis=0)).ravel()
    words_per_cluster = float(per_cluster.sum(axis=1).mean())
    idf = np.log1p(words_per_cluster / np.maximum(frequency, 1.0))
    frequencies = normalize(per_cluster, norm="l1", axis=1)
    if reduce_frequent_words:
        frequencies.data = np.sqrt(frequencies.data)
    weights = frequencies @ sp.diags(idf)
    return sp.csr_matrix(weights), np.asarray(vectorizer.get_feature_names_out()), clusters


def cluster_top_terms(documents, labels, *, n_terms=10, vectorizer=None,
                      reduce_frequent_words=False):
    """The ``n_terms`` terms of highest :func:`class_tfidf` weight in each cluster.

    Parameters
    ----------
    documents : sequence of str
        The documents.
    labels : array-like of shape (n_documents,)
        Their clusters.
    n_terms : int, default=10
        Terms per cluster (fewer when a cluster has fewer distinct terms).
    vectorizer : CountVectorizer, default=None
        As for :func:`class_tfidf`.
    reduce_frequent_words : bool, default=False
        As for :func:`class_tfidf`.

    Returns
    -------
    top_terms : dict
        Cluster label -> list of ``(term, weight)``, highest weight first; ties are
        broken by the term, alphabetically.

    Examples
    --------
    >>> from sklearn_shufdiv.inspection import cluster_top_terms
    >>> docs = ["goal match team", "team goal win", "oven bake bread", "bread flour bake"]
    >>> top = cluster_top_terms(docs, ["sport", "sport", "baking", "baking"], n_terms=2)
    >>> [term for term, _ in top["sport"]], [term for term, _ in top["baking"]]
    (['goal', 'team'], ['bake', 'bread'])
    """
    weights, terms, clusters = class_tfidf(documents, labels, vectorizer=vectorizer,
                                           reduce_frequent_words=reduce_frequent_words)
    top = {}
    for row, cluster in enumerate(clusters):
        values = weights[row].toarray().ravel()
        present = np.flatnonzero(values > 0)
        order = present[np.lexsort((terms[present], -values[present]))][:n_terms]
        top[cluster.item()] = [(str(terms[i]), float(values[i])) for i in order]
    return top


def representative_documents(embeddings, labels, *, n_documents=3):
    """The documents closest (by cosine) to the centroid of each cluster.

    The centroid of a cluster is the normalised mean of its documents' unit embeddings:
    the center spherical k-means gives it.

    Parameters
    ----------
    embeddings : array-like of shape (n_documents, dim)
        The documents' embeddings (normalised here).
    labels : array-like of shape (n_documents,)
        Their clusters.
    n_documents : int, default=3
        Documents per cluster (all of them for a smaller cluster).

    Returns
    -------
    representatives : dict
        Cluster label -> list of ``(index, cosine to the centroid)``, closest first.

    Raises
    ------
    ValueError
        If ``embeddings`` is not 2-D, or ``labels`` has not one entry per row.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_shufdiv.inspection import representative_documents
    >>> X = np.array([[1.0, 0.1], [1.0, 0.0], [1.0, -0.3], [0.0, 1.0], [0.5, 1.0],
    ...               [0.1, 1.0]])
    >>> near = representative_documents(X, [0, 0, 0, 1, 1, 1], n_documents=2)
    >>> [i for i, _ in near[0]], [i for i, _ in near[1]]
    ([1, 0], [5, 3])
    """
    embeddings = np.asarray(embeddings, dtype=np.float64)
    if embeddings.ndim != 2:
        raise ValueError("embeddings must be a 2-D array, one row per document; got "
                         f"shape {embeddings.shape}.")
    labels = np.asarray(labels)
    if labels.shape != (len(embeddings),):
        raise ValueError(f"labels must have one entry per row of embeddings "
                         f"({len(embeddings)}); got shape {labels.shape}.")
    unit = normalize(embeddings)
    representatives = {}
    for cluster in np.unique(labels):
        members = np.flatnonzero(labels == cluster)
        centroid = normalize(unit[members].mean(axis=0, keepdims=True)).ravel()
        cosines = unit[members] @ centroid
        order = np.argsort(-cosines, kind="stable")[:n_documents]
        representatives[cluster.item()] = [(int(members[i]), float(cosines[i]))
                                           for i in order]
    return representatives

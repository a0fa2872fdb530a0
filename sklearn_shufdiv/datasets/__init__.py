"""Loaders of the benchmark corpora, in scikit-learn's conventions.

Each loader looks for the corpus in scikit-learn's data home
(:func:`sklearn.datasets.get_data_home`, which honours ``SCIKIT_LEARN_DATA``), downloads
it when missing unless ``download_if_missing=False``, and returns a
:class:`sklearn.utils.Bunch` with ``data`` (list of str), ``target`` (int array),
``target_names`` and ``DESCR`` (or ``(data, target)`` with ``return_X_y=True``).
"""

from ._bbc import fetch_bbc, fetch_bbcsport
from ._preprocessing import clean_text, count_words, normalize_whitespace, remove_urls_emails
from ._reuters import fetch_reuters21578
from ._twenty_newsgroups import fetch_20newsgroups_clean

__all__ = [
    "clean_text",
    "count_words",
    "fetch_20newsgroups_clean",
    "fetch_bbc",
    "fetch_bbcsport",
    "fetch_reuters21578",
    "normalize_whitespace",
    "remove_urls_emails",
]

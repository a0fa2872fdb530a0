"""20 Newsgroups with the paper's preprocessing, on top of scikit-learn's fetcher."""

import socket
from pathlib import PurePath

import numpy as np
from sklearn.datasets import fetch_20newsgroups
from sklearn.utils import Bunch

from . import _base
from ._base import _shuffle_bunch, _timed_out, data_home_path
from ._news_cache import read_news_cache, select_news
from ._preprocessing import count_words, normalize_whitespace, remove_urls_emails

__all__ = ["fetch_20newsgroups_clean"]

# The name under which scikit-learn caches the corpus in its data home (for messages).
_SKLEARN_CACHE_NAME = "20news-bydate_py3.pkz"

_DESCR = """\
.. _20newsgroups_clean_dataset:

20 Newsgroups, cleaned as in the paper
--------------------------------------

The "bydate" version of the 20 Newsgroups corpus (K. Lang, 1995; 18,846 messages,
11,314 train + 7,532 test, in 20 groups), loaded with
:func:`sklearn.datasets.fetch_20newsgroups` and cleaned as follows:

1. message headers and signature-like footers are removed by scikit-learn
   (``remove=("headers", "footers")``; quoted replies are *kept* by default);
2. URLs and e-mail addresses are removed;
3. whitespace is normalised (every run of whitespace, newlines included, becomes one
   space);
4. documents with fewer than 10 words (whitespace-separated tokens containing a letter
   or a digit) are dropped.

With the default settings, on scikit-learn's copy of the corpus:

=================   =======  =======  =======
subset              all      train    test
=================   =======  =======  =======
messages            18,846   11,314   7,532
kept (>= 10 words)  18,601   11,174   7,427
=================   =======  =======  =======

=================   ==========
Classes                     20
Samples total           18,601
Features                  text
=================   ==========

Documents are sorted by newsgroup, then by message number (the file name), unless
``shuffle=True``.
"""


def _sort_key(filename, target):
    name = PurePath(str(filename)).name
    return (
        (int(target), 0, int(name), str(filename))
        if name.isdigit()
        else (int(target), 1, 0, str(filename))
    )


def _load_raw(data_home, subset, categories, remove, download_if_missing, n_retries,
              delay):
    """The raw corpus from scikit-learn's cache, read without unpickling code; the
    cache downloaded by scikit-learn's fetcher first when there is none."""
    home = data_home_path(data_home)
    cache = home / _SKLEARN_CACHE_NAME
    if not cache.is_file():
        if not download_if_missing:
            raise FileNotFoundError(
                f"20 Newsgroups not found: scikit-learn keeps it as {cache}, which is "
                "missing. Call with download_if_missing=True to let "
                "sklearn.datasets.fetch_20newsgroups download it (about 14 MB)."
            )
        # No cache: scikit-learn downloads the archive (checksum verified). Its
        # download sets no timeout, so the socket default bounds each connect and
        # read, as the package's own downloads are bounded.
        previous = socket.getdefaulttimeout()
        socket.setdefaulttimeout(_base.DOWNLOAD_TIMEOUT)
        try:
            fetch_20newsgroups(data_home=home, download_if_missing=True,
                               n_retries=n_retries, delay=delay)
        except OSError as exc:
            if _timed_out(exc):
                raise OSError(
                    f"Could not download 20 Newsgroups: no answer within "
                    f"{_base.DOWNLOAD_TIMEOUT} seconds ({exc}); check the network and any "
                    "proxy (HTTP_PROXY, HTTPS_PROXY). Or run "
                    "sklearn.datasets.fetch_20newsgroups() where a network is available "
                    f"and copy the {_SKLEARN_CACHE_NAME} it writes into {home}."
                ) from exc
            raise OSError(
                f"Could not download 20 Newsgroups ({type(exc).__name__}: {exc}). Where "
                "a network is available, run sklearn.datasets.fetch_20newsgroups() and "
                f"copy the {_SKLEARN_CACHE_NAME} it writes to its data home into {home}, "
                "or set SCIKIT_LEARN_DATA (or data_home=) to a folder holding it."
            ) from exc
        finally:
            socket.setdefaulttimeout(previous)
    return select_news(read_news_cache(cache), subset, categories, remove)


def fetch_20newsgroups_clean(
    *,
    data_home=None,
    subset="all",
    categories=None,
    remove=("headers", "footers"),
    min_words=10,
    shuffle=False,
    random_state=None,
    download_if_missing=True,
    return_X_y=False,
    n_retries=3,
    delay=1.0,
):
    """Load 20 Newsgroups with the preprocessing of the paper.

    The raw corpus is scikit-learn's: downloaded and cached by
    :func:`sklearn.datasets.fetch_20newsgroups` when the data home has no cache, and
    read from its cache file, a pickle, by an unpickler that builds only what that
    cache holds (any other class or function named in the file is an error, so a
    crafted file runs no code); then headers and footers are removed,
    URLs and e-mail addresses are removed (:func:`remove_urls_emails`), whitespace is
    normalised (:func:`normalize_whitespace`) and documents with fewer than
    ``min_words`` words (:func:`count_words`) are dropped.

    ==============   =====================================
    Classes          20
    Samples total    18,601 (train 11,174, test 7,427)
    Features         text (one line per document)
    ==============   =====================================

    Parameters
    ----------
    data_home : str or path-like, default=None
        Folder of the scikit-learn data home where scikit-learn caches the corpus.
        By default :func:`sklearn.datasets.get_data_home`, which honours the
        ``SCIKIT_LEARN_DATA`` environment variable.

    subset : {'all', 'train', 'test'}, default='all'
        The "bydate" split to load; the paper clusters the whole corpus.

    categories : list of str, default=None
        Newsgroups to keep (all 20 when None); ``target`` is renumbered ``0..k-1``
        in the sorted order of the kept names.

    remove : tuple, default=("headers", "footers")
        Passed to :func:`sklearn.datasets.fetch_20newsgroups`. The paper removes
        headers and footers but keeps quoted replies (they are part of the discussion
        a message belongs to); add ``"quotes"`` to also drop lines quoting other
        messages.

    min_words : int, default=10
        Documents with fewer words after cleaning are dropped; 0 keeps them all.

    shuffle : bool, default=False
        Whether to shuffle the documents. When False they are sorted by newsgroup,
        then by message number.

    random_state : int, RandomState instance or None, default=None
        Seed of the shuffling, used only when ``shuffle=True``.

    download_if_missing : bool, default=True
        If False and the corpus is not cached, raise :class:`FileNotFoundError`
        instead of downloading it.

    return_X_y : bool, default=False
        If True, return ``(data, target)`` instead of a Bunch.

    n_retries : int, default=3
        Retries on HTTP errors when downloading (passed to scikit-learn).

    delay : float, default=1.0
        Seconds between retries (passed to scikit-learn).

    Returns
    -------
    bunch : :class:`~sklearn.utils.Bunch`
        Dictionary-like object with:

        data : list of str of length n_samples
            The cleaned documents.
        target : ndarray of int of shape (n_samples,)
            Index of each document's newsgroup in ``target_names``.
        target_names : list of str
            The newsgroup names, sorted.
        filenames : ndarray of str of shape (n_samples,)
            The messages' paths as recorded in scikit-learn's cache.
        DESCR : str
            Description of the data set and its preprocessing.

    (data, target) : tuple if ``return_X_y=True``

    Raises
    ------
    FileNotFoundError
        If ``download_if_missing=False`` and scikit-learn has no cached copy.
    OSError
        If the download fails, the data home cannot be used, or the cached file is
        damaged or not scikit-learn's cache (the message names the file).

    See Also
    --------
    sklearn.datasets.fetch_20newsgroups : The raw corpus.

    Examples
    --------
    >>> from sklearn_shufdiv.datasets import fetch_20newsgroups_clean
    >>> news = fetch_20newsgroups_clean()  # doctest: +SKIP
    >>> len(news.data), len(news.target_names)  # doctest: +SKIP
    (18601, 20)
    """
    if subset not in ("all", "train", "test"):
        raise ValueError(f"subset must be 'all', 'train' or 'test', got {subset!r}.")
    if min_words < 0:
        raise ValueError(f"min_words must be non-negative, got {min_words!r}.")
    raw = _load_raw(data_home, subset, categories, remove, download_if_missing,
                    n_retries, delay)
    texts = [normalize_whitespace(remove_urls_emails(text)) for text in raw.data]
    filenames = np.asarray(raw.filenames)
    target = np.asarray(raw.target)
    keep = [i for i, text in enumerate(texts) if count_words(text) >= min_words]
    keep.sort(key=lambda i: _sort_key(filenames[i], target[i]))
    keep = np.asarray(keep, dtype=np.intp)

    bunch = Bunch(
        data=[texts[i] for i in keep],
        target=target[keep].astype(np.int64),
        target_names=list(raw.target_names),
        filenames=filenames[keep],
        DESCR=_DESCR,
    )
    if shuffle:
        _shuffle_bunch(bunch, ["data", "target", "filenames"], random_state)
    if return_X_y:
        return bunch.data, bunch.target
    return bunch

"""Reuters-21578, single-label top-10 categories, parsed from the original SGML."""

import gzip
import html
import re
import tarfile
import zlib
from collections import Counter

import numpy as np
from sklearn.utils import Bunch

from ._base import _fetch_file, _RemoteFile, _shuffle_bunch, damaged_archive
from ._preprocessing import normalize_whitespace

__all__ = ["fetch_reuters21578"]

_ARCHIVE = _RemoteFile(
    filename="reuters21578.tar.gz",
    url="https://kdd.ics.uci.edu/databases/reuters21578/reuters21578.tar.gz",
    sha256="c37c82962d306ba72dcf3fad07f50fa39904876739ee7f8dcfb3ae641f10536c",
    name="Reuters-21578 (reuters21578.tar.gz)",
)

_SGM_RE = re.compile(r"(?:^|/)reut2-\d{3}\.sgm$")
_REUTERS_RE = re.compile(r"<REUTERS\b([^>]*)>(.*?)</REUTERS>", re.DOTALL | re.IGNORECASE)
_ATTR_RE = re.compile(r'([\w-]+)\s*=\s*"([^"]*)"')
_D_RE = re.compile(r"<D>(.*?)</D>", re.DOTALL | re.IGNORECASE)
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# The "Reuter" signature ending almost every story ("Reuter", "REUTER...", "reuter^M").
_SIGNATURE_RE = re.compile(r"\s*\breuters?\b(?:\.{1,3})?(?:\^M)?\s*$", re.IGNORECASE)


def _element(name, text):
    """Content of the first ``<name ...>...</name>`` element of ``text``, or None."""
    match = re.search(rf"<{name}\b[^>]*>(.*?)</{name}>", text, re.DOTALL | re.IGNORECASE)
    return None if match is None else match.group(1)


def _clean(text):
    """Decode SGML entities and drop control characters (``&#2;``, ``&#3;``...)."""
    return _CONTROL_RE.sub("", html.unescape(text)).strip()


def _parse_sgml(sgml):
    """Parse the stories of one ``reut2-NNN.sgm`` file.

    Parameters
    ----------
    sgml : str
        The file's content (decoded as Latin-1).

    Returns
    -------
    stories : list of dict
        One dict per ``<REUTERS>`` element, in file order, with the keys ``newid``
        (int), ``lewissplit`` and ``topics_attr`` (the ``LEWISSPLIT`` and ``TOPICS``
        attributes), ``topics`` (list of str), ``text_type`` (the ``<TEXT TYPE=...>``
        attribute, ``"NORM"`` when absent), ``title`` and ``body`` (str, ``""`` when
        the element is absent; the body without the trailing "Reuter" signature).
    """
    stories = []
    for match in _REUTERS_RE.finditer(sgml):
        attrs = {key.upper(): value for key, value in _ATTR_RE.findall(match.group(1))}
        inner = match.group(2)
        topics = _element("TOPICS", inner) or ""
        text_match = re.search(r"<TEXT\b([^>]*)>(.*?)</TEXT>", inner, re.DOTALL | re.IGNORECASE)
        text_attrs, text = ("", "") if text_match is None else text_match.groups()
        text_type = dict(_ATTR_RE.findall(text_attrs)).get("TYPE", "NORM").upper()
        title = _element("TITLE", text)
        body = _element("BODY", text)
        body = "" if body is None else _SIGNATURE_RE.sub("", _clean(body))
        stories.append(
            {
                "newid": int(attrs.get("NEWID", -1)),
                "lewissplit": attrs.get("LEWISSPLIT", ""),
                "topics_attr": attrs.get("TOPICS", ""),
                "topics": [_clean(t) for t in _D_RE.findall(topics)],
                "text_type": text_type,
                "title": "" if title is None else _clean(title),
                "body": body,
            }
        )
    return stories


def _read_archive(path):
    """Parse all ``reut2-*.sgm`` files of the tar archive, sorted by NEWID."""
    stories, members = [], []
    try:
        with tarfile.open(path, "r:*") as archive:
            members = sorted(
                (m for m in archive.getmembers() if m.isfile() and _SGM_RE.search(m.name)),
                key=lambda m: m.name,
            )
            for member in members:
                with archive.extractfile(member) as f:
                    stories.extend(_parse_sgml(f.read().decode("latin-1")))
    except (tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise damaged_archive(path, _ARCHIVE, exc) from exc
    if not members:
        raise OSError(f"{path} contains no reut2-NNN.sgm file; is it Reuters-21578?")
    stories.sort(key=lambda story: story["newid"])
    return stories


def _select(stories, *, n_categories, include_title):
    """Single-label, non-empty, de-duplicated stories of the top categories."""
    kept, seen = [], set()
    for story in stories:
        if len(story["topics"]) != 1 or not story["body"]:
            continue
        text = (
            f"{story['title']}\n\n{story['body']}"
            if include_title and story["title"]
            else (story["body"])
        )
        key = normalize_whitespace(text)
        if key in seen:
            continue
        seen.add(key)
        kept.append((story, text))
    counts = Counter(story["topics"][0] for story, _ in kept)
    # Most frequent first; ties broken by name so that the choice is deterministic.
    top = sorted(counts, key=lambda name: (-counts[name], name))[:n_categories]
    top_set = set(top)
    return [(story, text) for story, text in kept if story["topics"][0] in top_set], sorted(top)


_DESCR = """\
.. _reuters21578_dataset:

Reuters-21578, single-label top-10 categories
---------------------------------------------

Reuters-21578, Distribution 1.0 (D. D. Lewis): 21,578 Reuters newswire stories from
1987, in 22 SGML files, as distributed by the UCI KDD archive. As is usual in the
document clustering literature, the whole collection (every ``LEWISSPLIT``) is used and

1. stories without exactly one ``<TOPICS>`` category are dropped (9,494 remain);
2. stories with no or an empty ``<BODY>`` are dropped: the ``TYPE="BRIEF"`` (title
   only, 792) and ``TYPE="UNPROC"`` (unparsed, 48) texts (8,654 remain);
3. exact duplicates are dropped, keeping the story with the smallest ``NEWID``
   (texts compared after whitespace normalisation; 8,580 remain);
4. only the 10 most frequent remaining categories are kept.

Each document is the story's ``<TITLE>``, a blank line and its ``<BODY>`` (SGML entities
decoded, control characters and the closing "Reuter" signature removed); use
``include_title=False`` for the body alone. Documents are sorted by ``NEWID``.

With the defaults, 7,456 documents:

=============  =====
category       count
=============  =====
acq            2,119
coffee           114
crude            344
earn           3,727
interest         200
money-fx         249
money-supply      97
ship             155
sugar            135
trade            316
=============  =====

=================   ==========
Classes                     10
Samples total            7,456
Features                  text
=================   ==========

Reuters-21578 is free to distribute for research purposes only; cite it as
"Reuters-21578, Distribution 1.0".
"""


def fetch_reuters21578(
    *,
    data_home=None,
    n_categories=10,
    include_title=True,
    shuffle=False,
    random_state=None,
    download_if_missing=True,
    return_X_y=False,
    n_retries=3,
    delay=1.0,
):
    """Load Reuters-21578 as used in the clustering literature (single-label top 10).

    The original SGML archive ``reuters21578.tar.gz`` (UCI KDD archive) is parsed;
    stories with other than exactly one topic, with an empty body, and exact duplicates
    are dropped, and the ``n_categories`` most frequent remaining topics are kept.

    ==============   ==============
    Classes          10
    Samples total    7,456
    Features         text
    ==============   ==============

    Per class (defaults): acq 2,119, coffee 114, crude 344, earn 3,727, interest 200,
    money-fx 249, money-supply 97, ship 155, sugar 135, trade 316.

    Parameters
    ----------
    data_home : str or path-like, default=None
        Folder where the archive is cached as ``reuters21578.tar.gz``. By default
        :func:`sklearn.datasets.get_data_home`, which honours ``SCIKIT_LEARN_DATA``.

    n_categories : int, default=10
        Number of most frequent categories (after filtering) to keep; ties are broken
        by category name.

    include_title : bool, default=True
        Whether each document starts with the story's title (then a blank line). The
        title is part of the story as published; with False only the body is kept.
        Duplicates are detected on the returned text, so the counts differ slightly
        (7,444 documents without titles).

    shuffle : bool, default=False
        Whether to shuffle the documents; when False they are sorted by ``NEWID``.

    random_state : int, RandomState instance or None, default=None
        Seed of the shuffling, used only when ``shuffle=True``.

    download_if_missing : bool, default=True
        If False and the archive is not cached, raise :class:`FileNotFoundError`
        instead of downloading it (8 MB, verified by sha256).

    return_X_y : bool, default=False
        If True, return ``(data, target)`` instead of a Bunch.

    n_retries : int, default=3
        Retries on network errors when downloading. The download waits at most 15
        seconds for the server (or proxy) to connect or send data, and an attempt that
        timed out is not retried: an unresponsive network fails in 15 seconds.

    delay : float, default=1.0
        Seconds between retries.

    Returns
    -------
    bunch : :class:`~sklearn.utils.Bunch`
        Dictionary-like object with:

        data : list of str of length n_samples
            The stories.
        target : ndarray of int of shape (n_samples,)
            Index of each story's topic in ``target_names``.
        target_names : list of str
            The kept topics, sorted by name.
        newid : ndarray of int of shape (n_samples,)
            The stories' ``NEWID``.
        lewissplit : ndarray of str of shape (n_samples,)
            The stories' ``LEWISSPLIT`` attribute (``TRAIN``, ``TEST``, ``NOT-USED``).
        DESCR : str
            Description of the data set and its preprocessing.

    (data, target) : tuple if ``return_X_y=True``

    Raises
    ------
    FileNotFoundError
        If ``download_if_missing=False`` and the archive is not cached.
    OSError
        If the download fails or does not match the expected sha256, or the cached
        archive does not (it is verified each time it is read) or cannot be read; the
        message names the file and says to delete it and download it again.

    Examples
    --------
    >>> from sklearn_shufdiv.datasets import fetch_reuters21578
    >>> reuters = fetch_reuters21578()  # doctest: +SKIP
    >>> len(reuters.data), reuters.target_names[:3]  # doctest: +SKIP
    (7456, ['acq', 'coffee', 'crude'])
    """
    if int(n_categories) < 1:
        raise ValueError(f"n_categories must be a positive integer, got {n_categories!r}.")
    path = _fetch_file(
        _ARCHIVE,
        data_home,
        download_if_missing=download_if_missing,
        n_retries=n_retries,
        delay=delay,
    )
    selected, target_names = _select(
        _read_archive(path), n_categories=int(n_categories), include_title=include_title
    )
    index = {name: i for i, name in enumerate(target_names)}
    bunch = Bunch(
        data=[text for _, text in selected],
        target=np.array([index[story["topics"][0]] for story, _ in selected], dtype=np.int64),
        target_names=target_names,
        newid=np.array([story["newid"] for story, _ in selected], dtype=np.int64),
        lewissplit=np.array([story["lewissplit"] for story, _ in selected], dtype=object),
        DESCR=_DESCR,
    )
    if shuffle:
        _shuffle_bunch(bunch, ["data", "target", "newid", "lewissplit"], random_state)
    if return_X_y:
        return bunch.data, bunch.target
    return bunch

"""BBC News and BBC Sport (Greene and Cunningham, 2006), read from the original zips."""

import re
import zipfile
import zlib

import numpy as np
from sklearn.utils import Bunch

from ._base import _fetch_file, _RemoteFile, _shuffle_bunch, damaged_archive
from ._bbc_descr import _BBC_DESCR, _BBCSPORT_DESCR

__all__ = ["fetch_bbc", "fetch_bbcsport"]

_BBC = _RemoteFile(
    filename="bbc-fulltext.zip",
    url="http://mlg.ucd.ie/files/datasets/bbc-fulltext.zip",
    sha256="a351031a62325b3d7ff13146eeb035c22feca8290913b5183d1ff3be35109495",
    name="BBC News (bbc-fulltext.zip)",
)
# No copy of this archive was available to measure its checksum, so none is pinned:
# downloads are checked for structure only (and a warning gives the measured sha256),
# unless the caller passes ``sha256=``.
_BBCSPORT = _RemoteFile(
    filename="bbcsport-fulltext.zip",
    url="http://mlg.ucd.ie/files/datasets/bbcsport-fulltext.zip",
    sha256=None,
    name="BBC Sport (bbcsport-fulltext.zip)",
)
_BBC_CLASSES = ("business", "entertainment", "politics", "sport", "tech")
_BBCSPORT_CLASSES = ("athletics", "cricket", "football", "rugby", "tennis")


def _decode(raw):
    """Decode an article: UTF-8, or Latin-1 if it is not valid UTF-8."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def _article_members(archive, corpus):
    """``(class, member name)`` of the archive's articles, sorted by class and name."""
    pattern = re.compile(rf"^{re.escape(corpus)}/([^/]+)/([^/]+\.txt)$")
    members = []
    for name in archive.namelist():
        match = pattern.match(name)
        if match:
            members.append((match.group(1), match.group(2), name))
    members.sort()
    return [(label, name) for label, _, name in members]


def _structure_validator(corpus, classes):
    """A check that a downloaded zip holds ``corpus/<class>/*.txt`` for ``classes``."""

    def validate(path):
        try:
            with zipfile.ZipFile(path) as archive:
                found = {label for label, _ in _article_members(archive, corpus)}
        except zipfile.BadZipFile as exc:
            raise OSError(f"The downloaded file is not a valid zip archive: {exc}") from exc
        if found != set(classes):
            raise OSError(
                f"The downloaded archive does not look like {corpus}: expected article "
                f"folders {sorted(classes)} under {corpus}/, found {sorted(found)}."
            )

    return validate


def _load(
    remote,
    corpus,
    classes,
    descr,
    *,
    data_home,
    include_title,
    shuffle,
    random_state,
    download_if_missing,
    return_X_y,
    sha256,
    n_retries,
    delay,
):
    path = _fetch_file(
        remote,
        data_home,
        download_if_missing=download_if_missing,
        sha256=sha256,
        n_retries=n_retries,
        delay=delay,
        validate=_structure_validator(corpus, classes),
    )
    try:
        with zipfile.ZipFile(path) as archive:
            members = _article_members(archive, corpus)
            texts = [_decode(archive.read(name)).strip() for _, name in members]
    except (zipfile.BadZipFile, EOFError, zlib.error) as exc:
        raise damaged_archive(path, remote, exc) from exc
    if not members:
        raise OSError(f"{path} holds no {corpus}/<class>/*.txt article.")
    if not include_title:
        texts = [text.partition("\n")[2].strip() for text in texts]
    target_names = sorted({label for label, _ in members})
    index = {label: i for i, label in enumerate(target_names)}
    bunch = Bunch(
        data=texts,
        target=np.array([index[label] for label, _ in members], dtype=np.int64),
        target_names=target_names,
        filenames=np.array([name for _, name in members], dtype=object),
        DESCR=descr,
    )
    if shuffle:
        _shuffle_bunch(bunch, ["data", "target", "filenames"], random_state)
    if return_X_y:
        return bunch.data, bunch.target
    return bunch


def fetch_bbc(
    *,
    data_home=None,
    include_title=True,
    shuffle=False,
    random_state=None,
    download_if_missing=True,
    return_X_y=False,
    n_retries=3,
    delay=1.0,
):
    """Load the BBC News data set (2,225 articles, 5 classes).

    Reads the original ``bbc-fulltext.zip`` (downloaded from its home page and verified
    by sha256 if missing) without extracting it.

    ==============   ==============
    Classes          5
    Samples total    2,225
    Features         text
    ==============   ==============

    Per class: business 510, entertainment 386, politics 417, sport 511, tech 401.

    Parameters
    ----------
    data_home : str or path-like, default=None
        Folder where the archive is cached under its original name. By default
        :func:`sklearn.datasets.get_data_home`, which honours ``SCIKIT_LEARN_DATA``.

    include_title : bool, default=True
        Whether each document starts with the article's title line (then a blank
        line); with False only the body is kept.

    shuffle : bool, default=False
        Whether to shuffle the documents; when False they are sorted by class, then
        by file name.

    random_state : int, RandomState instance or None, default=None
        Seed of the shuffling, used only when ``shuffle=True``.

    download_if_missing : bool, default=True
        If False and the archive is not cached, raise :class:`FileNotFoundError`
        instead of downloading it.

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
            The articles.
        target : ndarray of int of shape (n_samples,)
            Index of each article's class in ``target_names``.
        target_names : list of str
            The class names, sorted.
        filenames : ndarray of str of shape (n_samples,)
            The articles' paths inside the zip.
        DESCR : str
            Description of the data set.

    (data, target) : tuple if ``return_X_y=True``

    Raises
    ------
    FileNotFoundError
        If ``download_if_missing=False`` and the archive is not cached.
    OSError
        If the download fails or does not match the expected sha256, or the cached
        archive does not (it is verified each time it is read) or cannot be read; the
        message names the file and says to delete it and download it again.

    See Also
    --------
    fetch_bbcsport : The companion BBC Sport data set.

    Examples
    --------
    >>> from sklearn_shufdiv.datasets import fetch_bbc
    >>> bbc = fetch_bbc()  # doctest: +SKIP
    >>> len(bbc.data), bbc.target_names  # doctest: +SKIP
    (2225, ['business', 'entertainment', 'politics', 'sport', 'tech'])
    """
    return _load(
        _BBC,
        "bbc",
        _BBC_CLASSES,
        _BBC_DESCR,
        data_home=data_home,
        include_title=include_title,
        shuffle=shuffle,
        random_state=random_state,
        download_if_missing=download_if_missing,
        return_X_y=return_X_y,
        sha256=None,
        n_retries=n_retries,
        delay=delay,
    )


def fetch_bbcsport(
    *,
    data_home=None,
    include_title=True,
    shuffle=False,
    random_state=None,
    download_if_missing=True,
    return_X_y=False,
    sha256=None,
    n_retries=3,
    delay=1.0,
):
    """Load the BBC Sport data set (737 articles, 5 classes).

    Reads the original ``bbcsport-fulltext.zip`` (downloaded from its home page if
    missing) without extracting it.

    ==============   ==============
    Classes          5
    Samples total    737
    Features         text
    ==============   ==============

    Per class: athletics 101, cricket 124, football 265, rugby 147, tennis 100.

    No sha256 of this archive is pinned, because no copy was available to measure one:
    a download is accepted if it is a zip holding the five expected class folders under
    ``bbcsport/``, and a :class:`UserWarning` reports the sha256 it had. Pass
    ``sha256`` to have the archive verified instead, when it is downloaded and each
    time it is read.

    Parameters
    ----------
    data_home : str or path-like, default=None
        Folder where the archive is cached under its original name. By default
        :func:`sklearn.datasets.get_data_home`, which honours ``SCIKIT_LEARN_DATA``.

    include_title : bool, default=True
        Whether each document starts with the article's title line (then a blank
        line); with False only the body is kept.

    shuffle : bool, default=False
        Whether to shuffle the documents; when False they are sorted by class, then
        by file name.

    random_state : int, RandomState instance or None, default=None
        Seed of the shuffling, used only when ``shuffle=True``.

    download_if_missing : bool, default=True
        If False and the archive is not cached, raise :class:`FileNotFoundError`
        instead of downloading it.

    return_X_y : bool, default=False
        If True, return ``(data, target)`` instead of a Bunch.

    sha256 : str, default=None
        Expected sha256 hex digest of the archive, checked when it is downloaded and
        each time it is read.

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
            The articles.
        target : ndarray of int of shape (n_samples,)
            Index of each article's class in ``target_names``.
        target_names : list of str
            The class names, sorted.
        filenames : ndarray of str of shape (n_samples,)
            The articles' paths inside the zip.
        DESCR : str
            Description of the data set.

    (data, target) : tuple if ``return_X_y=True``

    Raises
    ------
    FileNotFoundError
        If ``download_if_missing=False`` and the archive is not cached.
    OSError
        If the download fails, is not a BBC Sport archive, or does not match
        ``sha256``; or if the cached archive does not match ``sha256`` or cannot be read
        (the message names the file and says to delete it and download it again).

    See Also
    --------
    fetch_bbc : The companion BBC News data set.

    Examples
    --------
    >>> from sklearn_shufdiv.datasets import fetch_bbcsport
    >>> sport = fetch_bbcsport()  # doctest: +SKIP
    >>> len(sport.data), sport.target_names  # doctest: +SKIP
    (737, ['athletics', 'cricket', 'football', 'rugby', 'tennis'])
    """
    return _load(
        _BBCSPORT,
        "bbcsport",
        _BBCSPORT_CLASSES,
        _BBCSPORT_DESCR,
        data_home=data_home,
        include_title=include_title,
        shuffle=shuffle,
        random_state=random_state,
        download_if_missing=download_if_missing,
        return_X_y=return_X_y,
        sha256=sha256,
        n_retries=n_retries,
        delay=delay,
    )

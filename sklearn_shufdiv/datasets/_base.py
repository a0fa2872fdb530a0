"""Shared download, cache and checksum logic of the dataset loaders.

Every loader of this package that reads a raw archive (Reuters-21578, BBC, BBCSport)
goes through :func:`_fetch_file`: the archive is looked up in scikit-learn's data home
(:func:`sklearn.datasets.get_data_home`, which honours ``SCIKIT_LEARN_DATA``) under its
original file name; if it is missing it is downloaded with :mod:`urllib` to a temporary
file in the same folder, its sha256 is checked, and only then is it renamed into place,
so that an interrupted or corrupted download never leaves a file that looks cached. A
cached archive's sha256 is checked again each time it is read (where one is pinned), and
an archive that cannot be read is named with what to do (delete it, download it again).
"""

import hashlib
import os
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from urllib.error import URLError
from urllib.request import urlopen

import numpy as np
from sklearn.datasets import get_data_home
from sklearn.utils import check_random_state

_CHUNK_SIZE = 1 << 16

#: Seconds a download waits for the server (or proxy) to connect or to send data; an
#: attempt that waited longer is not retried (a silent server stays silent).
DOWNLOAD_TIMEOUT = 15


@dataclass(frozen=True)
class _RemoteFile:
    """Where an archive comes from and how to recognise it.

    Attributes
    ----------
    filename : str
        Name of the file in the data home (the archive's original name).
    url : str
        Where to download it from.
    sha256 : str or None
        Expected sha256 hex digest; None when no checksum is pinned.
    name : str
        Human readable name of the data set, for messages.
    """

    filename: str
    url: str
    sha256: str | None
    name: str


def _sha256(path):
    """Return the sha256 hex digest of the file at ``path``."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(_CHUNK_SIZE), b""):
            digest.update(chunk)
    return digest.hexdigest()


def data_home_path(data_home=None):
    """The data home as :func:`sklearn.datasets.get_data_home` gives it (created if
    missing), or an :class:`OSError` that names it and says how to choose another."""
    try:
        return Path(get_data_home(data_home=data_home))
    except OSError as exc:
        home = Path(os.fspath(data_home) if data_home is not None else os.environ.get(
            "SCIKIT_LEARN_DATA", "~/scikit_learn_data")).expanduser()
        raise OSError(_unusable_home(home, exc)) from exc


def _unusable_home(home, exc):
    return (f"The data home {home} cannot be used ({exc.strerror or exc}). Set the "
            "SCIKIT_LEARN_DATA environment variable (or pass data_home=) to a folder you "
            "can write to.")


def _download(url, path, sha256, *, name, n_retries=3, delay=1.0, validate=None):
    """Download ``url`` to ``path`` atomically, checking its sha256.

    The file is streamed into a temporary file next to ``path`` while its sha256 is
    computed; on a mismatch the temporary file is removed and an :class:`OSError` is
    raised, otherwise (after the optional ``validate(tmp_path)`` check) the temporary
    file is renamed to ``path`` with :func:`os.replace`. Network errors
    (:class:`urllib.error.URLError`, :class:`ConnectionError`) are retried ``n_retries``
    times, ``delay`` seconds apart; a server that does not connect or answer within
    :data:`DOWNLOAD_TIMEOUT` seconds fails the download at once.

    When ``sha256`` is None the download cannot be verified: a :class:`UserWarning`
    gives the digest that was measured, and only ``validate`` protects the cache.
    """
    path = Path(path)
    attempts = max(int(n_retries), 0) + 1
    for attempt in range(attempts):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.",
                                       suffix=".part")
        except OSError as exc:
            raise OSError(_unusable_home(path.parent, exc)) from exc
        try:
            digest = hashlib.sha256()
            with os.fdopen(fd, "wb") as out, urlopen(url, timeout=DOWNLOAD_TIMEOUT) as response:
                for chunk in iter(lambda: response.read(_CHUNK_SIZE), b""):
                    digest.update(chunk)
                    out.write(chunk)
            actual = digest.hexdigest()
            if sha256 is not None and actual != sha256.lower():
                raise OSError(
                    f"Checksum mismatch for {name} downloaded from {url}: expected sha256 "
                    f"{sha256}, got {actual}. The file was discarded and not cached at "
                    f"{path}."
                )
            if validate is not None:
                validate(tmp)
            if sha256 is None:
                warnings.warn(
                    f"{name} was downloaded from {url} without a pinned checksum, so its "
                    f"integrity could not be verified (only its structure was checked). "
                    f"Its sha256 is {actual}; pass it as `sha256=` to verify later "
                    f"downloads.",
                    UserWarning,
                    stacklevel=3,
                )
            os.replace(tmp, path)
            return path
        except (URLError, TimeoutError, ConnectionError) as exc:
            _remove_quietly(tmp)
            if _timed_out(exc):
                raise OSError(
                    f"Could not download {name} from {url}: no answer within "
                    f"{DOWNLOAD_TIMEOUT} seconds ({exc}); check the network and any proxy "
                    "(HTTP_PROXY, HTTPS_PROXY). Or download it yourself and save it as "
                    f"{path}."
                ) from exc
            if attempt + 1 >= attempts:
                raise OSError(
                    f"Could not download {name} from {url} after {attempts} attempt(s): "
                    f"{exc}. Download it yourself and save it as {path}."
                ) from exc
            time.sleep(delay)
        except BaseException:
            _remove_quietly(tmp)
            raise
    raise AssertionError("unreachable")  # pragma: no cover


def _timed_out(exc):
    """Whether a network error is a timeout (raised as is, or wrapped in a URLError)."""
    return isinstance(exc, TimeoutError) or isinstance(getattr(exc, "reason", None),
                                                       TimeoutError)


def _remove_quietly(path):
    try:
        os.remove(path)
    except FileNotFoundError:
        pass


def _fetch_file(
    remote,
    data_home=None,
    *,
    download_if_missing=True,
    sha256=None,
    n_retries=3,
    delay=1.0,
    validate=None,
):
    """Return the path of ``remote``'s file in the data home, downloading it if needed.

    Parameters
    ----------
    remote : _RemoteFile
        The archive to fetch.
    data_home : str or path-like, default=None
        Data home; None means :func:`sklearn.datasets.get_data_home`'s default.
    download_if_missing : bool, default=True
        If False and the file is not cached, raise :class:`FileNotFoundError`.
    sha256 : str, default=None
        Checksum to verify the download against, overriding ``remote.sha256``.
    n_retries, delay : int, float
        Retries on network errors and seconds between them.
    validate : callable, default=None
        Called with the path of a freshly downloaded file before it is cached; it
        should raise if the file is not what is expected.

    Returns
    -------
    path : pathlib.Path
        Path of the cached file.
    """
    path = data_home_path(data_home) / remote.filename
    expected = sha256 if sha256 is not None else remote.sha256
    if path.is_file():
        if expected is not None:
            _check_cached(path, expected, remote)
        return path
    if not download_if_missing:
        raise FileNotFoundError(
            f"{remote.name} not found: expected the archive at {path}. Call the loader "
            f"with download_if_missing=True to download it from {remote.url}, or "
            f"download that file yourself and save it at this path (set `data_home` or "
            f"the SCIKIT_LEARN_DATA environment variable to use another folder)."
        )
    return _download(
        remote.url,
        path,
        expected,
        name=remote.name,
        n_retries=n_retries,
        delay=delay,
        validate=validate,
    )


def _check_cached(path, sha256, remote):
    """Raise if the cached file's sha256 is not ``sha256`` (hashing 30 MB takes ~0.1 s)."""
    actual = _sha256(path)
    if actual != sha256.lower():
        raise OSError(
            f"{path}: this copy of {remote.name} is damaged or another file (its sha256 is "
            f"{actual}, not {sha256}), e.g. a download cut short. {_redownload(path, remote)}"
        )


def _redownload(path, remote):
    return (f"Delete {path} and call the loader again to download it anew (or download "
            f"{remote.url} yourself and save it at this path).")


def damaged_archive(path, remote, exc):
    """The :class:`OSError` for an archive that cannot be read: which file, why, and
    what to do."""
    return OSError(f"{path}: cannot read this archive of {remote.name} "
                   f"({type(exc).__name__}: {exc}); it is truncated or damaged. "
                   f"{_redownload(path, remote)}")


def _shuffle_bunch(bunch, keys, random_state):
    """Shuffle the per-sample entries ``keys`` of ``bunch`` in place, consistently."""
    n = len(bunch[keys[0]])
    order = check_random_state(random_state).permutation(n)
    for key in keys:
        value = bunch[key]
        if isinstance(value, np.ndarray):
            bunch[key] = value[order]
        else:
            bunch[key] = [value[i] for i in order]
    return bunch

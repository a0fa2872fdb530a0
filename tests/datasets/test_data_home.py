"""Dataset loaders on a hostile data home: a crafted or cut 20 Newsgroups cache, a data
home that cannot be used, and a server that never answers. Nothing here touches the
network: downloads go to a silent server on 127.0.0.1, or fail before connecting."""

import codecs
import dataclasses
import os
import pickle
import socket
import time
import urllib.request

import numpy as np
import pytest
from _servers import silent_server
from _unprivileged import run_python
from sklearn.utils import Bunch

from sklearn_shufdiv.datasets import _base, _bbc, fetch_20newsgroups_clean, fetch_bbc

GROUPS = ["alt.atheism", "sci.space"]
BODY = "A message body with words enough to be kept in the cleaned corpus, {}."


def _subset(split, numbers):
    return Bunch(
        data=[f"From: a@b.example\nSubject: s\n\n{BODY.format(n)}\n\n-- \nsig\n"
              for n in numbers],
        filenames=np.array([f"20news-bydate-{split}/{GROUPS[n % 2]}/{n}" for n in numbers]),
        target_names=list(GROUPS), target=np.array([n % 2 for n in numbers]), DESCR=None)


def _write_cache(home, obj):
    home.mkdir(exist_ok=True)
    path = home / "20news-bydate_py3.pkz"
    path.write_bytes(codecs.encode(pickle.dumps(obj), "zlib_codec"))
    return path


class _Payload:
    """Unpickling it runs ``open(marker, "w")``: what a crafted cache would do."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


# -- the 20 Newsgroups cache ---------------------------------------------------------------
def test_a_crafted_cache_runs_no_code(tmp_path):
    marker = tmp_path / "code-ran"
    cache = {"train": _subset("train", [1, 2]), "test": _subset("test", [3])}
    cache["train"]["DESCR"] = _Payload(str(marker))
    path = _write_cache(tmp_path / "home", cache)
    with pytest.raises(OSError, match=r"20news-bydate_py3.pkz: not loaded as scikit-learn's "
                                      r"20 Newsgroups cache, because it refers to "
                                      r"(io|builtins|_io)\.open") as info:
        fetch_20newsgroups_clean(data_home=tmp_path / "home", download_if_missing=False)
    assert type(info.value).__name__ == "ForeignCacheError"
    assert not marker.exists()
    assert path.exists()  # left for the user to look at and delete


def test_a_genuine_cache_is_read_as_scikit_learn_reads_it(tmp_path):
    from sklearn.datasets import fetch_20newsgroups

    home = tmp_path / "home"
    _write_cache(home, {"train": _subset("train", [1, 2, 4]), "test": _subset("test", [3])})
    for kwargs in ({"subset": "all"}, {"subset": "train", "categories": ["sci.space"]},
                   {"subset": "test", "remove": ("headers", "footers", "quotes")}):
        ours = fetch_20newsgroups_clean(data_home=home, download_if_missing=False,
                                        min_words=0, **kwargs)
        theirs = fetch_20newsgroups(data_home=home, download_if_missing=False,
                                    **{"remove": ("headers", "footers"), **kwargs})
        assert sorted(ours.data) == sorted(" ".join(t.split()) for t in theirs.data)
        assert ours.target_names == theirs.target_names
        assert sorted(ours.filenames) == sorted(theirs.filenames)


@pytest.mark.parametrize("download_if_missing", [False, True])
def test_a_cut_cache_is_named_without_a_download(tmp_path, monkeypatch,
                                                 download_if_missing):
    path = _write_cache(tmp_path / "home", {"train": _subset("train", [1]),
                                            "test": _subset("test", [2])})
    path.write_bytes(path.read_bytes()[:200])
    monkeypatch.setattr(socket, "create_connection", _no_network)
    with pytest.raises(OSError, match=r"pkz: not loaded .* it is truncated or damaged.*Delete "
                                      r"it and call .* download_if_missing=True"):
        fetch_20newsgroups_clean(data_home=tmp_path / "home",
                                 download_if_missing=download_if_missing)


def _no_network(*args, **kwargs):
    raise OSError(101, "Network is unreachable (test)")


@pytest.mark.filterwarnings("ignore:Retry downloading")  # scikit-learn's retry
def test_an_empty_home_offline_says_what_to_do(tmp_path, monkeypatch):
    monkeypatch.setattr(socket, "create_connection", _no_network)
    with pytest.raises(OSError, match=r"Could not download 20 Newsgroups \(URLError.*Where a "
                                      r"network is available, run .*fetch_20newsgroups\(\) and "
                                      r"copy the 20news-bydate_py3.pkz"):
        fetch_20newsgroups_clean(data_home=tmp_path, n_retries=1, delay=0.01)


# -- a data home that cannot be used -----------------------------------------------------
def test_a_data_home_that_is_a_file_is_named(tmp_path, monkeypatch):
    home = tmp_path / "a-file"
    home.write_text("")
    monkeypatch.setenv("SCIKIT_LEARN_DATA", str(home))
    for fetch in (fetch_bbc, fetch_20newsgroups_clean):
        with pytest.raises(OSError, match=rf"The data home {home} cannot be used .*Set the "
                                          r"SCIKIT_LEARN_DATA environment variable"):
            fetch(download_if_missing=False)


def test_a_data_home_that_cannot_be_created_is_named(tmp_path, monkeypatch):
    home = tmp_path / "read-only" / "home"
    makedirs = os.makedirs

    def refuse(path, *args, **kwargs):
        if str(path).startswith(str(tmp_path / "read-only")):
            raise PermissionError(13, "Permission denied", str(path))
        return makedirs(path, *args, **kwargs)

    monkeypatch.setattr(os, "makedirs", refuse)
    with pytest.raises(OSError, match=rf"The data home {home} cannot be used \(Permission "
                                      r"denied\)"):
        fetch_bbc(data_home=home)


def test_a_read_only_data_home_is_named_before_any_download(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()

    def mkstemp(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(home))

    monkeypatch.setattr(_base.tempfile, "mkstemp", mkstemp)
    monkeypatch.setattr(socket, "create_connection", _no_network)
    with pytest.raises(OSError, match=rf"The data home {home} cannot be used \(Permission "
                                      r"denied\)"):
        fetch_bbc(data_home=home)


def test_a_read_only_data_home_under_real_permissions(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(0o555)
    script = ("import sys\n"
              "from sklearn_shufdiv.datasets import fetch_bbc\n"
              "for home in sys.argv[1:]:\n"
              "    try:\n"
              "        fetch_bbc(data_home=home)\n"
              "    except OSError as exc:\n"
              "        print(type(exc).__name__, exc)\n")
    try:  # the home itself read-only; a missing home under a read-only folder
        done = run_python(script, home, home / "missing")
    finally:
        home.chmod(0o755)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"OSError The data home {home} cannot be used (Permission "
                               "denied)"), done.stdout
    assert lines[1].startswith(f"OSError The data home {home / 'missing'} cannot be used "
                               "(Permission denied)"), done.stdout


# -- a server that never answers ---------------------------------------------------------
@pytest.fixture
def silent():
    with silent_server() as server:
        yield server


def test_a_server_that_never_answers_fails_after_one_timeout(tmp_path, monkeypatch, silent):
    port, accepted = silent
    monkeypatch.setattr(_base, "DOWNLOAD_TIMEOUT", 0.5)
    monkeypatch.setattr(_bbc, "_BBC", dataclasses.replace(
        _bbc._BBC, url=f"http://127.0.0.1:{port}/bbc-fulltext.zip"))
    start = time.monotonic()
    with pytest.raises(OSError, match=r"no answer within 0.5 seconds.*check the network and "
                                      r"any proxy"):
        fetch_bbc(data_home=tmp_path, n_retries=3, delay=0)
    assert time.monotonic() - start < 5
    assert len(accepted) == 1  # not retried
    assert os.listdir(tmp_path) == []  # no partial file left


def test_20_newsgroups_behind_a_silent_proxy_fails_after_the_timeout(tmp_path, monkeypatch,
                                                                      silent):
    port, accepted = silent
    monkeypatch.setattr(_base, "DOWNLOAD_TIMEOUT", 0.5)
    for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"):
        monkeypatch.setenv(name, f"http://127.0.0.1:{port}")
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    # urlopen keeps the opener (and the proxies it read) of its first call: drop it, so
    # that this test's proxy is read, and drop this test's after it.
    urllib.request.install_opener(None)
    start = time.monotonic()
    try:
        with pytest.raises(OSError, match=r"20 Newsgroups: no answer within 0.5 seconds.*"
                                          r"check the network and any proxy"):
            fetch_20newsgroups_clean(data_home=tmp_path, n_retries=1, delay=0.01)
    finally:
        urllib.request.install_opener(None)
    assert time.monotonic() - start < 10
    assert accepted  # the request reached the proxy, which never answered
    assert socket.getdefaulttimeout() is None  # the process' default is restored

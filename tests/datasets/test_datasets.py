"""Tests of the dataset loaders on tiny archives built in the real formats.

Nothing is downloaded and the real corpora are not needed: each test writes a small
archive of the original format (a ``bbc-fulltext.zip``-like zip, a
``reuters21578.tar.gz``-like tarball of SGML files, scikit-learn's 20 Newsgroups cache)
into a temporary data home, and downloads are exercised with ``file://`` URLs.
"""

import codecs
import dataclasses
import hashlib
import io
import pickle
import tarfile
import zipfile

import numpy as np
import pytest
from sklearn.utils import Bunch

from sklearn_shufdiv.datasets import (
    _base,
    _bbc,
    _reuters,
    clean_text,
    count_words,
    fetch_20newsgroups_clean,
    fetch_bbc,
    fetch_bbcsport,
    fetch_reuters21578,
    normalize_whitespace,
    remove_urls_emails,
)


def _sha256_of(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _pin(monkeypatch, module, name, path):
    """Pin the checksum of a fake archive: the loaders verify a cached archive's sha256
    each time they read it, and the pinned ones are the real archives'."""
    monkeypatch.setattr(module, name,
                        dataclasses.replace(getattr(module, name), sha256=_sha256_of(path)))


# --------------------------------------------------------------------------------------
# Preprocessing
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("see http://www.example.com/a/b?c=d now", "see now"),
        ("see https://example.org. now", "see now"),
        ("get ftp://ftp.uu.net/pub/file.tar.Z here", "get here"),
        ("visit www.example.com today", "visit today"),
        ("write to jdoe@cs.example.edu or else", "write to or else"),
        ("From <John.Doe+news@mail.example.co.uk> said", "From said"),
        ("mailto:someone@example.com ok", "ok"),
        ("(jane@example.org), bye", "( ), bye"),
        ("sentence ends with a@b.com.", "sentence ends with ."),
        ("we met @ noon and a@b stays", "we met @ noon and a@b stays"),
        ("no links here", "no links here"),
    ],
)
def test_remove_urls_emails(text, expected):
    assert normalize_whitespace(remove_urls_emails(text)) == expected


def test_remove_urls_emails_does_not_glue_words():
    assert remove_urls_emails("left<a@b.org>right").split() == ["left", "right"]
    assert remove_urls_emails("left\nhttp://x.org\nright").split() == ["left", "right"]


def test_normalize_whitespace():
    assert normalize_whitespace(" a\tb\n\n c\r\n d  \u00a0e ") == "a b c d e"
    assert normalize_whitespace(" \n\t ") == ""


def test_count_words():
    assert count_words("") == 0
    assert count_words("----- >> ... ||") == 0
    assert count_words("one two, three! (4) don't e-mail") == 6
    assert count_words("a\nb\tc") == 3


def test_clean_text():
    assert clean_text("Hi,\n\nsee http://x.org or x@y.org.\n") == "Hi, see or ."


# --------------------------------------------------------------------------------------
# Download / cache / checksum helper
# --------------------------------------------------------------------------------------


def _remote(tmp_path, payload=b"payload bytes", sha256="same"):
    source = tmp_path / "source" / "archive.bin"
    source.parent.mkdir()
    source.write_bytes(payload)
    digest = hashlib.sha256(payload).hexdigest() if sha256 == "same" else sha256
    return _base._RemoteFile("archive.bin", source.as_uri(), digest, "Test archive"), source


def test_fetch_file_downloads_verifies_and_caches(tmp_path):
    remote, source = _remote(tmp_path)
    home = tmp_path / "home"
    path = _base._fetch_file(remote, home)
    assert path == home / "archive.bin"
    assert path.read_bytes() == source.read_bytes()
    assert [p.name for p in home.iterdir()] == ["archive.bin"]  # no temporary file left
    source.unlink()  # a cached file is used without downloading again
    assert _base._fetch_file(remote, home, download_if_missing=False) == path


def test_fetch_file_checksum_mismatch(tmp_path):
    remote, _ = _remote(tmp_path, sha256="0" * 64)
    home = tmp_path / "home"
    with pytest.raises(OSError, match="Checksum mismatch.*expected sha256 0{64}"):
        _base._fetch_file(remote, home)
    assert list(home.iterdir()) == []  # neither the file nor a temporary copy is kept


def test_fetch_file_sha256_override(tmp_path):
    remote, source = _remote(tmp_path, sha256=None)
    with pytest.raises(OSError, match="Checksum mismatch"):
        _base._fetch_file(remote, tmp_path / "home", sha256="f" * 64)
    path = _base._fetch_file(remote, tmp_path / "home", sha256=_sha256_of(source))
    assert path.read_bytes() == source.read_bytes()


def test_fetch_file_without_checksum_warns_with_digest(tmp_path):
    remote, source = _remote(tmp_path, sha256=None)
    with pytest.warns(UserWarning, match=_sha256_of(source)):
        path = _base._fetch_file(remote, tmp_path / "home")
    assert path.is_file()


def test_fetch_file_validation_failure_discards_download(tmp_path):
    remote, _ = _remote(tmp_path)

    def validate(path):
        raise OSError("not the expected structure")

    home = tmp_path / "home"
    with pytest.raises(OSError, match="not the expected structure"):
        _base._fetch_file(remote, home, validate=validate)
    assert list(home.iterdir()) == []


def test_fetch_file_missing_without_download(tmp_path):
    remote, _ = _remote(tmp_path)
    home = tmp_path / "home"
    with pytest.raises(FileNotFoundError) as info:
        _base._fetch_file(remote, home, download_if_missing=False)
    message = str(info.value)
    assert str(home / "archive.bin") in message
    assert remote.url in message and "download_if_missing=True" in message


def test_fetch_file_network_error_is_retried_then_reported(tmp_path):
    remote = _base._RemoteFile("x.bin", (tmp_path / "absent.bin").as_uri(), None, "Test")
    home = tmp_path / "home"
    with pytest.raises(OSError, match="after 2 attempt"):
        _base._fetch_file(remote, home, n_retries=1, delay=0.0)
    assert list(home.iterdir()) == []


def test_fetch_file_honours_scikit_learn_data(tmp_path, monkeypatch):
    remote, _ = _remote(tmp_path)
    monkeypatch.setenv("SCIKIT_LEARN_DATA", str(tmp_path / "env-home"))
    assert _base._fetch_file(remote) == tmp_path / "env-home" / "archive.bin"


# --------------------------------------------------------------------------------------
# BBC and BBC Sport
# --------------------------------------------------------------------------------------

BBC_FILES = {
    "bbc/tech/001.txt": "Gadget sales soar\n\nSales of gadgets rose to \u00a35m.\n".encode(),
    "bbc/business/002.txt": b"Bank rates held\n\nThe bank held its rates.\n",
    # Not valid UTF-8: a Latin-1 pound sign, as in some files of the original archive.
    "bbc/business/001.txt": b"Profits up\n\nProfits reached \xa3600m this year.\n",
    "bbc/README.TXT": b"Consists of 3 documents.\n",
}


def _make_zip(path, files, directories=()):
    with zipfile.ZipFile(path, "w") as archive:
        for directory in directories:
            archive.writestr(zipfile.ZipInfo(directory), b"")
        for name, content in files.items():
            archive.writestr(name, content)
    return path


@pytest.fixture
def bbc_home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    _make_zip(home / "bbc-fulltext.zip", BBC_FILES, ["bbc/", "bbc/tech/", "bbc/business/"])
    _pin(monkeypatch, _bbc, "_BBC", home / "bbc-fulltext.zip")
    return home


def test_fetch_bbc_reads_the_zip(bbc_home):
    bunch = fetch_bbc(data_home=bbc_home, download_if_missing=False)
    assert isinstance(bunch, Bunch)
    assert bunch.target_names == ["business", "tech"]
    assert list(bunch.filenames) == [
        "bbc/business/001.txt",
        "bbc/business/002.txt",
        "bbc/tech/001.txt",
    ]
    assert bunch.target.dtype.kind == "i"
    np.testing.assert_array_equal(bunch.target, [0, 0, 1])
    assert bunch.data == [
        "Profits up\n\nProfits reached \u00a3600m this year.",  # Latin-1 fallback
        "Bank rates held\n\nThe bank held its rates.",
        "Gadget sales soar\n\nSales of gadgets rose to \u00a35m.",  # valid UTF-8
    ]
    assert all(isinstance(doc, str) for doc in bunch.data)
    assert "2,225" in bunch.DESCR and "Latin-1" in bunch.DESCR


def test_fetch_bbc_options(bbc_home):
    data, target = fetch_bbc(data_home=bbc_home, download_if_missing=False, return_X_y=True)
    assert len(data) == len(target) == 3
    bodies = fetch_bbc(data_home=bbc_home, download_if_missing=False, include_title=False)
    assert bodies.data[0] == "Profits reached \u00a3600m this year."

    plain = fetch_bbc(data_home=bbc_home, download_if_missing=False)
    by_name = dict(zip(plain.filenames, plain.data))
    a = fetch_bbc(data_home=bbc_home, download_if_missing=False, shuffle=True, random_state=3)
    b = fetch_bbc(data_home=bbc_home, download_if_missing=False, shuffle=True, random_state=3)
    assert a.data == b.data
    np.testing.assert_array_equal(a.target, b.target)
    assert sorted(a.data) == sorted(data)
    for doc, label, name in zip(a.data, a.target, a.filenames):  # still aligned
        assert name.split("/")[1] == a.target_names[label]
        assert doc == by_name[name]


def test_fetch_bbc_missing(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"bbc-fulltext\.zip.*mlg\.ucd\.ie"):
        fetch_bbc(data_home=tmp_path, download_if_missing=False)
    with pytest.raises(FileNotFoundError, match=r"bbcsport-fulltext\.zip"):
        fetch_bbcsport(data_home=tmp_path, download_if_missing=False)


def _sport_zip(path, classes=_bbc._BBCSPORT_CLASSES):
    files = {
        f"bbcsport/{label}/{i:03d}.txt": f"{label} title {i}\n\n{label} story {i}.\n".encode()
        for label in classes
        for i in (2, 1)
    }
    return _make_zip(path, files)


def test_fetch_bbcsport_download_without_pinned_checksum(tmp_path, monkeypatch):
    source = _sport_zip(tmp_path / "bbcsport-fulltext.zip")
    monkeypatch.setattr(_bbc, "_BBCSPORT", dataclasses.replace(_bbc._BBCSPORT, url=source.as_uri()))
    home = tmp_path / "home"
    with pytest.warns(UserWarning, match=_sha256_of(source)):
        bunch = fetch_bbcsport(data_home=home)
    assert (home / "bbcsport-fulltext.zip").is_file()
    assert bunch.target_names == list(_bbc._BBCSPORT_CLASSES)
    assert len(bunch.data) == 10
    np.testing.assert_array_equal(bunch.target, np.repeat(np.arange(5), 2))
    assert bunch.data[0] == "athletics title 1\n\nathletics story 1."
    assert "737" in bunch.DESCR


def test_fetch_bbcsport_download_with_user_checksum(tmp_path, monkeypatch):
    source = _sport_zip(tmp_path / "bbcsport-fulltext.zip")
    monkeypatch.setattr(_bbc, "_BBCSPORT", dataclasses.replace(_bbc._BBCSPORT, url=source.as_uri()))
    with pytest.raises(OSError, match="Checksum mismatch"):
        fetch_bbcsport(data_home=tmp_path / "home", sha256="a" * 64)
    assert not (tmp_path / "home" / "bbcsport-fulltext.zip").exists()
    bunch = fetch_bbcsport(data_home=tmp_path / "home", sha256=_sha256_of(source))
    assert len(bunch.data) == 10


def test_fetch_bbcsport_download_with_wrong_structure(tmp_path, monkeypatch):
    source = _sport_zip(tmp_path / "other.zip", classes=("athletics", "golf"))
    monkeypatch.setattr(_bbc, "_BBCSPORT", dataclasses.replace(_bbc._BBCSPORT, url=source.as_uri()))
    with pytest.raises(OSError, match="does not look like bbcsport"):
        fetch_bbcsport(data_home=tmp_path / "home")
    assert list((tmp_path / "home").iterdir()) == []

    not_a_zip = tmp_path / "not-a-zip.zip"
    not_a_zip.write_bytes(b"<html>moved</html>")
    monkeypatch.setattr(
        _bbc, "_BBCSPORT", dataclasses.replace(_bbc._BBCSPORT, url=not_a_zip.as_uri())
    )
    with pytest.raises(OSError, match="not a valid zip"):
        fetch_bbcsport(data_home=tmp_path / "home")


def test_fetch_bbc_download_checksum(tmp_path, monkeypatch):
    files = {f"bbc/{label}/001.txt": b"Title\n\nBody.\n" for label in _bbc._BBC_CLASSES}
    source = _make_zip(tmp_path / "bbc-fulltext.zip", files)
    # The pinned checksum is the real archive's: the fake one must be rejected.
    monkeypatch.setattr(_bbc, "_BBC", dataclasses.replace(_bbc._BBC, url=source.as_uri()))
    with pytest.raises(OSError, match="Checksum mismatch"):
        fetch_bbc(data_home=tmp_path / "home")
    monkeypatch.setattr(_bbc, "_BBC", dataclasses.replace(_bbc._BBC, sha256=_sha256_of(source)))
    assert len(fetch_bbc(data_home=tmp_path / "home").data) == 5


# --------------------------------------------------------------------------------------
# Reuters-21578
# --------------------------------------------------------------------------------------


def _story(
    newid, topics, body=None, title="A TITLE", text_type=None, split="TRAIN", topics_attr="YES"
):
    topics_xml = "".join(f"<D>{t}</D>" for t in topics)
    type_attr = f' TYPE="{text_type}"' if text_type else ""
    body_xml = "" if body is None else f"<BODY>{body}\n Reuter\n&#3;</BODY>"
    return (
        f'<REUTERS TOPICS="{topics_attr}" LEWISSPLIT="{split}" CGISPLIT="TRAINING-SET" '
        f'OLDID="{5000 + newid}" NEWID="{newid}">\n'
        f"<DATE>26-FEB-1987 15:01:01.79</DATE>\n"
        f"<TOPICS>{topics_xml}</TOPICS>\n<PLACES><D>usa</D></PLACES>\n<PEOPLE></PEOPLE>\n"
        f"<UNKNOWN> \n&#5;&#5;&#5;C T\n&#22;&#22;&#1;f0704&#31;reute</UNKNOWN>\n"
        f"<TEXT{type_attr}>&#2;\n<TITLE>{title}</TITLE>\n"
        f"<DATELINE>    NEW YORK, Feb 26 - </DATELINE>{body_xml}\n</TEXT>\n</REUTERS>\n"
    )


REUT2_000 = (
    '<!DOCTYPE lewis SYSTEM "lewis.dtd">\n'
    + _story(1, ["earn"], "Profit rose &lt;XYZ> to 5 dlrs.", title="XYZ PROFIT UP")
    + _story(2, ["earn", "acq"], "Multi-label story.")  # dropped: two topics
    + _story(3, [], "No topic story.", topics_attr="NO")  # dropped: no topic
    + _story(4, ["acq"], "Company buys \u00e9quipement maker.", title="BUYOUT")
    + _story(5, ["earn"], None, title="BRIEF EARN", text_type="BRIEF")  # no body
    + _story(6, ["crude"], "   ", title="EMPTY")  # empty body
)
# The Latin-1 file also tests the decoding: \u00e9 is written as one byte.
REUT2_001 = (
    '<!DOCTYPE lewis SYSTEM "lewis.dtd">\n'
    + _story(
        7, ["earn"], "Profit rose &lt;XYZ> to 5 dlrs.", title="XYZ PROFIT UP", split="TEST"
    )  # duplicate of 1
    + _story(
        8, ["earn"], "Profit  rose &lt;XYZ>\nto 5 dlrs.", title="XYZ PROFIT UP", split="TEST"
    )  # duplicate of 1 up to whitespace
    + _story(
        9, ["earn"], "Profit rose &lt;XYZ> to 5 dlrs.", title="OTHER TITLE", split="TEST"
    )  # same body, another title: kept with titles
    + _story(10, ["crude"], "Oil prices &amp; output fell.", title="OIL")
    + _story(11, ["acq"], "Second &amp; last acquisition.", title="ACQ 2", split="NOT-USED")
    + '<REUTERS TOPICS="YES" LEWISSPLIT="TRAIN" NEWID="12">\n<TOPICS><D>earn</D></TOPICS>\n'
    '<TEXT TYPE="UNPROC">&#2; unprocessed text without title or body\n&#3;</TEXT>\n'
    "</REUTERS>\n" + _story(13, ["ship"], "A ship story.", title="SHIP")
)


@pytest.fixture
def reuters_archive(tmp_path):
    path = tmp_path / "source" / "reuters21578.tar.gz"
    path.parent.mkdir()
    with tarfile.open(path, "w:gz") as archive:
        for name, text in [
            ("README.txt", "Reuters-21578 text categorization test collection\n"),
            ("reut2-001.sgm", REUT2_001),
            ("reut2-000.sgm", REUT2_000),
            ("lewis.dtd", "<!ELEMENT LEWIS - - (REUTERS)+>\n"),
        ]:
            content = text.encode("latin-1")
            info = tarfile.TarInfo(name)
            info.size = len(content)
            archive.addfile(info, io.BytesIO(content))
    return path


@pytest.fixture
def reuters_home(tmp_path, reuters_archive, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    (home / "reuters21578.tar.gz").write_bytes(reuters_archive.read_bytes())
    _pin(monkeypatch, _reuters, "_ARCHIVE", reuters_archive)
    return home


def test_parse_sgml_fields():
    stories = _reuters._parse_sgml(REUT2_000 + REUT2_001)
    assert [s["newid"] for s in stories] == list(range(1, 14))
    first = stories[0]
    assert first["topics"] == ["earn"]
    assert first["title"] == "XYZ PROFIT UP"
    assert first["body"] == "Profit rose <XYZ> to 5 dlrs."  # entity decoded, signature gone
    assert first["lewissplit"] == "TRAIN" and first["topics_attr"] == "YES"
    assert stories[1]["topics"] == ["earn", "acq"]
    assert stories[4]["text_type"] == "BRIEF" and stories[4]["body"] == ""
    assert stories[5]["body"] == ""
    assert stories[11]["text_type"] == "UNPROC" and stories[11]["body"] == ""
    assert stories[11]["title"] == ""


def test_fetch_reuters21578(reuters_home):
    bunch = fetch_reuters21578(data_home=reuters_home, download_if_missing=False)
    assert isinstance(bunch, Bunch)
    assert bunch.target_names == ["acq", "crude", "earn", "ship"]
    np.testing.assert_array_equal(bunch.newid, [1, 4, 9, 10, 11, 13])
    np.testing.assert_array_equal(bunch.target, [2, 0, 2, 1, 0, 3])
    assert bunch.target.dtype.kind == "i"
    assert list(bunch.lewissplit) == ["TRAIN", "TRAIN", "TEST", "TRAIN", "NOT-USED", "TRAIN"]
    assert bunch.data[0] == "XYZ PROFIT UP\n\nProfit rose <XYZ> to 5 dlrs."
    assert bunch.data[1] == "BUYOUT\n\nCompany buys \u00e9quipement maker."
    assert bunch.data[3] == "OIL\n\nOil prices & output fell."
    assert "7,456" in bunch.DESCR


def test_fetch_reuters21578_options(reuters_home):
    kwargs = dict(data_home=reuters_home, download_if_missing=False)
    bodies = fetch_reuters21578(include_title=False, **kwargs)
    np.testing.assert_array_equal(bodies.newid, [1, 4, 10, 11, 13])  # 9 is now a duplicate
    assert bodies.data[0] == "Profit rose <XYZ> to 5 dlrs."

    # earn 2, acq 2, crude 1, ship 1: the tie for the third place goes to "crude".
    top3 = fetch_reuters21578(n_categories=3, **kwargs)
    assert top3.target_names == ["acq", "crude", "earn"]
    np.testing.assert_array_equal(top3.newid, [1, 4, 9, 10, 11])

    data, target = fetch_reuters21578(return_X_y=True, **kwargs)
    assert isinstance(data, list) and len(data) == len(target) == 6

    shuffled = fetch_reuters21578(shuffle=True, random_state=0, **kwargs)
    order = np.argsort(shuffled.newid)
    plain = fetch_reuters21578(**kwargs)
    assert [shuffled.data[i] for i in order] == plain.data
    np.testing.assert_array_equal(shuffled.target[order], plain.target)

    with pytest.raises(ValueError, match="n_categories"):
        fetch_reuters21578(n_categories=0, **kwargs)


def test_fetch_reuters21578_missing(tmp_path):
    with pytest.raises(FileNotFoundError) as info:
        fetch_reuters21578(data_home=tmp_path, download_if_missing=False)
    assert str(tmp_path / "reuters21578.tar.gz") in str(info.value)
    assert "kdd.ics.uci.edu" in str(info.value)


def test_fetch_reuters21578_download(tmp_path, reuters_archive, monkeypatch):
    remote = dataclasses.replace(_reuters._ARCHIVE, url=reuters_archive.as_uri())
    monkeypatch.setattr(_reuters, "_ARCHIVE", remote)
    home = tmp_path / "home"
    # The pinned checksum is the real archive's, so the fake one is rejected...
    with pytest.raises(OSError, match="Checksum mismatch"):
        fetch_reuters21578(data_home=home)
    assert list(home.iterdir()) == []
    # ... and accepted once its own checksum is pinned.
    monkeypatch.setattr(
        _reuters, "_ARCHIVE", dataclasses.replace(remote, sha256=_sha256_of(reuters_archive))
    )
    assert len(fetch_reuters21578(data_home=home).data) == 6
    assert (home / "reuters21578.tar.gz").is_file()


def test_reuters_archive_without_sgml(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    with tarfile.open(home / "reuters21578.tar.gz", "w:gz") as archive:
        info = tarfile.TarInfo("README.txt")
        archive.addfile(info, io.BytesIO(b""))
    _pin(monkeypatch, _reuters, "_ARCHIVE", home / "reuters21578.tar.gz")
    with pytest.raises(OSError, match="no reut2-NNN.sgm"):
        fetch_reuters21578(data_home=home, download_if_missing=False)


# --------------------------------------------------------------------------------------
# Damaged archives in the data home
# --------------------------------------------------------------------------------------


def _truncate(path):
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path


def _assert_names_the_file_and_what_to_do(message, path):
    assert str(path) in message
    assert f"Delete {path}" in message and "download it anew" in message


@pytest.mark.parametrize("home, archive, load", [
    ("bbc_home", "bbc-fulltext.zip", fetch_bbc),
    ("reuters_home", "reuters21578.tar.gz", fetch_reuters21578),
])
def test_truncated_cached_archives_are_named_by_their_checksum(request, home, archive, load):
    # The pinned sha256 is verified each time a cached archive is read, not only after a
    # download: a truncated copy is caught before it is opened.
    path = _truncate(request.getfixturevalue(home) / archive)
    with pytest.raises(OSError, match="is damaged or another file") as info:
        load(data_home=path.parent, download_if_missing=False)
    _assert_names_the_file_and_what_to_do(str(info.value), path)
    assert _sha256_of(path) in str(info.value)


def test_cached_archive_of_another_content_is_refused(tmp_path):
    files = {f"bbc/{label}/001.txt": b"Title\n\nBody.\n" for label in _bbc._BBC_CLASSES}
    path = _make_zip(tmp_path / "bbc-fulltext.zip", files)
    with pytest.raises(OSError, match=rf"{path}: .*sha256 is [0-9a-f]{{64}}, not a351031a"):
        fetch_bbc(data_home=tmp_path, download_if_missing=False)


def test_truncated_zip_without_a_pinned_checksum(bbc_home):
    # Where no checksum is pinned (BBC Sport), reading the damaged archive fails with the
    # file named, not with a bare BadZipFile.
    sport = _truncate(_sport_zip(bbc_home / "bbcsport-fulltext.zip"))
    with pytest.raises(OSError, match="cannot read this archive.*truncated or damaged") as info:
        fetch_bbcsport(data_home=bbc_home, download_if_missing=False)
    _assert_names_the_file_and_what_to_do(str(info.value), sport)


def test_truncated_tarball_without_a_checksum(reuters_home, monkeypatch):
    # The same when the checksum cannot tell (none pinned): no bare EOFError / ReadError.
    monkeypatch.setattr(_reuters, "_ARCHIVE", dataclasses.replace(_reuters._ARCHIVE,
                                                                  sha256=None))
    reuters = _truncate(reuters_home / "reuters21578.tar.gz")
    with pytest.raises(OSError, match="cannot read this archive.*EOFError") as info:
        fetch_reuters21578(data_home=reuters_home, download_if_missing=False)
    _assert_names_the_file_and_what_to_do(str(info.value), reuters)

    reuters.write_bytes(b"<html>not a tarball</html>")
    with pytest.raises(OSError, match="cannot read this archive.*ReadError"):
        fetch_reuters21578(data_home=reuters_home, download_if_missing=False)


# --------------------------------------------------------------------------------------
# 20 Newsgroups
# --------------------------------------------------------------------------------------

GROUPS = ["alt.atheism", "sci.space"]
LONG_BODY = (
    "The launch window opens next week and the crew is ready to go, see "
    "http://www.nasa.gov/launch or write to crew@nasa.example.gov for details."
)


def _message(body, sender="jdoe@example.com", signature="John Doe, jdoe@example.com"):
    return f"From: {sender}\nSubject: a subject\nLines: 12\n\n{body}\n\n-- \n{signature}\n"


def _subset(items, split):
    """A Bunch like the ones scikit-learn pickles in its 20 Newsgroups cache."""
    return Bunch(
        data=[_message(body) for _, _, body in items],
        filenames=np.array(
            [f"20news-bydate-{split}/{GROUPS[t]}/{number}" for t, number, _ in items]
        ),
        target_names=list(GROUPS),
        target=np.array([t for t, _, _ in items]),
        DESCR=None,
    )


@pytest.fixture
def news_home(tmp_path):
    """A data home holding a tiny 20 Newsgroups cache in scikit-learn's format."""
    train = [
        (1, 62000, LONG_BODY),
        (0, 51200, "God and religion are discussed at length in this newsgroup, again."),
        (1, 60001, "Too short to keep: five words."),
        (0, 49960, "> quoted line\nA reply with enough words to be kept in the corpus."),
    ]
    test = [
        (1, 61500, "Another space message with more than ten words in its body text."),
        (0, 53068, "Short."),
    ]
    cache = {"train": _subset(train, "train"), "test": _subset(test, "test")}
    home = tmp_path / "home"
    home.mkdir()
    (home / "20news-bydate_py3.pkz").write_bytes(codecs.encode(pickle.dumps(cache), "zlib_codec"))
    return home


def test_fetch_20newsgroups_clean(news_home):
    bunch = fetch_20newsgroups_clean(data_home=news_home, download_if_missing=False)
    assert isinstance(bunch, Bunch)
    assert bunch.target_names == GROUPS
    assert [name.rsplit("/", 1)[1] for name in bunch.filenames] == [
        "49960",
        "51200",
        "61500",
        "62000",
    ]
    np.testing.assert_array_equal(bunch.target, [0, 0, 1, 1])
    assert bunch.target.dtype.kind == "i"
    # Headers, footers, URLs and e-mail addresses removed; quotes kept; one line.
    assert bunch.data[0] == ("> quoted line A reply with enough words to be kept in the corpus.")
    assert bunch.data[3] == (
        "The launch window opens next week and the crew is ready to go, see or write "
        "to for details."
    )
    for doc in bunch.data:
        assert "From:" not in doc and "@" not in doc and "John Doe" not in doc
        assert "\n" not in doc and count_words(doc) >= 10
    assert "18,601" in bunch.DESCR


def test_fetch_20newsgroups_clean_options(news_home):
    kwargs = dict(data_home=news_home, download_if_missing=False)
    train = fetch_20newsgroups_clean(subset="train", **kwargs)
    assert len(train.data) == 3
    test = fetch_20newsgroups_clean(subset="test", **kwargs)
    assert len(test.data) == 1 and test.target_names == GROUPS

    everything = fetch_20newsgroups_clean(min_words=0, **kwargs)
    assert len(everything.data) == 6
    assert "Too short to keep: five words." in everything.data

    quotes = fetch_20newsgroups_clean(remove=("headers", "footers", "quotes"), **kwargs)
    assert quotes.data[0].startswith("A reply")

    space = fetch_20newsgroups_clean(categories=["sci.space"], **kwargs)
    assert space.target_names == ["sci.space"]
    np.testing.assert_array_equal(space.target, [0, 0])

    data, target = fetch_20newsgroups_clean(return_X_y=True, **kwargs)
    assert len(data) == len(target) == 4

    by_name = dict(zip(fetch_20newsgroups_clean(**kwargs).filenames, data))
    a = fetch_20newsgroups_clean(shuffle=True, random_state=1, **kwargs)
    b = fetch_20newsgroups_clean(shuffle=True, random_state=1, **kwargs)
    assert a.data == b.data and sorted(a.data) == sorted(data)
    for doc, name in zip(a.data, a.filenames):
        assert doc == by_name[name]

    with pytest.raises(ValueError, match="subset"):
        fetch_20newsgroups_clean(subset="validation", **kwargs)


def test_fetch_20newsgroups_clean_missing(tmp_path):
    with pytest.raises(FileNotFoundError) as info:
        fetch_20newsgroups_clean(data_home=tmp_path, download_if_missing=False)
    assert str(tmp_path / "20news-bydate_py3.pkz") in str(info.value)
    assert "download_if_missing=True" in str(info.value)

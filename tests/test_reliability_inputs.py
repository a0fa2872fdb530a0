"""Input folders read by the command line: a subfolder that cannot be listed is an
error naming it, never a corpus with its documents missing."""

import os

import pytest
from _unprivileged import permissions_apply, run_python

from sklearn_shufdiv.__main__ import main

#: Reads the folder given as argv[1] as the command line does, in a process subject to
#: file permissions; prints the error's class and message, or how many documents it read.
READ_FOLDER = (
    "import sys\n"
    "from sklearn_shufdiv._cli._readers import read_folder\n"
    "from pathlib import Path\n"
    "try:\n"
    "    corpus = read_folder(Path(sys.argv[1]))\n"
    "except Exception as exc:\n"
    "    print(type(exc).__name__, exc)\n"
    "else:\n"
    "    print('read', len(corpus.texts))\n")


@pytest.fixture
def articles(tmp_path):
    """in/ with 8 readable articles and 3 in in/locked/."""
    root = tmp_path / "in"
    for i in range(8):
        (root / "open").mkdir(parents=True, exist_ok=True)
        (root / "open" / f"{i}.txt").write_text(f"Article {i}. It has words.")
    (root / "locked").mkdir()
    for i in range(3):
        (root / "locked" / f"{i}.txt").write_text(f"Hidden {i}. It has words.")
    return root


def test_a_subfolder_that_cannot_be_listed_is_an_error(articles, tmp_path, capsys,
                                                      monkeypatch):
    locked = articles / "locked"
    scandir = os.scandir

    def refuse(path="."):
        if os.fspath(path) == os.fspath(locked):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", refuse)
    out = tmp_path / "o.csv"
    status = main(["cluster", str(articles), "-k", "2", "-o", str(out),
                   "--method", "frozen"])
    err = capsys.readouterr().err
    assert status == 2, err
    assert f"{locked}: cannot list this folder (Permission denied)" in err
    assert "chmod a+rx" in err and not out.exists()


def test_an_unreadable_subfolder_is_an_error_under_real_permissions(articles):
    locked = articles / "locked"
    locked.chmod(0)
    try:
        if not permissions_apply(locked / "0.txt"):
            pytest.skip("file permissions do not apply to this test's subprocess")
        done = run_python(READ_FOLDER, articles)
    finally:
        locked.chmod(0o755)
    assert done.returncode == 0, done.stderr
    assert f"CLIError {locked}: cannot list this folder (Permission denied)" in done.stdout


def test_a_subfolder_that_can_be_listed_but_not_entered_is_an_error(articles):
    locked = articles / "locked"
    locked.chmod(0o644)  # its names can be read, its files cannot be opened
    try:
        if not permissions_apply(locked / "0.txt"):
            pytest.skip("file permissions do not apply to this test's subprocess")
        done = run_python(READ_FOLDER, articles)
    finally:
        locked.chmod(0o755)
    assert done.returncode == 0, done.stderr
    assert f"CLIError {locked}: cannot open the files of this folder" in done.stdout, \
        done.stdout

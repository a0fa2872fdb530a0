"""The command line's inputs: which files of a folder are read, symbolic links out of
the input folder, subfolders that cannot be listed, text that is not UTF-8, and what is
said about the input's format."""

import csv
import json
import os

import pytest
from _unprivileged import permissions_apply, run_python

from sklearn_shufdiv.__main__ import main

FAST = ["--method", "frozen", "--max-length", "32", "--quiet"]


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def fields(out):
    return dict(line.split(":", 1) for line in out.splitlines() if ":" in line)


def assert_refused(status, out, err, message):
    assert status == 2 and out == ""
    assert err.startswith("error: ") and "Traceback" not in err
    assert message in err, err


# -- symbolic links ------------------------------------------------------------------


def test_symlink_out_of_the_input_folder_is_refused(capsys, tmp_path, folder,
                                                    tiny_bert_path):
    secret = tmp_path / "private.txt"
    secret.write_text("not part of the corpus", encoding="utf-8")
    (folder / "sport" / "link.txt").symlink_to(secret)
    status, out, err = run(capsys, "cluster", folder, "-k", 4, "-o", tmp_path / "o.csv",
                           "--model", tiny_bert_path, *FAST)
    assert_refused(status, out, err, f"{folder / 'sport' / 'link.txt'}: a symbolic link to "
                                     f"{secret.resolve()}, outside the input folder")


def test_symlink_inside_the_input_folder_is_read(capsys, tmp_path, folder, tiny_bert_path):
    (folder / "space" / "again.txt").symlink_to(folder / "space" / "doc04.txt")
    output = tmp_path / "o.csv"
    status, out, err = run(capsys, "cluster", folder, "-k", 4, "-o", output,
                           "--model", tiny_bert_path, *FAST)
    assert status == 0, err
    ids = [row[0] for row in csv.reader(output.open(encoding="utf-8"))][1:]
    assert "space/again.txt" in ids and len(ids) == 17


def test_broken_symlink_is_named(capsys, tmp_path, folder):
    (folder / "space" / "gone.txt").symlink_to(tmp_path / "deleted.txt")
    status, out, err = run(capsys, "cluster", folder, "-k", 4, "-o", tmp_path / "o.csv")
    assert_refused(status, out, err, f"{folder / 'space' / 'gone.txt'}: a broken symbolic "
                                     "link")


# -- text that is not UTF-8 ----------------------------------------------------------


@pytest.fixture
def latin(folder):
    path = folder / "cooking" / "latin.txt"
    path.write_bytes("Caf\xe9 recipe. Bake the bread in the oven.".encode("latin-1"))
    return path


def test_encoding_errors_strict_names_the_options(capsys, tmp_path, latin):
    status, out, err = run(capsys, "cluster", latin.parents[1], "-k", 4, "-o",
                           tmp_path / "o.csv")
    assert_refused(status, out, err, f"{latin}: not valid UTF-8 (byte 0xe9")
    assert "--encoding-errors skip" in err


@pytest.mark.parametrize("mode, key, documents", [("skip", "skipped", 16),
                                                ("replace", "replaced", 17)])
def test_encoding_errors_skip_and_replace(capsys, tmp_path, latin, tiny_bert_path, mode, key,
                                          documents):
    output = tmp_path / "o.csv"
    status, out, err = run(capsys, "cluster", latin.parents[1], "-k", 4, "-o", output,
                           "--encoding-errors", mode, "--model", tiny_bert_path, *FAST)
    assert status == 0, err
    summary = fields(out)
    assert summary["documents"].strip() == str(documents)
    assert summary[key].strip() == f"1 text not valid UTF-8 (first: {latin})"
    ids = [row[0] for row in csv.reader(output.open(encoding="utf-8"))][1:]
    assert ("cooking/latin.txt" in ids) == (mode == "replace")


def test_encoding_errors_on_lines(capsys, tmp_path, tiny_bert_path):
    path = tmp_path / "docs.txt"
    path.write_bytes(b"first doc here\nna\xefve line\nthird doc\nfourth doc\n")
    status, out, err = run(capsys, "cluster", path, "-k", 2, "-o", tmp_path / "o.csv",
                           "--encoding-errors", "skip", "--model", tiny_bert_path,
                           "--method", "frozen", "--max-length", "32", "--lexical-weight", "0")
    assert status == 0, err
    assert fields(out)["skipped"].strip() == f"1 text not valid UTF-8 (first: {path}, line 2)"
    assert "(1 text not valid UTF-8 skipped;" in err.splitlines()[0]


# -- what is said about the input ----------------------------------------------------


def test_first_line_says_how_the_input_is_read(capsys, tmp_path, tiny_bert_path):
    article = tmp_path / "article.txt"
    article.write_text("A title\n\nFirst paragraph.\nSecond paragraph.\n", encoding="utf-8")
    status, out, err = run(capsys, "cluster", article, "-k", 2, "-o", tmp_path / "o.csv",
                           "--model", tiny_bert_path, "--method", "frozen",
                           "--max-length", "32", "--lexical-weight", "0")
    assert status == 0, err
    first = err.splitlines()[0]
    assert first.startswith(f"read 3 documents from {article} as lines: one document per "
                            "line")
    assert "for one document per file, give a folder of .txt files" in first
    assert out.splitlines()[0] == f"input:        {article} (lines: one document per line)"


def test_a_folder_reads_txt_in_any_case_and_names_the_files_left_out(capsys, folder,
                                                                      tmp_path,
                                                                      tiny_bert_path):
    min((folder / "sport").iterdir()).rename(folder / "sport" / "README.TXT")
    min((folder / "space").iterdir()).rename(folder / "space" / "notes.Txt")
    (folder / "cooking" / "recipe.md").write_text("Not a document.", encoding="utf-8")
    output = tmp_path / "o.csv"
    status, out, err = run(capsys, "cluster", folder, "-k", 4, "-o", output, "--report",
                           tmp_path / "r.json", "--model", tiny_bert_path, "--method",
                           "frozen", "--max-length", "32", "--lexical-weight", "0")
    assert status == 0, err
    ids = [row[0] for row in csv.reader(output.open(encoding="utf-8"))][1:]
    assert len(ids) == 16 and {"sport/README.TXT", "space/notes.Txt"} <= set(ids)
    assert "1 file not named *.txt left out: cooking/recipe.md" in err.splitlines()[0]
    assert fields(out)["left out"].strip() == "1 file not named *.txt (first: cooking/recipe.md)"
    assert json.loads((tmp_path / "r.json").read_text())["other_files"] == ["cooking/recipe.md"]


def test_a_folder_of_other_files_says_how_to_name_them(capsys, tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.md").write_text("Some text.", encoding="utf-8")
    status, out, err = run(capsys, "cluster", tmp_path / "in", "-k", 2, "-o",
                           tmp_path / "o.csv")
    assert status == 2 and "no .txt file in this folder" in err
    assert "1 other file(s), e.g. a.md, are not read: name the documents *.txt" in err


def test_help_says_which_files_of_a_folder_are_read(capsys):
    status, out, _ = run(capsys, "cluster", "--help")
    text = " ".join(out.split())
    assert status == 0
    assert "whose name ends in .txt, in any case (.TXT, .Txt)" in text
    assert "other files are left out, and the first output line names them" in text


def test_one_document_is_singular(capsys, tmp_path):
    path = tmp_path / "docs.txt"
    path.write_text("just one document\n", encoding="utf-8")
    status, out, err = run(capsys, "cluster", path, "-k", 2, "-o", tmp_path / "o.csv")
    assert_refused(status, out, err, "1 document cannot make 2 clusters")


# -- subfolders that cannot be listed or entered --------------------------------------
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

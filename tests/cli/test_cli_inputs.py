"""The command line's files: outputs that may not replace input or earlier results,
symbolic links out of the input folder, text that is not UTF-8, and what is said about
the input's format."""

import csv
import os

import pytest

from sklearn_shufdiv.__main__ import main

FAST = ["--method", "frozen", "--max-length", "32", "--quiet"]
TOPIC_NAMES = ["sport", "space", "cooking", "finance"]


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def fields(out):
    return dict(line.split(":", 1) for line in out.splitlines() if ":" in line)


@pytest.fixture
def folder(tmp_path, corpus):
    """16 documents in 4 topic folders."""
    docs, labels = corpus
    root = tmp_path / "in"
    for i, (doc, label) in enumerate(zip(docs[::3], labels[::3])):
        (root / TOPIC_NAMES[label]).mkdir(parents=True, exist_ok=True)
        (root / TOPIC_NAMES[label] / f"doc{i:02d}.txt").write_text(doc, encoding="utf-8")
    return root


def assert_refused(status, out, err, message):
    assert status == 2 and out == ""
    assert err.startswith("error: ") and "Traceback" not in err
    assert message in err, err


# -- outputs -------------------------------------------------------------------------


def test_output_inside_the_input_is_refused(capsys, folder, tiny_bert_path):
    document = folder / "sport" / "doc00.txt"
    before = document.read_bytes()
    status, out, err = run(capsys, "cluster", folder, "-k", 4, "-o", document, "--overwrite",
                           "--model", tiny_bert_path, *FAST)
    assert_refused(status, out, err, f"{document}: is inside the input folder")
    assert document.read_bytes() == before
    status, out, err = run(capsys, "cluster", folder, "-k", 4, "-o", folder / "new.csv",
                           "--model", tiny_bert_path, *FAST)
    assert_refused(status, out, err, "is inside the input folder")
    assert not (folder / "new.csv").exists()


def test_output_that_is_the_input_file_is_refused(capsys, tmp_path, tiny_bert_path):
    lines = tmp_path / "docs.txt"
    lines.write_text("one doc\nanother doc\nthird doc\n", encoding="utf-8")
    status, out, err = run(capsys, "cluster", lines, "-k", 2, "-o", lines, "--overwrite",
                           "--model", tiny_bert_path, *FAST)
    assert_refused(status, out, err, f"{lines}: is the input")
    assert lines.read_text(encoding="utf-8") == "one doc\nanother doc\nthird doc\n"


def test_existing_output_needs_overwrite(capsys, tmp_path, folder, tiny_bert_path):
    output = tmp_path / "clusters.csv"
    output.write_text("earlier results\n", encoding="utf-8")
    status, out, err = run(capsys, "cluster", folder, "-k", 4, "-o", output,
                           "--model", tiny_bert_path, *FAST)
    assert_refused(status, out, err, f"{output}: exists already; pass --overwrite")
    assert output.read_text(encoding="utf-8") == "earlier results\n"

    status, out, err = run(capsys, "cluster", folder, "-k", 4, "-o", output, "--overwrite",
                           "--model", tiny_bert_path, *FAST)
    assert status == 0, err
    rows = list(csv.reader(output.open(encoding="utf-8")))
    assert rows[0] == ["id", "cluster"] and len(rows) == 17
    assert sorted(os.listdir(tmp_path)) == ["clusters.csv", "in"]  # no temporary file left


def test_one_path_for_two_outputs_is_refused(capsys, tmp_path, folder, tiny_bert_path):
    status, out, err = run(capsys, "cluster", folder, "-k", 4, "-o", tmp_path / "a.csv",
                           "--report", tmp_path / "a.csv", "--model", tiny_bert_path, *FAST)
    assert_refused(status, out, err, "a.csv: given to both --output and --report")


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


def test_one_document_is_singular(capsys, tmp_path):
    path = tmp_path / "docs.txt"
    path.write_text("just one document\n", encoding="utf-8")
    status, out, err = run(capsys, "cluster", path, "-k", 2, "-o", tmp_path / "o.csv")
    assert_refused(status, out, err, "1 document cannot make 2 clusters")

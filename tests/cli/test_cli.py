"""End-to-end tests of the command line, with the tiny local BERT of conftest.

``main([...])`` runs in-process; one subprocess checks ``python -m sklearn_shufdiv``.
"""

import csv
import dataclasses
import hashlib
import json
import re
import subprocess
import sys
import zipfile

import pytest

from sklearn_shufdiv.__main__ import main
from sklearn_shufdiv.datasets import _bbc

FAST = ["--max-epochs", "1", "--batch-size", "8", "--max-length", "32", "--quiet"]
TOPIC_NAMES = ["sport", "space", "cooking", "finance"]

# Bounds on the scores of the 16-document, 4-topic runs below, which a broken method would
# miss. The tiny BERT differs from one test session to the next (its WordPiece vocabulary
# is trained anew, and the trainer breaks ties at random), so they were measured over 10
# sessions (1 epoch): Shuffle & Divide on the folder and TF-IDF positives on the JSON lines
# gave ACC 0.875-1.0, AMI 0.789-1.0, silhouette 0.270-0.446. A random labelling of these
# documents reaches ACC >= 0.75 in 0.14% of 5,000 draws (a constant one gives 0.25), AMI
# >= 0.5 in none (>= 0.3 in 1.3%), and, on the tiny BERT's embeddings, a silhouette of
# 0.129 at most in 1,000.
TUNED_ACC, TUNED_AMI, SILHOUETTE = 0.8, 0.6, 0.2


@pytest.fixture(scope="module")
def small(corpus):
    """16 documents, 4 per topic, with topic names as labels."""
    docs, labels = corpus
    return docs[::3], [TOPIC_NAMES[i] for i in labels[::3]]


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as file:
        return list(csv.reader(file))


def summary(out):
    return dict(line.split(":", 1) for line in out.splitlines() if ":" in line)


# -- help ------------------------------------------------------------------------------


def test_help_subprocess():
    done = subprocess.run([sys.executable, "-m", "sklearn_shufdiv", "--help"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0
    assert "cluster" in done.stdout and "demo" in done.stdout
    assert done.stderr == ""


@pytest.mark.parametrize("command, option", [("cluster", "--label-from-folder"),
                                             ("demo", "--n-docs")])
def test_command_help(capsys, command, option):
    status, out, _ = run(capsys, command, "--help")
    assert status == 0
    assert option in out and "--max-length" in out


# -- the three input formats -----------------------------------------------------------


def test_folder_with_labels(tmp_path, capsys, small, tiny_bert_path):
    docs, labels = small
    root = tmp_path / "docs"
    for i, (doc, label) in enumerate(zip(docs, labels)):
        folder = root / label / ("nested" if i % 4 == 0 else "")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{i:02d}.txt").write_text(doc, encoding="utf-8")
    (root / "sport" / "notes.md").write_text("not a document")
    output = tmp_path / "clusters.csv"
    fast = [a for a in FAST if a != "--quiet"]  # progress on: it must go to stderr
    status, out, err = run(capsys, "cluster", root, "-k", 4, "-o", output,
                           "--label-from-folder", "--model", tiny_bert_path, *fast)
    assert status == 0, err
    rows = read_csv(output)
    assert rows[0] == ["id", "cluster"]
    expected = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.txt"))
    assert [row[0] for row in rows[1:]] == expected
    assert "sport/nested/00.txt" in expected
    assert {row[1] for row in rows[1:]} <= {"0", "1", "2", "3"}
    fields = summary(out)
    assert fields["documents"].strip() == "16"
    assert 0 <= float(fields["ACC"]) <= 1 and -1 <= float(fields["AMI"]) <= 1
    assert -1 <= float(fields["silhouette"].split()[0]) <= 1
    assert float(fields["ACC"]) >= TUNED_ACC and float(fields["AMI"]) >= TUNED_AMI
    assert float(fields["silhouette"].split()[0]) >= SILHOUETTE
    assert sum(int(s.split(":")[1]) for s in fields["sizes"].split(",")) == 16
    assert "epoch 1: loss" in err and "epoch 1: loss" not in out


def test_lines_frozen(tmp_path, capsys, small, tiny_bert_path):
    docs, _ = small
    path = tmp_path / "docs.txt"
    path.write_text("\n".join([docs[0], "", "   ", *docs[1:]]) + "\n", encoding="utf-8")
    output = tmp_path / "out.csv"
    status, out, err = run(capsys, "cluster", path, "-k", 3, "-o", output, "--method",
                           "frozen", "--model", tiny_bert_path, *FAST)
    assert status == 0, err
    assert err == ""  # --quiet
    rows = read_csv(output)
    assert rows[0] == ["id", "cluster"]
    assert [row[0] for row in rows[1:]] == ["1", *(str(n) for n in range(4, 19))]
    fields = summary(out)
    assert "untuned" in fields["epoch"]
    assert "ACC" not in fields


def test_jsonl_tfidf_with_labels(tmp_path, capsys, small, tiny_bert_path):
    docs, labels = small
    path = tmp_path / "docs.jsonl"
    lines = [json.dumps({"body": d, "topic": t, "key": f"doc-{i}", "other": [1]})
             for i, (d, t) in enumerate(zip(docs, labels))]
    path.write_text("\n".join(lines[:5] + [""] + lines[5:]), encoding="utf-8")
    output = tmp_path / "out.csv"
    status, out, err = run(capsys, "cluster", path, "-k", 4, "-o", output, "--method",
                           "tfidf", "--text-field", "body", "--id-field", "key",
                           "--label-field", "topic", "--model", tiny_bert_path, *FAST)
    assert status == 0, err
    rows = read_csv(output)
    assert [row[0] for row in rows[1:]] == [f"doc-{i}" for i in range(16)]
    fields = summary(out)
    assert fields["method"].strip() == "tfidf"
    assert fields["classes"].strip() == "4"
    assert "ACC" in fields and "AMI" in fields
    assert float(fields["ACC"]) >= TUNED_ACC and float(fields["AMI"]) >= TUNED_AMI


# -- errors: exit status 2, a clear message on stderr, no traceback --------------------


def _write(path, content):
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


GOOD = json.dumps({"text": "A document. Another sentence."})
ERROR_CASES = {
    "invalid-json": ("docs.jsonl", "\n".join([GOOD] * 6 + ['{"text": "oops"'] + [GOOD]),
                     [], r"docs\.jsonl, line 7: invalid JSON"),
    "missing-text": ("docs.jsonl", "\n".join([GOOD, GOOD, json.dumps({"body": "x"})]),
                     [], r"docs\.jsonl, line 3: missing field 'text' \(fields found: 'body'\)"),
    "non-string-text": ("docs.jsonl", "\n".join([GOOD, json.dumps({"text": 3})]),
                        [], r"line 2: field 'text' is a number, not a string"),
    "not-an-object": ("docs.jsonl", "[1, 2]\n", [], r"line 1: expected a JSON object"),
    "missing-label": ("docs.jsonl", GOOD, ["--label-field", "y"], r"line 1: missing field 'y'"),
    "duplicate-id": ("docs.jsonl", '{"text": "a", "i": 1}\n{"text": "b", "i": 1}',
                     ["--id-field", "i"], r"line 2: duplicate id '1' \(first at line 1\)"),
    "empty-file": ("docs.txt", "", [], r"docs\.txt: empty input"),
    "blank-lines": ("docs.jsonl", "\n  \n\n", [], r"docs\.jsonl: empty input"),
    "non-utf8-lines": ("docs.txt", b"fine\nna\xefve caf\xe9\n", [],
                       r"docs\.txt, line 2: not valid UTF-8 \(byte 0xef"),
    "label-field-on-lines": ("docs.txt", "a doc\n", ["--label-field", "y"],
                             r"--label-field need JSON lines"),
    "too-many-clusters": ("docs.txt", "one\ntwo\n", [], r"2 documents cannot make 3 clusters"),
}


@pytest.mark.parametrize("case", ERROR_CASES, ids=list(ERROR_CASES))
def test_input_errors(tmp_path, capsys, case):
    name, content, extra, message = ERROR_CASES[case]
    path = _write(tmp_path / name, content)
    status, out, err = run(capsys, "cluster", path, "-k", 3, "-o", tmp_path / "o.csv", *extra)
    assert status == 2
    assert err.startswith("error: ") and "Traceback" not in err
    assert str(path) in err
    assert re.search(message, err), err
    assert out == "" and not (tmp_path / "o.csv").exists()


def test_folder_errors(tmp_path, capsys):
    (tmp_path / "empty" / "sub").mkdir(parents=True)
    (tmp_path / "empty" / "sub" / "a.md").write_text("no txt")
    status, _, err = run(capsys, "cluster", tmp_path / "empty", "-k", 2, "-o", "x.csv")
    assert status == 2 and "empty: no .txt file in this folder" in err

    bad = tmp_path / "bad"
    (bad / "b").mkdir(parents=True)
    (bad / "b" / "ok.txt").write_text("fine")
    (bad / "b" / "latin.txt").write_bytes(b"caf\xe9")
    status, _, err = run(capsys, "cluster", bad, "-k", 2, "-o", "x.csv")
    assert status == 2 and f"{bad / 'b' / 'latin.txt'}: not valid UTF-8 (byte 0xe9" in err

    (bad / "b" / "latin.txt").write_text("fixed")
    (bad / "loose.txt").write_text("not in a label folder")
    status, _, err = run(capsys, "cluster", bad, "-k", 2, "-o", "x.csv", "--label-from-folder")
    assert status == 2 and "loose.txt: --label-from-folder needs every file in a subfolder" in err


def test_path_and_option_errors(tmp_path, capsys, tiny_bert_path):
    docs = _write(tmp_path / "docs.txt", "one. two.\nthree. four.\nfive.\n")
    cases = [
        (["cluster", tmp_path / "nope.txt", "-k", 2, "-o", "x.csv"], "nope.txt: no such file"),
        (["cluster", docs, "-k", 2, "-o", tmp_path / "no" / "x.csv"], "does not exist"),
        (["cluster", docs, "-k", 2, "-o", tmp_path], "is a folder"),
        (["cluster", docs, "-k", 2, "-o", tmp_path / "x.csv", "--format", "folder"],
         "is a file, which --format folder cannot read"),
        (["cluster", docs, "-k", 2, "-o", tmp_path / "x.csv", "--model",
          tmp_path / "no-model"], "Could not load the model"),
        (["cluster", docs, "-k", 2, "-o", tmp_path / "x.csv", "--model", tiny_bert_path,
          "--max-epochs", 1, "--quiet"], "needs at least 2 training pairs"),
        (["demo", "--data-home", tmp_path, "--no-download"], "bbc-fulltext.zip"),
    ]
    for argv, message in cases:
        status, out, err = run(capsys, *argv)
        assert status == 2, argv
        last = err.splitlines()[-1]  # after the progress notes, if any
        assert last.startswith("error: ") and message in last and "Traceback" not in err, err
        assert out == ""


def test_usage_errors(capsys):
    status, _, err = run(capsys, "cluster", "docs.txt")
    assert status == 2 and "the following arguments are required: -o/--output" in err
    status, _, err = run(capsys, "cluster", "docs.txt", "-k", 1, "-o", "x.csv")
    assert status == 2 and "below the minimum, 2" in err
    assert run(capsys)[0] == 2


# -- demo ------------------------------------------------------------------------------


def _fake_bbc(tmp_path, monkeypatch, corpus):
    """A 48-document BBC archive of ``corpus`` in a data home that SCIKIT_LEARN_DATA names."""
    docs, labels = corpus
    classes = ["business", "politics", "sport", "tech"]
    with zipfile.ZipFile(tmp_path / "bbc-fulltext.zip", "w") as archive:
        for i, (doc, label) in enumerate(zip(docs, labels)):
            archive.writestr(f"bbc/{classes[label]}/{i:03d}.txt", f"Title {i}\n\n{doc}\n")
    monkeypatch.setenv("SCIKIT_LEARN_DATA", str(tmp_path))
    # The loader verifies the cached archive's sha256: pin the fake's.
    digest = hashlib.sha256((tmp_path / "bbc-fulltext.zip").read_bytes()).hexdigest()
    monkeypatch.setattr(_bbc, "_BBC", dataclasses.replace(_bbc._BBC, sha256=digest))


def test_demo_with_a_fake_bbc(tmp_path, capsys, monkeypatch, corpus, tiny_bert_path):
    _fake_bbc(tmp_path, monkeypatch, corpus)
    status, out, err = run(capsys, "demo", "--n-docs", 16, "--no-download", "--model",
                           tiny_bert_path, *FAST)
    assert status == 0, err
    assert "bbc, 16 of 48 documents, 4 classes" in out
    rows = {line.split()[0]: line.split()[-4:-1] for line in out.splitlines()
            if line.startswith(("encoder", "shuffle-divide"))}
    assert set(rows) == {"encoder", "encoder+words", "shuffle-divide"}
    for acc, ami, silhouette in rows.values():
        assert 0 < float(acc) <= 1 and -1 <= float(ami) <= 1 and -1 <= float(silhouette) <= 1
    # Over 10 runs (seed 0 draws 16 of the 48 documents): Shuffle &
    # Divide ACC 0.75-1.0, AMI 0.653-1.0, silhouette 0.271-0.421; the frozen encoder,
    # clustered by a single k-means run, ACC 0.4375-1.0, AMI 0.367-1.0, silhouette
    # 0.236-0.419 (its bound is loose until SphericalKMeans' default runs more than once).
    bounds = {"encoder": (0.4, 0.3), "encoder+words": (0.4, 0.3),
              "shuffle-divide": (0.65, 0.45)}
    for name, (acc, ami, silhouette) in rows.items():
        assert float(acc) >= bounds[name][0] and float(ami) >= bounds[name][1], rows
        assert float(silhouette) >= 0.2, rows
    assert "chosen epoch:" in out and "of 1 (by untuned silhouette; 0 = untuned)" in out


def test_the_demo_does_not_train_on_a_cpu_unless_asked(tmp_path, capsys, monkeypatch, corpus,
                                                       tiny_bert_path):
    _fake_bbc(tmp_path, monkeypatch, corpus)
    fast = [option for option in FAST if option not in ("--max-epochs", "1")]
    status, out, err = run(capsys, "demo", "--n-docs", 16, "--no-download", "--model",
                           tiny_bert_path, "--device", "cpu", *fast)
    assert status == 0, err
    rows = [line.split()[0] for line in out.splitlines()
            if line.startswith(("encoder", "shuffle-divide"))]
    assert rows == ["encoder", "encoder+words"]
    assert "fine-tuning:  not run" in out and "chosen epoch" not in out
    assert "no training" in out  # the settings line


def test_the_demo_runs_the_encoder_once_for_both_frozen_rows(tmp_path, capsys, monkeypatch,
                                                             corpus, tiny_bert_path):
    from sklearn_shufdiv import ShuffleDivideEmbedder

    _fake_bbc(tmp_path, monkeypatch, corpus)
    sizes = []
    transform = ShuffleDivideEmbedder.transform

    def counting(self, X):
        sizes.append(len(X))
        return transform(self, X)

    monkeypatch.setattr(ShuffleDivideEmbedder, "transform", counting)
    argv = ["demo", "--n-docs", 16, "--no-download", "--model", tiny_bert_path,
            "--device", "cpu", "--max-length", "32", "--quiet"]
    status, out, err = run(capsys, *argv)
    assert status == 0, err
    assert sizes == [16]  # one pass of the encoder over the documents
    rows = {line.split()[0]: line.split()[1:4] for line in out.splitlines()
            if line.startswith("encoder")}
    assert "share one pass of the encoder" in out
    # The encoder's row is the encoder alone: what a run without the words gives.
    status, out, err = run(capsys, *argv, "--lexical-weight", "0")
    assert status == 0, err
    alone = {line.split()[0]: line.split()[1:4] for line in out.splitlines()
             if line.startswith("encoder")}
    assert rows["encoder"] == alone["encoder+words"] == alone["encoder"]


def test_a_failed_checkpoint_write_keeps_the_trained_model(tmp_path, capsys, small,
                                                           tiny_bert_path, monkeypatch):
    from sklearn_shufdiv.embedders._training import _checkpoint

    def full_disk(tensors, path, *args, **kwargs):
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(_checkpoint, "save_file", full_disk)
    docs, _ = small
    path = tmp_path / "docs.txt"
    path.write_text("\n".join(docs) + "\n", encoding="utf-8")
    output = tmp_path / "out.csv"
    status, out, err = run(capsys, "cluster", path, "-k", 3, "-o", output, "--model",
                           tiny_bert_path, "--checkpoint-dir", tmp_path / "ck", *FAST)
    assert status == 0, err
    assert "warning: checkpoint_dir=" in err and "could not be written" in err, err
    assert len(read_csv(output)) == len(docs) + 1  # every document clustered
    assert summary(out)["epoch"].strip().endswith("of 1 (by untuned silhouette; 0 = untuned)")


# -- what a run shows while it works ---------------------------------------------------


def test_an_interruptions_error_starts_on_a_line_of_its_own(tiny_bert_path, small, tmp_path,
                                                            capsys, interrupt_at):
    docs, _ = small
    (tmp_path / "docs.txt").write_text("\n".join(docs))
    interrupt_at(2)  # inside epoch 1, after its progress bar moved
    status, out, err = run(capsys, "cluster", tmp_path / "docs.txt", "-k", 4, "-o",
                           tmp_path / "out.csv", "--model", tiny_bert_path,
                           *[option for option in FAST if option != "--quiet"],
                           "--batch-size", 4)
    assert status == 130
    assert "views [" in err  # the training bar was drawn
    error = err.index("error: interrupted during training")
    assert err[error - 1] == "\n", err[error - 80:error + 10]


def test_the_selections_embedding_passes_show_a_bar_unless_quiet(tiny_bert_path, small,
                                                                tmp_path, capsys):
    docs, _ = small
    (tmp_path / "docs.txt").write_text("\n".join(docs))
    argv = ["cluster", tmp_path / "docs.txt", "-o", tmp_path / "out.csv", "--model",
            tiny_bert_path, *[option for option in FAST if option != "--quiet"]]
    status, out, err = run(capsys, *argv)
    assert status == 0, err
    training = err.index("epoch 1/1")
    # Epoch 0 (the untuned encoder) is embedded before training, epoch 1 after it; each
    # pass of the selection, and the choice of the number of clusters, shows a bar.
    assert "embedding:" in err[:training] and "embedding:" in err[training:]
    assert "modularity:" in err[:training]
    status, out, err = run(capsys, *argv, "--quiet", "--overwrite")
    assert status == 0 and err == ""

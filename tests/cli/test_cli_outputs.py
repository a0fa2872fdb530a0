"""The command line's outputs: they may not replace the input or earlier results; on
an unusual filesystem, permissions as ``open`` gives them, links and devices written
through, write errors reported, and a folder that cannot be written found before any
work."""

import csv
import os
import stat
import threading

import numpy as np
import pytest
from _unprivileged import run_python

from sklearn_shufdiv.__main__ import main
from sklearn_shufdiv._cli import CLIError, _outputs
from sklearn_shufdiv._cli._outputs import check_outputs, write_csv, write_report

FAST = ["--method", "frozen", "--max-length", "32", "--quiet"]


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def assert_refused(status, out, err, message):
    assert status == 2 and out == ""
    assert err.startswith("error: ") and "Traceback" not in err
    assert message in err, err



@pytest.fixture
def umask():
    """Set the umask for the test, and put the previous one back."""
    previous = os.umask(0o022)
    yield os.umask
    os.umask(previous)


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def _csv(path):
    return path.read_text(encoding="utf-8").splitlines()


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



def test_a_plot_format_matplotlib_cannot_write_fails_before_any_work(capsys, tmp_path,
                                                                     folder, monkeypatch):
    pytest.importorskip("matplotlib")
    from sklearn_shufdiv._cli import _cluster

    monkeypatch.setattr(_cluster, "plan_run", None)  # no model is loaded, nothing embedded
    status, out, err = run(capsys, "cluster", folder, "-k", 4, "-o", tmp_path / "o.csv",
                           "--plot", tmp_path / "map.xyz")
    assert_refused(status, out, err, f"--plot {tmp_path / 'map.xyz'}: .xyz is no image "
                                     "format matplotlib writes; end the name in .png")
    assert not (tmp_path / "o.csv").exists()


# -- permissions -------------------------------------------------------------------------
@pytest.mark.parametrize("mask", [0o022, 0o002, 0o077])
def test_new_outputs_honour_the_umask(tmp_path, umask, mask):
    umask(mask)
    write_csv(tmp_path / "o.csv", ["a", "b"], [0, 1])
    write_report(tmp_path / "r.json", {"k": 1})
    with open(tmp_path / "plain", "w") as file:  # what a plain open gives
        file.write("")
    assert _mode(tmp_path / "o.csv") == _mode(tmp_path / "r.json") == _mode(
        tmp_path / "plain") == 0o666 & ~mask


def test_a_replaced_output_keeps_its_mode(tmp_path, umask):
    path = tmp_path / "o.csv"
    path.write_text("old")
    path.chmod(0o640)
    write_csv(path, ["a"], [0])
    assert _mode(path) == 0o640 and _csv(path) == ["id,cluster", "a,0"]


def test_the_map_honours_the_umask(tmp_path, umask, capsys, corpus, tiny_bert_path):
    pytest.importorskip("matplotlib")
    umask(0o022)
    docs = tmp_path / "docs.txt"
    docs.write_text("\n".join(corpus[0][::3]), encoding="utf-8")
    status = main([str(a) for a in ["cluster", docs, "-k", 4, "-o", tmp_path / "o.csv",
                                    "--plot", tmp_path / "map.png", "--plot-projection",
                                    "pca", "--model", tiny_bert_path, *FAST]])
    assert status == 0, capsys.readouterr().err
    assert (tmp_path / "map.png").read_bytes().startswith(b"\x89PNG")
    assert _mode(tmp_path / "map.png") == _mode(tmp_path / "o.csv") == 0o644


# -- links, devices, pipes ---------------------------------------------------------------
def test_a_link_is_written_through(tmp_path):
    target = tmp_path / "real.csv"
    target.write_text("old")
    link = tmp_path / "o.csv"
    link.symlink_to(target)
    write_csv(link, ["a"], [1])
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert _csv(target) == ["id,cluster", "a,1"]


def test_a_link_to_a_device_is_written_through(tmp_path):
    link = tmp_path / "o.csv"
    link.symlink_to("/dev/null")
    write_csv(link, ["a"], [1])
    assert link.is_symlink()
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_a_full_device_is_a_write_error(tmp_path):
    link = tmp_path / "o.csv"
    link.symlink_to("/dev/full")
    with pytest.raises(CLIError, match=r"o.csv: cannot write it \(No space left on device\)"):
        write_csv(link, [str(i) for i in range(10_000)], np.zeros(10_000, dtype=int))
    assert link.is_symlink()


def test_a_pipe_is_written_to(tmp_path):
    fifo = tmp_path / "o.csv"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    write_csv(fifo, ["a", "b"], [0, 1])
    reader.join(timeout=10)
    assert received == [b"id,cluster\r\na,0\r\nb,1\r\n"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


# -- a folder that cannot be written, found before training -------------------------------
def test_an_unwritable_folder_is_found_by_the_output_check(tmp_path, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()
    mkstemp = _outputs.tempfile.mkstemp

    def refuse(*args, dir=None, **kwargs):
        if str(dir) == str(out):
            raise PermissionError(13, "Permission denied", str(dir))
        return mkstemp(*args, dir=dir, **kwargs)

    monkeypatch.setattr(_outputs.tempfile, "mkstemp", refuse)
    (tmp_path / "in.txt").write_text("x")
    with pytest.raises(CLIError, match=r"o.csv: cannot write there \(Permission denied\)"):
        check_outputs({"--output": out / "o.csv"}, tmp_path / "in.txt")
    assert check_outputs({"--output": tmp_path / "o.csv"}, tmp_path / "in.txt") == {
        "--output": tmp_path / "o.csv"}


def test_an_unwritable_folder_fails_before_training(tmp_path, corpus, tiny_bert_path):
    docs = tmp_path / "docs.txt"
    docs.write_text("\n".join(corpus[0][::3]), encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    out.chmod(0o555)
    script = ("import sys\n"
              "from sklearn_shufdiv._cli import _pipeline\n"
              "def never(*args, **kwargs):\n"
              "    raise SystemExit('trained before the output check')\n"
              "_pipeline.embed_and_cluster = never\n"
              "from sklearn_shufdiv._cli import _cluster\n"
              "_cluster.embed_and_cluster = never\n"
              "from sklearn_shufdiv.__main__ import main\n"
              "sys.exit(main(sys.argv[1:]))\n")
    try:
        done = run_python(script, "cluster", docs, "-k", 4, "-o", out / "o.csv",
                          "--max-epochs", 2, "--model", tiny_bert_path, *FAST)
    finally:
        out.chmod(0o755)
    assert done.returncode == 2, done.stderr
    assert "o.csv: cannot write there (Permission denied)" in done.stderr
    assert os.listdir(out) == []

"""``benchmarks/results_table.py``: the README's results table from the quality summary."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "results_table.py"

BBC = {"method": "default", "corpus": "bbc", "n_docs": 2225, "seeds": 5,
       "acc_mean": 0.9731, "acc_std": 0.0012, "ami_mean": 0.9104, "ami_std": 0.0035,
       "frozen_acc_mean": 0.959, "frozen_ami_mean": 0.876,
       "tfidf_acc_mean": 0.960, "tfidf_ami_mean": 0.877,
       "lsa_acc_mean": 0.968, "lsa_ami_mean": 0.896}
REUTERS = {"method": "default", "corpus": "reuters", "n_docs": 7456, "seeds": 5,
           "acc_mean": 0.430, "acc_std": 0.018, "ami_mean": 0.590, "ami_std": 0.016,
           "frozen_acc_mean": 0.413, "frozen_ami_mean": 0.550,
           "tfidf_acc_mean": 0.436, "tfidf_ami_mean": 0.570,
           "lsa_acc_mean": 0.423, "lsa_ami_mean": 0.584}
OTHERS = [
    # Not the default: left out of the table.
    {"method": "frozen-lexical-0.5", "corpus": "bbc", "n_docs": 2225, "seeds": 5,
     "acc_mean": 0.5, "acc_std": 0.0, "ami_mean": 0.5, "ami_std": 0.0},
    # An older default entry of BBC, replaced by the later one.
    {**BBC, "acc_mean": 0.1, "ami_mean": 0.1},
]


def run(summary, *args, tmp_path):
    path = tmp_path / "summary.json"
    path.write_text(json.dumps(summary), encoding="utf-8")
    return subprocess.run([sys.executable, str(SCRIPT), "--summary", str(path), *args],
                          capture_output=True, text=True, cwd=tmp_path)


def rows(text):
    """The table's body rows, as lists of cells."""
    lines = [line for line in text.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[2:]]


def expected_row(entry, name, documents):
    acc_best = max(entry[f"{v}_acc_mean"] for v in ("frozen", "tfidf", "lsa"))
    ami_best = max(entry[f"{v}_ami_mean"] for v in ("frozen", "tfidf", "lsa"))
    return [name, documents,
            f"{entry['acc_mean']:.3f} ± {entry['acc_std']:.3f}",
            f"{entry['ami_mean']:.3f} ± {entry['ami_std']:.3f}",
            *(f"{entry[f'{v}_acc_mean']:.3f} / {entry[f'{v}_ami_mean']:.3f}"
              for v in ("frozen", "tfidf", "lsa")),
            f"{100 * (entry['acc_mean'] - acc_best):+.1f} / "
            f"{100 * (entry['ami_mean'] - ami_best):+.1f}"]


def test_table_holds_the_default_against_each_single_view(tmp_path):
    done = run([REUTERS, *OTHERS, BBC], tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    # BBC first, whatever the order in the file; the last BBC default entry is shown.
    assert rows(done.stdout) == [expected_row(BBC, "BBC News", "2,225"),
                                 expected_row(REUTERS, "Reuters-10", "7,456")]
    # The differences, computed by hand: BBC against LSA (ACC and AMI); Reuters' ACC
    # against TF-IDF, its AMI against LSA.
    assert rows(done.stdout)[0][-1] == "+0.5 / +1.4"
    assert rows(done.stdout)[1][-1] == "-0.6 / +0.6"
    assert "over 5 seeds" in done.stdout


def test_a_missing_single_view_is_a_dash_and_left_out_of_the_best(tmp_path):
    entry = {key: value for key, value in BBC.items() if not key.startswith("lsa_")}
    done = run([entry], tmp_path=tmp_path)
    row = rows(done.stdout)[0]
    assert row[6] == "-"
    # Against TF-IDF now: 0.9731 - 0.960 and 0.9104 - 0.877.
    assert row[-1] == "+1.3 / +3.3"


def test_without_default_entries_it_says_results_are_pending(tmp_path):
    done = run(OTHERS[:1], tmp_path=tmp_path)
    assert done.returncode == 0
    assert "|" not in done.stdout
    assert "pending" in done.stdout and '"method": "default"' in done.stdout


def test_untuned_default_entries_follow_in_their_own_labelled_table(tmp_path):
    untuned = {**BBC, "method": "default-untuned-128", "acc_mean": 0.967, "ami_mean": 0.897}
    exact = {**REUTERS, "method": "default-untuned"}
    # Only untuned entries: the default's table is pending, the untuned one is shown.
    done = run([untuned, exact, *OTHERS[:1]], tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    before, after = done.stdout.split("without training")
    assert "pending" in before and "|" not in before
    assert "windows of 128 tokens" in after.splitlines()[0]
    assert rows(after) == [
        [*expected_row(untuned, "BBC News (windows of 128)", "2,225")],
        expected_row(exact, "Reuters-10", "7,456")]
    assert rows(after)[0][-1] == "-0.1 / +0.1"  # 0.967 - 0.968 and 0.897 - 0.896
    # With a default entry, it keeps its own table, first; the untuned rows follow.
    done = run([untuned, BBC], tmp_path=tmp_path)
    before, after = done.stdout.split("without training")
    assert rows(before) == [expected_row(BBC, "BBC News", "2,225")]
    assert rows(after) == [expected_row(untuned, "BBC News (windows of 128)", "2,225")]
    # A method that only starts alike is not an untuned default.
    assert "|" not in run([{**BBC, "method": "default-untuned-x"}], tmp_path=tmp_path).stdout


def test_check_and_write_modes(tmp_path):
    readme = tmp_path / "README.md"
    start, end = "<!-- results-table:start -->", "<!-- results-table:end -->"
    readme.write_text(f"# Title\n\nBefore.\n\n{start}\nold table\n{end}\n\nAfter.\n",
                      encoding="utf-8")
    stale = run([BBC], "--check", str(readme), tmp_path=tmp_path)
    assert stale.returncode == 1
    assert "--write" in stale.stderr

    written = run([BBC], "--write", str(readme), tmp_path=tmp_path)
    assert written.returncode == 0, written.stderr
    text = readme.read_text(encoding="utf-8")
    printed = run([BBC], tmp_path=tmp_path).stdout
    assert text == f"# Title\n\nBefore.\n\n{start}\n{printed}\n{end}\n\nAfter.\n"
    assert run([BBC], "--check", str(readme), tmp_path=tmp_path).returncode == 0
    # Another summary makes the written table stale again.
    assert run([BBC, REUTERS], "--check", str(readme), tmp_path=tmp_path).returncode == 1


@pytest.mark.parametrize("text", ["# No markers\n", "<!-- results-table:end -->\n"
                                  "<!-- results-table:start -->\n"])
def test_a_file_without_the_markers_is_refused_with_its_name(tmp_path, text):
    readme = tmp_path / "README.md"
    readme.write_text(text, encoding="utf-8")
    done = run([BBC], "--check", str(readme), tmp_path=tmp_path)
    assert done.returncode not in (0, 1)
    assert str(readme) in done.stderr and "results-table:start" in done.stderr


def test_the_readme_table_is_up_to_date():
    done = subprocess.run([sys.executable, str(SCRIPT), "--check", str(ROOT / "README.md")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_summary_that_cannot_be_read_is_named(tmp_path):
    missing = tmp_path / "missing.json"
    done = subprocess.run([sys.executable, str(SCRIPT), "--summary", str(missing)],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert str(missing) in done.stderr


def test_a_default_with_shorter_windows_is_the_default_marked_with_them(tmp_path):
    windowed = {**BBC, "method": "default-128", "acc_mean": 0.971, "ami_mean": 0.905}
    untuned = {**BBC, "method": "default-untuned-128", "acc_mean": 0.967, "ami_mean": 0.896}
    done = run([windowed, untuned, REUTERS], tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    before, after = done.stdout.split("without training")
    assert "pending" not in before
    assert rows(before) == [expected_row(windowed, "BBC News (windows of 128)", "2,225"),
                            expected_row(REUTERS, "Reuters-10", "7,456")]
    assert rows(after) == [expected_row(untuned, "BBC News (windows of 128)", "2,225")]
    # Neither an untuned method nor one that only starts alike is the trained default.
    for method in ("default-untuned-128", "default-x", "default-128-b"):
        assert "pending" in run([{**BBC, "method": method}], tmp_path=tmp_path).stdout

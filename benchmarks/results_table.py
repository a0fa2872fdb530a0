"""The README's results table: the default against the single views, on every corpus.

Reads the entries of ``benchmarks/results/quality_summary.json`` whose ``"method"`` is
``"default"``, the default fit, training included, or ``"default-<max_length>"`` (the
same with windows of that many tokens; one per corpus and method; where there are
several, the last one written) and
prints a markdown table: the corpus, its documents, the default's ACC and AMI (mean ±
std over the entry's seeds), the frozen encoder's, TF-IDF's and LSA's ACC / AMI from the
same run, and the default's difference to the best of those three single views (in
points, ACC and AMI each against its own best). An entry holds::

    {"method": "default", "corpus": "bbc", "n_docs": 2225, "seeds": 5,
     "acc_mean": ..., "acc_std": ..., "ami_mean": ..., "ami_std": ...,
     "frozen_acc_mean": ..., "frozen_ami_mean": ...,
     "tfidf_acc_mean": ..., "tfidf_ami_mean": ...,
     "lsa_acc_mean": ..., "lsa_ami_mean": ...}

A single view missing from an entry is shown as "-" and left out of the best. Without any
such entry it prints one sentence saying that the default's results are pending.

Entries whose method is ``"default-untuned"`` (the default's space without training: epoch
0) or ``"default-untuned-<max_length>"`` (the same with windows of that many tokens) follow
in a second table of the same columns, under a sentence that says what they measured.

In ``README.md`` the table lies between the lines ``<!-- results-table:start -->`` and
``<!-- results-table:end -->``. ``--check README.md`` exits with status 1 when the table
there differs from what this script prints (``tests/test_results_table.py`` runs it on
the README), ``--write README.md`` replaces it::

    python benchmarks/results_table.py                   # print the table
    python benchmarks/results_table.py --check README.md
    python benchmarks/results_table.py --write README.md
"""

import argparse
import json
import sys
from pathlib import Path

SUMMARY = Path(__file__).resolve().parent / "results" / "quality_summary.json"
START = "<!-- results-table:start -->"
END = "<!-- results-table:end -->"
#: Corpora in this order first, any other after them by name.
CORPUS_NAMES = {"bbc": "BBC News", "reuters": "Reuters-10", "20news": "20 Newsgroups",
                "webkb4": "WebKB-4", "classic3": "Classic3"}
VIEWS = (("frozen", "frozen encoder"), ("tfidf", "TF-IDF"), ("lsa", "LSA"))
PENDING = ("The default's results are pending: `benchmarks/results/quality_summary.json` "
           'holds no entry with `"method": "default"` yet.')


def _untuned(method):
    return method == "default-untuned" or (method.startswith("default-untuned-")
                                           and method.rsplit("-", 1)[1].isdigit())


def _trained(method):
    """``"default"`` or ``"default-<max_length>"``: the default fit, training included."""
    return method == "default" or (method.count("-") == 1 and method.startswith("default-")
                                   and method.rsplit("-", 1)[1].isdigit())


def default_entries(summary, untuned=False):
    """The ``"default"`` entries of a summary (a list of dicts), one per corpus, in the
    order of :data:`CORPUS_NAMES`, then by corpus name; with ``untuned``, the
    ``"default-untuned"`` ones (one per corpus and method)."""
    latest = {}
    for entry in summary:
        method = entry.get("method") if isinstance(entry, dict) else None
        if isinstance(method, str) and (_untuned(method) if untuned else _trained(method)):
            latest[(entry["corpus"], method)] = entry
    order = list(CORPUS_NAMES)
    return [latest[key] for key in sorted(latest, key=lambda key: (
        order.index(key[0]) if key[0] in order else len(order), key))]


def _view(entry, view, metric):
    value = entry.get(f"{view}_{metric}_mean")
    return None if value is None else float(value)


def _pair(acc, ami):
    return "-" if acc is None or ami is None else f"{acc:.3f} / {ami:.3f}"


def _difference(entry, metric):
    """The default's ``metric`` minus the best single view's, in points (None: no view)."""
    views = [v for v in (_view(entry, name, metric) for name, _ in VIEWS) if v is not None]
    if not views:
        return None
    return 100 * (float(entry[f"{metric}_mean"]) - max(views))


def _signed(points):
    return "-" if points is None else f"{points:+.1f}"


def table(summary):
    """The markdown table (or the pending sentence) for a summary, ending in a newline;
    then the untuned default's table, if the summary has such entries."""
    entries, untuned = default_entries(summary), default_entries(summary, untuned=True)
    text = _rows(entries) if entries else PENDING + "\n"
    if untuned:
        lengths = sorted({e["method"].rsplit("-", 1)[1] for e in untuned
                          if e["method"] != "default-untuned"})
        windows = "".join(f"; the rows marked (windows of {n}) read windows of {n} tokens "
                          "instead of the model's limit" for n in lengths)
        text += ("\nThe default's space without training (epoch 0, which "
                 '`selection="untuned-silhouette"` keeps on most corpora; `"method": '
                 f'"default-untuned"`{windows}):\n\n' + _rows(untuned))
    return text


def _windows(method):
    """" (windows of N)" for ``"default-N"`` and ``"default-untuned-N"``, else nothing."""
    windowed = (_untuned(method) and method != "default-untuned") or (
        _trained(method) and method != "default")
    return f" (windows of {method.rsplit('-', 1)[1]})" if windowed else ""


def _rows(entries):
    header = ["corpus", "documents", "default ACC", "default AMI",
              *(f"{label} ACC / AMI" for _, label in VIEWS),
              "default - best single view (points)"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for entry in entries:
        row = [
            CORPUS_NAMES.get(entry["corpus"], entry["corpus"]) + _windows(entry["method"]),
            f"{int(entry['n_docs']):,}",
            f"{entry['acc_mean']:.3f} ± {entry['acc_std']:.3f}",
            f"{entry['ami_mean']:.3f} ± {entry['ami_std']:.3f}",
            *(_pair(_view(entry, name, "acc"), _view(entry, name, "ami")) for name, _ in VIEWS),
            f"{_signed(_difference(entry, 'acc'))} / {_signed(_difference(entry, 'ami'))}",
        ]
        lines.append("| " + " | ".join(row) + " |")
    seeds = sorted({int(entry.get("seeds", 0)) for entry in entries})
    over = f"{seeds[0]} seeds" if len(seeds) == 1 and seeds[0] else "the entry's seeds"
    lines += ["", f"Spherical k-means, mean ± std over {over}; the single views from the "
              "same run, on the same documents (`benchmarks/results/quality_summary.json`)."]
    return "\n".join(lines) + "\n"


def read_summary(path):
    try:
        summary = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        print(f"{path}: cannot be read as JSON ({error})", file=sys.stderr)
        raise SystemExit(2) from None
    if not isinstance(summary, list):
        print(f"{path}: expected a JSON list of entries", file=sys.stderr)
        raise SystemExit(2)
    return summary


def _split(text, path):
    """``text`` around the table: (before, table, after); exits with status 2, naming
    ``path``, when the markers are missing."""
    start, end = text.find(START), text.find(END)
    if start < 0 or end < start:
        print(f"{path}: no results table between the lines {START} and {END}; add the "
              "two lines where the table belongs", file=sys.stderr)
        raise SystemExit(2)
    begin = start + len(START)
    return text[:begin], text[begin:end], text[end:]


def _block(generated):
    return "\n" + generated + "\n" if generated.strip() else "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--summary", type=Path, default=SUMMARY,
                        help="the summary to read (default: benchmarks/results/"
                             "quality_summary.json)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", metavar="FILE", type=Path,
                      help="exit 1 if FILE's table differs from the summary's")
    mode.add_argument("--write", metavar="FILE", type=Path,
                      help="replace FILE's table with the summary's")
    args = parser.parse_args(argv)
    generated = table(read_summary(args.summary))
    target = args.check or args.write
    if target is None:
        sys.stdout.write(generated)
        return 0
    text = target.read_text(encoding="utf-8")
    before, current, after = _split(text, target)
    if args.write:
        target.write_text(before + _block(generated) + after, encoding="utf-8")
        return 0
    if current != _block(generated):
        print(f"{target}: the results table differs from {args.summary}; run "
              f"python benchmarks/results_table.py --write {target}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

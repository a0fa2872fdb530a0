"""Result files of the benchmarks: JSON written whole or not at all, markdown tables, the
shared ``quality_summary.json``, and ``--resume`` (keep what an earlier run finished)."""

import json
import os
from pathlib import Path


def add_resume_argument(parser, what="the runs already in the results file"):
    """``--resume``: keep ``what`` and run only the rest."""
    parser.add_argument("--resume", action="store_true", help=f"keep {what}; run the rest")
    return parser


def read_json(path, default=None):
    """The JSON at ``path``, or ``default`` where there is no such file."""
    path = Path(path)
    return json.loads(path.read_text()) if path.is_file() else default


def previous(path, resume, default=None):
    """What an earlier run wrote to ``path`` when ``resume``, else ``default``."""
    return read_json(path, default) if resume else default


def write_json(path, data, indent=1):
    """Write ``data`` to ``path`` through a temporary file, so that an interrupted run
    leaves the previous file whole."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    partial.write_text(json.dumps(data, indent=indent, default=float) + "\n")
    os.replace(partial, path)
    return path


def write_markdown(path, text):
    """Write the markdown ``text`` (ending in one newline) to ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text.rstrip("\n") + "\n")
    return path


def markdown_table(header, rows):
    """A markdown table of ``header`` (column names) and ``rows`` (lists of cells)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def merge_summary(path, new):
    """Write ``new`` entries into the JSON list at ``path``, replacing those of the same
    (corpus, method) and keeping the others (several scripts write there)."""
    keys = {(e["corpus"], e["method"]) for e in new}
    entries = [e for e in read_json(path, []) if (e["corpus"], e["method"]) not in keys]
    return write_json(path, entries + list(new))

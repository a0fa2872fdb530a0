"""The files the ``cluster`` command writes: checked before any work, written atomically.

An output may not lie inside the input folder (or be the input file), and an existing
file is replaced only with ``--overwrite``. Each file is written to a temporary file
beside it, then renamed into place: an interrupted run never leaves half a file, nor
destroys the previous one.
"""

import csv
import json
import os
import tempfile
from pathlib import Path

from . import CLIError


def check_outputs(outputs, input_path, *, overwrite=False):
    """Fail early (before any training) if an output cannot or may not be written.

    Parameters
    ----------
    outputs : dict
        Option name (for messages, e.g. "--output") -> path, or None when not asked for.
    input_path : str or path-like
        The input file or folder.
    overwrite : bool, default=False
        Whether existing files may be replaced.

    Returns
    -------
    paths : dict
        Option name -> :class:`pathlib.Path`, for the outputs asked for.
    """
    source = Path(input_path).resolve()
    paths, seen = {}, {}
    for option, path in outputs.items():
        if path is None:
            continue
        path = Path(path)
        target = path.resolve()
        if path.is_dir():
            raise CLIError(f"{path}: is a folder; {option} needs a file path.")
        if not path.parent.is_dir():
            raise CLIError(f"{path}: cannot write there, the folder {path.parent} does not "
                           "exist.")
        if target == source or (source.is_dir() and target.is_relative_to(source)):
            where = "is the input" if target == source else "is inside the input folder"
            raise CLIError(f"{path}: {where} {input_path}; {option} must be written "
                           "elsewhere, so that no document is replaced or read back.")
        if target in seen:
            raise CLIError(f"{path}: given to both {seen[target]} and {option}.")
        if path.exists() and not overwrite:
            raise CLIError(f"{path}: exists already; pass --overwrite to replace it, or "
                           "choose another path.")
        seen[target] = option
        paths[option] = path
    return paths


def write_atomically(path, write, *, newline=None):
    """Call ``write(file)`` on a temporary text file beside ``path``, then rename it to
    ``path``; on any error the temporary file is removed and ``path`` is left as it was.

    Parameters
    ----------
    path : pathlib.Path
        The file to write.
    write : callable
        Writes the content to the open (UTF-8) file it is given.
    newline : str or None
        As for :func:`open` (``""`` for the csv module).
    """
    try:
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.",
                                         suffix=".part")
    except OSError as exc:
        raise CLIError(f"{path}: cannot write it ({exc.strerror or exc}).") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline=newline) as file:
            write(file)
        os.replace(temporary, path)
    except OSError as exc:
        os.unlink(temporary)
        raise CLIError(f"{path}: cannot write it ({exc.strerror or exc}).") from None
    except BaseException:
        os.unlink(temporary)
        raise


def write_csv(path, ids, clusters):
    """Write a header ``id,cluster`` and one row per document.

    Parameters
    ----------
    path : pathlib.Path
        The CSV file.
    ids : list of str
        Document ids.
    clusters : sequence of int
        Their clusters.
    """

    def write(file):
        writer = csv.writer(file)
        writer.writerow(["id", "cluster"])
        writer.writerows(zip(ids, (int(c) for c in clusters)))

    write_atomically(path, write, newline="")


def write_report(path, report):
    """Write the report (a JSON-serialisable dict), indented, as UTF-8 JSON."""
    write_atomically(path, lambda file: json.dump(report, file, indent=2,
                                                  ensure_ascii=False, allow_nan=False))

"""The files the ``cluster`` command writes: checked before any work, written atomically.

An output may not lie inside the input folder (or be the input file), and an existing
file is replaced only with ``--overwrite``; that each can be written is checked before
training. Each file is written to a temporary file beside it, then renamed into place:
an interrupted run never leaves half a file, nor destroys the previous one. A new file
gets the permissions a plain ``open`` would give it (``0o666`` less the umask), a
replaced one keeps its own. A symbolic link is written through (its target replaced, the
link kept), and a device or pipe (``/dev/stdout``, ``/dev/null``) is written to directly.
"""

import csv
import json
import os
import stat
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
        _check_writable(path)
        seen[target] = option
        paths[option] = path
    return paths


def _streamed(path):
    """Whether ``path`` (links followed) is a device, pipe or socket: written directly."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _check_writable(path):
    """Raise a :class:`CLIError` now if ``path`` could not be written after training."""
    if _streamed(path):
        if not os.access(path, os.W_OK):
            raise CLIError(f"{path}: cannot write it (permission denied).")
        return
    folder = Path(os.path.realpath(path)).parent
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".probe")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise CLIError(f"{path}: cannot write there ({exc.strerror or exc}); choose a "
                       "folder you can write to.") from None


def _new_file_mode(path):
    """The mode ``open(path, "w")`` would leave: the existing file's, else 0o666 less
    the umask."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def open_output(path, *, binary=False, newline=None):
    """``(file, commit, discard)`` for writing ``path``: ``commit()`` puts the written
    file in place, ``discard()`` removes it (both close it). A device or pipe is opened
    directly; anything else is a temporary file beside ``path`` (beside its target, for
    a link), renamed into place with the mode a plain ``open`` would give."""
    mode = "wb" if binary else "w"
    text = {} if binary else {"encoding": "utf-8", "newline": newline}
    if _streamed(path):
        file = open(path, mode, **text)
        return file, file.close, file.close
    target = Path(os.path.realpath(path))
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.",
                                     suffix=".part")
    try:
        os.chmod(temporary, _new_file_mode(target))
        file = os.fdopen(fd, mode, **text)
    except BaseException:
        os.close(fd)
        os.unlink(temporary)
        raise

    def commit():
        file.close()
        os.replace(temporary, target)

    def discard():
        file.close()
        if os.path.exists(temporary):
            os.unlink(temporary)

    return file, commit, discard


def write_atomically(path, write, *, newline=None):
    """Call ``write(file)`` on a temporary text file beside ``path``, then rename it to
    ``path``; on any error the temporary file is removed and ``path`` is left as it was
    (see :func:`open_output`; a device or pipe is written directly).

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
        file, commit, discard = open_output(path, newline=newline)
    except OSError as exc:
        raise CLIError(f"{path}: cannot write it ({exc.strerror or exc}).") from None
    try:
        write(file)
        commit()
    except OSError as exc:
        _quietly(discard)
        raise CLIError(f"{path}: cannot write it ({exc.strerror or exc}).") from None
    except BaseException:
        _quietly(discard)
        raise


def _quietly(close):
    try:
        close()
    except OSError:
        pass


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

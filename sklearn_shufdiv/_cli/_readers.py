"""Readers of the input formats: a folder of .txt files, a text file of lines, JSON lines.

Each returns a :class:`Corpus`. Problems are raised as :class:`CLIError` naming the
file, and the line for line-based formats. A folder is read without leaving it: a
symbolic link to a file outside the folder is refused (named), not followed.
"""

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from . import CLIError

FORMATS = ("auto", "folder", "lines", "jsonl")
ENCODING_ERRORS = ("strict", "skip", "replace")
_JSONL_SUFFIXES = (".jsonl", ".ndjson")

#: How each format reads its input, in words (the first line of output says it).
FORMAT_DESCRIPTIONS = {
    "folder": "folder: every .txt file under it (any case: .TXT too) is one document",
    "lines": "lines: one document per line",
    "jsonl": "jsonl: one JSON object per line",
}


@dataclass
class Corpus:
    """Documents read from an input, with their ids and (optional) labels.

    Parameters
    ----------
    ids : list of str
        One id per document, unique.
    texts : list of str
        The documents.
    labels : list of str or None
        One label per document, or None when the input gives none.
    format : str
        The format it was read in ("folder", "lines" or "jsonl").
    skipped, replaced : list of str
        Where the text was not valid UTF-8 (a file, or "file, line N"): left out with
        ``--encoding-errors skip``, or read with U+FFFD for the bad bytes with
        ``replace``.
    other_files : list of str
        The files of a folder that were not read, their names not ending in ".txt"
        (relative paths, sorted).
    """

    ids: list
    texts: list
    labels: list | None = None
    format: str = ""
    skipped: list = field(default_factory=list)
    replaced: list = field(default_factory=list)
    other_files: list = field(default_factory=list)


def detect_format(path, fmt="auto"):
    """The format of ``path``: a folder, JSON lines (.jsonl, .ndjson) or lines.

    Parameters
    ----------
    path : pathlib.Path
        An existing file or folder.
    fmt : {"auto", "folder", "lines", "jsonl"}, default="auto"
        The format asked for; "auto" guesses from the path.

    Returns
    -------
    fmt : {"folder", "lines", "jsonl"}
    """
    if fmt == "auto":
        if path.is_dir():
            return "folder"
        return "jsonl" if path.suffix.lower() in _JSONL_SUFFIXES else "lines"
    if (fmt == "folder") != path.is_dir():
        kind = "a folder" if path.is_dir() else "a file"
        raise CLIError(f"{path}: is {kind}, which --format {fmt} cannot read.")
    return fmt


def read_corpus(path, *, fmt="auto", text_field="text", id_field=None, label_field=None,
                label_from_folder=False, encoding_errors="strict"):
    """Read the documents of ``path`` in the given (or detected) format.

    Parameters
    ----------
    path : str or path-like
        A folder of .txt files, a text file with one document per line, or JSON lines.
    fmt : {"auto", "folder", "lines", "jsonl"}, default="auto"
        The input format.
    text_field, id_field, label_field : str or None
        Fields of JSON lines: the text (required), the id (default: the line number) and
        the label (default: none).
    label_from_folder : bool, default=False
        For a folder: label each file with its first-level subfolder.
    encoding_errors : {"strict", "skip", "replace"}, default="strict"
        What to do with text that is not valid UTF-8 (a file of a folder, a line of
        the other formats): stop with an error, leave it out, or replace the bad bytes
        with U+FFFD; ``Corpus.skipped`` and ``Corpus.replaced`` say where.

    Returns
    -------
    corpus : Corpus
    """
    path = Path(path)
    if not path.exists():
        raise CLIError(f"{path}: no such file or folder.")
    fmt = detect_format(path, fmt)
    if label_from_folder and fmt != "folder":
        raise CLIError(f"{path}: --label-from-folder needs a folder input.")
    if (id_field or label_field) and fmt != "jsonl":
        raise CLIError(f"{path}: --id-field and --label-field need JSON lines input.")
    decoder = Decoder(encoding_errors)
    if fmt == "folder":
        corpus = read_folder(path, label_from_folder=label_from_folder, decoder=decoder)
    elif fmt == "lines":
        corpus = read_lines(path, decoder=decoder)
    else:
        corpus = read_jsonl(path, text_field=text_field, id_field=id_field,
                            label_field=label_field, decoder=decoder)
    corpus.format, corpus.skipped, corpus.replaced = fmt, decoder.skipped, decoder.replaced
    return corpus


def _read_bytes(path):
    try:
        return path.read_bytes()
    except OSError as exc:
        raise CLIError(f"{path}: cannot read it ({exc.strerror or exc}).") from None


class Decoder:
    """Decodes UTF-8 as ``--encoding-errors`` says, and remembers what it skipped or
    replaced.

    Parameters
    ----------
    errors : {"strict", "skip", "replace"}
        Raise a :class:`CLIError`; return None (the caller leaves the text out); or
        replace the bad bytes with U+FFFD.
    """

    def __init__(self, errors="strict"):
        self.errors = errors
        self.skipped, self.replaced = [], []

    def __call__(self, raw, where):
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            if self.errors == "skip":
                self.skipped.append(str(where))
                return None
            if self.errors == "replace":
                self.replaced.append(str(where))
                return raw.decode("utf-8", errors="replace")
            raise CLIError(f"{where}: not valid UTF-8 (byte 0x{raw[exc.start]:02x} at "
                           f"position {exc.start}); convert the file to UTF-8, or pass "
                           "--encoding-errors skip (leave such text out) or replace.") from None


def _numbered_lines(path, decoder):
    """``(line number, text)`` of the non-blank lines of a UTF-8 file (BOM dropped)."""
    data = _read_bytes(path).removeprefix(b"\xef\xbb\xbf")
    for number, raw in enumerate(data.splitlines(), start=1):
        text = decoder(raw, f"{path}, line {number}")
        if text is not None and text.strip():
            yield number, text


def _inside(file, root):
    """Raise if ``file`` is a symbolic link that leads outside the folder ``root``."""
    target = file.resolve()
    if not target.is_relative_to(root.resolve()):
        raise CLIError(f"{file}: a symbolic link to {target}, outside the input folder; "
                       "only files inside the input folder are read. Copy the file into "
                       "the folder, or remove the link.")


def _unreadable_folder(exc):
    folder = exc.filename or "a folder"
    raise CLIError(f"{folder}: cannot list this folder ({exc.strerror or exc}), so its "
                   ".txt files would be left out. Give read permission to it (chmod a+rx), "
                   "or move it out of the input folder.") from None


def is_txt(name):
    """Whether a file name ends in ".txt", in any case (".TXT", ".Txt")."""
    return name.lower().endswith(".txt")


def _txt_files(path, others):
    """The .txt entries under ``path`` (files, links, or folders so named), without
    entering linked subfolders; a subfolder that cannot be listed is an error. The
    other files' paths are appended to ``others``."""
    for folder, subfolders, files in os.walk(path, onerror=_unreadable_folder):
        for name in subfolders + files:
            if is_txt(name):
                yield Path(folder, name)
        others.extend(Path(folder, name) for name in files if not is_txt(name))


def _no_txt_file(path, others):
    besides = (f"; its {len(others)} other file(s), e.g. {others[0]}, are not read: "
               "name the documents *.txt" if others else "")
    raise CLIError(f"{path}: no .txt file in this folder (searched recursively{besides}).")


def read_folder(path, *, label_from_folder=False, decoder=None):
    """Every .txt file under ``path`` (recursively, the suffix in any case), its id the
    relative path; the other files are listed in ``Corpus.other_files``.

    Symbolic links to files inside the folder are read; a link leading outside it is
    an error (a corpus is what its folder holds). Linked subfolders are not entered; a
    subfolder that cannot be listed is an error, not left out.

    Parameters
    ----------
    path : pathlib.Path
        The folder.
    label_from_folder : bool, default=False
        Label each file with its first-level subfolder's name.
    decoder : Decoder, default=None
        How to decode the files (None: strict UTF-8).

    Returns
    -------
    corpus : Corpus
        Files sorted by relative path.
    """
    decoder = decoder or Decoder()
    others = []
    found = sorted(_txt_files(path, others), key=lambda p: p.relative_to(path).as_posix())
    others = sorted(p.relative_to(path).as_posix() for p in others)
    try:
        for file in found:
            if file.is_symlink() and not file.exists():
                raise CLIError(f"{file}: a broken symbolic link (to {os.readlink(file)}); "
                               "remove it or make it point at a file.")
        files = [file for file in found if file.is_file()]
    except PermissionError as exc:  # a folder that can be listed but not entered
        folder = Path(exc.filename).parent if exc.filename else path
        raise CLIError(f"{folder}: cannot open the files of this folder ({exc.strerror}), "
                       "so they would be left out. Give it execute permission (chmod "
                       "a+rx), or move it out of the input folder.") from None
    if not files:
        _no_txt_file(path, others)
    for file in files:
        _inside(file, path)
    ids, texts = [], []
    for file in files:
        text = decoder(_read_bytes(file).removeprefix(b"\xef\xbb\xbf"), file)
        if text is not None:
            ids.append(file.relative_to(path).as_posix())
            texts.append(text)
    if not texts:
        raise CLIError(f"{path}: no document left: every .txt file was skipped (not "
                       "valid UTF-8).")
    labels = None
    if label_from_folder:
        loose = [id_ for id_ in ids if "/" not in id_]
        if loose:
            raise CLIError(f"{path / loose[0]}: --label-from-folder needs every file in a "
                           f"subfolder named after its label ({len(loose)} file(s) are not).")
        labels = [id_.split("/", 1)[0] for id_ in ids]
    return Corpus(ids, texts, labels, other_files=others)


def read_lines(path, *, decoder=None):
    """One document per non-blank line, its id the line number (1-based).

    Parameters
    ----------
    path : pathlib.Path
        A UTF-8 text file.
    decoder : Decoder, default=None
        How to decode the lines (None: strict UTF-8).

    Returns
    -------
    corpus : Corpus
    """
    numbered = list(_numbered_lines(path, decoder or Decoder()))
    if not numbered:
        raise CLIError(f"{path}: empty input, no document (only blank lines or none).")
    return Corpus([str(n) for n, _ in numbered], [text for _, text in numbered])


def _json_type(value):
    names = {dict: "an object", list: "an array", bool: "a boolean", type(None): "null",
             int: "a number", float: "a number", str: "a string"}
    return names.get(type(value), type(value).__name__)


def _field(record, name, where, *, kinds):
    if name not in record:
        fields = ", ".join(repr(key) for key in list(record)[:10]) or "none"
        raise CLIError(f"{where}: missing field {name!r} (fields found: {fields}).")
    value = record[name]
    if isinstance(value, bool) or not isinstance(value, kinds):
        wanted = "a string" if kinds is str else "a string or an integer"
        raise CLIError(f"{where}: field {name!r} is {_json_type(value)}, not {wanted}.")
    return value


def _parse_record(line, where):
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise CLIError(f"{where}: invalid JSON ({exc.msg} at column {exc.colno}).") from None
    if not isinstance(record, dict):
        raise CLIError(f"{where}: expected a JSON object, got {_json_type(record)}.")
    return record


def read_jsonl(path, *, text_field="text", id_field=None, label_field=None, decoder=None):
    """One JSON object per non-blank line, holding a document's text (and id, label).

    Parameters
    ----------
    path : pathlib.Path
        A UTF-8 JSON lines file.
    text_field : str, default="text"
        The field holding the text (a string).
    id_field : str, default=None
        The field holding the id (a string or an integer); None numbers the lines.
    label_field : str, default=None
        The field holding the label (a string or an integer); None reads no label.
    decoder : Decoder, default=None
        How to decode the lines (None: strict UTF-8).

    Returns
    -------
    corpus : Corpus
    """
    corpus, first_line = Corpus([], [], [] if label_field else None), {}
    for number, line in _numbered_lines(path, decoder or Decoder()):
        where = f"{path}, line {number}"
        record = _parse_record(line, where)
        corpus.texts.append(_field(record, text_field, where, kinds=str))
        id_ = str(_field(record, id_field, where, kinds=(str, int)) if id_field else number)
        if id_ in first_line:
            raise CLIError(f"{where}: duplicate id {id_!r} (first at line {first_line[id_]}).")
        first_line[id_] = number
        corpus.ids.append(id_)
        if label_field:
            corpus.labels.append(str(_field(record, label_field, where, kinds=(str, int))))
    if not corpus.ids:
        raise CLIError(f"{path}: empty input, no document (only blank lines or none).")
    return corpus

"""The ``cluster`` command: read documents, embed, cluster, write a CSV, print a summary."""

import csv
from pathlib import Path

import numpy as np

from . import CLIError
from ._pipeline import embed_and_cluster, epoch_text, note, score_text
from ._readers import read_corpus


def check_output(path):
    """Fail early (before any training) if the CSV cannot be written at ``path``.

    Parameters
    ----------
    path : str or path-like
        The CSV file to write.

    Returns
    -------
    path : pathlib.Path
    """
    path = Path(path)
    if path.is_dir():
        raise CLIError(f"{path}: is a folder; --output needs a file path.")
    if not path.parent.is_dir():
        raise CLIError(f"{path}: cannot write there, the folder {path.parent} does not exist.")
    return path


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
    try:
        with open(path, "w", newline="", encoding="utf-8") as file:
            writer = csv.writer(file)
            writer.writerow(["id", "cluster"])
            writer.writerows(zip(ids, (int(c) for c in clusters)))
    except OSError as exc:
        raise CLIError(f"{path}: cannot write it ({exc.strerror or exc}).") from None


def summary_lines(corpus, result, args):
    """The summary printed after clustering, as lines of text."""
    sizes = np.bincount(result.clusters, minlength=args.n_clusters)
    lines = [
        f"documents:    {len(corpus.ids)}",
        f"method:       {args.method}",
        f"epoch:        {epoch_text(result)}",
        f"clusters:     {args.n_clusters}",
        "sizes:        " + ", ".join(f"{k}: {n}" for k, n in enumerate(sizes)),
        f"silhouette:   {score_text(result.silhouette)} (cosine)",
    ]
    if corpus.labels is not None:
        lines.append(f"classes:      {len(set(corpus.labels))}")
        lines.append(f"ACC:          {score_text(result.acc)}")
        lines.append(f"AMI:          {score_text(result.ami)}")
    lines.append(f"time:         {result.seconds:.1f} s")
    lines.append(f"output:       {args.output}")
    return lines


def run_cluster(args):
    """Run ``sklearn-shufdiv cluster`` with the parsed ``args``.

    Parameters
    ----------
    args : argparse.Namespace
        Options of the ``cluster`` command.

    Returns
    -------
    status : int
        0 on success.
    """
    corpus = read_corpus(args.input, fmt=args.format, text_field=args.text_field,
                         id_field=args.id_field, label_field=args.label_field,
                         label_from_folder=args.label_from_folder)
    if args.n_clusters > len(corpus.texts):
        raise CLIError(f"{args.input}: {len(corpus.texts)} documents cannot make "
                       f"{args.n_clusters} clusters; lower --n-clusters.")
    output = check_output(args.output)
    note(args, f"read {len(corpus.texts)} documents from {args.input}")
    result = embed_and_cluster(args, corpus.texts, args.n_clusters, method=args.method,
                               select=args.select_epoch, labels=corpus.labels)
    write_csv(output, corpus.ids, result.clusters)
    print("\n".join(summary_lines(corpus, result, args)))
    return 0

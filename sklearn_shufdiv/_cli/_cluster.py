"""The ``cluster`` command: read documents, embed, cluster, describe, write, summarise."""

from . import CLIError
from ._outputs import check_outputs, write_csv, write_report
from ._pipeline import embed_and_cluster
from ._plot import check_plot, draw_map
from ._readers import FORMAT_DESCRIPTIONS, read_corpus
from ._settings import plan_run
from ._summary import describe_clusters, report, summary_lines
from ._text import note, plural


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
                         label_from_folder=args.label_from_folder,
                         encoding_errors=args.encoding_errors)
    if args.n_clusters != "auto" and args.n_clusters > len(corpus.texts):
        raise CLIError(f"{args.input}: {plural(len(corpus.texts), 'document')} cannot make "
                       f"{args.n_clusters} clusters; lower --n-clusters.")
    paths = check_outputs({"--output": args.output, "--report": args.report,
                           "--plot": args.plot}, args.input, overwrite=args.overwrite)
    if "--plot" in paths:
        check_plot(paths["--plot"])
    notes = _read_notes(corpus, args)
    note(args, f"read {plural(len(corpus.texts), 'document')} from {args.input} as "
               f"{FORMAT_DESCRIPTIONS[corpus.format]}{notes}")
    settings = plan_run(args, corpus.texts, methods=[args.method], select=args.select_epoch)
    result = embed_and_cluster(args, settings, corpus.texts, args.n_clusters,
                               method=args.method, select=args.select_epoch,
                               labels=corpus.labels)
    descriptions = describe_clusters(corpus, result, result.n_clusters)
    told = (report(corpus, result, args, settings, descriptions, paths)
            if "--report" in paths else None)
    lines = summary_lines(corpus, result, args, settings, descriptions, paths)
    write_csv(paths["--output"], corpus.ids, result.clusters)
    if "--report" in paths:
        write_report(paths["--report"], told)
    if "--plot" in paths:
        draw_map(paths["--plot"], result, descriptions, projection=args.plot_projection,
                 seed=args.seed, title=f"{args.input}: {result.n_clusters} clusters")
    print("\n".join(lines))
    return 0


def _read_notes(corpus, args):
    notes = [f"{plural(len(where), 'text')} not valid UTF-8 {kind}"
             for kind, where in (("skipped", corpus.skipped), ("replaced", corpus.replaced))
             if where]
    if corpus.other_files:
        shown = ", ".join(corpus.other_files[:3])
        more = ", ..." if len(corpus.other_files) > 3 else ""
        notes.append(f"{plural(len(corpus.other_files), 'file')} not named *.txt left "
                     f"out: {shown}{more}")
    if corpus.format == "lines" and args.format == "auto":
        notes.append("a text file is read one document per line; for one document per "
                     "file, give a folder of .txt files")
    return f" ({'; '.join(notes)})" if notes else ""

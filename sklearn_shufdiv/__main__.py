"""Command line of sklearn-shufdiv: ``python -m sklearn_shufdiv`` or ``sklearn-shufdiv``.

Commands: ``cluster`` (cluster your own documents) and ``demo`` (frozen encoder vs
Shuffle & Divide on a benchmark corpus). Run with ``--help`` for the options.
"""

import sys

from ._cli import CLIError
from ._cli._parser import build_parser


def main(argv=None):
    """Run the command line.

    Parameters
    ----------
    argv : list of str, default=None
        The arguments, without the program name; None reads ``sys.argv[1:]``.

    Returns
    -------
    status : int
        0 on success; 2 for a usage or input error (printed to stderr as
        ``error: ...``, without a traceback); 130 when interrupted.
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version and usage errors
        return exc.code if isinstance(exc.code, int) else 2
    if args.command == "cluster":
        from ._cli._cluster import run_cluster as run
    else:
        from ._cli._demo import run_demo as run
    try:
        return run(args)
    except CLIError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:  # a CLIInterrupted says how to resume
        # A progress bar's line may be unfinished: the error starts on a line of its own.
        start = "" if getattr(args, "quiet", False) else "\n"
        print(f"{start}error: {exc}" if str(exc) else f"{start}error: interrupted",
              file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

"""The pieces of the command line (``python -m sklearn_shufdiv``); private.

``_parser`` declares the options, ``_readers`` reads the input formats, ``_pipeline``
embeds and clusters, and ``_cluster`` and ``_demo`` are the two commands. Errors the
user can fix are raised as :class:`CLIError`, which ``main`` prints without a traceback.
"""


class CLIError(Exception):
    """An error in the user's input or options, reported as ``error: <message>``."""


class CLIInterrupted(KeyboardInterrupt):
    """Ctrl-C during training, reported as ``error: <message>`` (how to resume) and exit
    status 130."""

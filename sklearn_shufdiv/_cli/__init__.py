"""The pieces of the command line (``python -m sklearn_shufdiv``); private.

``_cluster`` and ``_demo`` are the two commands. A run reads its input (``_readers``),
checks its outputs (``_outputs``, ``_plot``), is planned (``_settings``: the model, the
settings the device chooses, the estimate of its length), embeds and clusters
(``_pipeline``), and is told (``_summary``) and written (``_outputs``, ``_plot``).
``_parser`` declares the options; ``_text`` says things in words for all of them. Errors the
user can fix are raised as :class:`CLIError`, which ``main`` prints without a traceback.
"""


class CLIError(Exception):
    """An error in the user's input or options, reported as ``error: <message>``."""


class CLIInterrupted(KeyboardInterrupt):
    """Ctrl-C during training, reported as ``error: <message>`` (how to resume) and exit
    status 130."""

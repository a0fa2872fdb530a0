"""How the command line says things: progress notes on stderr, counts, scores, epochs
and durations in words. Every other module of the command line formats through these."""

import sys

import numpy as np


def note(args, message):
    """Print a progress message to stderr, unless ``--quiet``."""
    if not args.quiet:
        print(message, file=sys.stderr, flush=True)


def plural(count, noun):
    """``1 document``, ``2 documents``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def score_text(value):
    """A score with 4 decimals, or "n/a" (None or NaN: undefined)."""
    return "n/a" if value is None or np.isnan(value) else f"{value:.4f}"


def epoch_text(result):
    """Which epoch embedded the documents, in words."""
    if result.max_epochs == 0:
        return "0 (the untuned encoder)"
    how = f"by {result.criterion}; 0 = untuned" if result.selected else "the last"
    return f"{result.epoch} of {result.max_epochs} ({how})"


def duration_text(seconds):
    """Seconds in words: "40 s", "12 min", "1 h 20 min"."""
    if seconds < 90:
        return f"{max(seconds, 1):.0f} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 90 else f"{minutes // 60} h {minutes % 60:02d} min"

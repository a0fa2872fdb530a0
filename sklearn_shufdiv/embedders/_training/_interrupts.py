"""Telling a user callback's stop request from Ctrl-C.

skorch's callbacks stop training by raising ``KeyboardInterrupt`` (``EarlyStopping``
does), which is also what Ctrl-C raises. While a user callback runs, a SIGINT handler
notes whether the signal arrived: only a ``KeyboardInterrupt`` without one is the
callback's own stop request; with one it is Ctrl-C, and goes up as such.
"""

import signal
import threading
from contextlib import contextmanager


class _Watch:
    received = False


@contextmanager
def _watching_sigint():
    watch = _Watch()
    previous = signal.getsignal(signal.SIGINT)
    # Signals reach the main thread only, and only a Python handler raises
    # KeyboardInterrupt: elsewhere, every KeyboardInterrupt is raised by code.
    if threading.current_thread() is not threading.main_thread() or not callable(previous):
        yield watch
        return

    def handler(signum, frame):
        watch.received = True
        previous(signum, frame)

    signal.signal(signal.SIGINT, handler)
    try:
        yield watch
    finally:
        signal.signal(signal.SIGINT, previous)


def stop_request(method, *args, **kwargs):
    """Call a user callback's ``method``; return the ``KeyboardInterrupt`` it raised as
    a request to stop training (None if it raised none). A ``KeyboardInterrupt`` raised
    by Ctrl-C while it ran is raised again."""
    with _watching_sigint() as watch:
        try:
            method(*args, **kwargs)
        except KeyboardInterrupt as exc:
            if watch.received:
                raise
            return exc
    return None

"""Run a command without root's override of file permissions.

Root reads a ``chmod 000`` file and writes into a ``chmod 555`` folder, so a test of
what a user meets with such files runs its subject in a subprocess: as is when the tests
do not run as root, else as root without ``CAP_DAC_OVERRIDE`` and ``CAP_DAC_READ_SEARCH``
(through ``capsh``). Where neither is possible the test is skipped, with the reason.
"""

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

_ROOT = str(Path(__file__).resolve().parent.parent)
_DROP = "--drop=cap_dac_override,cap_dac_read_search"


def _capsh_works():
    capsh = shutil.which("capsh")
    if capsh is None:
        return False
    done = subprocess.run([capsh, _DROP, "--", "-c", "true"], capture_output=True)
    return done.returncode == 0


def unprivileged(argv):
    """``argv`` wrapped so that it runs subject to file permissions, or a skip."""
    if os.geteuid() != 0:
        return list(argv)
    if not _capsh_works():
        pytest.skip("the tests run as root and cannot drop CAP_DAC_OVERRIDE (no capsh), "
                    "so file permissions would not apply")
    return ["capsh", _DROP, "--", "-c", shlex.join(str(a) for a in argv)]


def run_python(code, *args, timeout=120):
    """Run ``python -c code args...`` subject to file permissions; the finished process."""
    argv = unprivileged([sys.executable, "-c", code, *args])
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "PYTHONPATH": _ROOT})


def permissions_apply(path):
    """Whether a subprocess of :func:`run_python` is refused reading ``path``."""
    done = run_python("import sys; open(sys.argv[1], 'rb').read()", path)
    return done.returncode != 0

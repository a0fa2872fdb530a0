"""A lock on a folder, held by one process at a time: ``folder/.lock``, locked with
``flock``, so that the kernel releases it when its process dies (a killed fit leaves no
stale lock). The file holds the holder's process id, to name it.
"""

import os
import weakref

try:
    import fcntl
except ImportError:  # Windows: no advisory locks; folders are then not locked
    fcntl = None

#: The locks this process holds, by lock file: a fit that ended by an exception before
#: releasing its lock (its traceback may keep it alive) does not lock out the next fit
#: of the same process.
_HELD = weakref.WeakValueDictionary()


class FolderInUse(OSError):
    """Another process holds the lock; ``holder`` is its process id (None if unknown)."""

    def __init__(self, holder):
        super().__init__(f"in use by process {holder}")
        self.holder = holder


class FolderLock:
    """The lock of ``folder`` (an existing, writable folder).

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> lock = FolderLock(folder)
    >>> lock.acquire()
    >>> lock.release()
    """

    def __init__(self, folder):
        self.path = os.path.join(os.fspath(folder), ".lock")
        self.descriptor = None

    def acquire(self):
        """Take the lock, or raise :class:`FolderInUse` naming the process holding it."""
        if fcntl is None:
            return
        key = os.path.abspath(self.path)
        stale = _HELD.pop(key, None)
        if stale is not None:
            stale.release()
        while True:
            descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.read(descriptor, 32).decode("ascii", "replace").strip()
                os.close(descriptor)
                raise FolderInUse(int(holder) if holder.isdigit() else None) from None
            # The holder before may have removed the file between our open and flock:
            # then the lock is on a file no other process will see; take it again.
            try:
                same = os.stat(self.path).st_ino == os.fstat(descriptor).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(descriptor)
        os.ftruncate(descriptor, 0)
        os.write(descriptor, str(os.getpid()).encode("ascii"))
        self.descriptor = descriptor
        _HELD[key] = self

    def release(self):
        """Remove the lock file and release the lock (nothing when not held)."""
        if self.descriptor is None:
            return
        _HELD.pop(os.path.abspath(self.path), None)
        try:
            os.unlink(self.path)
        except OSError:
            pass
        os.close(self.descriptor)
        self.descriptor = None

    def __del__(self):
        try:
            self.release()
        except Exception:  # at interpreter exit
            pass

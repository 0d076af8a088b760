"""The one-writer rule of the file stores, enforced with ``flock`` on a ``.lock`` file.

A writer holds an exclusive ``fcntl.flock`` on ``<store>/.lock`` from open to close. ``flock``
locks belong to an open file description, so the rule holds between processes and also between
two store objects in one process. The kernel drops the lock when the holder exits, however it
exits, so a crashed writer never leaves a stale lock. Readers take no lock and never block the
writer. (``flock`` is advisory and POSIX-only; the file stores need Linux or another POSIX
system, and a local file system where ``flock`` works.)
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from tocsearch.errors import StoreLocked

__all__ = ["LOCK_NAME", "WriterLock"]

LOCK_NAME = ".lock"


class WriterLock:
    """An exclusive, non-blocking writer lock on a store directory.

    Raises:
        StoreLocked: another writer, in this process or another, holds the store.
    """

    def __init__(self, store_dir: Path) -> None:
        self.path = store_dir / LOCK_NAME
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise StoreLocked(
                f"store {str(store_dir)!r} is locked by another writer (lock file {self.path}); "
                "open it with readonly=True to read while that writer works"
            ) from None
        self._fd: int | None = fd

    def release(self) -> None:
        """Give the lock up; releasing twice is fine."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)

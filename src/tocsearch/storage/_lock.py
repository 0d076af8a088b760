"""The one-writer rule of the file stores, enforced with an OS lock on a ``.lock`` file.

A writer holds an exclusive lock on ``<store>/.lock`` from open to close: ``fcntl.flock`` on
POSIX systems, ``msvcrt.locking`` on the first byte on Windows. Both belong to one open file
(description or handle), so the rule holds between processes and also between two store
objects in one process, and the operating system drops the lock when its holder exits, however
it exits, so a crashed writer never leaves a stale lock. Readers take no lock and never block
the writer. (Both locks are advisory towards programs that do not ask for them, and need a local
file system where they work.)

Which lock is used is decided once, when this module is imported; a platform with neither can
still import tocsearch and read stores, but cannot open one for writing.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from types import ModuleType
from typing import Protocol

from tocsearch.errors import StorageError, StoreLocked

__all__ = ["LOCK_NAME", "FlockPrimitive", "LockPrimitive", "MsvcrtPrimitive", "WriterLock"]

LOCK_NAME = ".lock"

_OPEN_FLAGS = (
    os.O_RDWR
    | os.O_CREAT
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_BINARY", 0)
)


class LockPrimitive(Protocol):
    """How one platform takes and drops an exclusive, non-blocking lock on an open file."""

    name: str

    def try_lock(self, fd: int) -> bool:
        """Take the lock; False when someone else holds it."""
        ...

    def unlock(self, fd: int) -> None:
        """Drop the lock taken on ``fd``."""


class FlockPrimitive:
    """``fcntl.flock`` on the whole file (POSIX)."""

    name = "flock"

    def __init__(self, fcntl: ModuleType) -> None:
        self._fcntl = fcntl

    def try_lock(self, fd: int) -> bool:
        try:
            self._fcntl.flock(fd, self._fcntl.LOCK_EX | self._fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def unlock(self, fd: int) -> None:
        self._fcntl.flock(fd, self._fcntl.LOCK_UN)


class MsvcrtPrimitive:
    """``msvcrt.locking`` on the first byte of the file (Windows)."""

    name = "msvcrt"

    def __init__(self, msvcrt: ModuleType) -> None:
        self._msvcrt = msvcrt

    def try_lock(self, fd: int) -> bool:
        os.lseek(fd, 0, os.SEEK_SET)
        try:
            self._msvcrt.locking(fd, self._msvcrt.LK_NBLCK, 1)
        except OSError as error:
            # Windows reports a held lock as EACCES or EDEADLOCK, depending on the call.
            if error.errno in (errno.EACCES, errno.EDEADLK, getattr(errno, "EDEADLOCK", -1)):
                return False
            raise
        return True

    def unlock(self, fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        self._msvcrt.locking(fd, self._msvcrt.LK_UNLCK, 1)


def _platform_primitive() -> LockPrimitive | None:
    try:
        import fcntl
    except ImportError:
        pass
    else:
        return FlockPrimitive(fcntl)
    try:
        import msvcrt
    except ImportError:
        return None
    return MsvcrtPrimitive(msvcrt)


PRIMITIVE: LockPrimitive | None = _platform_primitive()
"""The lock this platform uses; tests swap it to run the suites over another one."""


class WriterLock:
    """An exclusive, non-blocking writer lock on a store directory.

    Raises:
        StoreLocked: another writer, in this process or another, holds the store.
        StorageError: ``.lock`` is a symbolic link or a folder, or this platform has no lock.
    """

    def __init__(self, store_dir: Path) -> None:
        self.path = store_dir / LOCK_NAME
        primitive = PRIMITIVE
        if primitive is None:
            raise StorageError(
                f"cannot open store {str(store_dir)!r} for writing: this platform offers neither "
                "fcntl.flock nor msvcrt.locking; open it with readonly=True"
            )
        if os.path.islink(self.path):
            raise StorageError(
                f"{self.path} is a symbolic link; a store never follows links, remove it"
            )
        try:
            fd = os.open(self.path, _OPEN_FLAGS, 0o644)
        except IsADirectoryError:
            raise StorageError(f"{self.path} is a folder, not a lock file; remove it") from None
        except OSError as error:
            if error.errno == errno.ELOOP:
                raise StorageError(
                    f"{self.path} is a symbolic link; a store never follows links, remove it"
                ) from None
            raise
        try:
            locked = primitive.try_lock(fd)
        except BaseException:
            os.close(fd)
            raise
        if not locked:
            os.close(fd)
            raise StoreLocked(
                f"store {str(store_dir)!r} is locked by another writer (lock file {self.path}); "
                "open it with readonly=True to read while that writer works"
            )
        self._fd: int | None = fd
        self._primitive = primitive

    def release(self) -> None:
        """Give the lock up; releasing twice is fine."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            try:
                self._primitive.unlock(fd)
            finally:
                os.close(fd)

"""Run the file stores over the Windows lock on a POSIX machine, with ``fcntl`` out of reach.

``use_msvcrt_lock()`` must run before tocsearch is imported: it makes ``import fcntl`` fail and
puts a stand-in ``msvcrt`` module in its place, so :mod:`tocsearch.storage._lock` takes its
Windows path, and any other use of ``fcntl`` anywhere in tocsearch fails loudly. The stand-in
keeps ``msvcrt.locking``'s contract for what the stores use (a non-blocking exclusive lock on
bytes of an open file, held per open file, dropped on unlock, close or exit), built on the
``fcntl`` reference this module took before hiding it.
"""

from __future__ import annotations

import errno
import fcntl as _posix_fcntl
import os
import sys
import types

ENV = "TOCSEARCH_TEST_LOCK"
"""Set to ``msvcrt`` to run a test session (and the crash writer it starts) over the stand-in."""

LK_UNLCK = 0
LK_NBLCK = 2


def _locking(fd: int, mode: int, nbytes: int) -> None:
    if nbytes < 1:
        raise OSError(errno.EINVAL, "nbytes must be positive")
    if mode == LK_NBLCK:
        try:
            _posix_fcntl.flock(fd, _posix_fcntl.LOCK_EX | _posix_fcntl.LOCK_NB)
        except BlockingIOError:
            raise OSError(errno.EACCES, "Permission denied") from None
    elif mode == LK_UNLCK:
        _posix_fcntl.flock(fd, _posix_fcntl.LOCK_UN)
    else:
        raise OSError(errno.EINVAL, f"locking mode {mode} is not used by tocsearch")


def stand_in_msvcrt() -> types.ModuleType:
    """A module with the part of ``msvcrt`` the writer lock uses."""
    module = types.ModuleType("msvcrt")
    module.LK_UNLCK = LK_UNLCK  # type: ignore[attr-defined]
    module.LK_NBLCK = LK_NBLCK  # type: ignore[attr-defined]
    module.locking = _locking  # type: ignore[attr-defined]
    return module


def use_msvcrt_lock() -> None:
    """Hide ``fcntl`` and offer the stand-in ``msvcrt``; call before importing tocsearch."""
    if any(name == "tocsearch" or name.startswith("tocsearch.") for name in sys.modules):
        raise RuntimeError("use_msvcrt_lock() must run before tocsearch is imported")
    sys.modules["fcntl"] = None  # type: ignore[assignment]  # makes `import fcntl` fail
    sys.modules["msvcrt"] = stand_in_msvcrt()


def wanted() -> bool:
    """Whether this process was asked to run over the stand-in lock."""
    return os.environ.get(ENV) == "msvcrt"

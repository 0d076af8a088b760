"""Whether a store's directory is still the one it opened.

A store works on the directory it opened. Another program may move that directory away,
remove it, or put a file or another directory at its path while the store is open; the store
must then neither answer from another store's files nor take missing files for an empty
store. :class:`StoreHome` remembers the directory's identity (device and inode) when the store
opens, and tells, with one ``stat``, whether the path still names it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tocsearch.errors import StorageError
from tocsearch.storage._lock import WriterLock

__all__ = ["StoreHome", "StoreMoved", "opened_home"]


class StoreMoved(StorageError):
    """A store's directory is no longer the one it opened; the message says what the path
    names now. Its own kind so that code explaining a failure by the move can tell an
    explanation already given and pass it on as it is."""


class StoreHome:
    """The directory a store opened, by path and identity.

    Raises:
        StorageError: (constructing) the path does not name a directory.
    """

    __slots__ = ("_identity", "path")

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            found = os.stat(path)
        except OSError as error:
            raise StorageError(f"cannot open store {str(path)!r}: {error.strerror}") from None
        if not stat.S_ISDIR(found.st_mode):
            raise StorageError(f"store path {str(path)!r} is not a directory")
        self._identity = (found.st_dev, found.st_ino)

    def moved(self) -> str | None:
        """None while the path names the directory opened; else what it names now:
        ``"gone"``, ``"a file"``, ``"another directory"``, or ``"unreachable"`` with the
        reason when the path cannot be looked at (a folder on the way made unreadable).

        Runtime complexity: one ``stat``.
        """
        try:
            found = os.stat(self.path)
        except FileNotFoundError:
            return "gone"
        except NotADirectoryError:
            return "gone"  # a folder on the way to it was replaced by a file
        except OSError as error:
            # Permission taken away, too many symbolic links, ...: the store cannot tell what
            # the path names, so it must not answer as if its directory were still there.
            return f"unreachable ({error.strerror})"
        if not stat.S_ISDIR(found.st_mode):
            return "a file"
        if (found.st_dev, found.st_ino) != self._identity:
            return "another directory"
        return None

    def moved_error(self, action: str, cause: str = "") -> StoreMoved | None:
        """The error that says ``action`` cannot be done because the directory moved (with
        ``cause``, the failure it explains, in parentheses), or None while it is in place."""
        moved = self.moved()
        if moved is None:
            return None
        because = f" ({cause})" if cause else ""
        return StoreMoved(
            f"cannot {action}: store directory {str(self.path)!r} is {moved} now{because}"
        )

    def confirm(self, action: str) -> None:
        """Raise unless the path still names the directory opened.

        Raises:
            StoreMoved: saying what the path names now, and that ``action`` cannot be done.
        """
        error = self.moved_error(action)
        if error is not None:
            raise error


def opened_home(directory: Path, lock: WriterLock | None) -> StoreHome:
    """The home of a store just opened at ``directory``, releasing its writer ``lock`` when
    the directory is already gone, so that a failed open holds nothing.

    Raises:
        StorageError: the path no longer names a directory.
    """
    try:
        return StoreHome(directory)
    except BaseException:
        if lock is not None:
            lock.release()
        raise

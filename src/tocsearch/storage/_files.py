"""File primitives the file-backed stores share: atomic writes, fsync, refusing links.

Every record write follows one order, so a crash at any instant leaves either the old file or the
new one, never a mix: serialise fully, write an adjacent temporary file, flush, ``fsync``,
``os.replace`` over the live name, then ``fsync`` the directory so the rename itself is durable.
A live file is never rewritten in place (the one exception, the monthly event logs of a JSON
directory store, are only ever appended to: see ``_jsondir_events``).

Temporary files are named ``.<final name>.<random>.tmp``. Listings skip every name that starts
with a dot, so a temporary file left by a crash is never mistaken for a record; the next writer
removes them.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path

from tocsearch.errors import StoreCorrupted

__all__ = [
    "APPEND_FLAGS",
    "READ_FLAGS",
    "TRUNCATE_FLAGS",
    "fsync_dir",
    "fsync_file",
    "is_temp_name",
    "linked_error",
    "open_file",
    "read_bytes",
    "real_dir",
    "refuse_links",
    "remove_file",
    "remove_temp_files",
    "store_root",
    "write_atomically",
]

# Flags that exist on only some platforms are 0 elsewhere: O_BINARY keeps Windows from
# translating newlines, O_NOFOLLOW refuses a symbolic link as the last component of a path.
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_PORTABLE = getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0) | _NOFOLLOW
READ_FLAGS = os.O_RDONLY | _PORTABLE
"""Open a store file to read it, never through a link."""
APPEND_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_APPEND | _PORTABLE
"""Open (or create) a store file to append to it, never through a link."""
TRUNCATE_FLAGS = os.O_WRONLY | _PORTABLE
"""Open a store file to cut off its torn tail, never through a link."""
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _PORTABLE
_DIRECTORY = getattr(os, "O_DIRECTORY", None)


def is_temp_name(name: str) -> bool:
    """Whether a directory entry is a temporary file of an interrupted write."""
    return name.startswith(".") and name.endswith(".tmp")


def linked_error(path: Path | str) -> StoreCorrupted:
    """The error for a symbolic link found where a store keeps its own files or folders."""
    return StoreCorrupted(
        f"{path} is a symbolic link; tocsearch never reads, writes or deletes through a link "
        "inside a store (remove the link, or run 'tocsearch check --repair')"
    )


def store_root(path: str | os.PathLike[str]) -> Path:
    """The store directory ``path`` names, with a symbolic link that is the store directory
    itself followed to where it leads (a data folder kept on another disk): the store is read,
    written, created and repaired there. Links inside a store stay refused.
    """
    directory = Path(os.fspath(path))
    return Path(os.path.realpath(directory)) if os.path.islink(directory) else directory


def real_dir(directory: Path) -> Path:
    """``directory`` itself, once checked to be a folder and not a symbolic link.

    Raises:
        StoreCorrupted: it is a link or not a folder.
        FileNotFoundError: it does not exist.
    """
    mode = os.lstat(directory).st_mode
    if stat.S_ISLNK(mode):
        raise linked_error(directory)
    if not stat.S_ISDIR(mode):
        raise StoreCorrupted(f"{directory} is not a folder")
    return directory


def _folder_error(path: Path | str) -> StoreCorrupted:
    return StoreCorrupted(f"{path} is a folder where a record file belongs")


def refuse_links(paths: Iterable[Path], *, folders: bool = False) -> None:
    """Raise StoreCorrupted when any of ``paths`` is a symbolic link or, with ``folders``, a
    folder where a record file belongs (missing paths are fine)."""
    for path in paths:
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            continue
        if stat.S_ISLNK(mode):
            raise linked_error(path)
        if folders and stat.S_ISDIR(mode):
            raise _folder_error(path)


def open_file(path: Path | str, flags: int, mode: int = 0o644) -> int:
    """``os.open`` that refuses a symbolic link (checked with lstat where O_NOFOLLOW is
    missing) and names what it found instead of a raw OS error."""
    if not _NOFOLLOW and os.path.islink(path):
        raise linked_error(path)
    try:
        fd = os.open(path, flags, mode)
    except IsADirectoryError:
        raise _folder_error(path) from None
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise linked_error(path) from None
        raise
    # Opening a folder for reading succeeds on POSIX; only reading it would fail, unclearly.
    if stat.S_ISDIR(os.fstat(fd).st_mode):
        os.close(fd)
        raise _folder_error(path)
    return fd


def fsync_dir(directory: Path) -> None:
    """Make the entries of a directory (creations, renames, removals) durable.

    Windows cannot open a folder to fsync it (its renames are durable with the file's data), so
    there this does nothing.
    """
    if _DIRECTORY is None:
        return
    fd = os.open(directory, os.O_RDONLY | _DIRECTORY | _NOFOLLOW)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_file(path: Path) -> None:
    """Flush a file's data to the disk; fsync on any descriptor flushes the whole file."""
    fd = open_file(path, READ_FLAGS)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_temp(path: Path, data: bytes) -> Path:
    temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    fd = open_file(temp, _CREATE)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        os.unlink(temp)
        raise
    os.close(fd)
    return temp


def write_atomically(files: Sequence[tuple[Path, bytes]]) -> None:
    """Replace each ``path`` with its ``data`` so that a crash leaves every file either old or new.

    All temporary files are written and fsynced first, then renamed over the live names, then
    each directory involved is fsynced once, which keeps a batch of many records cheap.
    """
    temps: list[tuple[Path, Path]] = []
    try:
        for path, data in files:
            temps.append((_write_temp(path, data), path))
        while temps:
            temp, path = temps[0]
            os.replace(temp, path)
            temps.pop(0)
    finally:
        for temp, _ in temps:
            remove_file(temp)
    for directory in dict.fromkeys(path.parent for path, _ in files):
        fsync_dir(directory)


def read_bytes(path: Path) -> bytes | None:
    """The content of a file, or None when it does not exist.

    Raises:
        StoreCorrupted: the path is a symbolic link or a folder.
    """
    try:
        fd = open_file(path, READ_FLAGS)
    except FileNotFoundError:
        return None
    with open(fd, "rb", closefd=True) as stream:
        return stream.read()


def remove_file(path: Path) -> bool:
    """Remove a file if it exists; True when it did."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        return False
    return True


def remove_temp_files(directories: Iterable[Path]) -> int:
    """Remove the temporary files interrupted writes left in these directories; how many."""
    removed = 0
    for directory in directories:
        try:
            entries = list(os.scandir(real_dir(directory)))
        except FileNotFoundError:
            continue
        found = [entry for entry in entries if is_temp_name(entry.name)]
        for entry in found:
            removed += remove_file(Path(entry.path))
        if found:
            fsync_dir(directory)
    return removed

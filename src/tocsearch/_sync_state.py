"""What ``sync`` remembers per source file, kept in a small JSON file inside the store.

For each file: its identity (device and inode), size and modification time when it was last
read, how far it was read (byte offset and line count, for transcripts that grow), and the tool
calls still awaiting their results. The file is replaced atomically, and only after the events
read were stored, so a crash between the two makes the next sync read the same bytes again,
which adds nothing twice (events are keyed by id).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from tocsearch._json_text import read_json
from tocsearch.storage._files import write_atomically

__all__ = ["STATE_NAME", "FileState", "load_state", "save_state"]

STATE_NAME = ".tocsearch-sync.json"
"""The state file's name in the store directory (a dot name: store listings skip it)."""
_VERSION = 1


@attrs.frozen
class FileState:
    """One source file as last read."""

    kind: str
    device: int
    inode: int
    size: int
    mtime_ns: int
    offset: int = 0
    lines: int = 0
    open_calls: Mapping[str, str] = attrs.field(factory=dict)

    def same_file(self, stat: os.stat_result) -> bool:
        """Whether ``stat`` is of the same file (not a replacement under the same name)."""
        return (self.device, self.inode) == (stat.st_dev, stat.st_ino)

    def unchanged(self, stat: os.stat_result) -> bool:
        """Whether the file is the same and has neither grown nor been touched."""
        return (
            self.same_file(stat) and stat.st_size == self.size and stat.st_mtime_ns == self.mtime_ns
        )


def load_state(store: Path) -> dict[str, FileState]:
    """The remembered files by absolute path; empty when there is no state or it is damaged
    (then everything is read again, which adds nothing twice)."""
    try:
        data = read_json((store / STATE_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != _VERSION:
        return {}
    files = data.get("files")
    if not isinstance(files, dict):
        return {}
    state: dict[str, FileState] = {}
    for path, entry in files.items():
        try:
            state[path] = _entry(entry)
        except (TypeError, ValueError, KeyError):
            continue  # a damaged entry: that file is read again from its start
    return state


def _entry(entry: Any) -> FileState:
    if not isinstance(entry, dict):
        raise TypeError("an entry is an object")
    calls = entry.get("open_calls", {})
    if not isinstance(calls, dict):
        raise ValueError("open_calls")
    fields = ("device", "inode", "size", "mtime_ns", "offset", "lines")
    numbers = {name: entry[name] for name in fields}
    if not all(type(value) is int and value >= 0 for value in numbers.values()):
        raise ValueError("numbers")
    if not isinstance(entry["kind"], str):
        raise ValueError("kind")
    return FileState(
        kind=entry["kind"],
        open_calls={str(key): str(value) for key, value in calls.items()},
        **numbers,
    )


def save_state(store: Path, state: Mapping[str, FileState]) -> None:
    """Replace the state file atomically (temporary file, fsync, rename, fsync the folder)."""
    # One file per line, each written by json's C encoder (indent= would use the pure-Python
    # one, several times slower on the thousands of files of a long history). ASCII escapes:
    # a file name that is not UTF-8 reaches us with lone surrogates (os.fsdecode), which UTF-8
    # cannot write but a JSON escape carries and reads back as the same string.
    lines = ",\n".join(
        f"  {json.dumps(path)}: {json.dumps(attrs.asdict(entry, recurse=False))}"
        for path, entry in sorted(state.items())
    )
    data = f'{{"version": {_VERSION}, "files": {{\n{lines}\n}}}}\n'
    write_atomically([(store / STATE_NAME, data.encode("utf-8"))])

"""An append-only commit journal: one checksummed line per committed batch of operations.

Each line is ``<crc32 as 8 hex digits> <JSON list of operations>\\n`` and is written with one
``write`` on an ``O_APPEND`` descriptor, then fsynced. A batch is committed exactly when its line
is whole on disk. A line cut short by a crash can only be the last one: readers ignore it and
the next writer truncates it. A damaged line followed by whole ones is corruption.
"""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path
from typing import Any

from tocsearch.errors import StoreCorrupted
from tocsearch.storage._files import read_bytes, write_atomically

__all__ = ["Journal", "JournalContents"]

Batch = list[list[Any]]


def _encode(ops: Batch) -> bytes:
    body = json.dumps(ops, ensure_ascii=False, separators=(",", ":")).encode()
    return b"%08x %s\n" % (zlib.crc32(body), body)


def _decode(line: bytes) -> Batch | None:
    if len(line) < 10 or line[8:9] != b" ":
        return None
    body = line[9:]
    try:
        if int(line[:8], 16) != zlib.crc32(body):
            return None
        ops = json.loads(body)
    except ValueError:
        return None
    return ops if isinstance(ops, list) else None


class JournalContents:
    """What a journal holds: its committed batches and where the committed part ends."""

    def __init__(self, batches: list[Batch], committed: int, size: int) -> None:
        self.batches = batches
        self.committed = committed
        self.torn = committed != size


class Journal:
    """The commit journal at ``path``; only a writer appends to it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def read(self) -> JournalContents:
        """Every committed batch, in order.

        Raises:
            StoreCorrupted: a damaged line is followed by whole ones.
        """
        data = read_bytes(self.path) or b""
        batches: list[Batch] = []
        offset = 0
        bad_at: int | None = None
        for number, line in enumerate(data.split(b"\n")[:-1], start=1):
            ops = _decode(line)
            if ops is None:
                if bad_at is None:
                    bad_at = number
            elif bad_at is not None:
                raise StoreCorrupted(f"{self.path}: line {bad_at} is damaged")
            else:
                batches.append(ops)
                offset += len(line) + 1
        return JournalContents(batches, offset, len(data))

    def open_for_append(self, committed: int) -> None:
        """Start appending after the committed part, cutting off a torn tail first."""
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o644)
        try:
            if os.fstat(fd).st_size != committed:
                os.ftruncate(fd, committed)
                os.fsync(fd)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd

    def append(self, ops: Batch) -> None:
        """Commit one batch: it is durable when this returns."""
        if self._fd is None:
            raise RuntimeError("journal is not open for appending")
        view = memoryview(_encode(ops))
        while view:
            view = view[os.write(self._fd, view) :]
        os.fsync(self._fd)

    def rewrite(self, ops: Batch) -> None:
        """Replace the whole journal, atomically, with one batch (a snapshot)."""
        self.close()
        write_atomically([(self.path, _encode(ops))])
        self.open_for_append(len(_encode(ops)))

    def close(self) -> None:
        """Stop appending; closing twice is fine."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)

"""An append-only commit journal: one checksummed line per committed batch of operations.

Each line is ``<crc32 as 8 hex digits> <JSON list of operations>\\n`` and is written with one
``write`` on an ``O_APPEND`` descriptor, then fsynced. A batch is committed exactly when its line
is whole on disk. A line cut short by a crash can only be the last one, and it has no newline
(the newline is the last byte written): readers ignore it and the next writer truncates it. A
line that ends in its newline but does not check out was damaged after it was written, and is
reported as corruption wherever it is.
"""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path
from typing import Any

from tocsearch._json_text import read_json
from tocsearch.errors import StoreCorrupted
from tocsearch.storage._files import APPEND_FLAGS, open_file, read_bytes, write_atomically

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
        ops = read_json(body)
    except ValueError:
        return None
    return ops if isinstance(ops, list) else None


def encoded_size(ops: Batch) -> int:
    """How many bytes the journal line of one batch takes."""
    return len(_encode(ops))


class JournalContents:
    """What a journal holds: its committed batches and where the committed part ends."""

    def __init__(self, batches: list[Batch], committed: int, size: int, exists: bool) -> None:
        self.batches = batches
        self.committed = committed
        self.torn = committed != size
        self.exists = exists


class Journal:
    """The commit journal at ``path``; only a writer appends to it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def read(self) -> JournalContents:
        """Every committed batch, in order.

        Raises:
            StoreCorrupted: a whole line (one that ends in its newline) is damaged.
        """
        data = read_bytes(self.path)
        batches: list[Batch] = []
        offset = 0
        for number, line in enumerate((data or b"").split(b"\n")[:-1], start=1):
            ops = _decode(line)
            if ops is None:
                raise StoreCorrupted(
                    f"{self.path}: line {number} is damaged (its checksum or JSON is wrong)"
                )
            batches.append(ops)
            offset += len(line) + 1
        return JournalContents(batches, offset, len(data or b""), data is not None)

    def open_for_append(self, committed: int) -> None:
        """Start appending after the committed part, cutting off a torn tail first."""
        fd = open_file(self.path, APPEND_FLAGS)
        try:
            if os.fstat(fd).st_size != committed:
                os.ftruncate(fd, committed)
                os.fsync(fd)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd

    def size(self) -> int:
        """How many bytes the journal holds (all committed, while this writer appends)."""
        if self._fd is None:
            raise RuntimeError("journal is not open for appending")
        return os.fstat(self._fd).st_size

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
        line = _encode(ops)
        write_atomically([(self.path, line)])
        self.open_for_append(len(line))

    def create(self) -> None:
        """Start a new journal with one line of no operations, so that a journal which holds
        no line at all can only mean damage."""
        write_atomically([(self.path, _encode([]))])

    def close(self) -> None:
        """Stop appending; closing twice is fine."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)

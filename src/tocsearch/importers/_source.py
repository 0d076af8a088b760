"""Reading input files safely: refuse binary data, decode UTF-8 strictly, stream JSONL lines."""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from pathlib import Path

import attrs

from tocsearch.errors import ImportFailed

__all__ = ["Line", "check_file", "iter_complete_lines", "iter_lines", "read_text"]

_SNIFF_BYTES = 8192
_BOM = codecs.BOM_UTF8


def check_file(path: Path) -> None:
    """Refuse a path that is not a readable regular file, or whose first bytes look binary.

    A NUL byte never occurs in UTF-8 text or JSON, so it is a reliable sign of a binary file,
    found before the whole file is read into memory.

    Raises:
        ImportFailed: the path is missing, a directory, unreadable, or binary.
    """
    if not path.exists():
        raise ImportFailed(f"{path}: no such file")
    if path.is_dir():
        raise ImportFailed(f"{path}: is a directory, expected a file")
    try:
        with path.open("rb") as stream:
            head = stream.read(_SNIFF_BYTES)
    except OSError as error:
        raise ImportFailed(f"{path}: cannot be read: {error.strerror or error}") from None
    nul = head.find(b"\x00")
    if nul >= 0:
        raise ImportFailed(
            f"{path}: looks like a binary file (NUL byte at offset {nul}), expected UTF-8 text"
        )


def _decode_error(path: Path, data: bytes, error: UnicodeDecodeError, skipped: int) -> str:
    """Where the first byte that is not UTF-8 sits: its line and its offset in the file (the
    ``skipped`` bytes of a byte order mark included, so a hex editor finds it there)."""
    bad = data[error.start : error.start + 1].hex()
    line = data.count(b"\n", 0, error.start) + 1
    return f"{path}: not UTF-8 text (byte 0x{bad} on line {line}, offset {error.start + skipped})"


def read_text(path: Path) -> str:
    """The whole file as text, for formats that are one JSON document.

    Raises:
        ImportFailed: the file is missing, binary or not UTF-8.
    """
    check_file(path)
    data = path.read_bytes()
    skipped = len(_BOM) if data.startswith(_BOM) else 0
    data = data[skipped:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ImportFailed(_decode_error(path, data, error, skipped)) from None


@attrs.frozen
class Line:
    """One line of a JSONL file: its 1-based number and text, or why it could not be decoded.

    ``replaced_text`` is the line with each byte that is not UTF-8 read as U+FFFD: format
    detection reads it so that one bad byte does not hide what kind of file it is; importers
    never keep it (the line is reported instead, with its byte).
    """

    number: int
    text: str | None
    decode_error: str | None = None
    replaced_text: str | None = None


def iter_lines(path: Path) -> Iterator[Line]:
    """The lines of a text file, one at a time, without their line endings.

    A line that is not valid UTF-8 comes back with ``decode_error`` set instead of text, so a
    lenient import can skip just that line.

    Raises:
        ImportFailed: the file is missing or binary.
    """
    check_file(path)
    with path.open("rb") as stream:
        offset = 0
        for number, raw in enumerate(stream, start=1):
            yield _decoded(number, raw, offset)
            offset += len(raw)


def _decoded(number: int, raw: bytes, offset: int) -> Line:
    """Line ``number``, which starts at byte ``offset`` of its file."""
    if number == 1 and raw.startswith(_BOM):
        raw = raw[len(_BOM) :]
        offset += len(_BOM)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        bad = raw[error.start : error.start + 1].hex()
        reason = (
            f"not UTF-8 text (byte 0x{bad} at column {error.start + 1}, "
            f"file offset {offset + error.start})"
        )
        replaced = raw.decode("utf-8", "replace").rstrip("\r\n")
        return Line(number, None, reason, replaced)
    return Line(number, text.rstrip("\r\n"))


def iter_complete_lines(path: Path, start: int, first_number: int) -> Iterator[tuple[Line, int]]:
    """The whole lines of a file from byte ``start`` on, each with the offset just past it.

    A last line without its newline is left out: a writer may still be appending to it, and
    the next read from the returned offset picks it up whole. ``first_number`` numbers the
    first line read.

    Raises:
        ImportFailed: the file is missing or binary.
    """
    check_file(path)
    with path.open("rb") as stream:
        stream.seek(start)
        offset = start
        for number, raw in enumerate(stream, start=first_number):
            if not raw.endswith(b"\n"):
                return
            line = _decoded(number, raw, offset)
            offset += len(raw)
            yield line, offset

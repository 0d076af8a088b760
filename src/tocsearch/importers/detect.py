"""Telling the input formats apart by their content.

Rules, applied in order:

1. A directory holding ``conversations.json`` is an unpacked ChatGPT export; any other
   directory is a tree of Claude Code transcripts. A zip archive (by its first bytes) is a
   ChatGPT export as ChatGPT mails it.
2. An empty file (or one of blank lines) cannot be told apart: error.
3. When the first non-blank line is a complete JSON object, the file is line-oriented (or one
   object on one line) and that object decides, looking further down (up to 50 non-blank
   lines) while the objects seen say nothing:

   - a ``mapping`` key: a ChatGPT conversation;
   - a ``conversation`` key: a LoCoMo sample;
   - a ``type`` key with ``uuid``, ``sessionId``, ``leafUuid`` or ``messageId``, and no
     ``session_id``: a Claude Code transcript line;
   - ``session_id`` or ``role`` with ``text``: a generic JSONL event.

4. Otherwise the whole file is parsed as one JSON document; a list (or object) of items with
   ``mapping`` is a ChatGPT export, with ``conversation`` a LoCoMo file.

A file whose records point at two formats, or at none, is refused with a message naming what was
found (:class:`~tocsearch.errors.UnknownFormat`); pass ``format=`` to say which it is. A line
or item nested too deep to read (:data:`~tocsearch.importers._json.DEPTH_LIMIT`) says
nothing about the format.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tocsearch.errors import ImportFailed, UnknownFormat
from tocsearch.importers._collect import BadRecord
from tocsearch.importers._export import is_zip, unpacked_export, zipped_conversations
from tocsearch.importers._json import (
    DEPTH_LIMIT,
    NestedTooDeep,
    TooDeep,
    parse_document,
    parse_record,
)
from tocsearch.importers._source import check_file, iter_lines, read_text

__all__ = ["Detection", "detect_format"]

_SNIFF_LINES = 50
_CLAUDE_KEYS = ("uuid", "sessionId", "leafUuid", "messageId")

Detection = tuple[str, Any]
"""A format name and, for whole-document formats, the parsed document (else None)."""


def _object_format(record: Mapping[str, Any]) -> str | None:
    if "mapping" in record:
        return "chatgpt"
    if "conversation" in record:
        return "locomo"
    if "type" in record and "session_id" not in record and any(k in record for k in _CLAUDE_KEYS):
        return "claude-code"
    if "session_id" in record or ("role" in record and "text" in record):
        return "jsonl"
    return None


def _document_format(document: Any, path: Path) -> str:
    items = document if isinstance(document, list) else [document]
    found = {
        name
        for item in items[:_SNIFF_LINES]
        if isinstance(item, dict)
        for name in [_object_format(item)]
        if name in ("chatgpt", "locomo")
    }
    if len(found) == 1:
        return found.pop()
    if found:
        raise UnknownFormat(
            f"{path}: cannot tell the format: items look like both {' and '.join(sorted(found))}"
        )
    deep = sum(isinstance(item, TooDeep) for item in items)
    unread = f" ({deep} nested more than {DEPTH_LIMIT} levels deep)" if deep else ""
    kind = "list" if isinstance(document, list) else "document"
    raise UnknownFormat(
        f"{path}: cannot tell the format: a JSON {kind} with no ChatGPT 'mapping' or LoCoMo "
        f"'conversation' items{unread}"
    )


def _line_formats(path: Path) -> tuple[set[str], bool]:
    """The formats the first lines point at, and whether the first non-blank line is an object."""
    found: set[str] = set()
    first_is_object: bool | None = None
    looked = 0
    for line in iter_lines(path):
        # A line with a byte that is not UTF-8 still shows its kind; the importer reports it.
        text = line.text if line.text is not None else line.replaced_text
        if text is None or not text.strip():
            continue
        looked += 1
        try:
            record = parse_record(text)
        except NestedTooDeep:
            # Too deep to read, yet a whole line: the file is line-oriented, look further.
            record = None
            if first_is_object is None:
                first_is_object = text.lstrip().startswith("{")
        except BadRecord:
            record = None
        if first_is_object is None:
            first_is_object = isinstance(record, dict)
            if not first_is_object:
                break
        if isinstance(record, dict):
            name = _object_format(record)
            if name is not None:
                found.add(name)
                break
        if looked >= _SNIFF_LINES:
            break
    return found, bool(first_is_object)


def detect_format(path: Path) -> Detection:
    """The format of ``path`` (see the module docstring) and, when it had to be parsed whole,
    the parsed document so that it is not read twice.

    Raises:
        ImportFailed: the path is missing, empty, binary, or matches no format or several.
    """
    if path.is_dir():
        return ("chatgpt" if unpacked_export(path) is not None else "claude-code"), None
    if is_zip(path):
        return "chatgpt", zipped_conversations(path)
    check_file(path)
    found, line_oriented = _line_formats(path)
    if line_oriented:
        if len(found) == 1:
            return found.pop(), None
        raise UnknownFormat(
            f"{path}: cannot tell the format: the first lines are JSON objects that match no "
            "known format (jsonl, claude-code, chatgpt, locomo)"
        )
    text = read_text(path)
    if not text.strip():
        raise UnknownFormat(f"{path}: is empty, so its format cannot be told")
    try:
        document = parse_document(text, str(path))
    except ImportFailed as error:
        raise ImportFailed(
            f"{path}: cannot tell the format: neither JSON lines nor one JSON document "
            f"({str(error).removeprefix(f'{path}: ')})"
        ) from None
    return _document_format(document, path), document

"""Parsing JSON input with a nesting limit, so hostile nesting is a bad record, never a crash.

``json.loads`` recurses once per level: a line nested 100,000 deep raises ``RecursionError``,
and code that later walks or prints the value can hit the same wall. Every JSON record an
importer reads therefore passes through here:

- :func:`parse_record` parses one record (a JSONL line) and refuses, as a
  :class:`~tocsearch.importers._collect.BadRecord`, text that is not JSON or that nests deeper
  than :data:`DEPTH_LIMIT`;
- :func:`parse_document` parses a whole-document file (ChatGPT, LoCoMo) into its top-level
  items, so that one item nested too deep is one bad record and the others still load.
"""

from __future__ import annotations

import json
import re
from typing import Any

import attrs

from tocsearch._json_text import long_number
from tocsearch.errors import ImportFailed
from tocsearch.importers._collect import BadRecord

__all__ = [
    "DEPTH_LIMIT",
    "NestedTooDeep",
    "TooDeep",
    "json_reason",
    "parse_document",
    "parse_record",
]

DEPTH_LIMIT = 100
"""The deepest nesting of objects and lists a record may have, counted from the record itself
(a JSONL line, a ChatGPT conversation, a LoCoMo sample). Real records nest under 20 levels."""

_DECODER = json.JSONDecoder()
_WHITESPACE = re.compile(r"[ \t\n\r]*")
# One JSON string (escapes included) or one structural character.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')


class NestedTooDeep(BadRecord):
    """A record that nests deeper than :data:`DEPTH_LIMIT`."""

    def __init__(self) -> None:
        super().__init__(_too_deep_reason())


@attrs.frozen
class TooDeep:
    """Stands for a top-level item of a document that nests deeper than :data:`DEPTH_LIMIT`."""

    reason: str


def _too_deep_reason() -> str:
    return f"nested more than {DEPTH_LIMIT} levels of objects and lists deep"


def json_reason(error: ValueError) -> str:
    """Why ``json.loads`` refused a text: a syntax error as ``Expecting value at line 1,
    column 5`` (no doubled words), or the number too long for ``int()`` that it holds."""
    if isinstance(error, json.JSONDecodeError):
        # json's messages may end with "at" ("Unterminated string starting at").
        message = error.msg.removesuffix(" at")
        return f"{message} at line {error.lineno}, column {error.colno}"
    return f"it holds {long_number()}"


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` nests more than ``limit`` levels; iterative, so depth costs no stack.

    Runtime complexity: O(number of values inside).
    """
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        for child in item.values() if isinstance(item, dict) else item:
            if isinstance(child, (dict, list)):
                stack.append((child, depth + 1))
    return False


def _check_depth(value: Any, text: str, start: int = 0, end: int | None = None) -> None:
    if not isinstance(value, (dict, list)):
        return
    # A record cannot nest deeper than it has brackets: most records skip the walk.
    stop = len(text) if end is None else end
    if text.count("[", start, stop) + text.count("{", start, stop) <= DEPTH_LIMIT:
        return
    if _deeper_than(value, DEPTH_LIMIT):
        raise NestedTooDeep


def parse_record(text: str) -> Any:
    """The value of one JSON record.

    Raises:
        BadRecord: the text is not valid JSON, or nests deeper than :data:`DEPTH_LIMIT`.
    """
    try:
        value = json.loads(text)
    except RecursionError:
        raise NestedTooDeep from None
    except ValueError as error:
        raise BadRecord(f"not valid JSON ({json_reason(error)})") from None
    _check_depth(value, text)
    return value


def _skip_space(text: str, position: int) -> int:
    match = _WHITESPACE.match(text, position)
    return match.end() if match else position


def _skip_value(text: str, start: int) -> int:
    """The index just past the JSON value that starts at ``start`` (found without recursion)."""
    depth = 0
    for match in _TOKEN.finditer(text, start):
        token = match.group()
        if token in "[{":
            depth += 1
        elif token in "]}":
            depth -= 1
        if depth <= 0:
            return match.end()
    raise ValueError("the document ends inside a value")


def _split_items(text: str, path: str) -> Any:
    """The top-level items of a document too deep to parse whole, each parsed on its own (or
    :class:`TooDeep` for a document that is one object)."""
    position = _skip_space(text, 0)
    if not text.startswith("[", position):
        return TooDeep(_too_deep_reason())
    items: list[Any] = []
    position = _skip_space(text, position + 1)
    if text.startswith("]", position):
        return items
    try:
        while True:
            try:
                item, end = _DECODER.raw_decode(text, position)
            except RecursionError:
                end = _skip_value(text, position)
                items.append(TooDeep(_too_deep_reason()))
            else:
                try:
                    _check_depth(item, text, position, end)
                    items.append(item)
                except BadRecord as bad:
                    items.append(TooDeep(bad.reason))
            position = _skip_space(text, end)
            if text.startswith("]", position):
                break
            if not text.startswith(",", position):
                raise ValueError(f"expected ',' or ']' at character {position}")
            position = _skip_space(text, position + 1)
        if text[position + 1 :].strip():
            raise ValueError(f"extra data at character {position + 1}")
    except ValueError as error:
        raise ImportFailed(f"{path}: not valid JSON ({json_reason(error)})") from None
    return items


def parse_document(text: str, path: str) -> Any:
    """A whole JSON document, with every top-level item nested too deep replaced by
    :class:`TooDeep` (a document that is one object counts as one item).

    Raises:
        ImportFailed: the text is not valid JSON.
    """
    try:
        document = json.loads(text)
    except RecursionError:
        return _split_items(text, path)
    except ValueError as error:
        raise ImportFailed(f"{path}: not valid JSON ({json_reason(error)})") from None
    if isinstance(document, list):
        return [_checked_item(item) for item in document]
    return _checked_item(document)


def _checked_item(item: Any) -> Any:
    if isinstance(item, (dict, list)) and _deeper_than(item, DEPTH_LIMIT):
        return TooDeep(_too_deep_reason())
    return item

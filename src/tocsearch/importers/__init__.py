"""Importers: conversation histories from files into :class:`~tocsearch.models.Event` records.

Four formats are read (see ``docs/importers.md`` for each one's rules):

- ``"jsonl"``: the generic event format, one JSON object per line;
- ``"locomo"``: LoCoMo conversation samples;
- ``"claude-code"``: Claude Code session transcripts (a file or a directory of them);
- ``"chatgpt"``: a ChatGPT export (``conversations.json``, the folder it unpacks to, or the
  ``.zip`` ChatGPT mails).

Every loader takes ``strict``: a strict import raises :class:`~tocsearch.errors.ImportFailed`
on the first bad record, before anything is returned, so a caller never stores half a file; a
lenient one skips bad records and lists each in :attr:`ImportResult.problems`. Event ids are
deterministic, so importing the same file twice yields the same events. Unencodable text (an
unpaired surrogate) becomes U+FFFD; a record nested deeper than :data:`DEPTH_LIMIT` is bad.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from tocsearch.errors import InvalidArgument
from tocsearch.importers._json import DEPTH_LIMIT
from tocsearch.importers._records import ImportProblem, ImportResult
from tocsearch.importers.chatgpt import load_chatgpt, load_chatgpt_document
from tocsearch.importers.claude_code import load_claude_code
from tocsearch.importers.detect import detect_format
from tocsearch.importers.jsonl import event_to_json_line, load_jsonl
from tocsearch.importers.locomo import load_locomo, load_locomo_document

__all__ = [
    "DEPTH_LIMIT",
    "FORMATS",
    "ImportProblem",
    "ImportResult",
    "detect_format",
    "event_to_json_line",
    "load_chatgpt",
    "load_chatgpt_document",
    "load_claude_code",
    "load_events",
    "load_jsonl",
    "load_locomo",
    "load_locomo_document",
]

FORMATS: tuple[str, ...] = ("jsonl", "locomo", "claude-code", "chatgpt")
"""The names ``load_events(format=...)`` accepts."""


def load_events(
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    strict: bool = True,
    progress: Callable[[str], None] | None = None,
) -> ImportResult:
    """Events from a file (or, for Claude Code, a directory) in any supported format.

    Args:
        path: the input file or directory (Claude Code transcripts, or an unpacked ChatGPT
            export).
        format: one of :data:`FORMATS`, or None to tell it from the content
            (rules in :mod:`tocsearch.importers.detect`).
        strict: raise on the first bad record instead of skipping it.
        progress: called with a short line after each transcript of a Claude Code directory.

    Raises:
        InvalidArgument: ``format`` is not one of :data:`FORMATS`.
        ImportFailed: the input cannot be read, its format cannot be told, or (strict) a record
            is bad.
    """
    source = Path(path)
    if format is not None and format not in FORMATS:
        raise InvalidArgument(f"format must be one of {', '.join(FORMATS)}, got {format!r}")
    document = None
    if format is None:
        format, document = detect_format(source)
    display = os.fspath(path)
    if format == "jsonl":
        return load_jsonl(path, strict=strict)
    if format == "claude-code":
        return load_claude_code(path, strict=strict, progress=progress)
    if format == "locomo":
        if document is not None:
            return load_locomo_document(document, display, strict=strict)
        return load_locomo(path, strict=strict)
    if document is not None:
        return load_chatgpt_document(document, display, strict=strict)
    return load_chatgpt(path, strict=strict)

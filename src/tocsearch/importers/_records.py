"""The records an import hands back: the events read and the problems met on the way."""

from __future__ import annotations

import attrs

from tocsearch.models import Event

__all__ = ["ImportProblem", "ImportResult"]


@attrs.frozen
class ImportProblem:
    """One record of an input file that could not be imported, and why.

    ``str(problem)`` reads ``events.jsonl line 17: 'timestamp' is missing``.
    """

    path: str
    location: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path} {self.location}: {self.reason}"


@attrs.frozen
class ImportResult:
    """What an import produced.

    ``events`` are sorted by event id (and so by time). ``problems`` lists every skipped record in
    file order; it is empty after a strict import, which raises on the first problem instead.
    ``records_read`` counts the source records looked at, skipped ones included: non-blank lines
    (generic JSONL, Claude Code), turns (LoCoMo) or message nodes (ChatGPT). One record may yield
    several events (a Claude Code line with text and tool calls) or none (a documented skip).
    ``unknown_content`` counts the content types met that the importer does not know, by type
    (e.g. ``{"server_tool_result": 2}``): they are not problems, and their text was kept where
    they had any.
    """

    events: tuple[Event, ...]
    problems: tuple[ImportProblem, ...]
    records_read: int
    source_path: str
    unknown_content: dict[str, int] = attrs.field(factory=dict)

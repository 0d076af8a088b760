"""Builds src/tocsearch/examples/history.jsonl from history_source.txt.

The source is easier to read and edit than JSONL; the shipped file is its exact rendering, which
tests/examples/test_history.py checks. Run ``python tests/examples/generate_history.py`` after
editing the source.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

from tocsearch.ids import event_id
from tocsearch.importers import event_to_json_line
from tocsearch.models import Event, EventRole, EventType

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "history_source.txt"
TARGET = HERE.parent.parent / "src" / "tocsearch" / "examples" / "history.jsonl"
AGENT = "claude-code"
DEFAULT_GAP_MINUTES = 2.0

_SESSION = re.compile(r"## (\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}) (\S+) (\S+)")
_EVENT = re.compile(r"(?:\+(?P<gap>[0-9.]+) )?(?P<kind>u|a|call \w+|result \w+): (?P<text>.+)")


def build_events(source: str) -> list[Event]:
    """The events the source describes, in file order.

    Raises:
        ValueError: a line is neither a comment, a session header nor an event.
    """
    built: list[Event] = []
    session_id = project = ""
    clock = datetime(1970, 1, 1, tzinfo=timezone.utc)
    index = 0
    for number, line in enumerate(source.splitlines(), start=1):
        if not line.strip() or (line.startswith("#") and not line.startswith("## ")):
            continue
        header = _SESSION.fullmatch(line)
        if header:
            day, start, project, slug = header.groups()
            session_id = f"{day}-{slug}"
            clock = datetime.fromisoformat(f"{day}T{start}:00+00:00")
            index = 0
            continue
        match = _EVENT.fullmatch(line)
        if match is None or not session_id:
            raise ValueError(f"history_source.txt line {number} is not an event: {line!r}")
        text = match["text"].replace("\\n", "\n")
        if index:
            gap = float(match["gap"] or DEFAULT_GAP_MINUTES)
            # Gaps of a minute or more get a few seconds that depend on the text, so that
            # times look typed rather than scheduled; the order never changes.
            jitter = (len(text) * 7) % 50 if gap >= 1 else 0
            clock += timedelta(minutes=gap, seconds=jitter)
        kind = match["kind"]
        metadata = {"project": project}
        if kind == "u":
            role, event_type = EventRole.USER, EventType.USER_MESSAGE
        elif kind == "a":
            role, event_type = EventRole.ASSISTANT, EventType.ASSISTANT_MESSAGE
        elif kind.startswith("call "):
            role, event_type = EventRole.ASSISTANT, EventType.ASSISTANT_MESSAGE
            metadata["tool"] = kind.split()[1]
            text = f"[tool: {metadata['tool']}] {text}"
        else:
            role, event_type = EventRole.TOOL, EventType.TOOL_RESULT
            metadata["tool"] = kind.split()[1]
        built.append(
            Event(
                event_id=event_id(clock, f"{session_id}.{index:02d}"),
                session_id=session_id,
                timestamp=clock,
                role=role,
                event_type=event_type,
                text=text,
                metadata=metadata,
                agent=AGENT,
            )
        )
        index += 1
    return built


def render(events: list[Event]) -> str:
    """The JSONL text of the events, one line each."""
    return "".join(event_to_json_line(event) + "\n" for event in events)


def main() -> None:
    """Rewrite the shipped history from the source."""
    TARGET.write_text(render(build_events(SOURCE.read_text(encoding="utf-8"))), encoding="utf-8")


if __name__ == "__main__":
    main()

"""Writes to a store in an endless loop, printing each record's id once its put has returned.

Run as ``python crash_writer.py <backend> <path>``; the durability test kills it with SIGKILL.
Every line printed names a write that the store promised was durable.
"""

from __future__ import annotations

import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests._support import fallback_lock

if fallback_lock.wanted():
    fallback_lock.use_msvcrt_lock()

import attrs

from tests._support.storage_helpers import open_file_store
from tocsearch import ids
from tocsearch.levels import TocLevel
from tocsearch.models import Event, EventRole, EventType, Grip, TocNode

_T0 = datetime(2026, 1, 30, 22, 0, tzinfo=timezone.utc)


def _confirm(*parts: object) -> None:
    """Print one line saying a put has returned, in one write: with PYTHONUNBUFFERED set,
    print() writes each part on its own, and a kill between them left the reader half a
    line."""
    sys.stdout.write(" ".join(map(str, parts)) + "\n")
    sys.stdout.flush()


def main(backend: str, path: str) -> None:
    """Put nodes (new and replaced, some past midnight), events (some moved) and grips."""
    store = open_file_store(backend, Path(path))
    for number in range(100_000):
        when = _T0 + timedelta(minutes=7 * number)
        segment = ids.segment_id(when.date(), f"s{number % 50}")
        node = TocNode(
            node_id=segment,
            level=TocLevel.SEGMENT,
            title=f"version {number}",
            start_time=when,
            end_time=when + timedelta(hours=number % 5),
            version=number + 1,
            summary="x" * (number % 700),
        )
        store.put_node(node)
        _confirm("node", node.node_id, node.version)
        event = Event(
            event_id=ids.event_id(when, f"e{number}"),
            session_id=f"s{number % 3}",
            timestamp=when,
            role=EventRole.USER,
            event_type=EventType.USER_MESSAGE,
            text=f"event {number}",
        )
        store.put_event(event)
        _confirm("event", event.event_id)
        if number % 4 == 3:
            store.put_event(attrs.evolve(event, session_id="moved"))
            _confirm("event", event.event_id)
        grip = Grip(
            grip_id=ids.grip_id(when, f"g{number}"),
            excerpt="excerpt",
            event_id_start=event.event_id,
            event_id_end=event.event_id,
            timestamp=when,
            source="crash",
        )
        store.put_grips([grip])
        _confirm("grip", grip.grip_id)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

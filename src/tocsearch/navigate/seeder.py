"""The hook through which an index hands the navigator its best guesses.

A :class:`SegmentSeeder` (a full-text or vector index over the events, for example) names the
segments most likely to answer a query. The navigator does not trust it blindly: it reads the
seeded segments first, verifies them against the query like any other segment (their
summaries, then their events in the grep), and explains in its path that it "teleported"
there. Without a seeder the walk is the index-free one.

An :class:`EventSeeder` also ranks single events, by what a lexical ranking cannot see (the
meaning of a turn that shares no word with the question, as a vector index finds it). The
navigator blends that ranking into its own ranking of the events it grepped, so an event no
query word verifies can still be returned, behind the ones the words confirm.

>>> class Fixed:
...     name = "fixed"
...     def __init__(self, segment_ids):
...         self.segment_ids = segment_ids
...     def seed(self, query, *, limit, start, end):
...         return [(segment_id, 1.0) for segment_id in self.segment_ids[:limit]]
>>> isinstance(Fixed([]), SegmentSeeder), isinstance(Fixed([]), EventSeeder)
(True, False)
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol, runtime_checkable

__all__ = ["EventSeeder", "SegmentSeeder"]


@runtime_checkable
class SegmentSeeder(Protocol):
    """Names the segments most likely to answer a query, best first."""

    @property
    def name(self) -> str:
        """What the seeder is, shown in the path: ``"FTS5"``, ``"FTS5+vector"``."""
        ...

    def seed(
        self, query: str, *, limit: int, start: datetime | None, end: datetime | None
    ) -> Sequence[tuple[str, float]]:
        """At most ``limit`` ``(segment_id, score)`` pairs, best first, scores in [0, 1];
        only segments within ``[start, end)`` when those are given."""
        ...


@runtime_checkable
class EventSeeder(SegmentSeeder, Protocol):
    """A :class:`SegmentSeeder` that also ranks single events, best first."""

    def seed_events(
        self, query: str, *, limit: int, start: datetime | None, end: datetime | None
    ) -> Sequence[tuple[str, str, float]]:
        """At most ``limit`` ``(event_id, segment_id, score)`` triples, best first: the event,
        the segment that holds it, and a score in [0, 1]; only events within ``[start, end)``
        when those are given. Empty when the seeder has nothing to add to a lexical ranking."""
        ...

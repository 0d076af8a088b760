"""When a sidecar's full-text tables are merged into one segment each.

FTS5 adds a segment for every batch of rows written and merges only some of them as it goes,
so an index built or grown in many batches answers each query by reading every term's entry
in every segment: at a million events, ten segments take a query twice as long as one. A
sync therefore merges the tables (:func:`~tocsearch.storage._sqlite_fts.merge_fts_tables`)
once the index holds :data:`MERGE_FLOOR` events, and again each time it has grown by a
quarter since (:data:`MERGE_GROWTH`), so the merges cost a bounded share of the writes. The
event count at the last merge is kept in ``index_meta`` under :data:`MERGED_EVENTS`.

>>> merge_due(5_000, None)
False
>>> merge_due(1_000_000, None)
True
>>> merge_due(1_100_000, "1000000"), merge_due(1_250_000, "1000000")
(False, True)
"""

from __future__ import annotations

from tocsearch.text import ascii_digits

__all__ = ["MERGED_EVENTS", "MERGE_FLOOR", "MERGE_GROWTH", "merge_due"]

MERGED_EVENTS = "merged_events"
"""The ``index_meta`` key of the event count at the last merge."""

MERGE_FLOOR = 20_000
"""Below this many events a query over several segments is still quick: no merge."""

MERGE_GROWTH = 1.25
"""The index is merged again once it holds this many times the events of the last merge."""


def merge_due(events: int, merged: str | None) -> bool:
    """Whether an index of ``events`` events, last merged at ``merged`` events (the
    ``index_meta`` value; None or unreadable when never merged), is merged now."""
    if events < MERGE_FLOOR:
        return False
    if merged is None or not ascii_digits(merged):
        return True
    return events >= int(merged) * MERGE_GROWTH

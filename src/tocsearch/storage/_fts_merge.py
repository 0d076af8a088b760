"""When a database's full-text tables are merged into one segment each: a SQLite store's own
tables after its writes, a sidecar index's after its syncs.

FTS5 adds a segment for every batch of rows written and merges only some of them as it goes,
so tables grown in many batches answer each query by reading every term's entry in every
segment: at a million events, ten segments take a query twice as long as one. The tables are
therefore merged (:func:`~tocsearch.storage._sqlite_fts.merge_fts_tables`) once the database
holds :data:`MERGE_FLOOR` events, and again each time it has grown by a quarter since
(:data:`MERGE_GROWTH`), so the merges cost a bounded share of the writes. The event count at
the last merge is kept in the database under :data:`MERGED_EVENTS` (in ``index_meta`` of a
sidecar, in ``fts_meta`` of a store).

>>> merge_due(5_000, None)
False
>>> merge_due(1_000_000, None)
True
>>> merge_due(1_100_000, "1000000"), merge_due(1_250_000, "1000000")
(False, True)
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager

from tocsearch.errors import StorageError
from tocsearch.storage._sqlite_fts import merge_fts_tables
from tocsearch.text import ascii_digits

__all__ = ["MERGED_EVENTS", "MERGE_FLOOR", "MERGE_GROWTH", "MergeSchedule", "merge_due"]

MERGED_EVENTS = "merged_events"
"""The meta key of the event count at the last merge."""

MERGE_FLOOR = 20_000
"""Below this many events a query over several segments is still quick: no merge."""

MERGE_GROWTH = 1.25
"""The tables are merged again once they hold this many times the events of the last merge."""


def merge_due(events: int, merged: str | None) -> bool:
    """Whether tables of ``events`` events, last merged at ``merged`` events (the stored
    value; None or unreadable when never merged), are merged now."""
    if events < MERGE_FLOOR:
        return False
    if merged is None or not ascii_digits(merged):
        return True
    return events >= int(merged) * MERGE_GROWTH


class MergeSchedule:
    """Merges one database's full-text tables when :func:`merge_due` says so, and stops trying
    in this process once the database refuses a merge.

    Args:
        transaction: opens a write transaction on the database.
        write_mark: records the event count of a merge, inside that transaction.
    """

    def __init__(
        self,
        transaction: Callable[[], AbstractContextManager[sqlite3.Connection]],
        write_mark: Callable[[sqlite3.Connection, str], None],
    ) -> None:
        self._transaction = transaction
        self._write_mark = write_mark
        self.refused = False

    def merge_when_grown(self, events: int, merged: str | None) -> bool:
        """Merge the tables of a database holding ``events`` events, last merged at
        ``merged``, when that is due; whether they were merged.

        Runtime complexity: O(1) when no merge is due; else one pass over both tables.
        """
        if self.refused or not merge_due(events, merged):
            return False
        try:
            with self._transaction() as connection:
                merge_fts_tables(connection)
                self._write_mark(connection, str(events))
        except StorageError:
            # Merging only makes queries quicker: a database this process cannot write (a
            # read-only file, another writer holding it, a full disk) answers as it is, and
            # this process does not try again.
            self.refused = True
            return False
        return True

"""SearchIndex: FTS5 (and optionally vectors) over a store's event and segment texts, kept in a
SQLite file beside the store; this module answers queries on it.

How the index is kept in sync with its store is :mod:`tocsearch.index._sidecar_sync`; the file
itself is :mod:`tocsearch.index._sidecar_file`; how it is checked against the store is
:mod:`tocsearch.index._sidecar_check`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from tocsearch._checks import whole_number
from tocsearch.errors import StorageError, StoreCorrupted
from tocsearch.index._query import match_expressions
from tocsearch.index._sidecar_check import check_index
from tocsearch.index._sidecar_file import default_index_path, to_us
from tocsearch.index._sidecar_sync import SyncedSidecar
from tocsearch.index._vectors import VectorMatrix
from tocsearch.storage._sqlite_db import row_limit
from tocsearch.storage.protocol import Storage

if TYPE_CHECKING:
    from tocsearch.index._search import SearchMode, SearchOutcome

__all__ = ["SearchIndex", "existing_index"]


def existing_index(storage: Storage) -> SearchIndex | None:
    """The index kept beside ``storage`` when its file exists, with the embedder its vectors
    came from when that can be made here (see :func:`~tocsearch.index._choice.
    recorded_embedder`), else None: a command that only reads neither creates an index nor
    re-embeds one."""
    from tocsearch.index._choice import recorded_embedder

    path = default_index_path(storage)
    if path is None or not path.is_file():
        return None
    index = SearchIndex(storage, path)
    index.embedder = recorded_embedder(index.recorded_embedder())
    return index


class SearchIndex(SyncedSidecar):
    """An FTS5 index (and, with an embedder, a vector index) over one store.

    Args:
        storage: the store whose texts are indexed.
        path: the sidecar file; by default :func:`default_index_path` (in memory for a store
            without a directory).
        embedder: turns texts into vectors; without one, only full-text search is available.

    Opening never reads the store; :meth:`sync` does, and only when the store changed since the
    index last saw it.

    Raises:
        StoreCorrupted: the file exists but is not a SQLite database.
        StoreLocked: another process holds the file longer than the busy timeout.
    """

    # -- queries ---------------------------------------------------------------------------
    def _fts(
        self,
        sql: str,
        text: str,
        limit: int,
        extra: tuple[int, ...],
    ) -> list[tuple[str, tuple[str, ...]]]:
        """Up to ``limit`` ids ``sql`` reads (its first column) for the rows holding every
        content word of ``text``, then those holding any, best first; each once, with the
        values its rows hold in the second column (None left out), in sorted order.

        Raises:
            InvalidArgument: ``limit`` is not a whole number of at least 1.
        """
        whole_number("limit", limit)
        found: dict[str, set[str]] = {}
        every, some = match_expressions(text)
        # One token: matching any is matching all, and its rows are those already found.
        for expression in (every,) if some == every else (every, some):
            if expression is None or len(found) >= limit:
                break
            try:
                rows = self._connection.execute(
                    sql, (expression, *extra, row_limit(limit))
                ).fetchall()
            except sqlite3.DatabaseError as error:
                raise self._failed(error) from None
            for found_id, other in rows:
                held = found.setdefault(found_id, set())
                if other is not None:
                    held.add(other)
        return [(found_id, tuple(sorted(held))) for found_id, held in found.items()][:limit]

    def fts_event_owners(
        self,
        query: str,
        *,
        limit: int,
        start: datetime | None = None,
        end: datetime | None = None,
    ) -> list[tuple[str, tuple[str, ...]]]:
        """:meth:`fts_events` with the segments that own each event, read by the same query:
        every segment that lists it, in id order (none for an event no segment lists)."""
        where, extra = _time_filter("kept.time_us >= ?", "kept.time_us < ?", start, end)
        sql = _ranked(
            "events_fts",
            " JOIN events AS kept ON kept.id = events_fts.rowid" if where else "",
            where,
            "SELECT events.event_id, owners.node_id FROM {hits} "
            "JOIN events ON events.id = hit.id "
            "LEFT JOIN owners ON owners.event_id = events.event_id",
        )
        return self._fts(sql, query, limit, extra)

    def fts_events(
        self,
        query: str,
        *,
        limit: int,
        start: datetime | None = None,
        end: datetime | None = None,
    ) -> list[str]:
        """Up to ``limit`` event ids whose text matches ``query``, best BM25 first: events
        holding every content word, then events holding any."""
        owned = self.fts_event_owners(query, limit=limit, start=start, end=end)
        return [event_id for event_id, _ in owned]

    def fts_segments(
        self,
        query: str,
        *,
        limit: int,
        start: datetime | None = None,
        end: datetime | None = None,
    ) -> list[str]:
        """Up to ``limit`` segment ids whose title, summary, bullets or keywords match
        ``query``, best BM25 first, among segments overlapping ``[start, end)``."""
        where, extra = _time_filter("kept.end_us >= ?", "kept.start_us < ?", start, end)
        sql = _ranked(
            "segments_fts",
            " JOIN nodes AS kept ON kept.id = segments_fts.rowid" if where else "",
            where,
            "SELECT nodes.node_id, NULL FROM {hits} JOIN nodes ON nodes.id = hit.id",
        )
        return [node_id for node_id, _ in self._fts(sql, query, limit, extra)]

    def _vector_matrix(self) -> VectorMatrix:
        import numpy as np

        if self._matrix is None:
            assert self.embedder is not None
            with self._errors():
                rows = self._connection.execute(
                    "SELECT events.event_id, events.time_us, vectors.embedding FROM vectors "
                    "JOIN events ON events.id = vectors.id ORDER BY events.id"
                ).fetchall()
            dimension = self.embedder.dimension
            matrix = np.zeros((len(rows), dimension), dtype=np.float32)
            for i, (_, _, blob) in enumerate(rows):
                vector = np.frombuffer(blob, dtype=np.float32)
                if vector.shape != (dimension,):
                    raise StoreCorrupted(
                        f"{self.path or 'search index'}: a vector of {vector.size} numbers where "
                        f"{dimension} were expected; rebuild it"
                    )
                matrix[i] = vector
            self._matrix = VectorMatrix([row[0] for row in rows], [row[1] for row in rows], matrix)
        return self._matrix

    def nearest_events(
        self,
        query: str,
        *,
        limit: int,
        start: datetime | None = None,
        end: datetime | None = None,
    ) -> list[str]:
        """Up to ``limit`` event ids whose vectors are nearest ``query``'s (cosine), within
        ``[start, end)``; empty without an embedder.

        Raises:
            InvalidArgument: ``limit`` is not a whole number of at least 1.
        """
        whole_number("limit", limit)
        if self.embedder is None or not query.strip():
            return []
        vector = self._queries.get(self.embedder, query, lambda text: self._embed([text])[0])
        nearest = self._vector_matrix().nearest(
            vector,
            limit,
            start_us=None if start is None else to_us(start),
            end_us=None if end is None else to_us(end),
        )
        return [event_id for event_id, _ in nearest]

    def owners(self, event_ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """The segments that own each of ``event_ids``: every stored segment that lists it,
        in id order, as the store has them (events no segment lists are left out)."""
        found: dict[str, set[str]] = {}
        keys = list(dict.fromkeys(event_ids))
        with self._errors():
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                marks = ",".join("?" * len(chunk))
                for event_id, node_id in self._connection.execute(
                    f"SELECT event_id, node_id FROM owners WHERE event_id IN ({marks})", chunk
                ):
                    found.setdefault(event_id, set()).add(node_id)
        return {event_id: tuple(sorted(node_ids)) for event_id, node_ids in found.items()}

    def search(
        self,
        query: str,
        *,
        mode: SearchMode | str = "hybrid",
        limit: int = 10,
        min_score: float = 0.0,
        start: datetime | None = None,
        end: datetime | None = None,
    ) -> SearchOutcome:
        """The segments that best answer ``query``, best first (see
        :func:`tocsearch.index.search`). Syncs the index first; an index that cannot be read
        or written falls back to the navigator, and ``mode_used`` and ``note`` say so.

        Raises:
            InvalidArgument: an unknown mode, a limit under 1 or a min_score outside 0-1.
        """
        from tocsearch.index._search import run_search

        usable: SearchIndex | None = self
        unavailable = ""
        try:
            self.sync()
        except StorageError as error:
            usable, unavailable = None, f"search index unusable: {error}"
        return run_search(
            self.storage,
            usable,
            query,
            mode=mode,
            limit=limit,
            min_score=min_score,
            start=start,
            end=end,
            unavailable=unavailable,
        )

    def check(self) -> None:
        """Verify that the index agrees with the store: the same events with the same texts,
        the same segments with the same texts and owned events, and with an embedder one
        vector of its dimension for every event and none for anything else.

        Raises:
            StoreCorrupted: naming the first disagreement.
        """
        check_index(self)

    def __enter__(self) -> SearchIndex:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _time_filter(
    after: str, before: str, start: datetime | None, end: datetime | None
) -> tuple[str, tuple[int, ...]]:
    clauses: list[str] = []
    values: list[int] = []
    if start is not None:
        clauses.append(after)
        values.append(to_us(start))
    if end is not None:
        clauses.append(before)
        values.append(to_us(end))
    return "".join(f" AND {clause}" for clause in clauses), tuple(values)


def _ranked(table: str, join: str, where: str, select: str) -> str:
    """A query of the best matches of a full-text ``table``, BM25 first: ``select`` reads
    them from ``{hits}``, a subquery whose ``hit.id`` is a matching row's rowid, and is
    ordered by their scores.

    The subquery ranks by ``bm25()`` itself, not by FTS5's ``rank`` column: ``ORDER BY rank``
    makes FTS5 prepare and run a sorting statement of its own for every query, which took
    longer than SQLite's sort of the same scores with its ``LIMIT`` (a needle's query 26 to
    22 us at 1M events, a common word's 5.9 to 2.7 s), and the rows and their order are the
    same (tested, ties included). Only the best rows are joined to the tables ``select``
    reads; ``join`` (rows that ``where``, the time filter, reads) is joined to every match.
    """
    hits = (
        f"(SELECT {table}.rowid AS id, bm25({table}) AS score FROM {table}{join} "
        f"WHERE {table} MATCH ?{where} ORDER BY score LIMIT ?) AS hit"
    )
    return select.format(hits=hits) + " ORDER BY hit.score"

"""IndexSeeder: the search index as the navigator's teleport (an ``EventSeeder``)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from tocsearch._checks import whole_number
from tocsearch._fusion import reciprocal_rank_fusion
from tocsearch.index._search import EmbedderFailed, SearchMode, rank_segments
from tocsearch.index._sidecar import SearchIndex

__all__ = ["IndexSeeder"]


class IndexSeeder:
    """Names the segments the index ranks best for a query, for
    :class:`~tocsearch.navigate.Navigator` to verify first.

    Full-text alone is named ``"FTS5"``; with the index's embedder the rankings are fused and
    the seeder is ``"FTS5+vector"``, and it also ranks single events by their vectors
    (:meth:`seed_events`), which the navigator blends into its own ranking of events. The
    index is synced before each query (a count check when
    nothing changed). An embedder that fails leaves full text alone (``last_error`` says why);
    an index that cannot be read raises :class:`~tocsearch.errors.StorageError`, which the
    navigator notes in its path before walking on without the teleport.

    >>> from tocsearch.storage import InMemoryStorage
    >>> from tocsearch.examples import load_example_events
    >>> from tocsearch.ingest import TocBuilder
    >>> store = InMemoryStorage()
    >>> _ = TocBuilder(store).ingest(load_example_events())
    >>> seeder = IndexSeeder(SearchIndex(store))
    >>> seeder.name
    'FTS5'
    >>> [(store.get_node(segment).level.value, 0 < score <= 1) for segment, score in
    ...  seeder.seed("JWT refresh", limit=2, start=None, end=None)]
    [('segment', True), ('segment', True)]
    """

    def __init__(self, index: SearchIndex, *, vectors: bool = True) -> None:
        self.index = index
        self._vectors = vectors and index.embedder is not None
        self.last_error = ""

    @property
    def name(self) -> str:
        return "FTS5+vector" if self._vectors else "FTS5"

    def seed(
        self, query: str, *, limit: int, start: datetime | None, end: datetime | None
    ) -> Sequence[tuple[str, float]]:
        """At most ``limit`` ``(segment_id, score)`` pairs, best first, scores in (0, 1].

        Raises:
            InvalidArgument: ``limit`` is not a whole number of at least 1.
        """
        whole_number("limit", limit)
        self.last_error = ""
        mode = SearchMode.HYBRID if self._vectors else SearchMode.FTS
        with self.index.reading():
            self.index.sync()
            try:
                ranking = rank_segments(self.index, query, mode, limit, start, end)
            except EmbedderFailed as error:
                self.last_error = str(error)
                ranking = rank_segments(self.index, query, SearchMode.FTS, limit, start, end)
        return list(ranking.segments[:limit])

    def seed_events(
        self, query: str, *, limit: int, start: datetime | None, end: datetime | None
    ) -> Sequence[tuple[str, str, float]]:
        """At most ``limit`` ``(event_id, segment_id, score)`` triples, nearest ``query`` by
        vector first, scored by rank in (0, 1]; an event that several segments list comes with
        each of them, in id order. Empty without vectors: full text ranks events
        by the query's words, as the navigator itself does. An embedder that fails gives none
        (``last_error`` says why).

        Raises:
            InvalidArgument: ``limit`` is not a whole number of at least 1.
        """
        whole_number("limit", limit)
        self.last_error = ""
        if not self._vectors:
            return []
        with self.index.reading():
            self.index.sync()
            try:
                nearest = self.index.nearest_events(query, limit=limit, start=start, end=end)
            except Exception as error:  # a model server down or a model that fails
                self.last_error = f"embedder failed: {type(error).__name__}: {error}"
                return []
            owners = self.index.owners(nearest)
        return [
            (event_id, segment_id, score)
            for event_id, score in reciprocal_rank_fusion(nearest)
            for segment_id in owners.get(event_id, ())
        ][:limit]

"""The two baselines of the LoCoMo evaluation, each a retriever over one built conversation.

- :class:`TurnBm25`: BM25 over single turns (SQLite FTS5, query terms OR-ed, ``bm25()`` ranking).
- :class:`FlatSegmentScan`: every segment ranked with the library's own term-overlap scorer
  (:func:`tocsearch.search.rank_nodes`), each hit returning all of its segment's events.

Both return :class:`~benchmarks._retrieval.RankedItem` lists, best first, like the navigator.
"""

from __future__ import annotations

from collections.abc import Sequence

from benchmarks._lexical import Fts5Index
from benchmarks._retrieval import RankedItem, Turn
from tocsearch.levels import TocLevel
from tocsearch.models import Event
from tocsearch.search import rank_nodes
from tocsearch.storage.protocol import Storage

__all__ = ["FlatSegmentScan", "TurnBm25", "turn_of"]

TURN_LIMIT = 500
"""BM25 hits kept per question: far more turns than the largest budget can hold."""


def turn_of(event: Event) -> Turn:
    """The scored form of an event: keyed by event id, with its LoCoMo ``dia_id`` if any."""
    return Turn(event.event_id, event.metadata.get("dia_id"), event.text)


class TurnBm25:
    """BM25 over the conversation's turns, one FTS5 document per event with text."""

    name = "bm25-turns"

    def __init__(self, events: Sequence[Event]) -> None:
        self._turns = {event.event_id: turn_of(event) for event in events if event.text.strip()}
        self._index = Fts5Index((key, turn.text) for key, turn in self._turns.items())

    def retrieve(self, question: str) -> list[RankedItem]:
        """One item per matching turn, best BM25 score first."""
        return [
            RankedItem(key, (self._turns[key],)) for key in self._index.search(question, TURN_LIMIT)
        ]

    def close(self) -> None:
        """Release the FTS5 database."""
        self._index.close()


class FlatSegmentScan:
    """Scores every segment of the store with the navigator's scorer and returns the events of
    each matching segment, best first: what navigation would find if it read everything."""

    name = "flat-scan"

    def __init__(self, storage: Storage) -> None:
        self._segments = storage.get_nodes_by_level(TocLevel.SEGMENT)
        self._items: dict[str, RankedItem] = {}
        for node in self._segments:
            events = [storage.find_event(event_id) for event_id in node.event_ids]
            turns = tuple(turn_of(event) for event in events if event is not None)
            self._items[node.node_id] = RankedItem(node.node_id, turns)

    def retrieve(self, question: str) -> list[RankedItem]:
        """The events of every segment sharing a term with the question, best segment first."""
        if not self._segments:
            return []
        ranked = rank_nodes(self._segments, question, limit=len(self._segments))
        return [self._items[result.node_id] for result in ranked.results]

    def close(self) -> None:
        """Nothing to release; present so every retriever closes the same way."""

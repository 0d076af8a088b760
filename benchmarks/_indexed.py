"""The index-backed methods of the LoCoMo evaluation: :class:`tocsearch.index.SearchIndex`
searched in one mode, and the navigator teleported by the index.

- :class:`IndexSearchRetriever`: ``SearchIndex.search(question, mode=..., limit=SEARCH_LIMIT)``;
  each hit (a segment) returns the events that matched in it, best first, as a caller of
  ``search`` or ``memory_search`` receives them. A hit that matched on its segment's summary
  alone cites no event and returns nothing.
- :class:`FusedTurnsRetriever`: the index's event rankings (``fts_events`` and
  ``nearest_events``) fused by ``reciprocal_rank_fusion`` into one ranking of single turns,
  without the grouping by segment that ``search`` applies: how much of the hybrid ranking a
  budget keeps when turns are not delivered a segment at a time.
- :class:`TeleportedNavigator`: the navigator at the column's budget, its walk seeded by an
  :class:`tocsearch.index.IndexSeeder` (full text, or full text fused with vectors; with
  vectors the seeder's ranking of events is blended into the navigator's).

Neither falls back quietly: a search that ran in another mode, or a seeder that failed (the
navigator would walk on without it), stops the run, since its figures would be scored under a
name they do not belong to.

One index is built per conversation and embedder and shared by every method and budget column
that asks for it (:func:`shared_index`): embedding a conversation's turns is the slow part, and
the index is the same whoever reads it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TypeVar

from benchmarks._baselines import turn_of
from benchmarks._locomo_eval import Conversation
from benchmarks._navigation import NavigatorRetriever
from benchmarks._retrieval import RankedItem, Turn
from tocsearch.errors import InvalidArgument
from tocsearch.index import (
    Embedder,
    IndexSeeder,
    SearchIndex,
    SearchMode,
    reciprocal_rank_fusion,
)
from tocsearch.storage.protocol import Storage

__all__ = [
    "SEARCH_LIMIT",
    "FusedTurnsRetriever",
    "IndexSearchRetriever",
    "TeleportedNavigator",
    "onnx_embedder",
    "shared_index",
]

SEARCH_LIMIT = 50
"""Segments asked of ``search`` per question: each ranking is over-fetched to twice this many
events, more turns than the largest budget holds."""

_SHARED: dict[tuple[int, str], SearchIndex] = {}
_EMBEDDERS: dict[str, Embedder] = {}


def onnx_embedder() -> Embedder:
    """The ``tocsearch[onnx]`` model (all-MiniLM-L6-v2 int8, 384-d), loaded once per run.

    Raises:
        InvalidArgument: the model or its runtime is not installed (the script reports it and
            exits instead of running a vector method without vectors).
    """
    if "onnx" not in _EMBEDDERS:
        from tocsearch.index import OnnxEmbedder

        try:
            _EMBEDDERS["onnx"] = OnnxEmbedder()
        except ImportError as error:
            raise InvalidArgument(
                f"the vector methods need the ONNX model: pip install -e '.[eval]' ({error})"
            ) from None
    return _EMBEDDERS["onnx"]


def shared_index(conversation: Conversation, embedder: Embedder | None) -> SearchIndex:
    """The synced in-memory index of ``conversation`` for ``embedder`` (None: full text only),
    built on first use; the index of an earlier conversation is closed and forgotten."""
    key = (id(conversation.storage), "" if embedder is None else embedder.name)
    if key not in _SHARED:
        for other, index in list(_SHARED.items()):
            if other[0] != key[0]:
                index.close()
                del _SHARED[other]
        index = SearchIndex(conversation.storage, embedder=embedder)
        index.sync()
        _SHARED[key] = index
    return _SHARED[key]


class _TurnLookup:
    """A stored event as a turn, each read once (questions of a conversation share turns)."""

    def __init__(self, storage: Storage) -> None:
        self._storage = storage
        self._turns: dict[str, Turn | None] = {}

    def __call__(self, event_id: str) -> Turn | None:
        if event_id not in self._turns:
            event = self._storage.find_event(event_id)
            self._turns[event_id] = None if event is None else turn_of(event)
        return self._turns[event_id]


class IndexSearchRetriever:
    """``SearchIndex.search`` in one mode; each hit returns its matched events, best first."""

    def __init__(self, index: SearchIndex, mode: SearchMode, *, name: str) -> None:
        self.name = name
        self._index = index
        self._mode = mode
        self._turn = _TurnLookup(index.storage)

    def retrieve(self, question: str) -> list[RankedItem]:
        """The hits of ``search``, best first, as runs of the events that matched."""
        outcome = self._index.search(question, mode=self._mode, limit=SEARCH_LIMIT)
        if outcome.mode_used is not self._mode:
            # A fallback would be scored under this method's name: stop instead.
            raise RuntimeError(
                f"{self.name}: search ran in mode {outcome.mode_used.value}, not "
                f"{self._mode.value}: {outcome.note}"
            )
        items: list[RankedItem] = []
        for hit in outcome.hits:
            turns = tuple(turn for turn in map(self._turn, hit.event_ids) if turn is not None)
            items.append(RankedItem(hit.segment_id, turns))
        return items

    def close(self) -> None:
        """The index is shared between methods (see :func:`shared_index`): kept open."""


class FusedTurnsRetriever:
    """FTS5 and vector event rankings, each over-fetched as ``search`` does, fused by RRF; one
    turn per item, best first."""

    def __init__(self, index: SearchIndex, *, name: str) -> None:
        if index.embedder is None:
            raise InvalidArgument(f"{name} needs an index with an embedder")
        self.name = name
        self._index = index
        self._turn = _TurnLookup(index.storage)

    def retrieve(self, question: str) -> list[RankedItem]:
        """The fused turns, best first."""
        fetch = 2 * SEARCH_LIMIT
        fused = reciprocal_rank_fusion(
            self._index.fts_events(question, limit=fetch),
            self._index.nearest_events(question, limit=fetch),
        )
        items: list[RankedItem] = []
        for event_id, _ in fused:
            turn = self._turn(event_id)
            if turn is not None:
                items.append(RankedItem(event_id, (turn,)))
        return items

    def close(self) -> None:
        """The index is shared between methods (see :func:`shared_index`): kept open."""


_Entries = TypeVar("_Entries")


class _WatchedSeeder:
    """An :class:`IndexSeeder` whose failures are kept: the navigator swallows a seeder's
    exception and the seeder itself degrades from vectors to full text, both by design for
    users, both a wrong attribution in an evaluation."""

    def __init__(self, seeder: IndexSeeder) -> None:
        self._seeder = seeder
        self.failure = ""

    @property
    def name(self) -> str:
        return self._seeder.name

    def seed(
        self, query: str, *, limit: int, start: datetime | None, end: datetime | None
    ) -> Sequence[tuple[str, float]]:
        return self._watched(lambda: self._seeder.seed(query, limit=limit, start=start, end=end))

    def seed_events(
        self, query: str, *, limit: int, start: datetime | None, end: datetime | None
    ) -> Sequence[tuple[str, str, float]]:
        return self._watched(
            lambda: self._seeder.seed_events(query, limit=limit, start=start, end=end)
        )

    def _watched(self, ask: Callable[[], _Entries]) -> _Entries:
        """What ``ask`` returns, keeping its exception or the seeder's own error."""
        try:
            entries = ask()
        except Exception as error:
            self.failure = f"{type(error).__name__}: {error}"
            raise
        if self._seeder.last_error:
            self.failure = self._seeder.last_error
        return entries


class TeleportedNavigator(NavigatorRetriever):
    """The navigator at one budget, its walk seeded by ``index`` (with vectors when the index
    has an embedder); a question on which the seeder failed stops the run."""

    def __init__(self, index: SearchIndex, *, now: datetime, token_budget: int, name: str) -> None:
        self._watched = _WatchedSeeder(IndexSeeder(index))
        super().__init__(index.storage, now=now, token_budget=token_budget, seeder=self._watched)
        self.name = name

    def retrieve(self, question: str) -> list[RankedItem]:
        """The seeded navigator's evidence, best first, as runs of turns."""
        self._watched.failure = ""
        items = super().retrieve(question)
        if self._watched.failure:
            raise RuntimeError(
                f"{self.name}: the {self._watched.name} seeder failed: {self._watched.failure}"
            )
        return items

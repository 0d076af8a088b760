"""The navigator as a retriever: each evidence item becomes the events of its grips."""

from __future__ import annotations

from datetime import datetime

from benchmarks._baselines import turn_of
from benchmarks._retrieval import RankedItem, Turn
from tocsearch.navigate import Navigator
from tocsearch.storage.protocol import Storage

__all__ = ["NavigatorRetriever"]


class NavigatorRetriever:
    """Runs :class:`tocsearch.navigate.Navigator` with ``now`` fixed (the end of the
    conversation) and returns one item per evidence item, in the navigator's order, holding the
    events of the item's grip ranges in event order."""

    name = "navigator"

    def __init__(self, storage: Storage, *, now: datetime, token_budget: int) -> None:
        self._storage = storage
        self._navigator = Navigator(storage, now=now, token_budget=token_budget)
        self._grip_turns: dict[str, tuple[Turn, ...]] = {}

    def _turns_of_grip(self, grip_id: str) -> tuple[Turn, ...]:
        cached = self._grip_turns.get(grip_id)
        if cached is None:
            grip = self._storage.find_grip(grip_id)
            if grip is None:
                cached = ()
            else:
                events = self._storage.get_event_range(grip.event_id_start, grip.event_id_end)
                cached = tuple(turn_of(event) for event in events)
            self._grip_turns[grip_id] = cached
        return cached

    def retrieve(self, question: str) -> list[RankedItem]:
        """The navigator's evidence, best first, as runs of turns."""
        result = self._navigator.navigate(question)
        items: list[RankedItem] = []
        for evidence in result.evidence:
            turns: dict[str, Turn] = {}
            for grip_id in evidence.grip_ids:
                for turn in self._turns_of_grip(grip_id):
                    turns.setdefault(turn.key, turn)
            ordered = tuple(turns[key] for key in sorted(turns))
            items.append(RankedItem(evidence.segment_id, ordered))
        return items

    def close(self) -> None:
        """Nothing to release; the store belongs to the caller."""

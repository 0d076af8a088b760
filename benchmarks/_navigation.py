"""The navigator as a retriever: each evidence item of its answer, as the caller receives it,
becomes the events it cites."""

from __future__ import annotations

import json
from datetime import datetime

from benchmarks._baselines import turn_of
from benchmarks._retrieval import RankedItem, Turn
from tocsearch.navigate import (
    EvidenceKind,
    NavigationResult,
    Navigator,
    SegmentSeeder,
    cited_event_ids,
)
from tocsearch.storage.protocol import Storage

__all__ = ["MAX_EVIDENCE", "NavigatorRetriever"]

MAX_EVIDENCE = 100
"""Evidence items asked of the navigator per question: enough events to fill the largest budget
of the evaluation, as the baselines return far more turns than any budget holds."""


class NavigatorRetriever:
    """Runs :class:`tocsearch.navigate.Navigator` with ``now`` fixed (the end of the
    conversation) and returns one item per evidence item, in the navigator's order, holding the
    events the item cites (:attr:`~tocsearch.navigate.Evidence.event_ids`: the event itself for
    an event item, the events of its grips' ranges for a statement, read from its grips when
    the budget left them out) in event order.

    The evidence is read from the answer as a caller receives it: the result's JSON
    (``to_dict()`` as JSON text, read back by ``NavigationResult.from_dict``), whose events
    must be those its Markdown cites (``cited_event_ids(to_markdown())``), or the question
    fails. After each question, :attr:`output_tokens` holds the size of that answer: the larger
    of its two renderings, counted by the navigator's estimator. With a ``seeder`` (an index)
    the walk starts with a teleport to the segments it names.
    """

    name = "navigator"

    def __init__(
        self,
        storage: Storage,
        *,
        now: datetime,
        token_budget: int,
        seeder: SegmentSeeder | None = None,
    ) -> None:
        self._storage = storage
        self._navigator = Navigator(
            storage, now=now, token_budget=token_budget, max_evidence=MAX_EVIDENCE, seeder=seeder
        )
        self._turns: dict[str, Turn | None] = {}
        self.output_tokens: int | None = None

    def _turn(self, event_id: str) -> Turn | None:
        if event_id not in self._turns:
            event = self._storage.find_event(event_id)
            self._turns[event_id] = None if event is None else turn_of(event)
        return self._turns[event_id]

    def _grip_events(self, grip_ids: tuple[str, ...]) -> tuple[str, ...]:
        """The events of the grips' ranges: what a statement cites when the budget left its
        event ids out (a caller expands its grips)."""
        found: list[str] = []
        for grip_id in grip_ids:
            grip = self._storage.find_grip(grip_id)
            if grip is not None:
                events = self._storage.get_event_range(grip.event_id_start, grip.event_id_end)
                found.extend(event.event_id for event in events)
        return tuple(dict.fromkeys(found))

    def retrieve(self, question: str) -> list[RankedItem]:
        """The navigator's evidence, best first, as runs of turns."""
        answer = self._navigator.navigate(question)
        text = json.dumps(answer.to_dict(), ensure_ascii=False)
        markdown = answer.to_markdown()
        estimator = self._navigator.estimator
        self.output_tokens = max(estimator(text), estimator(markdown))
        result = NavigationResult.from_dict(json.loads(text))
        events = [
            event_id
            for item in result.evidence
            if item.kind is EvidenceKind.EVENT
            for event_id in item.event_ids
        ]
        if tuple(events) != cited_event_ids(markdown):
            raise RuntimeError(f"the JSON and the Markdown cite other events for {question!r}")
        items: list[RankedItem] = []
        for evidence in result.evidence:
            cited = evidence.event_ids or self._grip_events(evidence.grip_ids)
            turns = tuple(
                turn
                for turn in (self._turn(event_id) for event_id in sorted(cited))
                if turn is not None
            )
            items.append(RankedItem(evidence.segment_id, turns))
        return items

    def close(self) -> None:
        """Nothing to release; the store belongs to the caller."""

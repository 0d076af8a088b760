"""The evidence a walk offers, best first: the ranked events of the grep, then statements from
the segments' summaries that cite events not yet offered. How many of them are returned is
decided by the token budget (:mod:`tocsearch.navigate._fit`), and what only an item returned
whole says (an event's grips, a statement's conversation) is read for those the fit reads
whole (:class:`Offered`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import overload

import attrs

from tocsearch._conversation import opening_event
from tocsearch.models import TocNode, event_project
from tocsearch.navigate._book import EvidenceBook
from tocsearch.navigate._events import EventHit
from tocsearch.navigate.result import Evidence, EvidenceKind
from tocsearch.storage.protocol import Storage

__all__ = ["Offered", "candidates"]


# Decimals of a score as returned: ranks are decided before, and every digit costs tokens.
_SCORE_DIGITS = 2


def _shown(score: float) -> float:
    return round(score, _SCORE_DIGITS)


class _Grips:
    """The grip ranges of segments and the events they cite, read once per navigation, the
    grips not yet known read together (:meth:`~tocsearch.storage.Storage.find_grips`).
    ``any_events`` says whether the store holds any event: when it holds none, no grip's
    range holds one, so :meth:`events_of` reads no grip (a tree loaded without its events
    would otherwise open a leaf of grips for every statement offered)."""

    def __init__(self, storage: Storage, *, any_events: bool = True) -> None:
        self.storage = storage
        self.any_events = any_events
        self.ranges: dict[str, tuple[str, str] | None] = {}

    def learn(self, grip_ids: Iterable[str]) -> None:
        """Read the ranges of those of ``grip_ids`` not read yet, in one batch."""
        wanted = [grip_id for grip_id in dict.fromkeys(grip_ids) if grip_id not in self.ranges]
        if not wanted:
            return
        found = self.storage.find_grips(wanted)
        for grip_id in wanted:
            grip = found.get(grip_id)
            self.ranges[grip_id] = (
                None if grip is None else (grip.event_id_start, grip.event_id_end)
            )

    def range_of(self, grip_id: str) -> tuple[str, str] | None:
        if grip_id not in self.ranges:
            self.learn((grip_id,))
        return self.ranges[grip_id]

    def holding(self, segment: TocNode, event_id: str) -> tuple[str, ...]:
        """The grips of the segment's bullets whose range holds ``event_id``."""
        found: dict[str, None] = {}
        for bullet in segment.bullets:
            for grip_id in bullet.grip_ids:
                span = self.range_of(grip_id)
                if span is not None and span[0] <= event_id <= span[1]:
                    found.setdefault(grip_id, None)
        return tuple(found)

    def events_of(self, grip_ids: Sequence[str]) -> tuple[str, ...]:
        """The ids of the stored events in the grips' ranges, in id order."""
        if not self.any_events:
            return ()
        found: set[str] = set()
        self.learn(grip_ids)
        for grip_id in grip_ids:
            span = self.range_of(grip_id)
            if span is not None:
                found.update(
                    event.event_id for event in self.storage.get_event_range(span[0], span[1])
                )
        return tuple(sorted(found))


class _Conversations:
    """The conversation (project and session) of each segment, read once per navigation;
    ``segments`` are those the walk read already (they are not read again)."""

    def __init__(self, storage: Storage, segments: Mapping[str, TocNode]) -> None:
        self.storage = storage
        self.segments = segments
        self.known: dict[str, tuple[str, str]] = {}

    def of(self, segment_id: str) -> tuple[str, str]:
        if segment_id not in self.known:
            first = opening_event(self.storage, segment_id, segment=self.segments.get(segment_id))
            self.known[segment_id] = (
                ("", "") if first is None else (event_project(first), first.session_id)
            )
        return self.known[segment_id]


def _event_evidence(hit: EventHit, grip_ids: tuple[str, ...] = ()) -> Evidence:
    """The event of ``hit`` as evidence citing ``grip_ids`` (none in its bare form: see
    :class:`Offered`)."""
    event = hit.event
    return Evidence(
        segment_id=hit.segment.node_id,
        segment_title=hit.segment.title,
        kind=EvidenceKind.EVENT,
        text=event.text,
        field=None,
        grip_ids=grip_ids,
        event_ids=(event.event_id,),
        score=_shown(min(1.0, hit.score)),
        matched_terms=hit.matched,
        start_time=event.timestamp,
        end_time=event.timestamp,
        project=event_project(event),
        session_id=event.session_id,
    )


# The fewest items whose grips one read asks for when an event item is first read whole; each
# later read asks for as many items again as were read whole before it, so an answer of n
# items takes about log2(n) reads and at most twice its own grips.
_FIRST_READ = 4


class Offered(Sequence[Evidence]):
    """The evidence offered to the fit, best first, each item as it is shown whole: an event
    with the grips of its segment that hold it, a statement with its segment's conversation.
    Those are read when an item is first read whole (and kept), so a question reads them for
    the items the fit costs as they are (those it returns, and the one it stops at), not for
    every candidate: the fit reads its items in order and stops at the first that does not
    fit whole.

    :attr:`bare` holds every item without them: what is said of the candidates as a whole
    (how many, from which segments, how many events, the terms found) and their slimmed and
    lean forms, which leave them out, are made from it. An item read whole is the same
    whichever items were read before it, and its slimmed and lean forms are those of its
    bare one.
    """

    def __init__(
        self,
        bare: Sequence[Evidence],
        hits: Sequence[EventHit],
        grips: _Grips,
        conversations: _Conversations,
    ) -> None:
        self.bare = tuple(bare)
        self._hits = tuple(hits)
        self._grips = grips
        self._conversations = conversations
        self._whole: list[Evidence] = []
        # The segments whose grips were read (or asked for) already.
        self._learned: set[str] = set()

    def __len__(self) -> int:
        return len(self.bare)

    def __iter__(self) -> Iterator[Evidence]:
        # Each item is read whole as the iteration reaches it, not before; those read whole
        # already are the list's (its iterator sees items appended meanwhile).
        made = self._whole
        yield from made
        while len(made) < len(self.bare):
            item = self._completed(len(made))
            made.append(item)
            yield item

    @overload
    def __getitem__(self, index: int) -> Evidence: ...

    @overload
    def __getitem__(self, index: slice) -> list[Evidence]: ...

    def __getitem__(self, index: int | slice) -> Evidence | list[Evidence]:
        if isinstance(index, slice):
            return [self.whole(number) for number in range(*index.indices(len(self.bare)))]
        if index < 0:
            index += len(self.bare)
        if not 0 <= index < len(self.bare):
            raise IndexError(f"evidence index {index} out of range")
        return self.whole(index)

    def whole(self, index: int) -> Evidence:
        """The item at ``index`` as it is shown whole; every item before it is read whole
        first (the fit reads them in order)."""
        made = self._whole
        while len(made) <= index:
            made.append(self._completed(len(made)))
        return made[index]

    def _completed(self, index: int) -> Evidence:
        item = self.bare[index]
        # The bare item itself when there is nothing to add (a store without events).
        if index < len(self._hits):
            self._learn_ahead(index)
            hit = self._hits[index]
            grip_ids = self._grips.holding(hit.segment, hit.event.event_id)
            # Made anew, as attrs.evolve takes several times as long.
            return _event_evidence(hit, grip_ids) if grip_ids else item
        project, session_id = self._conversations.of(item.segment_id)
        if (project, session_id) == (item.project, item.session_id):
            return item
        return attrs.evolve(item, project=project, session_id=session_id)

    def _learn_ahead(self, index: int) -> None:
        """Read the grips of the segments of the event items from ``index`` on, as many items
        as were read whole before it (at least :data:`_FIRST_READ`), in one read, unless its
        own segment's were read already."""
        hits = self._hits
        learned = self._learned
        if hits[index].segment.node_id in learned:
            return
        ahead = {
            hit.segment.node_id: hit.segment
            for hit in hits[index : index + max(_FIRST_READ, index)]
        }
        learned.update(ahead)
        self._grips.learn(
            grip_id
            for segment in ahead.values()
            for bullet in segment.bullets
            for grip_id in bullet.grip_ids
        )


def candidates(
    storage: Storage,
    book: EvidenceBook,
    hits: Sequence[EventHit],
    limit: int,
    *,
    any_events: bool = True,
) -> Offered:
    """At most ``limit`` evidence items, best first: the ranked events, then the statements
    whose events are not among them. ``any_events`` False says the store holds no event
    (the statements then cite none, and no grip is read to find that out).

    The statements' events are read here, as which statements are offered depends on them;
    what only an item shown whole says is read as the fit reads it (:class:`Offered`)."""
    grips = _Grips(storage, any_events=any_events)
    items: list[Evidence] = []
    cited: set[str] = set()
    shown: list[EventHit] = []
    for hit in hits:
        if len(shown) >= limit:
            break
        if hit.event.event_id not in cited:
            cited.add(hit.event.event_id)
            shown.append(hit)
    items.extend(_event_evidence(hit) for hit in shown)
    ranking = book.ranking()
    if any_events:
        # The grips of the statements that fill the offer when none is passed over, in one
        # read rather than one per statement.
        grips.learn(
            grip_id
            for statement in ranking[: max(0, limit - len(items))]
            for grip_id in statement.grip_ids
        )
    for statement in ranking:
        if len(items) >= limit:
            break
        events = grips.events_of(statement.grip_ids)
        if events and cited.issuperset(events):
            continue
        cited.update(events)
        items.append(attrs.evolve(statement, event_ids=events, score=_shown(statement.score)))
    return Offered(items, shown, grips, _Conversations(storage, book.segments))

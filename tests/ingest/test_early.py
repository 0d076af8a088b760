"""Early parents: weeks, months and years made while a build takes in later days give the tree
the roll-up alone gives, and the roll-up uses one only when its children are still the ones
it was made from."""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests._support.ingest_strategies import SMALL_CONFIG

from tocsearch import ids
from tocsearch.ingest import TocBuilder, check_tree
from tocsearch.ingest._digests import Unions
from tocsearch.ingest._early import EarlyParents
from tocsearch.ingest._rollup import ParentJob
from tocsearch.levels import TocLevel
from tocsearch.models import Event, EventRole, EventType, TocNode
from tocsearch.storage import InMemoryStorage
from tocsearch.summarize import ExtractiveSummarizer

# Mid-December, so that a few weeks cross a month and a year.
_START = datetime(2025, 12, 10, 9, 0, tzinfo=timezone.utc)
_TEXTS = (
    "The JWT refresh token expires too early and the API answers 401.",
    "Postgres migration 0042 holds a lock on the sessions table.",
    "Caroline asked about the adoption agency and the support group.",
    "Docker image size dropped after the multi-stage build.",
)


@st.composite
def _spread_streams(draw: st.DrawFn) -> list[Event]:
    """A few events on each of some days spread over up to ten weeks."""
    days = draw(st.lists(st.integers(0, 70), min_size=1, max_size=12, unique=True))
    made: list[Event] = []
    for day in sorted(days):
        clock = _START + timedelta(days=day)
        for _ in range(draw(st.integers(1, 3))):
            clock += timedelta(minutes=draw(st.integers(1, 90)))
            index = len(made)
            made.append(
                Event(
                    event_id=ids.event_id(clock, f"e{index}"),
                    session_id="s1",
                    timestamp=clock,
                    role=EventRole.USER if index % 2 == 0 else EventRole.ASSISTANT,
                    event_type=(
                        EventType.USER_MESSAGE if index % 2 == 0 else EventType.ASSISTANT_MESSAGE
                    ),
                    text=draw(st.sampled_from(_TEXTS)),
                )
            )
    return made


def _tree(storage: InMemoryStorage) -> dict[str, Any]:
    nodes = {node_id: storage.get_node(node_id) for node_id in storage.iter_node_ids()}
    grips = {grip_id: storage.get_grip(grip_id) for grip_id in storage.iter_grip_ids()}
    return {"nodes": nodes, "grips": grips}


def _build(batches: list[list[Event]]) -> InMemoryStorage:
    storage = InMemoryStorage()
    builder = TocBuilder(storage, config=SMALL_CONFIG, helpers=0)
    for batch in batches:
        builder.ingest(batch)
        check_tree(storage)
    return storage


@given(events=_spread_streams(), data=st.data())
def test_early_parents_give_the_tree_the_roll_up_gives(
    events: list[Event], data: st.DataObject
) -> None:
    """For any stream over many weeks and any split into batches (later ones adding days to
    weeks and months already stored), the nodes with their versions and digests, and the
    grips, are those of builds whose roll-up makes every parent itself."""
    cuts = sorted(data.draw(st.sets(st.integers(1, max(1, len(events) - 1)), max_size=3)))
    bounds = [0, *cuts, len(events)]
    batches = [events[start:end] for start, end in itertools.pairwise(bounds)]
    batches = [batch for batch in batches if batch]
    with_early = _tree(_build(batches))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(EarlyParents, "made", lambda self, node_id: None)
        without = _tree(_build(batches))
    assert with_early == without


def test_a_one_batch_build_leaves_only_the_last_parents_to_the_roll_up() -> None:
    """In a one-batch build of several months, the roll-up uses an early node for every week
    but the last, every month with a week of a later month before that, and every year with
    such a month of a later year."""
    events = [
        Event(
            event_id=ids.event_id(_START + timedelta(days=day), f"e{day}"),
            session_id="s1",
            timestamp=_START + timedelta(days=day),
            role=EventRole.USER,
            event_type=EventType.USER_MESSAGE,
            text=_TEXTS[day % len(_TEXTS)],
        )
        for day in range(0, 120, 3)
    ]
    used: list[str] = []
    made = EarlyParents.made

    def counting(self: EarlyParents, node_id: str) -> TocNode | None:
        node = made(self, node_id)
        if node is not None:
            used.append(node_id)
        return node

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(EarlyParents, "made", counting)
        storage = _build([events])

    def ids_of(level: TocLevel) -> list[str]:
        return sorted(node.node_id for node in storage.get_nodes_by_level(level))

    def parents(node_ids: list[str]) -> list[str]:
        return [parent for node_id in node_ids if (parent := ids.parent_id(node_id)) is not None]

    weeks = ids_of(TocLevel.WEEK)[:-1]
    # Ids of one level sort in time order.
    months = [m for m in ids_of(TocLevel.MONTH) if any(p > m for p in parents(weeks))]
    years = [y for y in ids_of(TocLevel.YEAR) if any(p > y for p in parents(months))]
    assert len(weeks) > 10
    assert len(months) >= 2
    assert years == ["toc:year:2025"]
    assert sorted(used) == sorted([*weeks, *months, *years])


def _day(day: int, text: str) -> TocNode:
    start = _START + timedelta(days=day)
    return TocNode(
        node_id=ids.day_id(start.date()),
        level=TocLevel.DAY,
        title=text,
        start_time=start,
        end_time=start + timedelta(minutes=5),
        summary=text,
        child_node_ids=(f"toc:segment:{start.date().isoformat()}:s{day}",),
    )


def test_a_week_is_made_from_its_stored_days_and_the_new_ones_once_a_later_week_begins() -> None:
    """A week completed by a day of a later week is made from its stored days with the new
    ones in their place, by time, as the roll-up makes it; a week still open is not made."""
    storage = InMemoryStorage()
    stored, replaced = _day(0, _TEXTS[0]), _day(2, _TEXTS[1])
    storage.put_nodes([stored, replaced])
    early = EarlyParents(storage, ExtractiveSummarizer(), Unions())
    new, renewed, later = _day(1, _TEXTS[2]), _day(2, _TEXTS[3]), _day(14, _TEXTS[2])
    week = ids.parent_id(new.node_id)
    assert week is not None
    assert ids.parent_id(stored.node_id) == week
    for day in (new, renewed):
        early.day_taken_in(day.start_time.date(), day)
    assert early.made(week) is None
    early.day_taken_in(later.start_time.date(), later)

    children = (stored, new, renewed)
    expected = ParentJob(week, TocLevel.WEEK, children, "").make(ExtractiveSummarizer())
    assert early.made(week) == expected
    assert expected.child_node_ids == tuple(day.node_id for day in children)
    # The later day's week is still open: more days may come.
    later_week = ids.parent_id(later.node_id)
    assert later_week is not None
    assert early.made(later_week) is None


def test_a_week_left_without_days_is_not_made_early() -> None:
    """A day taken in with no node left (its segments gone) leaves a week with no other day
    without an early node, which the roll-up removes."""
    early = EarlyParents(InMemoryStorage(), ExtractiveSummarizer(), Unions())
    gone, later = _day(0, _TEXTS[0]), _day(14, _TEXTS[1])
    early.day_taken_in(gone.start_time.date(), None)
    early.day_taken_in(later.start_time.date(), later)
    week = ids.parent_id(gone.node_id)
    assert week is not None
    assert early.made(week) is None

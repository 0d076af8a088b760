"""NodeIndex.add_many and EventIndex.add_many: the bulk loads behind the lazy JSON-directory
index and ``put_events`` give the same index as adding each entry on its own."""

from __future__ import annotations

import pickle
from datetime import datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st
from sortedcontainers import SortedList
from tests._support.navtree import utc

from tocsearch.levels import TocLevel
from tocsearch.storage._files_index import LazyEventIndex
from tocsearch.storage._index import EventIndex, NodeIndex

ORIGIN = utc(2026, 1, 1, 0)
Entry = tuple[str, datetime, datetime]

entries = st.lists(
    st.tuples(
        st.sampled_from([f"toc:segment:2026-01-01:n{n}" for n in range(12)]),
        st.integers(0, 500),
        st.integers(0, 200),
    ).map(
        lambda raw: (
            raw[0],
            ORIGIN + timedelta(hours=raw[1]),
            ORIGIN + timedelta(hours=raw[1] + raw[2]),
        )
    ),
    max_size=30,
)


def _state(index: NodeIndex) -> tuple[object, ...]:
    windows = [(None, None), (ORIGIN + timedelta(hours=100), ORIGIN + timedelta(hours=300))]
    return (
        sorted(index.ids()),
        [index.span(node_id) for node_id in sorted(index.ids())],
        [index.query(TocLevel.SEGMENT, start, end) for start, end in windows],
    )


@given(before=entries, batch=entries)
def test_add_many_equals_adding_one_by_one(before: list[Entry], batch: list[Entry]) -> None:
    """Bulk-adding a batch after some single adds leaves the same spans, ids and query answers
    as adding the batch one entry at a time (replaced ids, repeats and all)."""
    one_by_one, bulk = NodeIndex(), NodeIndex()
    for node_id, start, end in before:
        one_by_one.add(node_id, TocLevel.SEGMENT, start, end)
        bulk.add(node_id, TocLevel.SEGMENT, start, end)
    for node_id, start, end in batch:
        one_by_one.add(node_id, TocLevel.SEGMENT, start, end)
    bulk.add_many(TocLevel.SEGMENT, iter(batch))
    bulk.check()
    assert _state(bulk) == _state(one_by_one)


EventEntry = tuple[str, datetime, str]

event_entries = st.lists(
    st.tuples(st.integers(0, 11), st.integers(0, 500), st.sampled_from(["s1", "s2", "s3"])).map(
        lambda raw: (
            f"evt:{1767225600000 + raw[0] * 60_000:013d}:e{raw[0]}",
            ORIGIN + timedelta(minutes=raw[1]),
            raw[2],
        )
    ),
    max_size=30,
)


def _event_state(index: EventIndex) -> tuple[object, ...]:
    windows = [(None, None), (ORIGIN + timedelta(minutes=100), ORIGIN + timedelta(minutes=300))]
    ids = list(index.ids())
    return (
        ids,
        len(index),
        [index.session(session) for session in ("s1", "s2", "s3")],
        [index.in_time_range(start, end) for start, end in windows],
        [index.before(event_id, 2) + index.after(event_id, 2) for event_id in ids],
    )


@given(before=event_entries, batch=event_entries, lazy=st.booleans())
def test_event_add_many_equals_adding_one_by_one(
    before: list[EventEntry], batch: list[EventEntry], lazy: bool
) -> None:
    """Bulk-adding events after some single adds leaves the same ids, sessions and range
    answers as adding them one at a time (replaced ids, repeats, moved sessions and all),
    also for the lazily loaded index of the JSON directory."""

    def make() -> EventIndex:
        return LazyEventIndex(lambda: iter(())) if lazy else EventIndex()

    one_by_one, bulk = make(), make()
    for entry in before:
        one_by_one.add(*entry)
        bulk.add(*entry)
    for entry in batch:
        one_by_one.add(*entry)
    bulk.add_many(iter(batch))
    bulk.check()
    assert _event_state(bulk) == _event_state(one_by_one)
    if isinstance(bulk, LazyEventIndex) and isinstance(one_by_one, LazyEventIndex):
        for event_id, _, _ in before + batch:
            assert bulk.session_of(event_id) == one_by_one.session_of(event_id)


@given(entries, st.integers(0, 11))
def test_an_index_pickled_with_pairs_in_its_lists_reads_back_the_same(
    batch: list[Entry], dropped: int
) -> None:
    """An index pickled when a node was ``(level, start, end)`` in the span map and
    ``(start, node_id)`` in its level's list answers as the index it was."""
    index = NodeIndex()
    for node_id, start, end in batch:
        index.add(node_id, TocLevel.SEGMENT, start, end)
    index.discard(f"toc:segment:2026-01-01:n{dropped}")  # the longest span seen stays
    state = dict(vars(index))
    spans = {node_id: index.span(node_id) for node_id in index.ids()}
    state["_spans"] = spans
    state["_by_level"] = {
        level: SortedList(
            (span[1], node_id) for node_id, span in spans.items() if span and span[0] is level
        )
        for level in TocLevel
    }
    old = NodeIndex.__new__(NodeIndex)
    old.__setstate__(pickle.loads(pickle.dumps(state)))
    old.check()
    assert _state(old) == _state(index)
    assert old._longest == index._longest

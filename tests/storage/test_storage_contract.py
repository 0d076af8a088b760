"""The storage contract: every backend behaves exactly like a dict model of the store.

A hypothesis state machine puts, replaces and deletes nodes, grips and events, reopens file
stores, runs ``check()`` after every step and compares every query with the model.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from unittest import TestCase

import attrs
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from tests._support.storage_helpers import (
    BACKENDS,
    FILE_BACKENDS,
    MEMORY_BACKENDS,
    make_event,
    make_node,
    open_store,
)
from tests.strategies import events, grips, malformed_ids, non_string_ids, toc_nodes

from tocsearch import ids
from tocsearch.errors import (
    EventNotFound,
    GripNotFound,
    InvalidArgument,
    InvalidId,
    NodeNotFound,
    StoreClosed,
    StoreReadOnly,
)
from tocsearch.levels import TocLevel
from tocsearch.models import Event, Grip, TocNode
from tocsearch.storage._common import reads_of
from tocsearch.storage.protocol import Storage

_T0 = datetime(2026, 1, 30, 9, 0, tzinfo=timezone.utc)
offsets = st.integers(-3 * 86_400, 3 * 86_400).map(lambda seconds: timedelta(seconds=seconds))


@st.composite
def stored_nodes(draw: st.DrawFn) -> TocNode:
    """Nodes whose spans often leave their calendar period, in either direction."""
    node = draw(toc_nodes())
    if draw(st.booleans()):
        start = node.start_time + draw(offsets)
        node = attrs.evolve(
            node,
            start_time=start,
            end_time=start + timedelta(seconds=draw(st.integers(0, 2 * 86_400))),
        )
    return node


def _node_key(node: TocNode) -> tuple[datetime, str]:
    return node.start_time, node.node_id


class StoreModel(RuleBasedStateMachine):
    """Drives one backend and a plain-dict model with the same operations."""

    backend = "memory"

    def __init__(self) -> None:
        super().__init__()
        self.directory: Path | None = None
        if self.backend not in MEMORY_BACKENDS:
            self.directory = Path(tempfile.mkdtemp(prefix="tocsearch-contract-")) / "store"
        self.store = open_store(self.backend, self.directory)
        self.nodes: dict[str, TocNode] = {}
        self.grips: dict[str, Grip] = {}
        self.events: dict[str, Event] = {}
        # The store's revision and the model as it was then: one revision, one content.
        self.seen: tuple[int | None, object] = (None, None)
        # A block of reads left open across steps (SQLite: one read transaction), or None.
        self.block: contextlib.ExitStack | None = None

    def teardown(self) -> None:
        if self.block is not None:
            self.block.close()
        self.store.close()
        if self.directory is not None:
            shutil.rmtree(self.directory.parent, ignore_errors=True)

    # -- blocks of reads ---------------------------------------------------------------------
    @rule()
    def begin_or_end_a_block_of_reads(self) -> None:
        """Open a block of reads, or end the open one: the steps in between (writes, reads,
        checks, reopening) answer inside it as outside."""
        if self.block is None:
            self.block = contextlib.ExitStack()
            self.block.enter_context(reads_of(self.store))
        else:
            block, self.block = self.block, None
            block.close()

    # -- writes ------------------------------------------------------------------------------
    @rule(node=stored_nodes())
    def put_node(self, node: TocNode) -> None:
        self.store.put_node(node)
        self.nodes[node.node_id] = node

    @rule(batch=st.lists(stored_nodes(), max_size=4))
    def put_nodes(self, batch: list[TocNode]) -> None:
        self.store.put_nodes(batch)
        for node in batch:
            self.nodes[node.node_id] = node

    @precondition(lambda self: self.nodes)
    @rule(data=st.data(), shift=offsets, length=st.integers(0, 2 * 86_400))
    def replace_node(self, data: st.DataObject, shift: timedelta, length: int) -> None:
        """A new version of a stored node, whose span may leave its calendar period."""
        old = self.nodes[data.draw(st.sampled_from(sorted(self.nodes)))]
        start = old.start_time + shift
        node = attrs.evolve(
            old,
            start_time=start,
            end_time=start + timedelta(seconds=length),
            version=old.version + 1,
            child_node_ids=tuple(data.draw(st.lists(st.sampled_from(sorted(self.nodes))))),
        )
        self.store.put_node(node)
        self.nodes[node.node_id] = node

    @rule(data=st.data())
    def delete_node(self, data: st.DataObject) -> None:
        choices = [*sorted(self.nodes), "toc:year:1999", "toc:segment:2026-01-30:none"]
        node_id = data.draw(st.sampled_from(choices))
        self.store.delete_node(node_id)
        self.nodes.pop(node_id, None)

    @rule(grip=grips())
    def put_grip(self, grip: Grip) -> None:
        self.store.put_grip(grip)
        self.grips[grip.grip_id] = grip

    @rule(data=st.data())
    def delete_grip(self, data: st.DataObject) -> None:
        grip_id = data.draw(st.sampled_from([*sorted(self.grips), "grip:1:none"]))
        self.store.delete_grip(grip_id)
        self.grips.pop(grip_id, None)

    @rule(data=st.data())
    def grips_at_once(self, data: st.DataObject) -> None:
        """find_grips of stored, missing, repeated, empty and malformed ids is find_grip of
        each, in the order first asked, the missing left out; an id that is not a string is
        refused by both with the same InvalidId."""
        known = sorted(self.grips)
        some_id = st.sampled_from([*known, "grip:1:none"]) if known else st.just("grip:1:none")
        asked: list[object] = data.draw(st.lists(some_id | malformed_ids, max_size=8))
        if data.draw(st.booleans()):
            odd = data.draw(non_string_ids)
            asked.insert(data.draw(st.integers(0, len(asked))), odd)
            with pytest.raises(InvalidId) as alone:
                self.store.find_grip(odd)  # type: ignore[arg-type]
            with pytest.raises(InvalidId) as batched:
                self.store.find_grips(asked)  # type: ignore[arg-type]
            assert str(batched.value) == str(alone.value)
            assert repr(odd) in str(alone.value)
            return
        expected = {
            grip_id: self.grips[grip_id]
            for grip_id in dict.fromkeys(asked)
            if isinstance(grip_id, str) and grip_id in self.grips
        }
        found = self.store.find_grips(asked)  # type: ignore[arg-type]
        assert found == expected
        assert list(found) == list(expected)
        one_by_one = {}
        for grip_id in dict.fromkeys(asked):
            assert isinstance(grip_id, str)
            grip = self.store.find_grip(grip_id)
            if grip is not None:
                one_by_one[grip_id] = grip
        assert found == one_by_one

    @rule(batch=st.lists(events(), max_size=4))
    def put_events(self, batch: list[Event]) -> None:
        self.store.put_events(batch)
        for event in batch:
            self.events[event.event_id] = event

    @precondition(lambda self: self.events)
    @rule(data=st.data(), session=st.sampled_from(["s1", "s2", "Other/Session"]))
    def move_event(self, data: st.DataObject, session: str) -> None:
        """Putting an event again under another session moves it there."""
        old = self.events[data.draw(st.sampled_from(sorted(self.events)))]
        event = attrs.evolve(old, session_id=session, text=old.text + " again")
        self.store.put_event(event)
        self.events[event.event_id] = event

    @rule(data=st.data())
    def delete_events(self, data: st.DataObject) -> None:
        """Deleted events are gone from every query; unknown ids are ignored."""
        choices = [*sorted(self.events), ids.event_id(_T0, "never-stored")]
        doomed = data.draw(st.lists(st.sampled_from(choices), max_size=3))
        self.store.delete_events(doomed)
        for event_id in doomed:
            self.events.pop(event_id, None)
            assert not self.store.has_event(event_id)
            assert self.store.find_event(event_id) is None

    @rule()
    def scrub(self) -> None:
        """Scrubbing changes nothing a query sees."""
        self.store.scrub()
        self.compare_everything()

    @precondition(lambda self: self.directory is not None)
    @rule(readonly=st.booleans())
    def reopen(self, readonly: bool) -> None:
        """Closing and reopening a file store, as a writer or a reader, keeps everything."""
        self.store.close()
        self.store = open_store(self.backend, self.directory, readonly=readonly)
        if readonly:
            # The model's writes go through a writer; reopen as one for the next steps.
            self.compare_everything()
            self.store.close()
            self.store = open_store(self.backend, self.directory)

    # -- queries -----------------------------------------------------------------------------
    def _times(self, data: st.DataObject) -> datetime | None:
        anchors = [_T0] + [node.start_time for node in self.nodes.values()]
        anchors += [event.timestamp for event in self.events.values()]
        if data.draw(st.booleans()):
            return None
        # Now and then the first or the last time there is: no bound may overflow.
        if data.draw(st.integers(0, 9)) == 0:
            return data.draw(st.sampled_from([_FIRST_TIME, _LAST_TIME]))
        # Often exactly at a stored time: boundaries inside one millisecond are where
        # backends that index events by their id's millisecond must still be exact.
        shift = data.draw(st.one_of(st.just(timedelta(0)), offsets))
        return data.draw(st.sampled_from(anchors)) + shift

    @rule(data=st.data(), level=st.sampled_from(TocLevel))
    def nodes_by_level(self, data: st.DataObject, level: TocLevel) -> None:
        start, end = self._times(data), self._times(data)
        expected = sorted(
            (
                node
                for node in self.nodes.values()
                if node.level is level
                and (end is None or node.start_time < end)
                and (start is None or node.end_time >= start)
            ),
            key=_node_key,
        )
        assert self.store.get_nodes_by_level(level, start, end) == expected

    @rule(data=st.data())
    def child_nodes(self, data: st.DataObject) -> None:
        parent_id = data.draw(st.sampled_from([*sorted(self.nodes), "toc:year:1999"]))
        if parent_id not in self.nodes:
            with pytest.raises(NodeNotFound):
                self.store.get_child_nodes(parent_id)
            return
        expected = sorted(
            (
                self.nodes[child_id]
                for child_id in dict.fromkeys(self.nodes[parent_id].child_node_ids)
                if child_id in self.nodes
            ),
            key=_node_key,
        )
        assert self.store.get_child_nodes(parent_id) == expected

    @rule(data=st.data())
    def events_in_time(self, data: st.DataObject) -> None:
        start, end = self._times(data), self._times(data)
        expected = [
            self.events[event_id]
            for event_id in sorted(self.events)
            if (start is None or self.events[event_id].timestamp >= start)
            and (end is None or self.events[event_id].timestamp < end)
        ]
        assert self.store.get_events(start, end) == expected

    @rule(data=st.data(), limit=st.integers(-1, 5))
    def events_around(self, data: st.DataObject, limit: int) -> None:
        ordered = sorted(self.events)
        pivot = data.draw(st.sampled_from([*ordered, ids.event_id(_T0, "pivot")]))
        other = data.draw(st.sampled_from([*ordered, ids.event_id(_T0, "zz")]))
        first, last = sorted((pivot, other))
        below = [event_id for event_id in ordered if event_id < pivot]
        above = [event_id for event_id in ordered if event_id > pivot]
        assert [e.event_id for e in self.store.get_event_range(first, last)] == [
            event_id for event_id in ordered if first <= event_id <= last
        ]
        if limit < 0:  # a caller's mistake, refused rather than answered with nothing
            with pytest.raises(InvalidArgument, match="limit must be a whole number of at least 0"):
                self.store.get_events_before(pivot, limit)
            with pytest.raises(InvalidArgument, match="limit must be a whole number of at least 0"):
                self.store.get_events_after(pivot, limit)
            return
        expected_before = below[-limit:] if limit > 0 else []
        expected_after = above[:limit] if limit > 0 else []
        assert [e.event_id for e in self.store.get_events_before(pivot, limit)] == expected_before
        assert [e.event_id for e in self.store.get_events_after(pivot, limit)] == expected_after

    @rule(session=st.sampled_from(["s1", "s2", "session-three", "Other/Session", "none"]))
    def session_events(self, session: str) -> None:
        expected = [
            self.events[event_id]
            for event_id in sorted(self.events)
            if self.events[event_id].session_id == session
        ]
        assert self.store.get_session_events(session) == expected

    @invariant()
    def store_is_consistent(self) -> None:
        self.store.check()
        assert self.store.count_nodes() == len(self.nodes)
        assert self.store.count_events() == len(self.events)

    def compare_everything(self) -> None:
        """Every record and listing of the store equals the model."""
        store = self.store
        store.check()
        assert sorted(store.iter_node_ids()) == sorted(self.nodes)
        assert sorted(store.iter_grip_ids()) == sorted(self.grips)
        for node_id, node in self.nodes.items():
            assert store.get_node(node_id) == node
        for grip_id, grip in self.grips.items():
            assert store.get_grip(grip_id) == grip
        for event_id, event in self.events.items():
            assert store.get_event(event_id) == event
            assert store.has_event(event_id)
        years = sorted((n for n in self.nodes.values() if n.level is TocLevel.YEAR), key=_node_key)
        assert store.get_toc_root() == years
        assert store.get_events() == [self.events[event_id] for event_id in sorted(self.events)]

    @rule()
    def everything_matches(self) -> None:
        self.compare_everything()

    @invariant()
    def one_revision_holds_one_content(self) -> None:
        """While the revision stays the same, so does everything the store holds; a writer
        always vouches for its revision."""
        revision = self.store.revision()
        assert revision is not None
        content = (dict(self.nodes), dict(self.grips), dict(self.events))
        if revision == self.seen[0]:
            assert content == self.seen[1]
        self.seen = (revision, content)


def _machine_test(backend: str) -> type[TestCase]:
    machine: type[StoreModel] = type(f"StoreModel_{backend}", (StoreModel,), {"backend": backend})
    case: type[TestCase] = machine.TestCase
    case.settings = settings(stateful_step_count=20)  # type: ignore[attr-defined]
    return case


TestMemoryContract = _machine_test("memory")
TestObjectsMemoryContract = _machine_test("memory-objects")
TestJsonDirContract = _machine_test("jsondir")
TestShelveContract = _machine_test("shelve")
TestSqliteContract = _machine_test("sqlite")


# -- example-based parts of the contract, over every backend ------------------------------
@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Storage]:
    """An empty store of each backend."""
    opened = open_store(request.param, tmp_path / "store")
    yield opened
    opened.close()


_node = make_node
_event = make_event


def _grip(number: int) -> Grip:
    """Grip number ``number``, on the events of the same number."""
    return Grip(
        grip_id=ids.grip_id(_T0, f"g{number}"),
        excerpt=f"excerpt {number}",
        event_id_start=ids.event_id(_T0, f"s{number}"),
        event_id_end=ids.event_id(_T0, f"s{number}"),
        timestamp=_T0,
        source="test",
    )


def test_every_backend_implements_the_protocol(store: Storage) -> None:
    """Each backend is a Storage."""
    assert isinstance(store, Storage)


def test_every_write_moves_the_revision_and_reads_leave_it(store: Storage) -> None:
    """Each kind of write gives a revision never seen before; reads give the same one."""
    seen = [store.revision()]

    def moved() -> None:
        revision = store.revision()
        assert revision is not None
        assert revision not in seen
        seen.append(revision)

    node = _node("toc:segment:2026-01-30:one", TocLevel.SEGMENT, _T0)
    event, grip = _event(_T0, "one"), _grip(1)
    store.put_node(node)
    moved()
    store.put_events([event])
    moved()
    store.put_grips([grip])
    moved()
    assert store.get_node(node.node_id) == node
    assert store.get_events() == [event]
    assert store.find_grips([grip.grip_id]) == {grip.grip_id: grip}
    assert store.revision() == seen[-1]
    store.delete_grip(grip.grip_id)
    moved()
    store.delete_events([event.event_id])
    moved()
    store.delete_node(node.node_id)
    moved()


def test_missing_records_raise_not_found_and_find_returns_none(store: Storage) -> None:
    """get_* of an unknown id raises the matching NotFound; find_* returns None."""
    with pytest.raises(NodeNotFound, match="toc:day:2026-01-30"):
        store.get_node("toc:day:2026-01-30")
    with pytest.raises(GripNotFound):
        store.get_grip("grip:1:x")
    with pytest.raises(EventNotFound):
        store.get_event(ids.event_id(_T0, "x"))
    assert store.find_node("toc:day:2026-01-30") is None
    assert store.find_grip("grip:1:x") is None
    assert store.find_event(ids.event_id(_T0, "x")) is None
    assert not store.has_event(ids.event_id(_T0, "x"))


def test_grips_are_found_at_once_past_one_query_of_ids(store: Storage) -> None:
    """find_grips reads more ids than one SQL query binds, skips strings no grip can be named
    by and keeps the order asked."""
    stored = [_grip(n) for n in range(1_200)]
    store.put_grips(stored)
    asked = [grip.grip_id for grip in reversed(stored)]
    asked[5:5] = ["", "grip:1:none", "garbage", "grip:\udc80:odd", stored[0].grip_id]
    found = store.find_grips(asked)
    first_asked = [grip.grip_id for grip in reversed(stored)]
    first_asked.remove(stored[0].grip_id)
    first_asked.insert(5, stored[0].grip_id)
    assert list(found) == first_asked
    assert all(found[grip.grip_id] == grip for grip in stored)
    assert store.find_grips(()) == {}
    store.close()
    with pytest.raises(StoreClosed):
        store.find_grips(())


def test_ids_that_are_not_strings_are_refused_alone_and_in_a_batch(store: Storage) -> None:
    """find_grip, get_grip and find_grips refuse an id that is not a string with one
    InvalidId naming it, and find_grips refuses one string given for the whole collection."""
    grip = _grip(0)
    store.put_grip(grip)
    message = "grip_id must be a string, got bytes b'grip:1:x'"
    with pytest.raises(InvalidId, match=message):
        store.find_grip(b"grip:1:x")  # type: ignore[arg-type]
    with pytest.raises(InvalidId, match=message):
        store.get_grip(b"grip:1:x")  # type: ignore[arg-type]
    with pytest.raises(InvalidId, match=message):
        store.find_grips([grip.grip_id, b"grip:1:x"])  # type: ignore[list-item]
    with pytest.raises(InvalidArgument, match="not one string"):
        store.find_grips(grip.grip_id)
    assert store.find_grips([grip.grip_id]) == {grip.grip_id: grip}


def test_empty_ids_are_invalid_arguments(store: Storage) -> None:
    """An empty id is a caller error, not a missing record."""
    for call in (store.get_node, store.get_grip, store.get_event):
        with pytest.raises(InvalidArgument):
            call("")


def test_a_segment_past_midnight_is_found_on_the_next_day(store: Storage) -> None:
    """A node whose span leaves its calendar period is found by a query on the part outside."""
    late = _node("toc:segment:2026-01-30:late", TocLevel.SEGMENT, _T0.replace(hour=23), hours=3)
    store.put_node(late)
    next_morning = datetime(2026, 1, 31, 1, 0, tzinfo=timezone.utc)
    assert store.get_nodes_by_level(TocLevel.SEGMENT, next_morning) == [late]
    inside = attrs.evolve(late, end_time=late.start_time + timedelta(minutes=30))
    store.put_node(inside)
    assert store.get_nodes_by_level(TocLevel.SEGMENT, next_morning) == []
    store.check()


def test_events_in_one_millisecond_are_split_by_their_exact_timestamps(store: Storage) -> None:
    """A range boundary inside a millisecond separates events by microseconds."""
    first = _event(_T0.replace(microsecond=100), "a")
    second = _event(_T0.replace(microsecond=700), "b")
    store.put_events([first, second])
    assert store.get_events(_T0.replace(microsecond=500)) == [second]
    assert store.get_events(None, _T0.replace(microsecond=500)) == [first]


_FIRST_TIME = datetime.min.replace(tzinfo=timezone.utc)
_LAST_TIME = datetime.max.replace(tzinfo=timezone.utc)


def test_the_first_and_last_times_there_are_bound_every_read(store: Storage) -> None:
    """Reads bounded by datetime.min and datetime.max (UTC) answer like unbounded ones: the
    last millisecond has no next one to bound ids by."""
    event = make_event(_T0, "a")
    store.put_events([event])
    node = make_node(ids.segment_id(_T0.date(), "s"), TocLevel.SEGMENT, _T0)
    store.put_node(node)
    for start in (None, _FIRST_TIME):
        for end in (None, _LAST_TIME):
            assert store.get_events(start, end) == [event]
            assert store.get_nodes_by_level(TocLevel.SEGMENT, start, end) == [node]
    assert store.get_events(_LAST_TIME - timedelta(microseconds=1), _LAST_TIME) == []
    assert store.get_events(_FIRST_TIME, _FIRST_TIME + timedelta(microseconds=1)) == []


def test_a_limit_past_every_row_reads_every_row(store: Storage) -> None:
    """A limit larger than SQLite's integers (10**20) reads all the events there are, on
    every store, instead of a false report of a damaged database."""
    events = [make_event(_T0 + timedelta(seconds=n), f"e{n}") for n in range(5)]
    store.put_events(events)
    assert store.get_events_before(events[-1].event_id, 10**20) == events[:-1]
    assert store.get_events_after(events[0].event_id, 10**20) == events[1:]


def test_closed_store_refuses_every_call(store: Storage) -> None:
    """After close(), calls raise StoreClosed; closing again is fine."""
    store.close()
    store.close()
    with pytest.raises(StoreClosed):
        store.get_toc_root()
    with pytest.raises(StoreClosed):
        store.put_node(_node("toc:year:2026", TocLevel.YEAR, _T0))
    with pytest.raises(StoreClosed):
        store.count_events()
    with pytest.raises(StoreClosed), store:
        pass


def test_context_manager_closes_the_store(store: Storage) -> None:
    """Leaving a with block closes the store."""
    with store as same:
        assert same is store
        same.put_node(_node("toc:year:2026", TocLevel.YEAR, _T0))
    with pytest.raises(StoreClosed):
        store.count_nodes()


def test_deleted_events_leave_every_query(store: Storage) -> None:
    """delete_events removes events from lookups, ranges, neighbours, sessions and counts;
    ids not stored (or repeated) are ignored and the other events stay."""
    events = [_event(_T0 + timedelta(minutes=n), f"e{n}", session=f"s{n % 2}") for n in range(6)]
    store.put_events(events)
    doomed = [events[1].event_id, events[4].event_id]
    store.delete_events([*doomed, doomed[0], ids.event_id(_T0, "never-stored")])
    kept = [event for event in events if event.event_id not in doomed]
    assert store.count_events() == len(kept)
    assert store.get_events() == kept
    assert store.get_event_range(events[0].event_id, events[-1].event_id) == kept
    assert store.get_events_after(events[0].event_id, 2) == kept[1:3]
    assert store.get_events_before(events[-1].event_id, 2) == kept[-3:-1]
    assert store.get_session_events("s1") == [e for e in kept if e.session_id == "s1"]
    for event_id in doomed:
        assert store.find_event(event_id) is None
        assert not store.has_event(event_id)
    store.delete_events([])
    store.scrub()
    assert store.get_events() == kept
    store.check()


def test_an_event_deleted_then_put_again_is_back(store: Storage) -> None:
    """Deleting does not poison an id: the same event can be stored again."""
    event = _event(_T0, "again")
    store.put_event(event)
    store.delete_events([event.event_id])
    store.put_event(event)
    assert store.get_event(event.event_id) == event
    assert store.count_events() == 1
    store.check()


@pytest.mark.parametrize("backend", FILE_BACKENDS)
def test_deletes_are_durable_and_scrub_leaves_no_old_text(backend: str, tmp_path: Path) -> None:
    """A deleted event stays deleted after reopening, and after scrub() no file holds its
    text or the text of a replaced node version."""
    path = tmp_path / "store"
    events = [_event(_T0 + timedelta(minutes=n), f"e{n}") for n in range(3)]
    doomed = attrs.evolve(events[1], text="the quokka password is hunter2")
    node = _node("toc:year:2026", TocLevel.YEAR, _T0)
    with open_store(backend, path) as opened:
        opened.put_events([events[0], doomed, events[2]])
        opened.put_node(attrs.evolve(node, title="about the okapi secret"))
        opened.put_node(node)
        opened.delete_events([doomed.event_id])
        opened.scrub()
    raw = b"".join(p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file())
    assert b"quokka" not in raw
    assert b"okapi" not in raw
    with open_store(backend, path, readonly=True) as reopened:
        assert reopened.get_events() == [events[0], events[2]]
        assert reopened.get_node(node.node_id) == node
        reopened.check()


@pytest.mark.parametrize("backend", FILE_BACKENDS)
def test_a_read_only_store_refuses_delete_and_scrub(backend: str, tmp_path: Path) -> None:
    """delete_events and scrub on a read-only store raise StoreReadOnly and change nothing."""
    event = _event(_T0, "kept")
    with open_store(backend, tmp_path / "store") as opened:
        opened.put_event(event)
    with open_store(backend, tmp_path / "store", readonly=True) as reader:
        with pytest.raises(StoreReadOnly):
            reader.delete_events([event.event_id])
        with pytest.raises(StoreReadOnly):
            reader.scrub()
        assert reader.get_events() == [event]


def test_a_closed_store_refuses_delete_and_scrub(store: Storage) -> None:
    """delete_events and scrub after close() raise StoreClosed."""
    store.close()
    with pytest.raises(StoreClosed):
        store.delete_events([ids.event_id(_T0, "x")])
    with pytest.raises(StoreClosed):
        store.scrub()

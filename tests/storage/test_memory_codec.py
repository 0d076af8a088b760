"""Packed grips and events unpack to records equal to the originals, field by field and type
by type, whatever their text, times and metadata; what cannot be packed is kept as it is."""

from __future__ import annotations

import base64
import marshal
import pickle
from datetime import datetime, timedelta, timezone

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st
from tests._support.examples import scaled
from tests.strategies import events, grips, suffixes, toc_nodes

from tocsearch import ids
from tocsearch.levels import TocLevel
from tocsearch.models import Event, EventRole, EventType, Grip, TocBullet, TocNode
from tocsearch.storage._leaf_map import LeafMap
from tocsearch.storage._memory_codec import (
    grip_fields,
    grip_from_fields,
    pack_event,
    pack_node,
    unpack_event,
    unpack_node,
)
from tocsearch.storage.memory import InMemoryStorage

# Any Unicode text, unpaired surrogates included: a grip's excerpt keeps them as given.
any_text = st.text(max_size=40)
zones = st.sampled_from(
    [timezone.utc, timezone(timedelta(hours=5, minutes=30)), timezone(timedelta(hours=-11))]
)
any_times = st.datetimes(
    min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=zones
)


class _Text(str):
    """A str subclass, which marshal refuses."""


def same_fields(first: attrs.AttrsInstance, second: attrs.AttrsInstance) -> None:
    assert type(first) is type(second)
    for field in attrs.fields(type(first)):
        mine, theirs = getattr(first, field.name), getattr(second, field.name)
        assert mine == theirs, field.name
        assert type(mine) is type(theirs), field.name


@st.composite
def wide_grips(draw: st.DrawFn) -> Grip:
    """Grips with any excerpt, source and owner, at any time in any zone."""
    grip = draw(grips())
    return attrs.evolve(
        grip,
        excerpt=draw(any_text),
        source=draw(any_text),
        timestamp=draw(any_times),
        toc_node_id=draw(st.none() | any_text),
    )


@st.composite
def wide_events(draw: st.DrawFn) -> Event:
    """Events with any text, session, agent and metadata, at microsecond times."""
    event = draw(events())
    return attrs.evolve(
        event,
        session_id=draw(any_text.filter(bool)),
        role=draw(st.sampled_from(EventRole)),
        event_type=draw(st.sampled_from(EventType)),
        text=draw(any_text),
        metadata=draw(st.dictionaries(any_text, any_text, max_size=4)),
        agent=draw(st.none() | any_text),
    )


@st.composite
def wide_nodes(draw: st.DrawFn) -> TocNode:
    """Nodes of any level with any texts, bullets, ids and digest, at any time in any zone."""
    node = draw(toc_nodes())
    start = draw(any_times)
    texts = st.lists(any_text, max_size=4).map(tuple)
    return attrs.evolve(
        node,
        title=draw(any_text),
        start_time=start,
        end_time=start + draw(st.timedeltas(min_value=timedelta(0), max_value=timedelta(days=9))),
        bullets=tuple(
            TocBullet(text, grip_ids)
            for text, grip_ids in draw(st.lists(st.tuples(any_text, texts), max_size=6))
        ),
        keywords=draw(texts),
        child_node_ids=draw(texts),
        summary=draw(st.none() | any_text),
        version=draw(st.integers(-(2**70), 2**70)),
        event_ids=draw(texts),
        overlap_event_ids=draw(texts),
        digest=draw(any_text),
    )


@given(wide_nodes())
def test_a_packed_node_unpacks_to_the_same_node(node: TocNode) -> None:
    packed = pack_node(node)
    assert isinstance(packed, bytes)
    unpacked = unpack_node(node.node_id, packed)
    same_fields(unpacked, node)
    for mine, theirs in zip(unpacked.bullets, node.bullets, strict=True):
        same_fields(mine, theirs)


def test_a_node_with_a_str_subclass_is_kept_as_it_is() -> None:
    start = datetime(2026, 1, 30, 9, tzinfo=timezone.utc)
    node = TocNode(
        node_id="toc:segment:2026-01-30:s1",
        level=TocLevel.SEGMENT,
        title=_Text("Rotated the credentials"),
        start_time=start,
        end_time=start,
    )
    assert pack_node(node) is node
    with InMemoryStorage(pack_segments=True) as storage:
        storage.put_node(node)
        assert type(storage.get_node(node.node_id).title) is _Text
        storage.check()


@given(st.lists(wide_nodes(), max_size=5), st.booleans())
def test_a_pickled_store_reads_back_what_it_was_given(
    nodes: list[TocNode], pack_segments: bool
) -> None:
    with InMemoryStorage(pack_segments=pack_segments) as storage:
        storage.put_nodes(nodes)
        copied = pickle.loads(pickle.dumps(storage))
    latest = {node.node_id: node for node in nodes}
    with copied:
        copied.check()
        assert {node_id: copied.get_node(node_id) for node_id in latest} == latest


def test_a_store_pickled_before_segments_could_be_packed_still_writes() -> None:
    storage = InMemoryStorage(pack_segments=False)
    state = dict(vars(storage))
    del state["_packs_segments"], state["_packed_nodes"]
    old = InMemoryStorage.__new__(InMemoryStorage)
    old.__setstate__(state)
    start = datetime(2026, 1, 30, 9, tzinfo=timezone.utc)
    node = TocNode(
        node_id="toc:segment:2026-01-30:s1",
        level=TocLevel.SEGMENT,
        title="Rotated the credentials",
        start_time=start,
        end_time=start,
    )
    old.put_node(node)
    assert old.get_node(node.node_id) == node
    assert node.node_id in old._packed_nodes  # packed, as segments now are by default
    old.delete_node(node.node_id)
    assert old.find_node(node.node_id) is None


@given(wide_grips())
def test_a_grip_rebuilt_from_its_marshalled_fields_is_the_same_grip(grip: Grip) -> None:
    fields = marshal.loads(marshal.dumps(grip_fields(grip)))
    same_fields(grip_from_fields(grip.grip_id, fields), grip)


@given(wide_events())
def test_a_packed_event_unpacks_to_the_same_event(event: Event) -> None:
    packed = pack_event(event)
    assert isinstance(packed, bytes)
    unpacked = unpack_event(event.event_id, packed)
    same_fields(unpacked, event)
    assert list(unpacked.metadata.items()) == list(event.metadata.items())


@given(st.lists(grips(), min_size=1, max_size=4))
def test_a_grip_with_a_str_subclass_is_kept_as_it_is(batch: list[Grip]) -> None:
    odd = attrs.evolve(batch[0], excerpt=_Text(batch[0].excerpt))
    with InMemoryStorage() as storage:
        storage.put_grips([*batch, odd])
        assert storage.get_grip(odd.grip_id) is odd
        latest = {grip.grip_id: grip for grip in [*batch, odd]}
        assert {grip_id: storage.get_grip(grip_id) for grip_id in latest} == latest
        assert sorted(storage.iter_grip_ids()) == sorted(latest)
        storage.put_grip(batch[0])  # packs again: the odd copy goes
        assert type(storage.get_grip(batch[0].grip_id).excerpt) is str
        assert sorted(storage.iter_grip_ids()) == sorted(latest)
        storage.check()


def test_an_event_with_a_str_subclass_in_its_metadata_is_kept_as_it_is() -> None:
    when = datetime(2026, 1, 30, 9, tzinfo=timezone.utc)
    event = Event(
        event_id=ids.event_id(when, "a"),
        session_id="s1",
        timestamp=when,
        role=EventRole.USER,
        event_type=EventType.USER_MESSAGE,
        text="hello",
    )
    # The converter copies metadata into a new dict; a subclass value survives it.
    odd = attrs.evolve(event, metadata={"cwd": _Text("/repo")})
    assert type(odd.metadata["cwd"]) is _Text
    assert pack_event(odd) is odd


@given(st.lists(wide_events(), max_size=6), st.lists(wide_grips(), max_size=6))
def test_the_memory_store_reads_back_what_it_was_given(
    batch: list[Event], grip_batch: list[Grip]
) -> None:
    with InMemoryStorage() as storage:
        storage.put_events(batch)
        storage.put_grips(grip_batch)
        latest_events = {event.event_id: event for event in batch}
        latest_grips = {grip.grip_id: grip for grip in grip_batch}
        for event_id, event in latest_events.items():
            same_fields(storage.get_event(event_id), event)
        for grip_id, grip in latest_grips.items():
            same_fields(storage.get_grip(grip_id), grip)
        storage.check()


@given(suffixes)
def test_a_read_event_is_a_copy_whose_metadata_cannot_change_the_store(suffix: str) -> None:
    when = datetime(2026, 1, 30, 9, tzinfo=timezone.utc)
    event = Event(
        event_id=ids.event_id(when, suffix),
        session_id="s1",
        timestamp=when,
        role=EventRole.USER,
        event_type=EventType.USER_MESSAGE,
        text="hello",
        metadata={"cwd": "/repo"},
    )
    with InMemoryStorage() as storage:
        storage.put_event(event)
        storage.get_event(event.event_id).metadata["cwd"] = "/elsewhere"
        assert storage.get_event(event.event_id).metadata == {"cwd": "/repo"}


class _Moment(datetime):
    """A datetime subclass that pickles itself its own way."""

    def __reduce__(self) -> tuple[object, ...]:
        return (_Moment.fromisoformat, (self.isoformat(),))


@given(grips())
def test_a_time_of_a_datetime_subclass_packs_to_the_same_time(grip: Grip) -> None:
    when = grip.timestamp
    odd = attrs.evolve(grip, timestamp=_Moment.fromtimestamp(when.timestamp(), timezone.utc))
    assert type(odd.timestamp) is _Moment
    unpacked = grip_from_fields(odd.grip_id, marshal.loads(marshal.dumps(grip_fields(odd))))
    assert unpacked.timestamp == odd.timestamp
    assert unpacked.timestamp.tzinfo is timezone.utc


@given(st.lists(wide_grips(), max_size=6))
def test_a_store_pickled_when_grips_were_packed_one_by_one_reads_them_back(
    batch: list[Grip],
) -> None:
    storage = InMemoryStorage()
    state = dict(vars(storage))
    del state["_odd_grips"]
    # Each grip then was its marshalled fields, or itself when marshal refused one.
    state["_grips"] = {
        grip.grip_id: grip if grip.grip_id.endswith("0") else marshal.dumps(grip_fields(grip))
        for grip in batch
    }
    old = InMemoryStorage.__new__(InMemoryStorage)
    old.__setstate__(pickle.loads(pickle.dumps(state)))
    latest = {grip.grip_id: grip for grip in batch}
    with old:
        old.check()
        for grip_id, grip in latest.items():
            same_fields(old.get_grip(grip_id), grip)
        assert sorted(old.iter_grip_ids()) == sorted(latest)


@given(st.lists(wide_nodes(), max_size=5))
def test_a_store_pickled_when_segments_were_packed_one_by_one_reads_them_back(
    nodes: list[TocNode],
) -> None:
    storage = InMemoryStorage(pack_segments=True)
    storage.put_nodes(nodes)
    state = dict(vars(storage))
    del state["_packs_segments"]
    state["_pack_segments"] = True
    # Each packed segment then was one bytes under its id in a dict.
    state["_packed_nodes"] = {
        node_id: storage._packed_nodes.get(node_id) for node_id in storage._packed_nodes
    }
    old = InMemoryStorage.__new__(InMemoryStorage)
    old.__setstate__(pickle.loads(pickle.dumps(state)))
    storage.close()
    latest = {node.node_id: node for node in nodes}
    with old:
        old.check()
        assert {node_id: old.get_node(node_id) for node_id in latest} == latest


@given(wide_nodes(), st.binary(max_size=80), st.sampled_from(["", "QR==", "QQ", " QQ==", "é"]))
def test_a_base64_digest_packs_as_its_bytes_and_any_other_text_as_it_is(
    node: TocNode, raw: bytes, other: str
) -> None:
    digest = base64.b64encode(raw).decode("ascii")
    for text in (digest, digest + other, other):
        with_digest = attrs.evolve(node, digest=text)
        packed = pack_node(with_digest)
        assert isinstance(packed, bytes)
        same_fields(unpack_node(node.node_id, packed), with_digest)
    without = pack_node(attrs.evolve(node, digest=""))
    packed = pack_node(attrs.evolve(node, digest=digest))
    assert isinstance(without, bytes)
    assert isinstance(packed, bytes)
    assert len(packed) <= len(without) + len(raw) + 5


def _old_state(storage: InMemoryStorage, *, leaves_of_16: bool) -> dict[str, object]:
    """The pickled state of ``storage`` as a store of the layout before segments were packed
    by default kept it: segments as objects (the default then), or packed sixteen to a
    zlib-framed leaf (``pack_segments=True`` then)."""
    state = dict(vars(storage))
    del state["_packs_segments"]
    segments = {
        node_id: storage.get_node(node_id)
        for node_id in storage.iter_node_ids()
        if storage.get_node(node_id).level is TocLevel.SEGMENT
    }
    nodes = dict(storage._nodes)
    table = LeafMap(leaf_size=16, kept_open=64)
    if leaves_of_16:
        packed = {node_id: pack_node(node) for node_id, node in segments.items()}
        table.update((node_id, form) for node_id, form in packed.items() if type(form) is bytes)
        nodes.update((node_id, form) for node_id, form in packed.items() if type(form) is TocNode)
    else:
        nodes.update(segments)
    state.update(_pack_segments=leaves_of_16, _nodes=nodes, _packed_nodes=table)
    return state


def _many_segments(count: int) -> list[TocNode]:
    """Segments enough for the segment table to learn its dictionary."""
    start = datetime(2026, 1, 5, 9, tzinfo=timezone.utc)
    return [
        TocNode(
            node_id=ids.segment_id((start + timedelta(hours=n)).date(), f"s{n}"),
            level=TocLevel.SEGMENT,
            title=f"Rotated the credentials of host {n}",
            start_time=start + timedelta(hours=n),
            end_time=start + timedelta(hours=n, minutes=20),
            bullets=(TocBullet(f"host {n} rotated", (ids.grip_id(start, f"g{n}"),)),),
            keywords=("rotated", f"host{n}"),
            digest=base64.b64encode(bytes([n % 251]) * 24).decode("ascii"),
        )
        for n in range(count)
    ]


_MANY = _many_segments(300)


@settings(max_examples=scaled(25), deadline=None)
@given(
    st.lists(st.lists(wide_nodes(), max_size=4), max_size=3),
    st.lists(st.integers(0, len(_MANY) - 1), max_size=6),
    st.booleans(),
    st.booleans(),
)
def test_every_node_reads_back_as_stored_in_either_layout_after_updates(
    batches: list[list[TocNode]], rewritten: list[int], pack_segments: bool, deleted: bool
) -> None:
    """Past the dictionary's learning, through rewrites, deletes and a pickle, every node the
    store holds reads back equal to the last one put under its id, in both layouts."""
    storage = InMemoryStorage(pack_segments=pack_segments)
    model: dict[str, TocNode] = {}

    def put(nodes: list[TocNode]) -> None:
        storage.put_nodes(nodes)
        model.update((node.node_id, node) for node in nodes)

    put(_MANY[:200])
    for batch in batches:
        put(batch)
    put(_MANY[200:])
    assert bool(storage._packed_nodes._dictionary) is pack_segments
    put([attrs.evolve(_MANY[n], title=f"rewritten {n}", version=2) for n in rewritten])
    if deleted and model:
        gone = next(iter(model))
        storage.delete_node(gone)
        del model[gone]
    for store in (storage, pickle.loads(pickle.dumps(storage))):
        with store:
            store.check()
            assert sorted(store.iter_node_ids()) == sorted(model)
            for node_id, node in model.items():
                same_fields(store.get_node(node_id), node)


@settings(max_examples=scaled(10), deadline=None)
@given(st.lists(wide_nodes(), max_size=4), st.booleans())
def test_a_store_pickled_in_the_layout_before_loads_with_segments_packed_alone(
    nodes: list[TocNode], leaves_of_16: bool
) -> None:
    """A store pickled with segments as objects, or packed sixteen to a leaf, loads with its
    segments packed each alone, and reads back and writes as a new store does."""
    storage = InMemoryStorage()
    storage.put_nodes([*_MANY, *nodes])
    model = {node.node_id: node for node in [*_MANY, *nodes]}
    old = InMemoryStorage.__new__(InMemoryStorage)
    old.__setstate__(pickle.loads(pickle.dumps(_old_state(storage, leaves_of_16=leaves_of_16))))
    with old:
        old.check()
        table = old._packed_nodes
        assert (table.leaf_size, bool(table._dictionary)) == (1, True)
        assert not any(
            node.level is TocLevel.SEGMENT and type(pack_node(node)) is bytes
            for node in old._nodes.values()
        )
        for node_id, node in model.items():
            same_fields(old.get_node(node_id), node)
        renamed = attrs.evolve(_MANY[0], title="rewritten")
        old.put_node(renamed)
        assert old.get_node(renamed.node_id) == renamed


def test_a_day_holds_the_id_strings_of_its_stored_segments() -> None:
    """A day put with or after its segments keeps their own id strings, not equal copies, and
    reads back equal to the day put."""
    segments = _MANY[:30]
    for split in (0, 10, 30):
        storage = InMemoryStorage()
        storage.put_nodes(segments[:split])
        start = segments[0].start_time
        day = TocNode(
            node_id=ids.calendar_node_id(TocLevel.DAY, start.date()),
            level=TocLevel.DAY,
            title="day",
            start_time=start,
            end_time=segments[-1].end_time,
            # Equal strings that are not the segments' own.
            child_node_ids=tuple("".join(list(node.node_id)) for node in segments),
        )
        storage.put_nodes([*segments[split:], day])
        stored = storage.get_node(day.node_id)
        assert stored == day
        index = storage._node_index
        assert all(child is index.own_id(child) for child in stored.child_node_ids)
        storage.check()


def test_grips_past_the_dictionary_read_back_as_stored() -> None:
    """Grips stored in batches past the grip table's learning of its dictionary read back field
    for field, and so does a pickled copy."""
    start = datetime(2026, 1, 5, 9, tzinfo=timezone.utc)
    batch = [
        Grip(
            grip_id=ids.grip_id(start + timedelta(seconds=n), f"g{n}"),
            excerpt=f"rotated the key of host {n}",
            event_id_start=ids.event_id(start + timedelta(seconds=n), "a"),
            event_id_end=ids.event_id(start + timedelta(seconds=n + 1), "b"),
            timestamp=start + timedelta(seconds=n),
            source="claude_code",
            toc_node_id=ids.segment_id(start.date(), f"s{n // 5}"),
        )
        for n in range(5000)
    ]
    storage = InMemoryStorage()
    for first in range(0, len(batch), 700):
        storage.put_grips(batch[first : first + 700])
    assert storage._grips._dictionary
    for store in (storage, pickle.loads(pickle.dumps(storage))):
        store.check()
        for grip in batch[::7]:
            same_fields(store.get_grip(grip.grip_id), grip)


def test_a_segments_digest_is_stored_after_its_leaf_as_it_is() -> None:
    """A packed segment's digest (already compressed) is kept out of the leaf's compression:
    its bytes end the segment's leaf verbatim, and the segment reads back whole."""
    storage = InMemoryStorage()
    storage.put_nodes(_MANY)
    table = storage._packed_nodes
    assert table.raw_tails
    assert table._dictionary
    for index, node in enumerate(_MANY):
        leaf = table._leaves[table._leaf_of(node.node_id)]
        assert leaf.endswith(base64.b64decode(node.digest)), index
        assert storage.get_node(node.node_id) == node


def test_a_store_pickled_with_digests_compressed_in_the_leaf_reads_and_writes() -> None:
    """A segment table pickled before digests were kept out of the compression reads back
    and keeps writing its own layout."""
    before = LeafMap(leaf_size=1, kept_open=64, dictionary_after=256)
    storage = InMemoryStorage()
    storage._packed_nodes = before
    storage.put_nodes(_MANY[:280])
    state = dict(vars(before))
    del state["raw_tails"]
    old = pickle.loads(pickle.dumps(storage))
    old._packed_nodes = LeafMap.__new__(LeafMap)
    old._packed_nodes.__setstate__(state)
    with old:
        assert not old._packed_nodes.raw_tails
        old.put_nodes(_MANY[280:])
        old.check()
        for node in _MANY:
            assert old.get_node(node.node_id) == node

"""A LeafMap behaves as a dict of its entries kept in key order, whatever the order and size
of its writes and deletes, pickles with them, and refuses a value marshal cannot keep exactly
without changing."""

from __future__ import annotations

import marshal
import pickle
import zlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from tests._support.examples import scaled

from tocsearch.errors import InvalidArgument, StoreCorrupted
from tocsearch.storage._leaf_map import LeafMap

# Few distinct keys, so that writes replace and deletes hit; some share long prefixes.
keys = st.text(alphabet="ab\x00é", max_size=4) | st.sampled_from(
    [f"grip:1769767200{n:03d}:s{n}" for n in range(0, 400, 7)]
)
values = st.tuples(st.integers(), st.text(max_size=8), st.none() | st.binary(max_size=6))


class _Text(str):
    """A str subclass, which marshal refuses."""


class LeafMapMachine(RuleBasedStateMachine):
    """Random batches of writes and deletes against a dict model."""

    def __init__(self) -> None:
        super().__init__()
        self.table = LeafMap()
        self.model: dict[str, tuple[Any, ...]] = {}

    @initialize(
        leaf_size=st.integers(1, 70),
        kept_open=st.integers(1, 3),
        dictionary_after=st.none() | st.integers(1, 60),
        raw_tails=st.booleans(),
    )
    def sized(
        self, leaf_size: int, kept_open: int, dictionary_after: int | None, raw_tails: bool
    ) -> None:
        self.table = LeafMap(
            leaf_size=leaf_size,
            kept_open=kept_open,
            dictionary_after=dictionary_after,
            raw_tails=raw_tails,
        )

    @rule(batch=st.lists(st.tuples(keys, values), max_size=150))
    def update(self, batch: list[tuple[str, tuple[Any, ...]]]) -> None:
        self.table.update(batch)
        self.model.update(batch)

    @rule(key=keys)
    def discard(self, key: str) -> None:
        self.table.discard(key)
        self.model.pop(key, None)

    @rule(key=keys)
    def get(self, key: str) -> None:
        assert self.table.get(key) == self.model.get(key)
        assert (key in self.table) is (key in self.model)

    @rule()
    def pickle_round_trip(self) -> None:
        self.table = pickle.loads(pickle.dumps(self.table))

    @invariant()
    def agrees_with_the_model(self) -> None:
        self.table.check()
        assert list(self.table) == sorted(self.model)
        assert len(self.table) == len(self.model)
        assert {key: self.table.get(key) for key in self.model} == self.model

    @invariant()
    def learns_its_dictionary_once_it_holds_enough(self) -> None:
        table = self.table
        if table.dictionary_after is None:
            assert table._dictionary is None
        elif len(self.model) >= table.dictionary_after:
            # Learned when the map first held that many; deletes since do not unlearn it.
            assert table._dictionary


LeafMapMachine.TestCase.settings = settings(max_examples=scaled(60), stateful_step_count=20)
test_a_leaf_map_agrees_with_a_dict = LeafMapMachine.TestCase


@given(st.lists(st.tuples(keys, values), max_size=4), keys)
def test_a_value_marshal_refuses_leaves_the_map_as_it_was(
    batch: list[tuple[str, tuple[Any, ...]]], key: str
) -> None:
    table = LeafMap()
    table.update(batch)
    before = [(stored, table.get(stored)) for stored in table]
    with pytest.raises(ValueError, match="unmarshallable"):
        table.update([(key, (1,)), ("zz", (_Text("odd"),))])
    assert [(stored, table.get(stored)) for stored in table] == before
    table.check()


def test_appends_in_key_order_fill_every_leaf_but_the_last() -> None:
    table = LeafMap()
    for first in range(0, 1000, 37):
        table.update((f"k{n:05d}", (n,)) for n in range(first, min(first + 37, 1000)))
    table.check()
    assert len(table) == 1000
    assert table.get("k00999") == (999,)
    assert len(table._leaves) == -(-1000 // table.leaf_size)


def test_a_damaged_leaf_map_fails_its_check() -> None:
    table = LeafMap()
    table.update((f"k{n:03d}", (n,)) for n in range(3 * table.leaf_size))
    table._count += 1
    with pytest.raises(StoreCorrupted, match="counts"):
        table.check()
    table._count -= 1
    table._bounds.reverse()
    with pytest.raises(StoreCorrupted):
        table.check()


def test_a_leaf_map_needs_leaves_of_one_entry_or_more() -> None:
    with pytest.raises(InvalidArgument, match="leaf_size, kept_open and dictionary_after must"):
        LeafMap(leaf_size=0)
    with pytest.raises(InvalidArgument, match="got 4, 0 and None"):
        LeafMap(leaf_size=4, kept_open=0)
    with pytest.raises(InvalidArgument, match="got 1, 1 and 0"):
        LeafMap(leaf_size=1, dictionary_after=0)


def test_entries_compressed_alone_against_a_learned_dictionary_take_less_room() -> None:
    def filled(dictionary_after: int | None) -> LeafMap:
        table = LeafMap(leaf_size=1, dictionary_after=dictionary_after)
        table.update(
            (f"toc:segment:2026-01-{n % 28 + 1:02d}:s{n}", (f"rotated the key of host {n}", n))
            for n in range(300)
        )
        return table

    plain, learned = filled(None), filled(256)
    assert learned._dictionary
    assert plain._dictionary is None
    assert sum(map(len, learned._leaves)) < 0.7 * sum(map(len, plain._leaves))
    assert learned.get("toc:segment:2026-01-08:s7") == ("rotated the key of host 7", 7)
    copied = pickle.loads(pickle.dumps(learned))
    assert list(copied) == list(plain)
    assert [copied.get(key) for key in copied] == [plain.get(key) for key in plain]


def test_a_cleared_map_learns_its_dictionary_anew() -> None:
    table = LeafMap(leaf_size=1, dictionary_after=3)
    table.update([("a", (1,)), ("b", (2,)), ("c", (3,))])
    assert table._dictionary
    table.clear()
    assert table._dictionary == b""
    assert len(table) == 0
    table.update([("d", (4,))])
    assert table.get("d") == (4,)
    assert table._dictionary == b""
    table.check()


def test_a_leaf_map_pickled_before_its_sizes_were_settings_reads_back() -> None:
    table = LeafMap()
    table.update((f"k{n:03d}", (n,)) for n in range(100))
    old = LeafMap.__new__(LeafMap)
    old.__setstate__({"_bounds": table._bounds, "_leaves": table._leaves, "_count": 100})
    old.check()
    assert old.get("k042") == (42,)
    assert (old.leaf_size, old.kept_open, old.dictionary_after) == (64, 1, None)
    old.update([("k100", (100,))])
    assert old.get("k100") == (100,)
    assert old._dictionary is None


@pytest.mark.parametrize("damage", [b"not zlib", zlib.compress(b"\xff"), zlib.compress(b"N")])
def test_a_damaged_leaf_is_a_clear_error(damage: bytes) -> None:
    table = LeafMap()
    table.update((f"k{n:03d}", (n,)) for n in range(100))
    table._leaves[0] = damage
    with pytest.raises(StoreCorrupted, match="leaf 0 of a leaf map cannot be read"):
        table.get("k001")
    with pytest.raises(StoreCorrupted, match="cannot be read"):
        table.check()
    assert table.get("k099") == (99,)


@pytest.mark.parametrize("dictionary_after", [None, 10, 1000])
def test_raw_tails_are_stored_after_the_compressed_leaf_as_they_are(
    dictionary_after: int | None,
) -> None:
    """With raw_tails, the bytes ending a value are kept out of the compression, verbatim at
    the end of the leaf, and read back with the rest of the value; other values are whole."""
    table = LeafMap(leaf_size=3, dictionary_after=dictionary_after, raw_tails=True)
    entries = {
        f"k{n:03d}": (n, "rotated the credentials", bytes([n]) * (n % 5))
        if n % 4
        else (n, b"kept whole: not last", "text")
        for n in range(30)
    }
    table.update(entries.items())
    assert bool(table._dictionary) is (dictionary_after == 10)
    for index, leaf in enumerate(table._leaves):
        keys = table._open(index)[0]
        if dictionary_after == 1000:  # not learned yet: uncompressed
            assert marshal.loads(leaf)[0] == keys
        tails = b"".join(last for key in keys if isinstance(last := entries[key][-1], bytes))
        assert leaf.endswith(tails)
    assert {key: table.get(key) for key in entries} == entries
    copied = pickle.loads(pickle.dumps(table))
    assert [copied.get(key) for key in copied] == [entries[key] for key in sorted(entries)]
    copied.check()


@pytest.mark.parametrize("damage", [b"x", b"", None])
def test_a_leaf_whose_tails_do_not_add_up_is_a_clear_error(damage: bytes | None) -> None:
    """A raw-tail leaf with bytes added, cut from its tail or its stream is refused."""
    table = LeafMap(leaf_size=2, dictionary_after=4, raw_tails=True)
    table.update((f"k{n:03d}", (n, b"tail of %d" % n)) for n in range(10))
    leaf = table._leaves[1]
    table._leaves[1] = leaf[:-1] if damage == b"" else leaf[:3] if damage is None else leaf + damage
    with pytest.raises(StoreCorrupted, match="leaf 1 of a leaf map cannot be read"):
        table.get("k002")
    assert table.get("k009") == (9, b"tail of 9")


@pytest.mark.parametrize("cut", [1, 3])
def test_a_damaged_leaf_against_a_dictionary_is_a_clear_error(cut: int) -> None:
    table = LeafMap(leaf_size=1, dictionary_after=10)
    table.update((f"k{n:03d}", (n, "rotated the credentials")) for n in range(20))
    assert table._dictionary
    table._leaves[0] = table._leaves[0][:-cut]
    table._leaves[1] = table._leaves[1] + b"tail"
    table._leaves[2] = b"\xff" * 12
    for key in ("k000", "k001", "k002"):
        with pytest.raises(StoreCorrupted, match="of a leaf map cannot be read"):
            table.get(key)
    assert table.get("k019") == (19, "rotated the credentials")


@pytest.mark.parametrize("raw_tails", [False, True])
def test_leaves_are_compressed_once_when_the_dictionary_is_learned(raw_tails: bool) -> None:
    """Before its dictionary is learned a map keeps its leaves uncompressed, and learning
    compresses each one against it; entries read back the same at every step."""
    table = LeafMap(leaf_size=4, dictionary_after=40, raw_tails=raw_tails)
    entries = {f"k{n:03d}": (n, "rotated the credentials", b"tail %d" % n) for n in range(60)}
    items = sorted(entries.items())
    table.update(items[:39])
    assert table._dictionary == b""
    assert all(type(marshal.loads(leaf)) is tuple for leaf in table._leaves)
    table.update(items[39:])
    assert table._dictionary
    inflater = zlib.decompressobj(-15, zdict=table._dictionary)
    assert inflater.decompress(table._leaves[0])
    assert inflater.eof
    assert {key: table.get(key) for key in entries} == entries
    table.clear()
    table.update(items[:3])
    assert marshal.loads(table._leaves[0])[0] == ("k000", "k001", "k002")
    assert table.get("k001") == entries["k001"]


@pytest.mark.parametrize("raw_tails", [False, True])
def test_a_map_pickled_with_leaves_compressed_before_learning_reads_and_learns(
    raw_tails: bool,
) -> None:
    """A map pickled before leaves were kept uncompressed until the learning (its leaves
    raw deflate without a dictionary) reads back, and learns its dictionary as a new one."""
    old = LeafMap(leaf_size=4, dictionary_after=40, raw_tails=raw_tails)
    old._plain = False  # as such a map wrote its leaves
    entries = {f"k{n:03d}": (n, "rotated the credentials", b"tail %d" % n) for n in range(60)}
    items = sorted(entries.items())
    old.update(items[:20])
    state = old.__getstate__()
    del state["_plain"]
    table = LeafMap.__new__(LeafMap)
    table.__setstate__(pickle.loads(pickle.dumps(state)))
    table.check()
    assert {key: table.get(key) for key in dict(items[:20])} == dict(items[:20])
    table.update(items[20:])
    assert table._dictionary
    table.check()
    assert {key: table.get(key) for key in entries} == entries


@pytest.mark.parametrize("raw_tails", [False, True])
def test_the_dictionary_holds_the_leaves_as_they_were_written(raw_tails: bool) -> None:
    """The dictionary is learned from the very bytes the leaves were written as before it,
    which later leaves repeat (marshal flags a value it writes while it is also held elsewhere
    as shared, and would not flag the same value read back)."""
    texts = [f"rotated the credentials of host {n}" for n in range(5)]
    entries = [(f"k{n}", (n, texts[n], b"digest %d" % n)) for n in range(5)]
    table = LeafMap(leaf_size=1, dictionary_after=5, raw_tails=raw_tails)
    table.update(entries[:3])
    # The last leaf is written again with the next entries; the others stay as they are.
    written = [leaf[: -len(b"digest 0")] if raw_tails else leaf for leaf in table._leaves[:2]]
    table.update(entries[3:])
    learned = table._dictionary
    assert learned is not None
    assert learned.startswith(b"".join(written))
    assert [table.get(key) for key, _ in entries] == [value for _, value in entries]

"""A navigator keeps the tree above the segments between questions only while the store's
revision says nothing was written: whatever writes come between its questions, it answers
byte for byte as a navigator that keeps nothing."""

from __future__ import annotations

from datetime import datetime

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests._support.examples import scaled
from tests._support.synthetic import history
from tests._support.walks import VOCABULARY
from tests.navigate.test_day_stacks import copied, shifted

from tocsearch.ingest import TocBuilder
from tocsearch.levels import TocLevel
from tocsearch.models import TocNode
from tocsearch.navigate import Navigator
from tocsearch.navigate._skeleton import Skeleton
from tocsearch.storage import InMemoryStorage
from tocsearch.storage.protocol import Storage


@pytest.fixture(scope="module")
def built() -> InMemoryStorage:
    """Two years of days with segment maps, as the builder writes them."""
    storage = InMemoryStorage()
    events = history(500, sessions_per_day=12)
    TocBuilder(storage).ingest(shifted(events, -364, "a") + events)
    assert len(storage.get_nodes_by_level(TocLevel.YEAR)) == 2
    return storage


def _now(storage: Storage) -> datetime:
    return max(day.end_time for day in storage.get_nodes_by_level(TocLevel.DAY))


def _ingest(storage: Storage, seed: int) -> None:
    """New sessions through the builder: new segments in old days, new days and weeks."""
    days = (seed % 5) * 9 - 364 * (seed % 2)
    extra = shifted(history(60 + seed % 90, seed=seed, sessions_per_day=3), days, f"w{seed}-")
    TocBuilder(storage).ingest(extra)


def _retitle(storage: Storage, seed: int) -> None:
    """A segment's text changed in place, its version and its day as they were."""
    segments = storage.get_nodes_by_level(TocLevel.SEGMENT)
    segment = segments[seed % len(segments)]
    storage.put_node(attrs.evolve(segment, title=f"{segment.title} zzzunsaid {seed}"))


def _drop_day(storage: Storage, seed: int) -> None:
    """A day left out of its week's children (no version moved), then deleted."""
    weeks = [week for week in storage.get_nodes_by_level(TocLevel.WEEK) if week.child_node_ids]
    week = weeks[seed % len(weeks)]
    gone = week.child_node_ids[-1]
    storage.put_node(attrs.evolve(week, child_node_ids=week.child_node_ids[:-1]))
    storage.delete_node(gone)


def _delete_segment(storage: Storage, seed: int) -> None:
    """A segment deleted behind the builder: its day still names it."""
    segments = storage.get_nodes_by_level(TocLevel.SEGMENT)
    storage.delete_node(segments[seed % len(segments)].node_id)


WRITES = {
    "ingest": _ingest,
    "retitle": _retitle,
    "drop_day": _drop_day,
    "delete_segment": _delete_segment,
}

questions = st.lists(st.sampled_from([*VOCABULARY, "zzzunsaid"]), min_size=1, max_size=3).map(
    " ".join
)
steps = st.lists(
    st.one_of(
        st.tuples(st.just("ask"), questions),
        st.tuples(st.sampled_from(sorted(WRITES)), st.integers(0, 10_000).map(str)),
    ),
    min_size=2,
    max_size=9,
)


@settings(max_examples=scaled(8), deadline=None)
@given(steps)
def test_any_interleaving_of_writes_and_questions_answers_as_a_fresh_navigator(
    built: InMemoryStorage, script: list[tuple[str, str]]
) -> None:
    """After any writes, a navigator that kept the tree, its stacks and its digests from
    earlier questions answers as one that keeps none, and as a new one."""
    storage = copied(built)
    now = _now(built)
    kept = Navigator(storage, now=now)
    for kind, argument in script:
        if kind != "ask":
            WRITES[kind](storage, int(argument))
            continue
        for _ in range(2):  # the second ask reads the stacks made on the first
            answer = kept.navigate(argument)
            bare = Navigator(storage, now=now, digest_cache=0, text_cache=0).navigate(argument)
            assert answer.to_dict() == bare.to_dict()
            assert answer.to_markdown() == bare.to_markdown()
            assert answer == Navigator(storage, now=now).navigate(argument)


class _Unvouched(InMemoryStorage):
    """A store that cannot vouch for its revision, counting the children lists read."""

    def __init__(self) -> None:
        super().__init__()
        self.listed = 0

    def revision(self) -> int | None:
        return None

    def get_child_nodes(self, parent_id: str) -> list[TocNode]:
        self.listed += 1
        return super().get_child_nodes(parent_id)


class _Counting(_Unvouched):
    """The same store, vouching for its revision."""

    def revision(self) -> int | None:
        return InMemoryStorage.revision(self)


@pytest.mark.parametrize("store_class", [_Unvouched, _Counting])
def test_the_tree_is_listed_again_only_when_the_store_cannot_vouch(
    built: InMemoryStorage, store_class: type[_Unvouched]
) -> None:
    """A second question lists no node above the segments again while the revision holds;
    a store that vouches for none is listed again on every question, and a write makes a
    vouching store listed again."""
    storage = store_class()
    for level in TocLevel:
        storage.put_nodes(built.get_nodes_by_level(level))
    navigator = Navigator(storage, now=_now(built))
    query = "kubernetes zzzunsaid"
    navigator.navigate(query)
    first = storage.listed
    assert first > 0
    navigator.navigate(query)
    again = storage.listed - first
    if store_class is _Unvouched:
        assert again == first
        return
    assert again <= first / 4
    storage.put_node(storage.get_nodes_by_level(TocLevel.YEAR)[0])
    before = storage.listed
    navigator.navigate(query)
    assert storage.listed - before >= first / 2


def test_a_skeleton_hands_out_one_view_per_revision() -> None:
    """The same view while the revision holds, a new one when it moves, none without one
    or with no room."""
    skeleton = Skeleton(10)
    view = skeleton.at(3)
    assert view is not None
    assert skeleton.at(3) is view
    moved = skeleton.at(4)
    assert moved is not None
    assert moved is not view
    assert skeleton.at(None) is None
    assert Skeleton(0).at(3) is None

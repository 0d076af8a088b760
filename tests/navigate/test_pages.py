"""Paging through a level newest first: the same nodes, in the same order, as reading and
sorting everything, while reading only as far as the caller pulls."""

from __future__ import annotations

import itertools
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st
from tests._support.examples import scaled
from tests._support.navtree import Seg, build_store, utc

from tocsearch import ids
from tocsearch.levels import TocLevel
from tocsearch.models import TocNode
from tocsearch.navigate import Navigator
from tocsearch.navigate._pages import newest_first, newest_in
from tocsearch.navigate.timehints import TimeRange
from tocsearch.storage import InMemoryStorage

ORIGIN = utc(2024, 1, 1, 0)
SPAN_MINUTES = 3 * 365 * 24 * 60


class CountingStorage(InMemoryStorage):
    """An in-memory store that counts the nodes its level queries hand out."""

    def __init__(self) -> None:
        super().__init__()
        self.handed_out = 0

    def get_nodes_by_level(
        self, level: TocLevel, start: datetime | None = None, end: datetime | None = None
    ) -> list[TocNode]:
        found = super().get_nodes_by_level(level, start, end)
        self.handed_out += len(found)
        return found


def _segment(index: int, offset: int, minutes: int) -> TocNode:
    start = ORIGIN + timedelta(minutes=offset)
    return TocNode(
        node_id=ids.segment_id(start.date(), f"p{index}"),
        level=TocLevel.SEGMENT,
        title=f"segment {index}",
        start_time=start,
        end_time=start + timedelta(minutes=minutes),
    )


def _year(year: int, first: int, last: int) -> TocNode:
    start = ORIGIN + timedelta(minutes=min(first, last))
    return TocNode(
        node_id=f"toc:year:{year}",
        level=TocLevel.YEAR,
        title=str(year),
        start_time=start,
        end_time=ORIGIN + timedelta(minutes=max(first, last)),
    )


offsets = st.integers(0, SPAN_MINUTES)
# Mostly short segments, some many days long, so windows cut through them.
durations = st.one_of(st.integers(0, 90), st.integers(0, 20 * 24 * 60))


@st.composite
def stores(draw: st.DrawFn) -> InMemoryStorage:
    """Segments anywhere in three years (clustered or spread, some sharing a start), and year
    nodes that may cover all of them, part of them, or be missing."""
    count = draw(st.integers(0, 60))
    base = draw(st.lists(offsets, min_size=1, max_size=4))
    starts = draw(
        st.lists(
            st.one_of(offsets, st.sampled_from(base).map(lambda at: at + draw(st.integers(0, 5)))),
            min_size=count,
            max_size=count,
        )
    )
    store = InMemoryStorage()
    store.put_nodes(_segment(index, start, draw(durations)) for index, start in enumerate(starts))
    years = draw(st.lists(st.tuples(offsets, offsets), max_size=3))
    store.put_nodes(_year(2024 + number, *bounds) for number, bounds in enumerate(years))
    return store


@st.composite
def ranges(draw: st.DrawFn) -> tuple[TimeRange, ...]:
    """Up to three ranges, possibly overlapping, from an hour to years long."""
    found = []
    for _ in range(draw(st.integers(0, 3))):
        start = ORIGIN + timedelta(minutes=draw(st.integers(-1000, SPAN_MINUTES)))
        length = timedelta(minutes=draw(st.integers(60, SPAN_MINUTES)))
        found.append(TimeRange(start, start + length))
    return tuple(found)


def _everything_sorted(store: InMemoryStorage, spans: tuple[TimeRange, ...]) -> list[str]:
    found: dict[str, TocNode] = {}
    for span in spans or (None,):
        start = span.start if span is not None else None
        end = span.end if span is not None else None
        for node in store.get_nodes_by_level(TocLevel.SEGMENT, start, end):
            found.setdefault(node.node_id, node)
    ordered = sorted(found.values(), key=lambda node: (node.start_time, node.node_id))
    return [node.node_id for node in reversed(ordered)]


@given(store=stores(), spans=ranges())
@settings(max_examples=scaled(150))
def test_newest_first_matches_sorting_everything(
    store: InMemoryStorage, spans: tuple[TimeRange, ...]
) -> None:
    """Paging yields exactly the nodes overlapping the ranges (all nodes without ranges), each
    once, by start time then id, descending, whatever year nodes the store holds."""
    paged = [node.node_id for node in newest_first(store, spans)]
    assert paged == _everything_sorted(store, spans)


@given(store=stores(), bounds=st.tuples(st.none() | offsets, st.none() | offsets))
@settings(max_examples=scaled(100))
def test_newest_in_open_ranges_matches_the_store(
    store: InMemoryStorage, bounds: tuple[int | None, int | None]
) -> None:
    """A range open at either end gives what the store's own overlap query gives, newest
    first."""
    start, end = (None if value is None else ORIGIN + timedelta(minutes=value) for value in bounds)
    if start is not None and end is not None and end <= start:
        start, end = end, start + timedelta(minutes=1)
    expected = store.get_nodes_by_level(TocLevel.SEGMENT, start, end)
    paged = list(newest_in(store, TocLevel.SEGMENT, start, end))
    assert paged == expected[::-1]


def _dense_store(count: int) -> CountingStorage:
    store = CountingStorage()
    for index in range(count):
        offset = index * (SPAN_MINUTES // count)
        store.put_node(_segment(index, offset, 30))
    store.put_node(_year(2024, 0, SPAN_MINUTES + 60))
    return store


def test_paging_reads_only_as_far_as_it_is_pulled() -> None:
    """Taking the newest ten of 3,000 segments reads a small part of them from the store."""
    store = _dense_store(3000)
    newest = list(itertools.islice(newest_first(store, ()), 10))
    assert [node.title for node in newest] == [f"segment {n}" for n in range(2999, 2989, -1)]
    assert store.handed_out < 300


def test_a_scan_that_finds_its_term_early_leaves_older_segments_unread() -> None:
    """A term held by the newest segment is found without reading most of the history."""
    specs = [
        Seg(utc(2024, 1, 1) + timedelta(hours=8 * index), f"routine work {index}", ("chores",))
        for index in range(2000)
    ]
    specs.append(Seg(utc(2025, 11, 1), "Zebrafish pipeline", ("Tuned the zebrafish pipeline",)))
    plain = build_store(specs)
    store = CountingStorage()
    store.put_nodes(
        itertools.chain.from_iterable(plain.get_nodes_by_level(level) for level in TocLevel)
    )
    store.handed_out = 0
    result = Navigator(store, now=utc(2025, 11, 2), scan_page=100).navigate("zebrafish")
    assert result.evidence[0].text == "Tuned the zebrafish pipeline"
    assert store.handed_out < 1000


def test_ranges_starting_exactly_at_a_segment_take_it_once() -> None:
    """A segment that starts at a range's first instant is yielded once, and one that starts
    earlier but reaches into the range is yielded after every segment starting inside it."""
    store = InMemoryStorage()
    store.put_nodes([_segment(0, 0, 2 * 24 * 60), _segment(1, 24 * 60, 30), _segment(2, 1, 10)])
    spans = (TimeRange(ORIGIN + timedelta(days=1), ORIGIN + timedelta(days=3)),)
    assert [node.title for node in newest_first(store, spans)] == ["segment 1", "segment 0"]


def test_answers_do_not_depend_on_the_text_cache() -> None:
    """A navigator that keeps no folded text answers every question as one that keeps it,
    also after a node was replaced in the store between questions."""
    specs = [
        Seg(utc(2025, 3, 1) + timedelta(hours=5 * index), f"work {index}", (f"cache item {n}",))
        for index, n in enumerate(range(300))
    ]
    store = build_store(specs)
    cached, uncached = (
        Navigator(store, now=utc(2025, 6, 1)),
        Navigator(store, now=utc(2025, 6, 1), text_cache=0),
    )
    questions = ["cache item 7", "work 250", "cache in March 2025", "item 299"]
    for question in questions:
        assert cached.navigate(question) == uncached.navigate(question)
    newest = store.get_nodes_by_level(TocLevel.SEGMENT)[-1]
    store.put_node(attrs.evolve(newest, title="Replaced with quokkaflux"))
    for question in [*questions, "quokkaflux"]:
        assert cached.navigate(question) == uncached.navigate(question)
    assert "quokkaflux" in cached.navigate("quokkaflux").evidence[0].text.casefold()


def test_threads_sharing_a_small_text_cache_get_the_same_answers() -> None:
    """Questions asked from several threads at once through one navigator with a tiny cache
    are answered as they are one at a time."""
    specs = [
        Seg(utc(2025, 3, 1) + timedelta(hours=7 * index), f"work {index}", (f"item {index}",))
        for index in range(120)
    ]
    store = build_store(specs)
    navigator = Navigator(store, now=utc(2025, 6, 1), text_cache=3)
    questions = [f"item {index}" for index in range(0, 120, 7)]
    expected = {question: navigator.navigate(question) for question in questions}
    with ThreadPoolExecutor(max_workers=4) as pool:
        answers = list(pool.map(navigator.navigate, questions * 3))
    assert answers == [expected[question] for question in questions * 3]

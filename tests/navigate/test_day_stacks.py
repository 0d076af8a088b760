"""A year's day segment maps stacked answer as each day's own map does: the route reads the
same segments in the same order with stacks as without, before and after the store changes,
and a stack never answers for a day or week that changed under it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from functools import partial

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests._support.examples import scaled
from tests._support.synthetic import history
from tests._support.walks import term_sets

from tocsearch import ids
from tocsearch.ingest import TocBuilder
from tocsearch.levels import TocLevel
from tocsearch.models import Event, TocNode
from tocsearch.navigate import Navigator
from tocsearch.navigate._day_stacks import DayStack, DayStacks
from tocsearch.navigate._digests import DigestCache
from tocsearch.navigate._lens import Lens
from tocsearch.navigate._route import DigestRoute
from tocsearch.navigate._terms import topic_terms
from tocsearch.storage import InMemoryStorage

QUERIES = (
    "refresh token rotation",
    "lock_timeout alembic",
    "readiness probe OOMKilled",
    "cache stampede eviction",
    "docker alpine",
    "pytest retry GitHub",
    "presigned kubernetes",
    "memo useEffect zzzunsaid",
)


def shifted(events: Sequence[Event], days: int, tag: str) -> list[Event]:
    """``events`` moved by ``days`` days, their ids made afresh (suffix prefixed by ``tag``)."""
    moved: list[Event] = []
    for event in events:
        stamp = event.timestamp + timedelta(days=days)
        suffix = ids.parse_event_id(event.event_id)[1]
        moved.append(
            attrs.evolve(event, timestamp=stamp, event_id=ids.event_id(stamp, f"{tag}{suffix}"))
        )
    return moved


def copied(storage: InMemoryStorage) -> InMemoryStorage:
    """A store holding what ``storage`` holds."""
    copy = InMemoryStorage()
    for level in TocLevel:
        copy.put_nodes(storage.get_nodes_by_level(level))
    copy.put_events(storage.get_events())
    for grip_id in storage.iter_grip_ids():
        copy.put_grip(storage.get_grip(grip_id))
    return copy


@pytest.fixture(scope="module")
def built() -> InMemoryStorage:
    """Two years of busy days (16 sessions a day): their days carry segment maps."""
    storage = InMemoryStorage()
    events = history(2500, sessions_per_day=16)
    TocBuilder(storage).ingest(shifted(events, -364, "a") + events)
    years = storage.get_nodes_by_level(TocLevel.YEAR)
    assert len(years) == 2
    return storage


def routed(
    storage: InMemoryStorage,
    terms: tuple[str, ...],
    stacks: DayStacks,
    digests: DigestCache | None = None,
) -> tuple[list[tuple[int, list[str]]], str, set[str]]:
    """Every pass of a route over the whole store: its batches of segment ids, its note of
    what it skipped, and the nodes whose digests it consulted."""
    lens = Lens(terms, digests=digests if digests is not None else DigestCache(), stacks=stacks)
    route = DigestRoute(storage, lens, ())
    years = route.years()
    assert years is not None
    batches = [
        (need, [node.node_id for node in batch])
        for need, batch in route.graded(years, lambda need: True)
    ]
    return batches, route.note(), lens.digest_checked


def weeks_of(storage: InMemoryStorage, year: TocNode) -> list[tuple[TocNode, list[TocNode]]]:
    """The weeks of ``year`` with their stored days."""
    weeks = [
        week
        for month in storage.get_child_nodes(year.node_id)
        for week in storage.get_child_nodes(month.node_id)
    ]
    return [(week, storage.get_child_nodes(week.node_id)) for week in weeks]


def days_of(storage: InMemoryStorage, year: TocNode) -> list[TocNode]:
    """The days of ``year``."""
    return [day for _, days in weeks_of(storage, year) for day in days]


def assert_stacks_answer_as_days(
    storage: InMemoryStorage, terms: tuple[str, ...], stacks: DayStacks, digests: DigestCache
) -> None:
    """For every day and every number of terms, the stack of its year keeps what its own
    map keeps, asked a day or a week at a time."""
    stacked = Lens(terms, digests=digests, stacks=stacks)
    plain = Lens(terms, digests=DigestCache())
    for year in storage.get_nodes_by_level(TocLevel.YEAR):
        stack = stacked.stack(year, partial(days_of, storage, year))
        assert stack is not None
        for _, days in weeks_of(storage, year):
            for need in range(1, len(terms) + 1):
                expected = [plain.map_kept(day, need) for day in days]
                assert stacked.maps_kept(days, need, stack) == expected
                for day, found in zip(days, expected, strict=True):
                    assert stacked.map_kept(day, need, stack) == found


@pytest.mark.parametrize("query", QUERIES)
def test_a_stacked_route_reads_what_a_day_by_day_route_reads(
    built: InMemoryStorage, query: str
) -> None:
    """Pass by pass, the same segments in the same batches, the same skips noted and the same
    digests consulted, with the years' maps stacked as without."""
    terms = tuple(topic_terms(query))
    stacks = DayStacks(unstacked=0, direct=0)
    assert routed(built, terms, stacks) == routed(built, terms, DayStacks(0))
    assert len(stacks) == 2
    # Asked again, the kept stacks answer alike.
    assert routed(built, terms, stacks) == routed(built, terms, DayStacks(0))


@pytest.mark.parametrize("query", QUERIES)
def test_a_navigator_answers_alike_with_and_without_stacks(
    built: InMemoryStorage, query: str
) -> None:
    """A navigator that keeps no digests (so no stacks) finds the same evidence."""
    now = max(day.end_time for day in built.get_nodes_by_level(TocLevel.DAY))
    kept = Navigator(built, now=now)
    kept.navigate(query)
    stacked = kept.navigate(query)
    plain = Navigator(built, now=now, digest_cache=0).navigate(query)
    assert stacked.evidence == plain.evidence
    assert stacked.nodes_visited == plain.nodes_visited


extra_sessions = st.builds(
    lambda count, seed, per_day, days: shifted(
        history(count, seed=seed, sessions_per_day=per_day), days, f"x{seed}-"
    ),
    st.integers(10, 300),
    st.integers(0, 10_000),
    st.integers(1, 16),
    st.sampled_from([-364, -360, 0, 3, 9, 12, 40]),
)


@settings(max_examples=scaled(15))
@given(extra_sessions, term_sets)
def test_stacks_answer_as_days_after_the_store_changes(
    built: InMemoryStorage, extra: list[Event], terms: tuple[str, ...]
) -> None:
    """Stacks kept from before new events came in (new segments in old days, new days, new
    weeks) answer for every day and week as the days' maps now do, and the route reads what
    a day-by-day route reads."""
    stacks = DayStacks(unstacked=0, direct=0)
    digests = DigestCache()
    assert_stacks_answer_as_days(built, terms, stacks, digests)
    before = routed(built, terms, stacks, digests)
    assert before == routed(built, terms, DayStacks(0))
    changed = copied(built)
    TocBuilder(changed).ingest(extra)
    assert_stacks_answer_as_days(changed, terms, stacks, digests)
    assert routed(changed, terms, stacks, digests) == routed(changed, terms, DayStacks(0))


def _stack_of_first_year(storage: InMemoryStorage) -> DayStack:
    year = storage.get_nodes_by_level(TocLevel.YEAR)[0]
    assert Lens(("token",)).stack(year, lambda: days_of(storage, year)) is None
    stacks = DayStacks(unstacked=0, direct=0)
    stack = stacks.of(year, lambda: days_of(storage, year), DigestCache())
    assert stack is not None
    return stack


def test_a_day_changed_under_its_year_is_read_from_its_own_map(built: InMemoryStorage) -> None:
    """A day whose children, version or digest changed without its year (the builder keeps a
    year as it is when a day gains a segment whose words the year already covers) has no
    place in the stack, so its own map answers for it; the day as stacked still has one."""
    terms = ("token", "rotation")
    stack = _stack_of_first_year(built)
    year = built.get_nodes_by_level(TocLevel.YEAR)[0]
    day = next(d for d in days_of(built, year) if stack.place(d) is not None)
    reordered = attrs.evolve(day, child_node_ids=day.child_node_ids[::-1])
    rewritten = attrs.evolve(day, version=day.version + 1)
    other = next(d for d in built.get_nodes_by_level(TocLevel.DAY) if d.digest != day.digest)
    redigested = attrs.evolve(day, digest=other.digest)
    assert stack.places([reordered, rewritten, redigested, day]) == [
        None,
        None,
        None if len(other.digest) != len(day.digest) else stack.place(day),
        stack.place(day),
    ]
    plain = Lens(terms, digests=DigestCache())
    stacked = Lens(terms, digests=DigestCache(), stacks=DayStacks(unstacked=0, direct=0))
    for edited in (reordered, rewritten):
        assert stacked.maps_kept([edited], 1, stack) == [plain.map_kept(edited, 1)]


def test_stacks_stay_within_their_capacity(built: InMemoryStorage) -> None:
    """The cache holds at most ``capacity`` days: the least recently used year goes first, a
    year of more days is not stacked, a rewritten year is stacked afresh."""
    first, second = sorted(built.get_nodes_by_level(TocLevel.YEAR), key=lambda y: y.start_time)
    digests = DigestCache()
    days = {year.node_id: len(days_of(built, year)) for year in (first, second)}
    stacks = DayStacks(max(days.values()), unstacked=0)
    one = stacks.of(first, lambda: days_of(built, first), digests)
    assert one is not None
    assert stacks.of(first, lambda: [], digests) is one
    two = stacks.of(second, lambda: days_of(built, second), digests)
    assert two is not None
    assert len(stacks) == 1  # the first year made room
    assert stacks.of(first, lambda: days_of(built, first), digests) is not one
    rewritten = attrs.evolve(first, version=first.version + 1)
    assert stacks.of(rewritten, lambda: days_of(built, first), digests) is not one
    assert (
        DayStacks(min(days.values()) - 1, unstacked=0).of(
            first, lambda: days_of(built, first), digests
        )
        is None
    )
    assert DayStacks(0).of(first, lambda: days_of(built, first), digests) is None


def test_a_year_is_stacked_from_its_second_question(built: InMemoryStorage) -> None:
    """By default a year is stacked when a second question asks for it as it is (a navigator
    asked one question never pays for a stack), and asked once a question."""
    year = built.get_nodes_by_level(TocLevel.YEAR)[0]
    stacks = DayStacks()
    first = Lens(("token",), stacks=stacks)
    assert first.stack(year, lambda: days_of(built, year)) is None
    assert first.stack(year, lambda: days_of(built, year)) is None  # the same question
    rewritten = attrs.evolve(year, version=year.version + 1)
    assert Lens(("token",), stacks=stacks).stack(rewritten, lambda: days_of(built, year)) is None
    assert Lens(("token",), stacks=stacks).stack(rewritten, lambda: days_of(built, year))
    assert len(stacks) == 1


def test_a_question_reads_its_first_weeks_day_by_day(built: InMemoryStorage) -> None:
    """The first ``direct`` lists of days a question asks of a stack are read from the days'
    own maps, the next from the stack; the answers agree."""
    year = built.get_nodes_by_level(TocLevel.YEAR)[0]
    stacks = DayStacks(unstacked=0, direct=1)
    lens = Lens(("token",), stacks=stacks)
    stack = lens.stack(year, lambda: days_of(built, year))
    assert stack is not None
    days = days_of(built, year)
    plain = Lens(("token",))
    expected = [plain.map_kept(day, 1) for day in days]
    assert lens.maps_kept(days, 1, stack) == expected
    assert stack not in lens._stacked
    assert lens.maps_kept(days, 1, stack) == expected
    assert stack in lens._stacked

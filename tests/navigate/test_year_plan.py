"""A digest route walks a year it has laid out (months, weeks, stacked days) as it walks one
node by node: the same segments, batches, skip tallies and consulted digests."""

from __future__ import annotations

import tracemalloc

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests._support.examples import scaled
from tests._support.walks import term_sets
from tests.navigate.test_day_stacks import QUERIES, built, copied, days_of, extra_sessions

from tocsearch.digest import DIGEST_BITS
from tocsearch.ingest import TocBuilder
from tocsearch.levels import TocLevel
from tocsearch.models import Event, TocNode
from tocsearch.navigate._day_stacks import DayStack, DayStacks
from tocsearch.navigate._digest_columns import DigestColumns
from tocsearch.navigate._digests import DigestCache
from tocsearch.navigate._lens import Lens
from tocsearch.navigate._route import DigestRoute
from tocsearch.navigate._skeleton import SkeletonView
from tocsearch.navigate._terms import topic_terms
from tocsearch.navigate._year_plan import YearPlan, plan_year
from tocsearch.storage import InMemoryStorage

__all__ = ["built"]  # the shared store fixture

Walked = tuple[list[tuple[int, list[str], str]], str, set[str]]


def walked(
    storage: InMemoryStorage,
    terms: tuple[str, ...],
    stacks: DayStacks,
    skeleton: SkeletonView | None,
    digests: DigestCache,
) -> Walked:
    """Every pass of a route over the whole store: each batch of segment ids with its pass and
    the route's note of skips when it came (the scan writes the note at its first page), the
    final note and the nodes whose digests were consulted."""
    lens = Lens(terms, digests=digests, stacks=stacks)
    route = DigestRoute(storage, lens, (), {}, skeleton)
    years = route.years()
    assert years is not None
    batches = [
        (need, [node.node_id for node in batch], route.note())
        for need, batch in route.graded(years, lambda need: True)
    ]
    return batches, route.note(), lens.digest_checked


def assert_planned_as_walked(
    storage: InMemoryStorage, terms: tuple[str, ...], direct: int, questions: int = 2
) -> SkeletonView:
    """Questions asked of one skeleton and one set of stacks walk as a route without a
    skeleton (node by node) does, from the first question on; returns the skeleton."""
    skeleton = SkeletonView(0, 1_000_000)
    stacks = DayStacks(unstacked=0, direct=direct)
    digests = DigestCache()
    expected = walked(storage, terms, DayStacks(unstacked=0, direct=direct), None, DigestCache())
    for _ in range(questions):
        assert walked(storage, terms, stacks, skeleton, digests) == expected
    return skeleton


@pytest.mark.parametrize("query", QUERIES)
def test_a_planned_year_is_walked_as_node_by_node(built: InMemoryStorage, query: str) -> None:
    """With the years laid out, the route yields and tallies what it does node by node, and
    each year is walked by its plan."""
    terms = tuple(topic_terms(query))
    skeleton = assert_planned_as_walked(built, terms, direct=0)
    years = built.get_nodes_by_level(TocLevel.YEAR)
    assert {year.node_id for year in years} <= set(skeleton.plans)
    assert all(isinstance(plan, YearPlan) for _, plan in skeleton.plans.values())


@settings(max_examples=scaled(15))
@given(term_sets, st.integers(0, 6))
def test_a_planned_year_walks_as_node_by_node_whenever_the_stack_is_read(
    built: InMemoryStorage, terms: tuple[str, ...], direct: int
) -> None:
    """However many lists of days a question reads through the days' own maps before the
    stack, the planned walk yields, tallies and consults what the node-by-node walk does."""
    assert_planned_as_walked(built, terms, direct)


@settings(max_examples=scaled(10))
@given(extra_sessions, term_sets)
def test_a_planned_year_walks_as_node_by_node_after_the_store_changes(
    built: InMemoryStorage, extra: list[Event], terms: tuple[str, ...]
) -> None:
    """On a store that gained sessions (new segments in old days, new days and weeks), the
    plans of its new revision walk as the node-by-node route does."""
    changed = copied(built)
    TocBuilder(changed).ingest(extra)
    assert_planned_as_walked(changed, terms, direct=2)


def test_a_week_with_a_day_the_stack_does_not_hold_is_walked_day_by_day(
    built: InMemoryStorage,
) -> None:
    """A plan made with a stack that lacks a day keeps every day in time order, but marks the
    lacking day's week and month as not answered for by the stack (the route then reads that
    week day by day); the other weeks keep their places."""
    year = built.get_nodes_by_level(TocLevel.YEAR)[0]
    days = days_of(built, year)
    route = DigestRoute(built, Lens(("token",)), (), {}, SkeletonView(0, 1_000_000))
    digests = DigestCache()
    stacked = [day for day in days if digests.segment_map(day) is not None]
    left_out = stacked[len(stacked) // 2]
    plan = plan_year(
        DayStack([day for day in stacked if day is not left_out], digests), year, route._children_of
    )
    assert plan is not None
    assert [day for month in plan.plans.values() for week, _ in month.days for day in week] == days
    for month in plan.plans.values():
        lacking = [left_out in week for week, _ in month.days]
        for (week, whole), lacks in zip(month.days, lacking, strict=True):
            assert (whole is None) == (lacks or any(day not in stacked for day in week))
        assert (month.spread is None) == any(whole is None for _, whole in month.days)
    assert any(
        left_out in week and whole is None
        for month in plan.plans.values()
        for week, whole in month.days
    )


@settings(max_examples=scaled(25))
@given(term_sets, st.integers(1, 3), st.booleans())
def test_a_bitmap_test_keeps_what_the_digests_keep(
    built: InMemoryStorage, terms: tuple[str, ...], need: int, repeated: bool
) -> None:
    """Months and weeks tested by their bit-sliced bitmaps are kept, and counted as
    consulted, exactly as pruned by their digests, repeated terms and unknown digests
    included."""
    asked = terms + terms[:1] if repeated else terms
    nodes = [
        node
        for level in (TocLevel.YEAR, TocLevel.MONTH, TocLevel.WEEK, TocLevel.DAY)
        for node in built.get_nodes_by_level(level)
    ]
    unknown = attrs.evolve(nodes[0], node_id="toc:year:1999", digest="not a digest")
    bare = attrs.evolve(nodes[1], node_id="toc:year:1998", digest="")
    nodes += [unknown, bare]
    digests = DigestCache()
    bitmaps = [None if (found := digests.of(node)) is None else found.bitmap for node in nodes]
    columns = DigestColumns(nodes, bitmaps)
    tested = Lens(asked, digests=digests)
    pruned = Lens(asked, digests=DigestCache())
    kept = tested.columns_kept(columns, need)
    assert [node for index, node in enumerate(nodes) if kept >> index & 1] == pruned.prune(
        nodes, need
    )
    assert set(columns.consulted) == pruned.digest_checked
    assert tested.columns_kept(columns, need) == kept


@settings(max_examples=scaled(25))
@given(
    capacity=st.integers(0, 160),
    steps=st.lists(st.integers(0, 60), min_size=1, max_size=6),
)
def test_a_plans_columns_live_no_longer_than_the_digest_cache_lets_them(
    built: InMemoryStorage, capacity: int, steps: list[int]
) -> None:
    """A plan's bit-sliced digests are what its months' and weeks' digests make, however
    often the cache evicts them between questions, and they count against the cache's
    capacity: what the plan and the cache hold together stays within it, where a plan
    holding its columns itself would keep a year's bitmaps over any capacity."""
    year = built.get_nodes_by_level(TocLevel.YEAR)[0]
    days = days_of(built, year)
    route = DigestRoute(built, Lens(("token",)), (), {}, SkeletonView(0, 1_000_000))
    plan = plan_year(DayStack(days, DigestCache()), year, route._children_of)
    assert plan is not None
    fresh = plan_year(DayStack(days, DigestCache()), year, route._children_of)
    assert fresh is not None
    probes = [(7, 1234, 98765), (3, 5, 8)]
    expected = [
        (columns.nodes, columns.consulted, columns.kept(columns.holders(probes), 1))
        for columns in fresh.columns(DigestCache(0))
    ]
    bitmap = DIGEST_BITS // 8
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        digests = DigestCache(capacity)
        for read in steps:
            # Other digests read between the questions, as many as the step says.
            for day in days[:read]:
                digests.of(day)
            made = [
                (columns.nodes, columns.consulted, columns.kept(columns.holders(probes), 1))
                for columns in plan.columns(digests)
            ]
            assert made == expected
            del made
            held = tracemalloc.get_traced_memory()[0] - before
            # A decoded digest takes a bitmap and a little more (a day's map, the entry).
            assert held < (capacity + 2) * (bitmap + bitmap // 8)
    finally:
        if started:
            tracemalloc.stop()


def test_a_year_holding_other_than_months_weeks_and_days_is_not_planned(
    built: InMemoryStorage,
) -> None:
    """A year whose months, weeks or days sit at another level than the plan's (a month
    holding days, a week holding a month) or whose month holds no week gets no plan, and
    the route walks it node by node."""
    year = built.get_nodes_by_level(TocLevel.YEAR)[0]
    route = DigestRoute(built, Lens(("token",)), (), {}, SkeletonView(0, 1_000_000))
    stack = DayStack(days_of(built, year), DigestCache())
    assert plan_year(stack, year, route._children_of) is not None
    month = route._children_of(year)[0][0]
    week = route._children_of(month)[0][0]
    day = route._children_of(week)[0][0]
    shapes: list[dict[str, list[TocNode]]] = [
        {year.node_id: [month], month.node_id: [day]},
        {year.node_id: [month], month.node_id: [week], week.node_id: [month]},
        {year.node_id: [month], month.node_id: []},
        {year.node_id: [week]},
        {year.node_id: []},
    ]
    for shape in shapes:

        def opened(
            node: TocNode, shape: dict[str, list[TocNode]] = shape
        ) -> tuple[list[TocNode], bool]:
            return shape.get(node.node_id, []), False

        assert plan_year(stack, year, opened) is None

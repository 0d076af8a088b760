"""The routed scan reads the best class first and stops once it has enough of it: segments
that may hold every term before those that may hold fewer, a page never mixing the two, and
no page read once enough segments hold every term or the answer is full."""

from __future__ import annotations

import functools
import itertools
from datetime import timedelta

from hypothesis import given, settings
from hypothesis import strategies as st
from tests._support.examples import scaled
from tests._support.navtree import Seg, build_store, utc

from tocsearch.levels import TocLevel
from tocsearch.models import TocNode
from tocsearch.navigate import Navigator
from tocsearch.navigate._descent import ENOUGH_FULL_SEGMENTS
from tocsearch.navigate._digests import DigestCache
from tocsearch.navigate._lens import Lens
from tocsearch.navigate._route import DigestRoute
from tocsearch.navigate._scan import _graded_pages, _page_sizes
from tocsearch.navigate._weights import TermMatcher
from tocsearch.navigate.result import StepPhase
from tocsearch.storage import InMemoryStorage

FILLER = [f"{a}{b}{c}" for a in "bdfgklmnprstvz" for b in "aeiou" for c in ("ko", "ri", "sam")]
DAYS = 40
PER_DAY = 12
SEGMENTS = DAYS * PER_DAY
# Where "alpha" and "omega" meet in one segment; elsewhere "alpha" is said in every third
# segment, "omega" and "zeta" each in another third, never beside "alpha".
TOGETHER = (15, 100, 200, 333, 401)
NOW = utc(2025, 3, 1)
WORDS = ("alpha", "omega", "zeta", *FILLER[:6])


def _words(index: int) -> tuple[str, ...]:
    if index in TOGETHER:
        return ("alpha", "omega")
    return (("alpha",), ("omega",), ("zeta",))[index % 3]


def _specs() -> list[Seg]:
    specs: list[Seg] = []
    for index in range(SEGMENTS):
        day, slot = divmod(index, PER_DAY)
        start = utc(2025, 1, 1, 6) + timedelta(days=day, minutes=40 * slot)
        filler = [FILLER[(index * 7 + n * 13) % len(FILLER)] for n in range(12)]
        bullets = (
            " ".join([*filler[:4], *_words(index)]),
            " ".join(filler[4:8]),
            " ".join(filler[8:]),
        )
        specs.append(Seg(start, f"{filler[0]} {filler[5]}", bullets, minutes=20))
    return specs


@functools.cache
def store() -> InMemoryStorage:
    """The history, with the digests and segment maps the builder gives a store."""
    return build_store(_specs(), digests=True, segment_digests=True)


def _holders(*words: str) -> set[str]:
    """The segments holding any of ``words``."""
    return {
        segment.node_id
        for segment in store().get_nodes_by_level(TocLevel.SEGMENT)
        if any(word in " ".join(segment.searchable_texts) for word in words)
    }


def _together() -> list[str]:
    """The segments holding "alpha" and "omega", newest first."""
    segments = store().get_nodes_by_level(TocLevel.SEGMENT)
    found = [
        segment
        for segment in segments
        if {"alpha", "omega"} <= set(" ".join(segment.searchable_texts).split())
    ]
    return [segment.node_id for segment in sorted(found, key=lambda s: s.start_time)][::-1]


def test_every_day_carries_a_segment_map() -> None:
    """The fixture is what the tests below need: days read through their segment maps."""
    lens = Lens(("alpha",), digests=DigestCache())
    days = store().get_nodes_by_level(TocLevel.DAY)
    assert len(days) == DAYS
    assert all(lens.segment_masks(day) is not None for day in days)


def test_a_pair_said_together_rarely_is_found_without_reading_every_holder() -> None:
    """Two words said all over the history and together in a few old segments: the newest
    segments holding both are found, no segment holding one of them only is offered, and far
    fewer segments are read than hold either word."""
    navigator = Navigator(store(), now=NOW, token_budget=20_000)
    result = navigator.navigate("alpha omega")
    assert not result.partial
    together = _together()
    assert len(together) == len(TOGETHER)
    found = [item.segment_id for item in result.evidence if len(item.matched_terms) == 2]
    assert set(together[:ENOUGH_FULL_SEGMENTS]) <= set(found)
    assert {item.segment_id for item in result.evidence} <= set(together)
    assert result.nodes_visited < len(_holders("alpha", "omega")) // 4
    scans = [step for step in result.steps if step.phase is StepPhase.SCAN]
    assert scans
    # The first page is small: a few times the matches a step reports, not scan_page.
    assert scans[0].searched <= 4 * navigator.limits.width


def test_a_pair_never_said_together_fills_the_answer_and_stops() -> None:
    """Two words never said in one segment: the scan stops once the answer is full, long
    before it has read every segment holding one of them."""
    navigator = Navigator(store(), now=NOW, token_budget=20_000, max_evidence=10)
    result = navigator.navigate("alpha zeta")
    assert not result.partial
    assert len(result.evidence) == 10
    assert all(len(item.matched_terms) == 1 for item in result.evidence)
    read = sum(step.searched for step in result.steps if step.phase is StepPhase.SCAN)
    assert read < len(_holders("alpha", "zeta")) // 4


def test_the_first_pages_are_small_and_grow_to_the_page_size() -> None:
    """A routed scan reads a few times the reported width first, then twice as much a page,
    never more than scan_page."""
    sizes = list(itertools.islice(_page_sizes(5, 500), 7))
    assert sizes == [20, 40, 80, 160, 320, 500, 500]
    assert list(itertools.islice(_page_sizes(5, 8), 3)) == [8, 8, 8]


@given(
    shape=st.lists(st.tuples(st.integers(1, 3), st.integers(0, 30)), min_size=0, max_size=12).map(
        lambda batches: sorted(batches, key=lambda batch: -batch[0])
    ),
    width=st.integers(1, 6),
    largest=st.integers(1, 60),
)
@settings(max_examples=scaled(60))
def test_graded_pages_keep_the_order_and_never_mix_passes(
    shape: list[tuple[int, int]], width: int, largest: int
) -> None:
    """Pages hold the batches' segments in order, each page from one pass, none larger than
    the size it was given."""
    segments = store().get_nodes_by_level(TocLevel.SEGMENT)
    batches: list[tuple[int, list[TocNode]]] = []
    grade_of: dict[str, int] = {}
    start = 0
    for grade, size in shape:
        batch = segments[start : start + size]
        start += size
        batches.append((grade, batch))
        grade_of.update((node.node_id, grade) for node in batch)
    pages = list(_graded_pages(iter(batches), _page_sizes(width, largest)))
    assert [node for page in pages for node in page] == [n for _, b in batches for n in b]
    assert all(page for page in pages)
    assert all(len({grade_of[node.node_id] for node in page}) == 1 for page in pages)
    assert all(len(page) <= largest for page in pages)


@given(terms=st.lists(st.sampled_from(WORDS), min_size=1, max_size=3, unique=True))
@settings(max_examples=scaled(25), deadline=None)
def test_a_route_yields_every_holder_once_by_descending_pass(terms: list[str]) -> None:
    """Every segment holding a term comes once, passes from the most terms down, and no
    segment holds more terms than the pass it came in allows (nothing is lost)."""
    lens = Lens(tuple(terms), digests=DigestCache())
    route = DigestRoute(store(), lens, ())
    years = route.years()
    assert years is not None
    graded = list(route.graded(years, lambda need: True))
    grades = [grade for grade, _ in graded]
    assert grades == sorted(grades, reverse=True)
    matcher = TermMatcher(terms)
    seen: set[str] = set()
    for grade, batch in graded:
        for node in batch:
            assert node.node_id not in seen
            seen.add(node.node_id)
            assert len(matcher.present("\n".join(node.searchable_texts))) <= grade
    holders = {
        node.node_id
        for node in store().get_nodes_by_level(TocLevel.SEGMENT)
        if matcher.present("\n".join(node.searchable_texts))
    }
    assert holders <= seen


@given(
    terms=st.lists(st.sampled_from(WORDS), min_size=1, max_size=3, unique=True),
    need=st.integers(1, 3),
)
@settings(max_examples=scaled(25), deadline=None)
def test_pruning_by_the_segment_map_keeps_what_the_digests_keep(
    terms: list[str], need: int
) -> None:
    """A day's segments pruned by its map keep every segment their own digests keep, and
    every segment that holds the terms."""
    lens = Lens(tuple(terms), digests=DigestCache())
    matcher = TermMatcher(terms)
    for day in store().get_nodes_by_level(TocLevel.DAY)[:8]:
        children = store().get_child_nodes(day.node_id)
        by_map = {node.node_id for node in lens.prune_children(day, children, need)}
        by_digest = {node.node_id for node in lens.prune(children, need)}
        assert by_digest <= by_map <= {node.node_id for node in children}
        holding = {
            node.node_id
            for node in children
            if len(matcher.present("\n".join(node.searchable_texts))) >= need
        }
        assert holding <= by_map

"""The navigator prunes by term digest: whole branches that cannot hold a query's terms are
skipped, what can hold them is read first, and a digest it cannot read never prunes."""

from __future__ import annotations

import random
from datetime import timedelta
from functools import partial

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st
from tests._support.examples import scaled
from tests._support.navtree import Seg, build_nodes, build_store, utc

from tocsearch import ids
from tocsearch.digest import TermDigest
from tocsearch.levels import TocLevel
from tocsearch.models import TocNode
from tocsearch.navigate import Navigator
from tocsearch.navigate._digests import DigestCache
from tocsearch.navigate._lens import Lens
from tocsearch.storage import InMemoryStorage

FILLER = [f"{a}{b}{c}" for a in "bdfgklmnprstvz" for b in "aeiou" for c in ("ko", "ri", "sam")]
NOW = utc(2027, 1, 10)
SEGMENTS = 5000
LARGE_DAYS = 2 * 365


def large_history(target: int, term: str) -> list[Seg]:
    """About SEGMENTS segments over two years of filler words; segment ``target`` alone holds
    ``term``, in one bullet."""
    rng = random.Random(5)
    specs: list[Seg] = []
    for index in range(SEGMENTS):
        day = index * LARGE_DAYS // SEGMENTS
        start = utc(2025, 1, 1, 6) + timedelta(days=day, minutes=10 * (index % 7))
        bullets = [" ".join(rng.choices(FILLER, k=6)) for _ in range(3)]
        if index == target:
            bullets[1] += f" then {term} again"
        specs.append(Seg(start, " ".join(rng.choices(FILLER, k=3)), tuple(bullets), minutes=5))
    return specs


@given(target=st.integers(0, SEGMENTS - 1))
@settings(max_examples=scaled(3))
def test_a_unique_term_in_a_large_tree_is_found_reading_few_nodes(target: int) -> None:
    """In a tree of 5,000 segments, a term said in one segment only is found, reading a
    small fraction of the nodes, and the path says which branches it skipped."""
    store = build_store(large_history(target, "quokkaflux"), digests=True)
    result = Navigator(store, now=NOW).navigate("what about quokkaflux?")
    spec_day = (utc(2025, 1, 1, 6) + timedelta(days=target * LARGE_DAYS // SEGMENTS)).date()
    assert ids.segment_id(spec_day, f"s{target}") in result.segment_ids
    assert not result.partial
    assert result.nodes_visited < SEGMENTS // 20
    assert any("no term in their digest" in step.scope for step in result.steps) or any(
        "not every term in their digest" in step.scope for step in result.steps
    )


def test_a_term_said_nowhere_reads_no_segment() -> None:
    """A topic no digest can hold is settled at the years: no segment is read."""
    specs = large_history(0, "quokkaflux")[:400]
    store = build_store(specs, digests=True)
    result = Navigator(store, now=NOW).navigate("zyxwvutsr")
    assert result.evidence == ()
    assert all(step.level is not TocLevel.SEGMENT or step.searched == 0 for step in result.steps)
    assert result.nodes_visited <= 4


def broken(nodes: dict[str, TocNode], digest: str) -> InMemoryStorage:
    """A store of ``nodes`` where every node above the segments carries ``digest``."""
    storage = InMemoryStorage()
    storage.put_nodes(
        attrs.evolve(node, digest=digest) if node.level is not TocLevel.SEGMENT else node
        for node in nodes.values()
    )
    return storage


@given(digest=st.sampled_from(["not base64!", "AAAA", "eJwDAAAAAAE=", "x" * 40]))
@settings(max_examples=scaled(4))
def test_a_malformed_digest_is_unknown_and_never_prunes(digest: str) -> None:
    """Digests that do not decode are treated as absent: the planted term is still found."""
    specs = large_history(123, "quokkaflux")[:600]
    store = broken(build_nodes(specs, digests=True), digest)
    result = Navigator(store, now=NOW).navigate("quokkaflux")
    wanted = ids.segment_id(specs[123].start.date(), "s123")
    assert wanted in result.segment_ids
    assert not any("digest" in step.scope for step in result.steps)


def test_a_tree_without_digests_is_searched_as_before() -> None:
    """Without digests the scan reads segments newest first, as it always did."""
    specs = large_history(10, "quokkaflux")[:300]
    result = Navigator(build_store(specs), now=NOW).navigate("quokkaflux")
    assert ids.segment_id(specs[10].start.date(), "s10") in result.segment_ids
    assert any("newest first" in step.scope for step in result.steps)


def test_the_digest_cache_keeps_at_most_its_capacity_and_reads_unknowns_as_none() -> None:
    """Decoded digests are bounded by the capacity; an empty or bad digest decodes to None."""
    nodes = build_nodes(large_history(0, "quokkaflux")[:200], digests=True)
    days = [node for node in nodes.values() if node.level is TocLevel.DAY]
    cache = DigestCache(capacity=3)
    for day in days:
        assert cache.of(day) is not None
    assert len(cache) == 3
    assert cache.of(attrs.evolve(days[0], digest="")) is None
    assert cache.of(attrs.evolve(days[0], digest="garbage", version=7)) is None


@given(
    capacity=st.integers(0, 8),
    steps=st.lists(
        st.tuples(st.booleans(), st.integers(0, 5), st.integers(1, 5)), min_size=1, max_size=30
    ),
)
def test_what_is_made_of_digests_counts_against_the_capacity(
    capacity: int, steps: list[tuple[bool, int, int]]
) -> None:
    """A value kept beside the decoded digests weighs as many digests as it says and is
    evicted like them, least recently used first (as a model of the cache evicts): asked for
    again it is the one kept, or made afresh once evicted, and one heavier than the whole
    capacity is never kept."""
    nodes = build_nodes(large_history(0, "quokkaflux")[:60], digests=True)
    days = [node for node in nodes.values() if node.level is TocLevel.DAY]
    cache = DigestCache(capacity)
    keys = [object() for _ in range(6)]
    model: dict[object, tuple[object, int]] = {}  # key -> (value, weight), oldest first

    def make_room(weight: int) -> None:
        while model and sum(kept[1] for kept in model.values()) + weight > capacity:
            del model[next(iter(model))]

    for number, (derived, which, weight) in enumerate(steps):
        if derived:
            key: object = keys[which]
            value = cache.derived(key, weight, partial(tuple, ("made", number)))
            kept = model.pop(key, None)
            assert value == (("made", number) if kept is None else kept[0])  # made when not kept
            if kept is not None:
                model[key] = kept
            elif weight <= capacity:
                make_room(weight)
                model[key] = (value, weight)
        else:
            day = days[which % len(days)]
            assert cache.of(day) is not None
            key = (day.node_id, day.version, len(day.digest))
            kept = model.pop(key, None)
            if kept is not None:
                model[key] = kept
            elif capacity:
                make_room(1)
                model[key] = (None, 1)
        assert len(cache) == len(model)


def test_a_digest_rewritten_with_a_new_version_is_decoded_again() -> None:
    """A node whose digest changed (new version) is not answered from the old entry."""
    nodes = build_nodes(large_history(0, "quokkaflux")[:50], digests=True)
    day = next(node for node in nodes.values() if node.level is TocLevel.DAY)
    other = next(
        node for node in nodes.values() if node.level is TocLevel.DAY and node.digest != day.digest
    )
    cache = DigestCache()
    first = cache.of(day)
    second = cache.of(attrs.evolve(day, digest=other.digest, version=day.version + 1))
    assert first is not None
    assert second is not None
    assert first != second


@given(
    texts=st.lists(st.text(alphabet="abcdefgh ", max_size=40), min_size=1, max_size=6),
    terms=st.lists(st.text(alphabet="abcdefgh", min_size=1, max_size=9), min_size=1, max_size=4),
    sized=st.booleans(),
)
def test_the_terms_a_lens_reads_in_a_digest_are_those_the_digest_holds(
    texts: list[str], terms: list[str], sized: bool
) -> None:
    """A lens's reading of a node's digest (each probe's byte and bit worked out once a
    digest size) keeps exactly the terms the digest itself may hold, at every size, short
    terms never ruled out included."""
    digest = TermDigest.sized_for(texts) if sized else TermDigest.from_texts(texts)
    built = build_nodes([Seg(utc(2026, 1, 5, 9), "a title", ("a bullet",))])
    segment = next(node for node in built.values() if node.level is TocLevel.SEGMENT)
    node = attrs.evolve(segment, digest=digest.to_text())
    query = tuple(dict.fromkeys(terms))
    lens = Lens(query)
    expected = frozenset(term for term in query if digest.holds(TermDigest.probes(term)))
    assert lens.may_hold(node) == expected
    assert lens.may_hold(node) == expected  # asked again, from what the lens kept
    assert node.node_id in lens.digest_checked

"""Properties of the Navigator: what a flat scan finds, navigation finds; limits always hold;
any graph of nodes, however broken, is walked to an end."""

from __future__ import annotations

import json
from datetime import timedelta

from hypothesis import example, given, settings
from hypothesis import strategies as st
from tests._support.budget import limit_named, rendered_tokens
from tests._support.examples import scaled
from tests._support.navtree import Seg, build_store, topic_rollup, utc
from tests.strategies import any_text

from tocsearch import _render, ids
from tocsearch.levels import TocLevel
from tocsearch.models import TocBullet, TocNode
from tocsearch.navigate import Navigator
from tocsearch.storage import InMemoryStorage

FILLER = ["review", "refactor", "deploy", "cache", "schema", "retry", "login", "docs", "bug"]
PLANTED = "quokkaflux"
NOW = utc(2027, 1, 10)


@st.composite
def planted_histories(draw: st.DrawFn) -> tuple[list[Seg], int]:
    """Multi-year histories (2024-2026) of 20-120 segments, one of which holds the planted
    term in one of its bullets; titles and rollups never mention it."""
    count = draw(st.integers(20, 120))
    days = draw(st.lists(st.integers(0, 3 * 365), min_size=count, max_size=count).map(sorted))
    specs: list[Seg] = []
    target = draw(st.integers(0, count - 1))
    for index, offset in enumerate(days):
        words = draw(st.lists(st.sampled_from(FILLER), min_size=2, max_size=4))
        bullets = [f"{word} work item {index}" for word in words]
        if index == target:
            position = draw(st.integers(0, len(bullets)))
            bullets.insert(position, f"Tried the {PLANTED} approach")
        start = utc(2024, 1, 1, draw(st.integers(0, 22))) + timedelta(days=offset)
        specs.append(Seg(start, f"{words[0]} session {index}", tuple(bullets)))
    return specs, target


@given(
    history=planted_histories(),
    rolled=st.booleans(),
    hinted=st.booleans(),
    digests=st.booleans(),
)
@settings(max_examples=scaled(25))
def test_a_unique_planted_term_is_always_found(
    history: tuple[list[Seg], int], rolled: bool, hinted: bool, digests: bool
) -> None:
    """A term in one segment's bullet is found whatever the summaries above say (titles only,
    or topic rollups that keep five bullets), with or without a time hint covering it, and
    with or without term digests on the parents."""
    specs, target = history
    store = (
        build_store(specs, topic_rollup(), digests=digests)
        if rolled
        else build_store(specs, digests=digests)
    )
    planted_day = specs[target].start.date()
    query = f"what about {PLANTED}?"
    if hinted:
        query = f"{PLANTED} on {planted_day.isoformat()}"
    result = Navigator(store, now=NOW).navigate(query)
    wanted = ids.segment_id(planted_day, f"s{target}")
    assert wanted in result.segment_ids, result.to_markdown()
    assert result.tokens_used <= result.token_budget
    assert not result.partial


@given(
    history=planted_histories(),
    budget=st.integers(150, 3000),
    iterations=st.integers(1, 60),
    query=st.sampled_from(["bug", "cache retry", "login last month", "what happened yesterday?"]),
)
@settings(max_examples=scaled(30))
def test_limits_always_hold(
    history: tuple[list[Seg], int], budget: int, iterations: int, query: str
) -> None:
    """Whatever the budget and iteration limit, tokens_used <= budget, iterations <= the limit,
    and a walk that hit a limit is flagged partial with a reason naming it."""
    specs, _ = history
    result = Navigator(
        build_store(specs, topic_rollup()),
        now=NOW,
        token_budget=budget,
        max_iterations=iterations,
    ).navigate(query)
    assert rendered_tokens(result) <= result.tokens_used <= budget
    assert result.iterations <= iterations
    assert len(result.evidence) <= 30
    if result.partial:
        assert limit_named(result.reason), result.reason
    keys = [(item.segment_id, item.text) for item in result.evidence]
    assert len(keys) == len(set(keys))


LEVEL_IDS = {
    TocLevel.YEAR: ["toc:year:2026", "toc:year:2025"],
    TocLevel.MONTH: ["toc:month:2026-01", "toc:month:2025-12"],
    TocLevel.WEEK: ["toc:week:2026-W01", "toc:week:2026-W05"],
    TocLevel.DAY: ["toc:day:2026-01-01", "toc:day:2026-01-30"],
    TocLevel.SEGMENT: ["toc:segment:2026-01-30:a", "toc:segment:2026-01-01:b"],
}
ALL_IDS = [node_id for group in LEVEL_IDS.values() for node_id in group]


@st.composite
def broken_graphs(draw: st.DrawFn) -> InMemoryStorage:
    """Nodes whose child lists point anywhere: cycles, self-links, upward links, dangling ids."""
    store = InMemoryStorage()
    dangling = ["toc:day:2031-05-05", "toc:segment:2031-05-05:zz", "toc:year:2099"]
    start = utc(2026, 1, 1)
    for level, node_ids in LEVEL_IDS.items():
        for node_id in node_ids:
            if not draw(st.booleans()) and level is not TocLevel.YEAR:
                continue
            children = draw(st.lists(st.sampled_from(ALL_IDS + dangling), max_size=6))
            offset = timedelta(days=draw(st.integers(0, 40)))
            store.put_node(
                TocNode(
                    node_id=node_id,
                    level=level,
                    title=draw(st.sampled_from(["loop bug", "cache", "nothing here"])),
                    start_time=start + offset,
                    end_time=start + offset + timedelta(hours=1),
                    bullets=(TocBullet("fixed the loop bug", ("grip:1:x",)),),
                    child_node_ids=tuple(children),
                )
            )
    return store


@given(
    store=broken_graphs(),
    query=st.sampled_from(["loop bug", "cache on 2026-01-30", "yesterday", "nothing", "zzz"]),
)
def test_any_broken_graph_is_walked_to_an_end(store: InMemoryStorage, query: str) -> None:
    """Navigation over arbitrary child links terminates within its limits and opens each node
    at most once."""
    result = Navigator(store, now=utc(2026, 1, 31), max_iterations=40).navigate(query)
    assert result.iterations <= 40
    opened = [parent for step in result.steps for parent in step.parent_ids]
    assert len(opened) == len(set(opened))
    assert result.nodes_visited <= store.count_nodes()


_ANSWERED = build_store(
    [Seg(utc(2026, 1, 5), "fixed the okapi cache"), Seg(utc(2026, 1, 6), "login page deploy")],
    topic_rollup(),
)


@given(query=any_text.filter(str.strip).map(lambda text: text[:200]))
@example(query="okapi \udcff")
@example(query="\ud83d cache")
def test_any_question_gives_an_answer_utf8_can_write(query: str) -> None:
    """Whatever a question holds (an unpaired surrogate, as a command line gives for bytes
    that are not UTF-8), its answer, the question echoed in it included, can be written as
    UTF-8 both as JSON and as text: a terminal or file that refuses surrogates is no crash."""
    result = Navigator(_ANSWERED, now=NOW).navigate(query)
    json.dumps(result.to_dict(), ensure_ascii=False).encode("utf-8")
    _render.navigation(result, verbose=True).encode("utf-8")

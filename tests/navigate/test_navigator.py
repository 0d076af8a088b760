"""The Navigator on hand-built trees: drilling, backtracking, adjacent periods, broadening,
malformed trees, limits, time-only questions and the rendered result."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
from tests._support.budget import rendered_tokens
from tests._support.navtree import Seg, build_nodes, build_store, check_strict, topic_rollup, utc

from tocsearch import ids
from tocsearch.errors import InvalidArgument
from tocsearch.levels import TocLevel
from tocsearch.models import TocBullet, TocNode
from tocsearch.navigate import (
    NavigationResult,
    Navigator,
    StepPhase,
)
from tocsearch.search import SearchField
from tocsearch.storage import InMemoryStorage

NOW = utc(2026, 2, 4, 15)  # a Wednesday


def history() -> list[Seg]:
    """Two months of work with distinct topics."""
    return [
        Seg(
            utc(2026, 1, 5, 10), "CI pipeline", ("Configured the build matrix", "Added pip caching")
        ),
        Seg(utc(2026, 1, 20, 10), "Auth design", ("Chose JWT for session tokens",)),
        Seg(
            utc(2026, 1, 30, 14),
            "JWT debugging",
            ("Debugged JWT expiry issue", "Fixed refresh rotation logic"),
        ),
        Seg(utc(2026, 1, 30, 16), "Schema work", ("Migrated postgres schema to v3",)),
        Seg(utc(2026, 2, 3, 9), "Flaky tests", ("Fixed flaky timeout in login test",)),
        Seg(utc(2026, 2, 3, 11), "Release", ("Tagged release 1.4", "Wrote changelog", "Deployed")),
    ]


def opened(result: NavigationResult) -> set[str]:
    """Every node whose children some step searched."""
    return {parent for step in result.steps for parent in step.parent_ids}


def test_generated_tree_is_strict() -> None:
    """The test tree helper links every node to the parent its id names."""
    nodes = build_nodes(history())
    check_strict(nodes)
    assert ids.month_id(2026, 1) in nodes
    assert ids.week_id(2026, 5) in nodes


def test_drill_down_picks_the_best_branch() -> None:
    """Without a time hint the walk starts at the years and drills into the month whose
    summary matches, never opening the month that does not."""
    store = build_store(history(), topic_rollup())
    result = Navigator(store, now=NOW).navigate("JWT expiry")
    assert result.steps[0].phase is StepPhase.START
    assert result.steps[0].level is TocLevel.YEAR
    assert result.steps[0].chosen == "toc:year:2026"
    assert "toc:month:2026-01" in opened(result)
    assert "toc:month:2026-02" not in opened(result)
    assert all(step.phase is not StepPhase.SCAN for step in result.steps)
    assert result.evidence[0].text == "Debugged JWT expiry issue"
    assert result.evidence[0].score == 1.0
    assert result.evidence[0].grip_ids
    assert not result.partial
    assert "Drilling into Month 2026-01" in result.steps[1].reason or any(
        "Drilling into Month 2026-01" in step.reason for step in result.steps
    )


def test_backtracks_to_the_next_best_sibling_when_a_branch_is_empty() -> None:
    """A month whose summary promises both terms but whose weeks hold neither is a dead end;
    the walk backtracks to the month that matched only one term and finds the segment."""
    overrides = {
        "toc:month:2025-11": ("2025-11", ("Planning JWT rotation",)),
        "toc:month:2025-12": ("2025-12", ("Token rotation follow-up",)),
    }
    specs = [
        Seg(utc(2025, 11, 10), "Roadmap", ("Wrote the quarterly roadmap",)),
        Seg(utc(2025, 12, 10), "Key rotation", ("Implemented JWT rotation for signing keys",)),
    ]
    store = build_store(specs, topic_rollup(overrides))
    result = Navigator(store, now=NOW).navigate("jwt rotation")
    phases = [step.phase for step in result.steps]
    assert StepPhase.BACKTRACK in phases
    backtrack = next(step for step in result.steps if step.phase is StepPhase.BACKTRACK)
    assert backtrack.parent_ids == ("toc:month:2025-12",)
    assert "Backtracking to Month 2025-12" in " ".join(step.reason for step in result.steps)
    assert result.segment_ids[0].startswith("toc:segment:2025-12-10")
    assert StepPhase.SCAN not in phases


def test_time_hint_starts_at_the_tightest_covering_node() -> None:
    """ "last week" starts at the week node, not at the year, and keeps evidence in range."""
    specs = [
        *history(),
        *(
            Seg(utc(2026, 1, day, 9), f"Day {day} chores", ("Triaged issues",))
            for day in range(26, 30)
        ),
    ]
    store = build_store(specs, topic_rollup())
    result = Navigator(store, now=NOW).navigate("what did we discuss about JWT last week?")
    assert result.time_hints.phrases == ("last week",)
    first = result.steps[0]
    assert first.phase is StepPhase.START
    assert first.parent_ids == ("toc:week:2026-W05",)
    assert first.level is TocLevel.DAY
    assert result.segment_ids == (ids.segment_id(utc(2026, 1, 30).date(), "s2"),)


def test_month_range_uses_the_previous_months_last_week_and_filters_by_range() -> None:
    """ "in February" also searches the January month's last week for Feb 1, and evidence
    outside February (Jan 31 in that same week) is left out."""
    specs = [
        Seg(utc(2026, 1, 31, 10), "Deploy prep", ("Deploy checklist drafted",)),
        Seg(utc(2026, 2, 1, 10), "Sunday deploy", ("Deploy to staging done",)),
        *(
            Seg(utc(2026, 2, day, 10), "Other work", ("Reviewed pull requests",))
            for day in (9, 16, 23)
        ),
    ]
    store = build_store(specs, topic_rollup())
    result = Navigator(store, now=utc(2026, 3, 10)).navigate("deploy in February")
    first = result.steps[0]
    assert set(first.parent_ids) == {"toc:month:2026-01", "toc:month:2026-02"}
    assert [item.text for item in result.evidence] == ["Deploy to staging done"]


def test_adjacent_periods_are_tried_when_the_period_has_no_match() -> None:
    """Nothing about the topic yesterday: the walk looks at the days next to it and says so."""
    store = build_store(history(), topic_rollup())
    result = Navigator(store, now=utc(2026, 2, 4, 15)).navigate("postgres schema on Saturday")
    # Saturday is 2026-01-31; the schema work was on Friday the 30th.
    phases = [step.phase for step in result.steps]
    assert StepPhase.ADJACENT in phases
    assert StepPhase.BROADEN not in phases
    assert result.evidence[0].text == "Migrated postgres schema to v3"
    assert "next to the one asked about" in result.reason


def test_broadens_to_the_whole_history_when_nothing_is_near() -> None:
    """A topic far from the hinted period is found after the time restriction is dropped."""
    store = build_store(history(), topic_rollup())
    result = Navigator(store, now=NOW).navigate("pip caching yesterday")
    phases = [step.phase for step in result.steps]
    assert phases.index(StepPhase.ADJACENT) < phases.index(StepPhase.BROADEN)
    assert result.evidence[0].text == "Added pip caching"
    assert "outside the period asked about" in result.reason


def test_unmatched_summaries_fall_back_to_scanning_segments() -> None:
    """A term only a segment's bullet holds is found by scanning segments, newest first."""
    store = build_store(history())  # rollups carry titles only
    result = Navigator(store, now=NOW).navigate("changelog")
    assert result.steps[-1].phase is StepPhase.SCAN
    assert "newest first" in result.steps[-1].scope
    assert result.evidence[0].text == "Wrote changelog"


def test_time_only_query_lists_the_period_best_summarised_first() -> None:
    """ "What did we do yesterday?" lists yesterday's segments, the richest first."""
    store = build_store(history(), topic_rollup())
    result = Navigator(store, now=NOW).navigate("What did we do yesterday?")
    assert result.terms == ()
    assert result.steps[0].phase is StepPhase.LIST
    assert result.segment_ids == (
        ids.segment_id(utc(2026, 2, 3).date(), "s5"),
        ids.segment_id(utc(2026, 2, 3).date(), "s4"),
    )
    assert all(item.start_time.date() == utc(2026, 2, 3).date() for item in result.evidence)
    assert "listed what happened in 2026-02-03" in result.reason


@pytest.mark.parametrize(
    "question",
    [
        "what did I work on yesterday",
        "summarize yesterday",
        "recap of yesterday",
        "give me an overview of yesterday",
    ],
)
def test_recap_questions_list_the_period(question: str) -> None:
    """Words that ask for a recap are no topic: the period is listed as for a bare hint."""
    store = build_store(history(), topic_rollup())
    bare = Navigator(store, now=NOW).navigate("yesterday")
    result = Navigator(store, now=NOW).navigate(question)
    assert result.terms == ()
    assert result.steps[0].phase is StepPhase.LIST
    assert result.segment_ids == bare.segment_ids
    assert result.reason.startswith("a recap of the period: listed what happened in 2026-02-03")


def test_recap_words_beside_a_topic_stay_terms() -> None:
    """ "work" next to a real topic is searched like any term."""
    result = Navigator(build_store(history()), now=NOW).navigate("work on the changelog")
    assert result.terms == ("work", "changelog")


def test_long_queries_are_cut_to_their_first_terms() -> None:
    """A question with more terms than MAX_QUERY_TERMS searches the first ones and says so."""
    from tocsearch.navigate.navigator import MAX_QUERY_TERMS

    words = " ".join(f"word{index:03d}" for index in range(3 * MAX_QUERY_TERMS))
    result = Navigator(build_store(history()), now=NOW).navigate("changelog " + words)
    assert len(result.terms) == MAX_QUERY_TERMS
    assert result.terms[0] == "changelog"
    assert f"searched the first {MAX_QUERY_TERMS} of {3 * MAX_QUERY_TERMS + 1} query terms" in (
        result.reason
    )


def test_overlong_queries_are_refused() -> None:
    """A question past MAX_QUERY_CHARACTERS is a clear error, not minutes of work."""
    from tocsearch.navigate.navigator import MAX_QUERY_CHARACTERS

    with pytest.raises(InvalidArgument, match="query must be at most"):
        Navigator(build_store(history()), now=NOW).navigate("x" * (MAX_QUERY_CHARACTERS + 1))


def test_query_without_topic_or_time_lists_the_latest_activity() -> None:
    """A question with only filler words lists the most recent day with activity."""
    result = Navigator(build_store(history()), now=NOW).navigate("what did we do?")
    assert {item.start_time.date() for item in result.evidence} == {utc(2026, 2, 3).date()}


def test_empty_period_lists_the_adjacent_one() -> None:
    """A time-only question about a quiet day lists the neighbouring days instead."""
    result = Navigator(build_store(history()), now=NOW).navigate("what happened on 2026-01-31?")
    assert [step.phase for step in result.steps] == [StepPhase.LIST, StepPhase.ADJACENT]
    assert result.segment_ids
    assert "nothing is recorded in 2026-01-31" in result.reason


def test_no_match_anywhere_is_reported_not_raised() -> None:
    """A topic found nowhere returns no evidence and says so."""
    result = Navigator(build_store(history()), now=NOW).navigate("kubernetes")
    assert result.evidence == ()
    assert result.reason == "no segment matches the query"
    assert not result.partial


def test_evidence_prefers_bullets_matching_more_terms_and_is_deduplicated() -> None:
    """A bullet holding both terms outranks bullets holding one each; a bullet repeated in a
    segment is reported once."""
    specs = [
        Seg(utc(2026, 1, 6), "One", ("cache warmed", "retry added", "cache warmed")),
        Seg(utc(2026, 1, 5), "Two", ("cache retry policy tuned",)),
    ]
    result = Navigator(build_store(specs), now=NOW).navigate("cache retry")
    texts = [item.text for item in result.evidence]
    assert texts[0] == "cache retry policy tuned"
    assert texts.count("cache warmed") == 1
    assert result.evidence[0].matched_terms == ("cache", "retry")
    assert result.evidence[0].score > result.evidence[1].score


def test_summary_match_without_bullet_match_cites_the_segments_grips() -> None:
    """When only a segment's summary matches, the evidence is the summary with the grips of
    the segment's bullets."""
    specs = [Seg(utc(2026, 1, 6), "Misc", ("Did things",), summary="Long talk about sharding")]
    result = Navigator(build_store(specs), now=NOW).navigate("sharding")
    item = result.evidence[0]
    assert item.field is SearchField.SUMMARY
    assert item.text == "Long talk about sharding"
    assert len(item.grip_ids) == 1


# -- malformed trees and limits -----------------------------------------------------------


def malformed_store() -> InMemoryStorage:
    """A store with a cycle, a self-reference, dangling ids and children of the wrong level."""
    start = utc(2026, 1, 30, 10)
    store = InMemoryStorage()
    segment = TocNode(
        node_id="toc:segment:2026-01-30:x",
        level=TocLevel.SEGMENT,
        title="Loop fix",
        start_time=start,
        end_time=start + timedelta(minutes=5),
        bullets=(TocBullet("Fixed the loop bug", ("grip:1:x",)),),
        child_node_ids=("toc:year:2026", "toc:segment:2026-01-30:x"),
    )
    day = TocNode(
        node_id="toc:day:2026-01-30",
        level=TocLevel.DAY,
        title="loop bug day",
        start_time=start,
        end_time=start,
        child_node_ids=(
            "toc:year:2026",
            "toc:day:2026-01-30",
            segment.node_id,
            "toc:day:2031-01-01",
        ),
    )
    week = TocNode(
        node_id="toc:week:2026-W05",
        level=TocLevel.WEEK,
        title="loop bug week",
        start_time=start,
        end_time=start,
        child_node_ids=(day.node_id, "toc:week:2026-W05", "toc:month:2026-01"),
    )
    month = TocNode(
        node_id="toc:month:2026-01",
        level=TocLevel.MONTH,
        title="loop bug month",
        start_time=start,
        end_time=start,
        child_node_ids=(week.node_id, "toc:year:2026", "toc:week:2099-W01"),
    )
    year = TocNode(
        node_id="toc:year:2026",
        level=TocLevel.YEAR,
        title="loop bug year",
        start_time=start,
        end_time=start,
        child_node_ids=(month.node_id, day.node_id, "toc:year:2026"),
    )
    store.put_nodes([segment, day, week, month, year])
    return store


def test_malformed_tree_terminates_and_still_finds_the_segment() -> None:
    """Cycles, self-references, dangling ids and upward child links neither loop nor crash."""
    result = Navigator(malformed_store(), now=NOW).navigate("loop bug")
    assert result.segment_ids == ("toc:segment:2026-01-30:x",)
    assert result.iterations <= 50
    for step in result.steps:
        for parent in step.parent_ids:
            assert sum(parent in other.parent_ids for other in result.steps) == 1


def test_malformed_tree_with_time_hint_terminates() -> None:
    """The same tree with a time hint walks from the covering node and terminates."""
    result = Navigator(malformed_store(), now=NOW).navigate("loop on Jan 30")
    assert result.segment_ids == ("toc:segment:2026-01-30:x",)


def wide_store() -> InMemoryStorage:
    """Forty days, each with one segment that mentions "bug"."""
    specs = [
        Seg(utc(2025, 1, 1) + timedelta(days=3 * n), f"Bug hunt {n}", (f"Fixed bug number {n}",))
        for n in range(40)
    ]
    return build_store(specs, topic_rollup())


def test_max_iterations_is_respected_and_flagged() -> None:
    """The walk stops after max_iterations searches and returns what it has, flagged partial."""
    result = Navigator(wide_store(), now=NOW, max_iterations=3, max_evidence=50).navigate("bug")
    assert result.iterations == 3
    assert len(result.steps) == 3
    assert result.partial
    assert "max_iterations=3" in result.reason


@pytest.mark.parametrize("budget", [200, 400, 1000])
def test_token_budget_bounds_what_is_returned(budget: int) -> None:
    """The result as JSON and as Markdown fits the budget, holds evidence, and says how many
    of the items found fit."""
    result = Navigator(wide_store(), now=NOW, token_budget=budget, max_evidence=50).navigate("bug")
    assert rendered_tokens(result) <= result.tokens_used <= budget
    assert result.evidence
    assert result.partial
    if budget > 200:
        assert f"{len(result.evidence)} of 29 items fit the budget" in result.reason


def test_more_budget_returns_more_evidence() -> None:
    """Evidence is not dropped while budget is left: a larger budget returns a superset."""
    store = wide_store()
    small = Navigator(store, now=NOW, token_budget=400, max_evidence=50).navigate("bug")
    large = Navigator(store, now=NOW, token_budget=4000, max_evidence=50).navigate("bug")
    assert len(large.evidence) > len(small.evidence)
    assert {item.text for item in small.evidence} <= {item.text for item in large.evidence}


def test_a_budget_below_the_frame_is_a_clear_error() -> None:
    """A budget too small for even the question and its terms is refused, naming both."""
    with pytest.raises(InvalidArgument, match=r"token_budget=5 is too small for this query"):
        Navigator(wide_store(), now=NOW, token_budget=5).navigate("bug")


def test_the_full_path_on_request_is_counted() -> None:
    """full_path=True shows every step, and the result still fits the budget."""
    store = wide_store()
    for budget in (600, 30_000):
        compact = Navigator(store, now=NOW, token_budget=budget).navigate("bug")
        full = Navigator(store, now=NOW, token_budget=budget).navigate("bug", full_path=True)
        assert len(full.steps) >= len(compact.steps)
        assert rendered_tokens(full) <= full.tokens_used <= budget
    assert len(full.steps) == full.iterations
    assert all(step.matches for step in full.steps if step.matched)


def test_custom_estimator_is_used() -> None:
    """A caller's estimator decides the cost: one token per word here."""
    result = Navigator(
        build_store(history()), now=NOW, estimator=lambda text: len(text.split())
    ).navigate("changelog")
    default = Navigator(build_store(history()), now=NOW).navigate("changelog")
    assert result.evidence == default.evidence
    assert result.tokens_used != default.tokens_used


# -- arguments ----------------------------------------------------------------------------


@pytest.mark.parametrize("query", ["", "   ", "\n"])
def test_blank_query_is_refused(query: str) -> None:
    """An empty or blank query is an InvalidArgument."""
    with pytest.raises(InvalidArgument, match="query must be a non-empty string"):
        Navigator(InMemoryStorage(), now=NOW).navigate(query)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"now": datetime(2026, 1, 1)}, "now must be timezone-aware, got naive 2026-01-01"),
        ({"max_iterations": 0}, "max_iterations must be a whole number of at least 1, got 0"),
        ({"token_budget": -5}, "token_budget must be a whole number of at least 1, got -5"),
        ({"threshold": 1.5}, "threshold must be between 0 and 1, got 1.5"),
        ({"width": 0}, "width must be a whole number of at least 1"),
        ({"scan_page": True}, "scan_page must be a whole number of at least 1, got True"),
        ({"text_cache": -1}, "text_cache must be a whole number of at least 0, got -1"),
    ],
)
def test_bad_options_are_refused(options: dict[str, object], message: str) -> None:
    """Each invalid option is an InvalidArgument naming the option and value."""
    with pytest.raises(InvalidArgument, match=message):
        Navigator(InMemoryStorage(), **options)  # type: ignore[arg-type]


def test_default_now_is_the_current_time() -> None:
    """Without now, "today" means the current UTC date."""
    result = Navigator(InMemoryStorage()).navigate("today")
    assert result.time_hints.ranges[0].start.date() == datetime.now(timezone.utc).date()


def test_empty_store_gives_an_empty_answer() -> None:
    """An empty store is not an error."""
    result = Navigator(InMemoryStorage(), now=NOW).navigate("jwt last week")
    assert result.evidence == ()
    assert not result.partial


# -- rendering ----------------------------------------------------------------------------


def test_markdown_has_the_search_path_and_evidence_sections() -> None:
    """to_markdown shows the query, numbered steps with scores and reasons, and evidence by
    segment with grip ids."""
    store = build_store(history(), topic_rollup())
    result = Navigator(store, now=NOW).navigate("JWT expiry last week")
    text = result.to_markdown()
    assert text.startswith('## Search Path\n\nQuery: "JWT expiry last week"\n')
    assert 'Time: "last week" -> 2026-01-26..2026-02-01' in text
    assert "1. **" in text
    assert "(score: 1.00)" in text
    assert "## Evidence" in text
    assert f"**{result.segment_ids[0]}**" in text
    assert f"[{result.evidence[0].grip_ids[0]}]" in text
    assert "_Done:" in text


def test_to_dict_is_json_ready_with_stable_keys_and_round_trips() -> None:
    """to_dict gives plain JSON types under the documented keys, and from_dict restores it."""
    store = build_store(history(), topic_rollup())
    result = Navigator(store, now=NOW).navigate("JWT expiry last week", full_path=True)
    data = result.to_dict()
    assert list(data) == [
        "query",
        "time_hints",
        "steps",
        "segments",
        "partial",
        "reason",
        "counts",
    ]
    # The four counters are one list, in the documented order.
    assert data["counts"] == [
        result.tokens_used,
        result.token_budget,
        result.nodes_visited,
        result.iterations,
    ]
    # Keys holding an empty or default value are left out: the budget counts them.
    assert list(data["steps"][0]) == [
        "number",
        "phase",
        "level",
        "scope",
        "parent_ids",
        "searched",
        "matched",
        "matches",
        "reason",
    ]
    # The evidence comes in runs of one segment, its id and title said once per run.
    assert list(data["segments"][0]) == ["segment_id", "segment_title", "evidence"]
    first = data["segments"][0]["evidence"][0]
    assert "segment_id" not in first
    assert first["kind"] == "bullet"
    assert {"text", "grip_ids", "score", "start_time"} <= set(first)
    # The topic (the query without "last week") and its terms are left out: from_dict works
    # them out again.
    assert "topic" not in data
    assert "terms" not in data
    untimed = Navigator(store, now=NOW).navigate("JWT expiry").to_dict()
    assert "time_hints" not in untimed
    assert "topic" not in untimed
    assert data["time_hints"]["ranges"][0]["start"] == "2026-01-26T00:00:00+00:00"
    assert data["steps"][0]["phase"] == "start"
    assert NavigationResult.from_dict(json.loads(json.dumps(data))) == result

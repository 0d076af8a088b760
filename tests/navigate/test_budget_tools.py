"""The navigate tool's output fits the token budget it was called with, for every bundled
example question, and holds evidence wherever a generous budget finds some."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests._support.budget import evidence_items, rendered_tokens
from tests._support.examples import scaled

from tocsearch._clock import parse_zone
from tocsearch.examples import (
    EXAMPLE_END,
    ExampleQuestion,
    load_example_events,
    load_example_questions,
)
from tocsearch.ingest import TocBuilder
from tocsearch.models import event_project
from tocsearch.navigate import NavigationResult, Navigator
from tocsearch.storage import InMemoryStorage
from tocsearch.text import estimate_tokens
from tocsearch.tools import AgentTools

QUESTIONS = [question.question for question in load_example_questions()]
BUDGETS = (200, 500, 1000, 2000)


@pytest.fixture(scope="module")
def storage() -> InMemoryStorage:
    built = InMemoryStorage()
    TocBuilder(built).ingest(load_example_events())
    return built


@pytest.fixture(scope="module")
def tools(storage: InMemoryStorage) -> AgentTools:
    return AgentTools(storage, now=EXAMPLE_END)


def _navigate(tools: AgentTools, arguments: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    text = tools.handle_tool_call("navigate", arguments)
    data: dict[str, Any] = json.loads(text)
    return text, data


def _matched(result: NavigationResult, budget: int) -> bool:
    """Whether the question asks for a topic the walk matches (every bundled topical question
    matches), or the budget has room for a listed statement: a period's summary with its
    grip and times does not fit beside the frame of a time-only question at 200 tokens."""
    return bool(result.terms) or budget >= 500


@settings(max_examples=scaled(40), deadline=None)
@given(question=st.sampled_from(QUESTIONS), budget=st.sampled_from(BUDGETS))
def test_tool_output_fits_the_budget_with_evidence(
    tools: AgentTools, question: str, budget: int
) -> None:
    """The tool's JSON is at most token_budget tokens and cites evidence whenever a walk with
    a generous budget finds any, at 200 tokens too; the result read back renders within the
    budget too."""
    text, data = _navigate(tools, {"query": question, "token_budget": budget})
    assert "error" not in data, data
    tokens_used, token_budget = data["counts"][:2]
    assert estimate_tokens(text) <= tokens_used <= token_budget == budget
    result = NavigationResult.from_dict(data)
    # Read back, it renders within the budget as JSON and as Markdown, path or none.
    assert rendered_tokens(result) <= budget
    _, generous = _navigate(tools, {"query": question, "token_budget": 50_000})
    if _matched(result, budget):
        assert bool(evidence_items(data)) == bool(evidence_items(generous))
    if len(evidence_items(data)) < len(evidence_items(generous)):
        assert data["partial"]
        assert "items fit the budget" in data["reason"]


@pytest.mark.parametrize("budget", BUDGETS)
def test_every_navigation_renders_within_its_budget(storage: InMemoryStorage, budget: int) -> None:
    """Navigator.navigate's result, as to_dict() JSON and as Markdown with or without the
    path, is at most token_budget tokens by the navigator's estimator, for every example
    question, and says what it costs."""
    for question in load_example_questions():
        navigator = Navigator(storage, now=question.now, token_budget=budget)
        result = navigator.navigate(question.question)
        assert rendered_tokens(result, navigator.estimator) <= result.tokens_used <= budget
        if _matched(result, budget):
            assert result.evidence, (question.question, budget, result.reason)


@pytest.mark.parametrize("budget", BUDGETS)
def test_every_example_question_fits_every_budget(tools: AgentTools, budget: int) -> None:
    """All bundled questions, at each budget the issue names: within it, evidence present."""
    for question in QUESTIONS:
        text, data = _navigate(tools, {"query": question, "token_budget": budget})
        assert estimate_tokens(text) <= budget, question
        if _matched(NavigationResult.from_dict(data), budget):
            assert evidence_items(data), (question, budget, data["reason"])


def test_more_budget_never_returns_less(storage: InMemoryStorage) -> None:
    """A matched item is not dropped while budget is left: each larger budget returns at
    least the items of a smaller one."""
    for question in load_example_questions():
        previous = 0
        for budget in BUDGETS:
            result = Navigator(storage, now=question.now, token_budget=budget).navigate(
                question.question
            )
            assert len(result.evidence) >= previous, (question.question, budget)
            previous = len(result.evidence)


def test_the_full_path_is_counted_in_the_budget(tools: AgentTools) -> None:
    """full_path=true shows every step and still fits the budget."""
    text, data = _navigate(tools, {"query": QUESTIONS[0], "token_budget": 3000, "full_path": True})
    assert estimate_tokens(text) <= 3000
    # Every search is a step (a phase with nothing left to search is one too).
    assert len(data["steps"]) >= data["counts"][3]
    assert any(step.get("matches") for step in data["steps"])


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            {"query": "jwt", "token_budget": 0},
            "token_budget must be a whole number of at least 1, got 0",
        ),
        ({"query": "jwt", "token_budget": 3}, "token_budget=3 is too small for this query"),
        ({"query": "jwt", "full_path": "yes"}, "'full_path' must be a boolean"),
    ],
)
def test_bad_budgets_are_clear_errors(
    tools: AgentTools, arguments: dict[str, Any], message: str
) -> None:
    """A zero budget is refused (not silently replaced), as is one below the frame."""
    _, data = _navigate(tools, arguments)
    assert data["error"]["type"] == "InvalidArgument"
    assert message in data["error"]["message"]


@settings(max_examples=scaled(30), deadline=None)
@given(
    question=st.sampled_from(load_example_questions()),
    budget=st.sampled_from(BUDGETS),
    zone=st.sampled_from(["America/Los_Angeles", "Asia/Kolkata", "Pacific/Kiritimati", "-03:30"]),
)
def test_local_dates_and_conversations_stay_within_the_budget(
    storage: InMemoryStorage, question: ExampleQuestion, budget: int, zone: str
) -> None:
    """Asked on another clock, the result shows its times there and names each segment's
    conversation, and both renderings still fit the budget."""
    now = question.now.astimezone(parse_zone(zone))
    navigator = Navigator(storage, now=now, token_budget=budget)
    result = navigator.navigate(question.question)
    assert result.zone == zone
    assert rendered_tokens(result, navigator.estimator) <= result.tokens_used <= budget
    if _matched(result, budget):
        assert result.evidence
    if budget >= 1000 and result.evidence:
        # Room enough: the best item is whole, its conversation named, unless the answer was
        # slimmed to fit more items, which leaves every segment's conversation to its ids.
        assert result.evidence[0].session_id or not any(item.session_id for item in result.evidence)
    markdown = result.to_markdown()
    for item in result.evidence:
        segment = storage.get_node(item.segment_id)
        events = [storage.get_event(event_id) for event_id in segment.event_ids]
        if item.session_id:
            assert {(event_project(event), event.session_id) for event in events} == {
                (item.project, item.session_id)
            }
            named = f"project {item.project}, session {item.session_id}"
            assert f"{named})" in markdown or f"{named}, ids evt:" in markdown

"""The Navigator on the bundled example history, built by the real TOC builder: realistic
questions find a segment that owns one of the answer's events."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tocsearch
from tocsearch.build import TocBuilder
from tocsearch.converter import from_dict
from tocsearch.models import Event
from tocsearch.navigate import Navigator
from tocsearch.storage import InMemoryStorage

HISTORY = Path(tocsearch.__file__).parent / "examples" / "history.jsonl"


class Example:
    """The example store, its last moment, and the segments that own each session's events."""

    def __init__(self) -> None:
        events = [
            from_dict(json.loads(line), Event)
            for line in HISTORY.read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]
        self.storage = InMemoryStorage()
        TocBuilder(self.storage).ingest(events)
        self.end = max(event.timestamp for event in events)
        owner: dict[str, str] = {}
        for node_id in self.storage.iter_node_ids():
            for event_id in self.storage.get_node(node_id).event_ids:
                owner[event_id] = node_id
        self.segments_of: dict[str, set[str]] = {}
        for event in events:
            self.segments_of.setdefault(event.session_id, set()).add(owner[event.event_id])


@pytest.fixture(scope="module")
def example() -> Example:
    if not HISTORY.exists():
        pytest.skip("the example history is not bundled")
    return Example()


QUESTIONS: list[tuple[str, tuple[str, ...]]] = [
    (
        "Why did users get 401 ImmatureSignatureError after login?",
        ("2026-01-05-jwt-clock-skew",),
    ),
    (
        "What leeway did we set for the JWT clock skew?",
        ("2026-01-06-leeway-test", "2026-01-05-jwt-clock-skew"),
    ),
    (
        "refresh token race condition fix",
        ("2026-01-13-refresh-race-fix", "2026-01-12-refresh-race-report"),
    ),
    (
        "stale profile data in redis cache",
        ("2026-01-22-redis-stale-profile", "2026-01-26-redis-fix"),
    ),
    ("CI port collision", ("2026-01-19-ci-port-collision", "2026-03-31-ci-port-again")),
    ("cache stampede in February", ("2026-02-12-cache-stampede",)),
    ("docker hub rate limit in CI", ("2026-02-23-ci-docker-rate-limit",)),
    ("onboarding Jonas", ("2026-03-09-onboarding-jonas", "2026-03-11-onboarding-first-pr")),
    ("slow query regression after the cutover", ("2026-03-10-query-regression",)),
    ("what did we decide about JWT refresh tokens?", ("2026-04-02-jwt-refresh-decision",)),
    ("Python 3.13 upgrade", ("2026-03-19-python-313",)),
    (
        "refresh token reuse detection",
        ("2026-03-30-reuse-detection-impl", "2026-03-27-reuse-edge-cases"),
    ),
    ("what did we do yesterday?", ("2026-04-06-migration-families", "2026-04-06-rotation-flag")),
    ("flaky tests last week", ("2026-03-31-ci-port-again",)),
]

# Questions whose answer the walk misses today, kept so the gap stays visible: term coverage
# weighs "path" or "go" as much as "postgres" or "cutover", and the extractive summary of the
# incident segment does not carry its number.
KNOWN_MISSES: list[tuple[str, tuple[str, ...]]] = [
    ("Which Postgres upgrade path did we decide on?", ("2026-01-20-pg-decision",)),
    ("what caused incident 2291?", ("2026-02-17-incident-2291", "2026-02-18-incident-postmortem")),
    ("how did the database cutover go?", ("2026-03-07-cutover",)),
]


def _answers(example: Example, question: str, sessions: tuple[str, ...]) -> bool:
    result = Navigator(example.storage, now=example.end).navigate(question)
    assert result.tokens_used <= result.token_budget
    wanted = set().union(*(example.segments_of[session] for session in sessions))
    return bool(wanted & set(result.segment_ids))


@pytest.mark.parametrize(("question", "sessions"), QUESTIONS, ids=[q for q, _ in QUESTIONS])
def test_example_question_finds_an_answer_segment(
    example: Example, question: str, sessions: tuple[str, ...]
) -> None:
    """The evidence includes a segment that owns an event of an answering session."""
    assert _answers(example, question, sessions)


@pytest.mark.parametrize(("question", "sessions"), KNOWN_MISSES, ids=[q for q, _ in KNOWN_MISSES])
@pytest.mark.xfail(strict=True, reason="unweighted term coverage; see KNOWN_MISSES")
def test_known_misses_stay_visible(
    example: Example, question: str, sessions: tuple[str, ...]
) -> None:
    """These questions are not yet answered; a pass here means the walk improved."""
    assert _answers(example, question, sessions)

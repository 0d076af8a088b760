"""The bundled example history: shape, realism constraints, and its questions."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from datetime import timedelta
from itertools import pairwise
from pathlib import Path

import pytest
from tests.examples.generate_history import SOURCE, build_events, render

import tocsearch.examples as examples_package
from tocsearch.examples import (
    EXAMPLE_END,
    EXAMPLE_START,
    QuestionCategory,
    example_path,
    load_example_events,
    load_example_questions,
    questions_path,
)
from tocsearch.models import Event, EventRole


@pytest.fixture(scope="module")
def history() -> tuple[Event, ...]:
    return load_example_events()


def _sessions(history: tuple[Event, ...]) -> dict[str, list[Event]]:
    grouped: dict[str, list[Event]] = defaultdict(list)
    for event in history:
        grouped[event.session_id].append(event)
    return grouped


def test_shipped_file_is_the_rendering_of_its_source() -> None:
    """history.jsonl is exactly what generate_history.py makes of history_source.txt."""
    expected = render(build_events(SOURCE.read_text(encoding="utf-8")))
    assert example_path().read_text(encoding="utf-8") == expected


def test_data_files_live_inside_the_package() -> None:
    """Both data files sit in the tocsearch.examples package directory, so wheels ship them."""
    package_dir = Path(examples_package.__file__).parent
    assert example_path().parent == package_dir
    assert questions_path().parent == package_dir


def test_history_loads_strictly_with_hundreds_of_events(history: tuple[Event, ...]) -> None:
    """The history has at least 300 valid events, sorted by id, with unique ids."""
    assert len(history) >= 300
    assert len({event.event_id for event in history}) == len(history)
    assert [e.event_id for e in history] == sorted(e.event_id for e in history)


def test_history_spans_three_months_with_known_ends(history: tuple[Event, ...]) -> None:
    """First and last events match EXAMPLE_START and EXAMPLE_END, at least 90 days apart."""
    assert history[0].timestamp == EXAMPLE_START
    assert history[-1].timestamp == EXAMPLE_END
    assert timedelta(days=90) <= EXAMPLE_END - EXAMPLE_START


def test_every_week_has_several_sessions(history: tuple[Event, ...]) -> None:
    """Each ISO week of the history, the last partial one aside, has at least three sessions."""
    weeks: dict[tuple[int, int], set[str]] = defaultdict(set)
    for event in history:
        iso = event.timestamp.isocalendar()
        weeks[(iso[0], iso[1])].add(event.session_id)
    ordered = sorted(weeks)
    assert len(ordered) >= 13
    assert all(len(weeks[week]) >= 3 for week in ordered[:-1])


def test_sessions_are_realistic_in_size_and_time(history: tuple[Event, ...]) -> None:
    """Sessions hold 4-20 events on one day, in working hours, mixing users, assistant, tools."""
    sessions = _sessions(history)
    assert len(sessions) >= 40
    for events in sessions.values():
        assert 4 <= len(events) <= 20
        assert len({e.timestamp.date() for e in events}) == 1
        assert all(6 <= e.timestamp.hour < 19 for e in events)
        assert events[0].role is EventRole.USER
    roles = Counter(e.role for e in history)
    assert roles[EventRole.TOOL] >= 50


def test_some_sessions_have_gaps_that_split_segments(history: tuple[Event, ...]) -> None:
    """Several sessions pause for more than 30 minutes, so they make more than one segment."""
    paused = [
        session
        for session, events in _sessions(history).items()
        if any(b.timestamp - a.timestamp > timedelta(minutes=30) for a, b in pairwise(events))
    ]
    assert len(paused) >= 8


def test_last_week_holds_the_refresh_token_decision(history: tuple[Event, ...]) -> None:
    """The calendar week before EXAMPLE_END contains the decision about JWT refresh tokens."""
    monday = EXAMPLE_END.date() - timedelta(days=EXAMPLE_END.weekday())
    last_week = [e for e in history if monday - timedelta(days=7) <= e.timestamp.date() < monday]
    decisions = [e for e in last_week if "Decision" in e.text and "refresh token" in e.text]
    assert decisions
    assert EXAMPLE_END - decisions[0].timestamp <= timedelta(days=7)


def test_questions_cover_all_categories(history: tuple[Event, ...]) -> None:
    """At least 15 questions, in all three categories, including the README's demo question."""
    questions = load_example_questions()
    assert len(questions) >= 15
    assert {q.category for q in questions} == set(QuestionCategory)
    texts = {q.question for q in questions}
    assert "what did we decide about JWT refresh tokens last week" in texts
    assert "what did we do yesterday" in texts


def test_every_answer_phrase_is_in_its_event_before_now(history: tuple[Event, ...]) -> None:
    """Each phrase occurs verbatim in the event listed beside it, which precedes the question."""
    by_id = {event.event_id: event for event in history}
    for question in load_example_questions():
        assert len(question.event_ids) == len(question.phrases) >= 1
        for event_id, phrase in zip(question.event_ids, question.phrases, strict=True):
            assert phrase in by_id[event_id].text, (question.question, phrase)
            assert by_id[event_id].timestamp <= question.now


def test_yesterday_question_points_at_the_day_before_now(history: tuple[Event, ...]) -> None:
    """The answers to 'what did we do yesterday' all happen on the day before its now."""
    by_id = {event.event_id: event for event in history}
    question = next(q for q in load_example_questions() if q.question == "what did we do yesterday")
    days = {by_id[event_id].timestamp.date() for event_id in question.event_ids}
    assert days == {question.now.date() - timedelta(days=1)}


def test_questions_file_is_plain_json_with_documented_keys() -> None:
    """questions.json has a description and questions with the documented keys only."""
    document = json.loads(questions_path().read_text(encoding="utf-8"))
    assert set(document) == {"description", "questions"}
    allowed = {"question", "category", "now", "event_ids", "phrases"}
    assert all(set(item) <= allowed for item in document["questions"])

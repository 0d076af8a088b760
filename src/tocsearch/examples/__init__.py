"""A bundled example history: three months of a developer's sessions with a coding assistant.

The history (2026-01-05 .. 2026-04-07, 480 events in 56 sessions) follows a small team through
JWT refresh-token bugs and the decision to rotate refresh tokens, a Postgres 14 -> 16 migration,
a flaky CI job, Redis cache invalidation, an on-call incident, dependency upgrades, a design
review, a new teammate and two releases. It ships as package data in the generic JSONL format
(``history.jsonl``), with realistic questions about it in ``questions.json``.

>>> events = load_example_events()
>>> len(events) >= 300 and events[-1].timestamp == EXAMPLE_END
True
"""

from __future__ import annotations

from tocsearch.examples._data import (
    EXAMPLE_END,
    EXAMPLE_START,
    ExampleQuestion,
    QuestionCategory,
    example_path,
    load_example_events,
    load_example_questions,
    questions_path,
)

__all__ = [
    "EXAMPLE_END",
    "EXAMPLE_START",
    "ExampleQuestion",
    "QuestionCategory",
    "example_path",
    "load_example_events",
    "load_example_questions",
    "questions_path",
]

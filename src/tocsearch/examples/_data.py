"""Locating and loading the bundled example history and its questions."""

from __future__ import annotations

import atexit
import contextlib
import enum
import functools
import json
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path
from typing import Any

import attrs

from tocsearch.errors import InvalidArgument
from tocsearch.importers import load_jsonl
from tocsearch.models import Event

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

EXAMPLE_START = datetime(2026, 1, 5, 9, 10, tzinfo=timezone.utc)
"""The timestamp of the first event of the example history."""

EXAMPLE_END = datetime(2026, 4, 7, 16, 49, 56, tzinfo=timezone.utc)
"""The timestamp of the last event: the natural ``now`` for questions about the history."""

_HISTORY = "history.jsonl"
_QUESTIONS = "questions.json"
# Keeps files extracted from a zipped install alive until the interpreter exits.
_extracted = contextlib.ExitStack()
atexit.register(_extracted.close)


@functools.cache
def _resource_path(name: str) -> Path:
    resource = resources.files(__package__ or "tocsearch.examples") / name
    if isinstance(resource, Path):
        return resource
    return _extracted.enter_context(resources.as_file(resource))


def example_path() -> Path:
    """The path of the bundled ``history.jsonl`` (generic JSONL format)."""
    return _resource_path(_HISTORY)


def questions_path() -> Path:
    """The path of the bundled ``questions.json``."""
    return _resource_path(_QUESTIONS)


@functools.lru_cache(maxsize=1)
def load_example_events() -> tuple[Event, ...]:
    """The events of the example history, sorted by event id (and so by time).

    The file is read once per process; the events are immutable, so the tuple is shared.
    """
    return load_jsonl(example_path()).events


class QuestionCategory(str, enum.Enum):
    """What a question leans on to be answered."""

    TOPICAL = "topical"
    """Only the subject: "what was the lock timeout problem"."""
    TIME_HINTED = "time-hinted"
    """A subject and a time: "what broke in CI in February"."""
    TIME_ONLY = "time-only"
    """Only a time: "what did we do yesterday"."""


def _aware(value: datetime | str | None) -> datetime:
    if value is None:
        return EXAMPLE_END
    parsed = (
        datetime.fromisoformat(value.replace("Z", "+00:00")) if isinstance(value, str) else value
    )
    if parsed.tzinfo is None:
        raise InvalidArgument(f"question 'now' must carry a UTC offset, got {value!r}")
    return parsed.astimezone(timezone.utc)


def _strings(values: Any) -> tuple[str, ...]:
    return tuple(str(value) for value in values)


@attrs.frozen
class ExampleQuestion:
    """A question about the example history and the events that answer it.

    ``now`` is the moment the question is asked (``EXAMPLE_END`` unless the question says
    otherwise). ``event_ids`` are the events that hold the answer; each ``phrase`` occurs
    verbatim in at least one of them.
    """

    question: str
    category: QuestionCategory = attrs.field(converter=QuestionCategory)
    event_ids: tuple[str, ...] = attrs.field(converter=_strings)
    phrases: tuple[str, ...] = attrs.field(converter=_strings)
    now: datetime = attrs.field(default=None, converter=_aware)


@functools.lru_cache(maxsize=1)
def load_example_questions() -> tuple[ExampleQuestion, ...]:
    """The questions of ``questions.json``, in file order."""
    document = json.loads(questions_path().read_text(encoding="utf-8"))
    return tuple(
        ExampleQuestion(
            question=item["question"],
            category=item["category"],
            event_ids=item["event_ids"],
            phrases=item["phrases"],
            now=item.get("now"),
        )
        for item in document["questions"]
    )

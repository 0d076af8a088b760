"""load_events: format detection, explicit formats, and the public records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tocsearch.errors import ImportFailed, InvalidArgument
from tocsearch.importers import (
    FORMATS,
    ImportProblem,
    load_chatgpt,
    load_claude_code,
    load_events,
    load_jsonl,
    load_locomo,
)

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.mark.parametrize(
    ("path", "loader"),
    [
        (FIXTURES / "events.jsonl", load_jsonl),
        (FIXTURES / "locomo_small.json", load_locomo),
        (FIXTURES / "claude_code", load_claude_code),
        (
            FIXTURES / "claude_code" / "-home-dev-auth-service" / "5b1c2d3e-0001.jsonl",
            load_claude_code,
        ),
        (FIXTURES / "chatgpt_conversations.json", load_chatgpt),
    ],
)
def test_detected_format_loads_like_the_explicit_loader(path: Path, loader: object) -> None:
    """Without format=, each fixture is recognised and loads exactly as its own loader does."""
    assert callable(loader)
    assert load_events(path).events == loader(path).events


def test_formats_lists_the_four_names() -> None:
    """FORMATS names every format load_events accepts."""
    assert FORMATS == ("jsonl", "locomo", "claude-code", "chatgpt")


def test_explicit_format_overrides_detection() -> None:
    """format='jsonl' reads a file as generic JSONL even if it looks like something else."""
    result = load_events(FIXTURES / "events.jsonl", format="jsonl")
    assert len(result.events) == 4


def test_unknown_format_name_is_refused() -> None:
    """A format outside FORMATS raises InvalidArgument naming the value."""
    with pytest.raises(InvalidArgument, match="got 'csv'"):
        load_events(FIXTURES / "events.jsonl", format="csv")


def test_single_line_chatgpt_conversation_is_detected(tmp_path: Path) -> None:
    """One conversation object on one line is still recognised as ChatGPT."""
    conversation = json.loads((FIXTURES / "chatgpt_conversations.json").read_text())[1]
    path = tmp_path / "one.json"
    path.write_text(json.dumps(conversation), encoding="utf-8")
    assert len(load_events(path).events) == 3


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("", "is empty"),
        ("\n\n", "is empty"),
        ('{"hello": 1}\n{"world": 2}\n', "match no known format"),
        ('[{"a": 1}]', "no ChatGPT 'mapping' or LoCoMo 'conversation' items"),
        ('[{"mapping": {}}, {"conversation": {}}]', "look like both chatgpt and locomo"),
        ("just words", "neither JSON lines nor one JSON document"),
    ],
)
def test_undetectable_content_is_a_clear_error(tmp_path: Path, content: str, reason: str) -> None:
    """Content that fits no format, or two, raises ImportFailed asking for format=."""
    path = tmp_path / "input.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ImportFailed, match=reason) as caught:
        load_events(path)
    assert str(path) in str(caught.value)


def test_detection_skips_lines_that_say_nothing(tmp_path: Path) -> None:
    """Leading objects with no telling keys do not stop detection from looking further."""
    path = tmp_path / "mixed.jsonl"
    event = {"timestamp": "2026-01-30T14:05:00Z", "session_id": "s", "role": "user", "text": "x"}
    path.write_text(
        json.dumps({"note": "header"}) + "\n" + json.dumps(event) + "\n", encoding="utf-8"
    )
    result = load_events(path, strict=False)
    assert len(result.events) == 1
    assert len(result.problems) == 1


def test_binary_input_is_refused_during_detection(tmp_path: Path) -> None:
    """A binary file is refused before detection reads it whole."""
    path = tmp_path / "blob.bin"
    path.write_bytes(b"\x00" * 64)
    with pytest.raises(ImportFailed, match="binary"):
        load_events(path)


def test_import_problem_str_names_path_location_and_reason() -> None:
    """str(ImportProblem) reads '<path> <location>: <reason>'."""
    problem = ImportProblem(
        path="events.jsonl", location="line 17", reason="'timestamp' is missing"
    )
    assert str(problem) == "events.jsonl line 17: 'timestamp' is missing"


def test_import_failed_is_a_value_error() -> None:
    """Callers that catch ValueError also catch failed imports."""
    assert issubclass(ImportFailed, ValueError)

"""A JSON number longer than Python reads into an int (4,300 digits by default) is named as
such wherever JSON is read, a tool call's arguments and every importer alike: a clear error
or one bad record, without the interpreter's advice to raise its limit."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests._support.examples import scaled

from tocsearch import AgentTools, InMemoryStorage, load_events
from tocsearch._json_text import read_json
from tocsearch.errors import ImportFailed

_LIMIT = sys.get_int_max_str_digits()
_SAID = f"a number of more than {_LIMIT} digits"
_numbers = st.integers(_LIMIT + 1, 3 * _LIMIT).map(lambda digits: "9" * digits)
_GOOD_LINE = json.dumps(
    {"timestamp": "2026-01-30T10:00:00Z", "role": "user", "text": "hi", "session_id": "s"}
)


@given(number=_numbers)
def test_read_json_names_a_number_too_long(number: str) -> None:
    """read_json raises ValueError saying the text holds a number too long."""
    with pytest.raises(ValueError, match=f"^JSON holds {_SAID}$"):
        read_json(f'{{"n": {number}}}')


@given(number=_numbers)
def test_a_tool_call_with_a_number_too_long_is_an_error_result(number: str) -> None:
    """The tool answers an InvalidArgument error result naming the long number."""
    answer = json.loads(
        AgentTools(InMemoryStorage()).handle_tool_call("browse", f'{{"limit": {number}}}')
    )
    assert answer["error"]["type"] == "InvalidArgument"
    assert answer["error"]["message"] == f"arguments are not valid JSON: JSON holds {_SAID}"


@settings(max_examples=scaled(10))
@given(number=_numbers, name=st.sampled_from(["jsonl", "claude-code"]))
def test_a_line_with_a_number_too_long_is_one_bad_record(number: str, name: str) -> None:
    """In a lenient import the line is one problem naming the long number; the good line before
    it loads; a strict import fails naming it."""
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "x.jsonl"
        if name == "jsonl":
            good, bad = _GOOD_LINE, _GOOD_LINE.replace('"hi"', f'"hi", "n": {number}')
        else:
            record = {
                "type": "user",
                "uuid": "u1",
                "sessionId": "s",
                "timestamp": "2026-01-30T10:00:00Z",
                "message": {"role": "user", "content": "hello"},
            }
            good = json.dumps(record)
            bad = good.replace('"u1"', f'"u2", "n": {number}')
        source.write_text(f"{good}\n{bad}\n")
        result = load_events(source, format=name, strict=False)
        assert len(result.events) == 1
        assert [problem.reason for problem in result.problems] == [
            f"not valid JSON (it holds {_SAID})"
        ]
        with pytest.raises(ImportFailed, match=f"it holds {_SAID}"):
            load_events(source, format=name, strict=True)

"""Importers under hostile records: a file that mixes good records with records of any shape
(wrong types, deep nesting, huge strings, lone surrogates, NUL characters) raises nothing but
ImportFailed, and a lenient import keeps every good record, in every format."""

from __future__ import annotations

import contextlib
import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.adversarial.test_bad_input import format_records

from tocsearch.errors import ImportFailed
from tocsearch.importers import event_to_json_line, load_events

_T0 = 1_769_763_600  # 2026-01-30T09:00:00Z


@attrs.frozen
class _Deep:
    """A record nested ``depth`` lists deep, written as text (json.dumps would recurse)."""

    depth: int

    def text(self) -> str:
        return '{"a": ' + "[" * self.depth + "1" + "]" * self.depth + "}"


# What hostile records add to the shapes of test_bad_input.format_records: strings no format
# expects (a lone surrogate, NUL, a megabyte), and nesting past the depth limit.
_HOSTILE_STRINGS = st.sampled_from(["\ud800", "a\x00b", "\udfff\ud83d", "x" * 1_000_000, "\x00"])
_hostile = st.one_of(
    format_records,
    _HOSTILE_STRINGS,
    st.dictionaries(st.sampled_from(["text", "role", "content", "session_id"]), _HOSTILE_STRINGS),
    st.integers(101, 5_000).map(_Deep),
)


def _marker(number: int) -> str:
    """A text no generated record holds, that says which good record an event came from."""
    return f"good record {number} zqxj"


def _jsonl(number: int) -> dict[str, Any]:
    return {
        "timestamp": _T0 + 60 * number,
        "session_id": "s",
        "role": "user",
        "text": _marker(number),
    }


def _claude_code(number: int) -> dict[str, Any]:
    return {
        "type": "user",
        "sessionId": "5b1c2d3e-0001",
        "uuid": f"good-uuid-{number}",
        "timestamp": f"2026-01-30T09:{number:02d}:00Z",
        "cwd": "/home/dev/project",
        "message": {"role": "user", "content": _marker(number)},
    }


def _chatgpt(number: int) -> dict[str, Any]:
    message = {
        "id": "m1",
        "author": {"role": "user"},
        "create_time": _T0 + 60 * number,
        "content": {"content_type": "text", "parts": [_marker(number)]},
    }
    return {
        "title": f"good {number}",
        "id": f"good-conversation-{number}",
        "create_time": _T0 + 60 * number,
        "current_node": "m1",
        "mapping": {"m1": {"id": "m1", "message": message, "parent": None, "children": []}},
    }


def _locomo(number: int) -> dict[str, Any]:
    return {
        "sample_id": f"good-{number}",
        "conversation": {
            "speaker_a": "Ada",
            "speaker_b": "Grace",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [{"speaker": "Ada", "dia_id": "D1:1", "text": _marker(number)}],
        },
    }


_GOOD: dict[str, Callable[[int], dict[str, Any]]] = {
    "jsonl": _jsonl,
    "claude-code": _claude_code,
    "chatgpt": _chatgpt,
    "locomo": _locomo,
}


def _write(path: Path, name: str, records: list[Any]) -> None:
    # Lines of JSON for the line formats, one JSON list for the document formats; a lone
    # surrogate is written escaped, as json.dumps writes it.
    texts = [
        record.text() if isinstance(record, _Deep) else json.dumps(record) for record in records
    ]
    if name in ("jsonl", "claude-code"):
        text = "".join(line + "\n" for line in texts)
    else:
        text = "[" + ", ".join(texts) + "]"
    path.write_text(text, encoding="utf-8")


@settings(deadline=None)
@given(
    name=st.sampled_from(sorted(_GOOD)),
    layout=st.lists(st.one_of(st.none(), _hostile), min_size=1, max_size=8),
)
def test_hostile_records_cost_no_good_record_and_raise_only_import_failed(
    name: str, layout: list[Any]
) -> None:
    """Good records (None in ``layout``) among hostile ones: a strict import returns or raises
    ImportFailed; a lenient one keeps every good record's text, every event it keeps can be
    written as UTF-8, and (JSONL, where every line must be an event) each line it leaves out
    is reported."""
    good = [number for number, item in enumerate(layout) if item is None]
    records = [_GOOD[name](number) if item is None else item for number, item in enumerate(layout)]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / ("history.jsonl" if name in ("jsonl", "claude-code") else "x.json")
        _write(path, name, records)
        with contextlib.suppress(ImportFailed):
            load_events(path, format=name, strict=True)
        result = load_events(path, format=name, strict=False)
    texts = [event.text for event in result.events]
    for number in good:
        assert any(_marker(number) in text for text in texts), (number, result.problems)
    for event in result.events:
        event_to_json_line(event).encode("utf-8")
    if name == "jsonl":
        # Every line is read, and is reported exactly when it would be on its own.
        assert result.records_read == len(layout)
        assert len(result.problems) == sum(_alone_is_a_problem(record) for record in records)


def _alone_is_a_problem(record: Any) -> bool:
    """Whether a lenient JSONL import of ``record`` as the one line of a file reports it."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "one.jsonl"
        _write(path, "jsonl", [record])
        return bool(load_events(path, format="jsonl", strict=False).problems)

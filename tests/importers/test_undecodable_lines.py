"""Lines that are not UTF-8: detection still tells the format, the bad line is reported with
its file, line and byte offsets, and no good line is lost."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests._support.examples import scaled

from tocsearch.errors import ImportFailed
from tocsearch.importers import load_events

_INVALID_BYTES = (b"\xff", b"\xfe", b"\xc3", b"\x80", b"\xe2\x82")


def _line(number: int, text: str = "fine") -> bytes:
    record = {
        "timestamp": f"2026-01-30T14:{number // 60:02d}:{number % 60:02d}Z",
        "session_id": "s",
        "role": "user",
        "text": f"{text} {number}",
    }
    return json.dumps(record).encode()


def _spoiled(number: int, bad: bytes) -> bytes:
    """A record line whose text holds ``bad``, a byte sequence that is not UTF-8."""
    head, tail = _line(number).split(b"fine", 1)
    return head + b"fi" + bad + b"ne" + tail


@pytest.mark.parametrize("strict", [True, False])
def test_a_file_of_one_undecodable_line_is_detected_as_jsonl_and_reported(
    tmp_path: Path, strict: bool
) -> None:
    """A one-line JSONL file whose line holds a bad byte is still JSONL: strict import names
    the file, line 1 and the byte's column and file offset; lenient import reports it."""
    path = tmp_path / "one.jsonl"
    data = _spoiled(0, b"\xff") + b"\n"
    path.write_bytes(data)
    offset = data.index(b"\xff")
    expected = (
        f"{path} line 1: not UTF-8 text (byte 0xff at column {offset + 1}, file offset {offset})"
    )
    if strict:
        with pytest.raises(ImportFailed) as raised:
            load_events(path)
        assert str(raised.value) == expected
    else:
        result = load_events(path, strict=False)
        assert result.events == ()
        assert [str(problem) for problem in result.problems] == [expected]


@settings(max_examples=scaled(40))
@given(
    count=st.integers(1, 30),
    data=st.data(),
    bad=st.sampled_from(_INVALID_BYTES),
    crlf=st.booleans(),
)
def test_one_undecodable_line_among_many_loses_no_good_line(
    count: int, data: st.DataObject, bad: bytes, crlf: bool
) -> None:
    """Wherever the bad line is, format detection finds JSONL, a lenient import keeps every
    good line and reports exactly the bad one with its line number and file offset, and a
    strict import refuses naming that line."""
    spoiled_at = data.draw(st.integers(0, count - 1), label="spoiled_at")
    ending = b"\r\n" if crlf else b"\n"
    lines = [_spoiled(i, bad) if i == spoiled_at else _line(i) for i in range(count)]
    content = ending.join(lines) + ending
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "events.jsonl"
        path.write_bytes(content)
        result = load_events(path, strict=False)
        with pytest.raises(ImportFailed) as raised:
            load_events(path)
    assert sorted(event.text for event in result.events) == sorted(
        f"fine {i}" for i in range(count) if i != spoiled_at
    )
    assert [problem.location for problem in result.problems] == [f"line {spoiled_at + 1}"]
    offset = content.index(bad)
    reason = result.problems[0].reason
    assert reason.startswith(f"not UTF-8 text (byte 0x{bad[:1].hex()} at column ")
    assert reason.endswith(f", file offset {offset})")
    assert str(raised.value) == f"{path} line {spoiled_at + 1}: {reason}"


def test_a_whole_document_that_is_not_utf8_names_line_and_offset(tmp_path: Path) -> None:
    """A LoCoMo-style document spread over lines with a bad byte on its third line is refused
    naming the file, the line and the byte offset."""
    path = tmp_path / "doc.json"
    content = b'[\n  {"conversation": {},\n   "x": "caf\xe9"}\n]\n'
    path.write_bytes(content)
    with pytest.raises(ImportFailed) as raised:
        load_events(path)
    offset = content.index(b"\xe9")
    assert str(raised.value) == f"{path}: not UTF-8 text (byte 0xe9 on line 3, offset {offset})"

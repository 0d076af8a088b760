"""The session-shape benchmark's two exports hold the same messages in one conversation over
two days and in conversations of 200 a day, and its run prints one row per shape."""

from __future__ import annotations

from pathlib import Path

import pytest
from benchmarks.bench_session_shape import main, write_exports

from tocsearch.importers import load_chatgpt


def test_the_two_shapes_hold_the_same_messages(tmp_path: Path) -> None:
    paths = write_exports(tmp_path, 450)
    one = load_chatgpt(paths["one"]).events
    spread = load_chatgpt(paths["spread"]).events
    assert len(one) == len(spread) == 450
    assert len({event.session_id for event in one}) == 1
    assert len({event.session_id for event in spread}) == 3
    assert (one[-1].timestamp - one[0].timestamp).days < 2
    assert len({event.timestamp.date() for event in spread}) == 3
    assert sorted(event.text for event in one) == sorted(event.text for event in spread)


def test_a_run_prints_a_row_per_shape(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--messages", "300", "--repeats", "1"]) == 0
    out = capsys.readouterr().out
    assert "| one conversation, two days | 300 |" in out
    assert "| one conversation, plain batches of 5,000 | 300 |" in out
    assert "| 200 a day | 300 |" in out
    assert "1.00x |" in out

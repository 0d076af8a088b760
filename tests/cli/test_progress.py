"""ingest and sync say where the store is and show progress on stderr, only on a terminal,
without touching what --json prints on stdout."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests._support.cli import Terminal, on_screen, run, run_on_terminal

from tocsearch.cli._common import ProgressLine

FIXTURES = Path(__file__).parent.parent / "importers" / "fixtures"


@given(lines=st.lists(st.text(alphabet="abc ,/0123456789", max_size=30), max_size=8))
def test_a_progress_line_shows_the_latest_line_and_ends_wiped(lines: list[str]) -> None:
    """After each call the terminal's line reads exactly the newest text (nothing left over
    from a longer one), and after end() it is blank."""
    screen = Terminal()
    progress = ProgressLine(screen)
    for line in lines:
        progress(line)
        assert on_screen(screen.getvalue())[-1].rstrip() == line.rstrip()
    progress.end()
    assert on_screen(screen.getvalue())[-1].strip() == ""
    assert "\n" not in screen.getvalue()


def test_a_progress_line_is_silent_off_a_terminal() -> None:
    """A stream that is not a terminal gets nothing."""
    stream = io.StringIO()
    progress = ProgressLine(stream)
    progress("read 1/2 files")
    progress.end()
    assert stream.getvalue() == ""


def test_ingest_names_the_store_and_shows_progress_per_transcript(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ingest of a Claude Code folder names the absolute store path, counts transcripts read
    and events built on a terminal, and prints clean JSON on stdout."""
    projects = tmp_path / "projects"
    shutil.copytree(FIXTURES / "claude_code", projects)
    monkeypatch.chdir(tmp_path)
    status, out, err = run_on_terminal(
        "ingest", str(projects), "--store", "relative-store", "--json"
    )
    assert status == 0, err
    report = json.loads(out)
    assert report["events_added"] > 0
    assert f"tocsearch: store {tmp_path / 'relative-store'}\n" in err
    assert "read 1/2 files" in err
    assert "read 2/2 files" in err
    assert f"ingested {report['events_added']:,}/{report['events_added']:,} events" in err
    assert on_screen(err)[-1].strip() == ""


def test_ingest_counts_inputs_when_given_several(tmp_path: Path) -> None:
    """With several inputs each progress line says which one of how many is being read."""
    first = FIXTURES / "events.jsonl"
    second = FIXTURES / "chatgpt_conversations.json"
    status, out, err = run_on_terminal(
        "ingest", str(first), str(second), "--store", str(tmp_path / "s")
    )
    assert status == 0, err
    assert f"{first} (1/2): reading" in err
    assert f"{second} (2/2): reading" in err
    assert "events added" in out


def test_ingest_off_a_terminal_names_the_store_only(tmp_path: Path) -> None:
    """Piped stderr gets the store's path and no progress."""
    store = tmp_path / "s"
    status, _, err = run("ingest", str(FIXTURES / "events.jsonl"), "--store", str(store))
    assert status == 0, err
    assert err == f"tocsearch: store {store}\n"


def test_sync_shows_each_file_read_and_wipes_the_line(tmp_path: Path) -> None:
    """sync on a terminal counts every transcript read and the events stored, then wipes the
    progress line; stdout stays one JSON document."""
    projects = tmp_path / "projects"
    shutil.copytree(FIXTURES / "claude_code", projects / "app")
    store = tmp_path / "store"
    status, out, err = run_on_terminal("sync", str(projects), "--store", str(store), "--json")
    assert status == 0, err
    report = json.loads(out)
    assert err.startswith(f"tocsearch: store {store}\n")
    assert "read 1/2 files" in err
    assert "read 2/2 files" in err
    added = report["events_added"]
    assert f"stored {added:,}/{added:,} events" in err
    assert on_screen(err)[-1].strip() == ""
    status, out, err = run("sync", str(projects), "--store", str(store), "--json")
    assert status == 0, err
    assert err == f"tocsearch: store {store}\n"

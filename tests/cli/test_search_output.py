"""What ``tocsearch search`` prints for each result: score, local start, title, id, and for a
segment the conversation it was said in."""

from __future__ import annotations

import json
from datetime import datetime
from itertools import pairwise
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from tests._support.cli import example_store, run


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of the bundled example history."""
    return example_store(tmp_path_factory.mktemp("store"))


def _search(store: Path, *extra: str) -> str:
    status, out, err = run("search", "-q", "refresh token", "--store", str(store), *extra)
    assert status == 0, err
    return out


@pytest.mark.parametrize("zone", ["America/Los_Angeles", "Asia/Kolkata", "UTC"])
def test_each_segment_shows_local_start_project_and_session(store: Path, zone: str) -> None:
    """Each result's first line holds its start on the --tz clock, its second line its id,
    project and session, as the JSON output has them."""
    results = json.loads(_search(store, "--limit", "5", "--json"))["results"]
    assert len(results) == 5
    lines = _search(store, "--limit", "5", "--tz", zone).splitlines()
    for result in results:
        start = datetime.fromisoformat(result["start_time"]).astimezone(ZoneInfo(zone))
        assert result["project"] == "auth-service"
        assert result["session_id"]
        where = f"{result['node_id']}  project auth-service  session {result['session_id']}"
        at = next(i for i, line in enumerate(lines) if line.strip() == where)
        heading = lines[at - 1]
        assert heading.split("  ")[1].startswith(f"{start:%Y-%m-%d %H:%M} ")


def test_a_late_evening_shows_the_local_day(store: Path) -> None:
    """A segment that starts at 10:15 UTC is shown on the previous day at 23:15 in UTC-11."""
    out = _search(store, "--limit", "50", "--tz=-11:00")
    assert "2026-04-01 23:15 -1100  Refresh tokens and access token TTL" in out
    assert "2026-04-02 10:15" not in out


def test_equal_scores_list_newest_first(store: Path) -> None:
    """Results of equal relevance run from the newest start to the oldest."""
    results = json.loads(_search(store, "--limit", "50", "--json"))["results"]
    for better, worse in pairwise(results):
        assert better["relevance_score"] >= worse["relevance_score"]
        if better["relevance_score"] == worse["relevance_score"]:
            assert better["start_time"] >= worse["start_time"]
    top = [result for result in results if result["relevance_score"] == 1.0]
    assert len(top) >= 2


def test_periods_show_no_conversation(store: Path) -> None:
    """A day spans conversations: its result names neither a project nor a session."""
    out = _search(store, "--level", "day", "--limit", "3", "--tz", "UTC")
    assert "toc:day:" in out
    assert "project " not in out
    assert "session " not in out
    results = json.loads(_search(store, "--level", "day", "--limit", "3", "--json"))["results"]
    assert all((result["project"], result["session_id"]) == ("", "") for result in results)


FIXTURES = Path(__file__).parent.parent / "importers" / "fixtures"


def test_a_claude_code_segment_says_how_to_resume_it(tmp_path: Path) -> None:
    """A segment of a Claude Code session shows the command that resumes it, from its working
    directory; a segment from another source shows none."""
    store = tmp_path / "store"
    status, _, err = run("ingest", str(FIXTURES / "claude_code"), "--store", str(store))
    assert status == 0, err
    status, _, err = run("ingest", str(FIXTURES / "events.jsonl"), "--store", str(store))
    assert status == 0, err
    results = json.loads(_search(store, "--limit", "50", "--json"))["results"]
    sessions = {result["session_id"] for result in results}
    assert "5b1c2d3e-0001" in sessions
    assert "auth-1" in sessions
    lines = _search(store, "--limit", "50", "--tz", "UTC").splitlines()
    for result in results:
        where = f"{result['node_id']}  project {result['project']}  session {result['session_id']}"
        at = next(i for i, line in enumerate(lines) if line.strip() == where)
        if result["session_id"].startswith("5b1c2d3e"):
            assert result["project"] == "/home/dev/auth-service"
            assert lines[at + 1].strip() == (
                f"resume: cd /home/dev/auth-service && claude -r {result['session_id']}"
            )
        else:
            assert not lines[at + 1].strip().startswith("resume:")

"""tocsearch index, find and context on a JSON-directory store."""

from __future__ import annotations

import io
import json
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tocsearch.cli import main
from tocsearch.examples import example_path
from tocsearch.index._sidecar_file import INDEX_FILE_NAME


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("store")
    status, _, err = run("ingest", str(example_path()), "--store", str(path))
    assert status == 0, err
    return path


def test_index_builds_then_reports_up_to_date_and_rebuilds(store: Path) -> None:
    """The first run builds the sidecar, the second finds nothing to do, --rebuild starts over."""
    status, out, err = run("index", "--store", str(store), "--embedder", "hashing", "--json")
    assert status == 0, err
    first = json.loads(out)
    assert first["rebuilt"]
    assert first["events"] == first["vectors"] > 0
    assert (store / INDEX_FILE_NAME).is_file()
    status, out, _ = run("index", "--store", str(store), "--embedder", "hashing", "--check")
    assert status == 0
    assert "up to date" in out
    assert "agrees with the store" in out
    status, out, _ = run("index", "--store", str(store), "--rebuild", "--embedder", "none")
    assert status == 0
    assert out.startswith("search index rebuilt")


@pytest.mark.parametrize("mode", ["hybrid", "fts", "vec", "toc"])
def test_find_answers_in_every_mode(store: Path, mode: str) -> None:
    """find returns hits as JSON, with the mode it used."""
    status, out, err = run(
        "find", "refresh token rotation", "--store", str(store), "--mode", mode,
        "--embedder", "hashing", "--limit", "3", "--json",
    )  # fmt: skip
    assert status == 0, err
    outcome = json.loads(out)
    assert outcome["mode_used"] == mode
    assert 1 <= len(outcome["hits"]) <= 3


def test_context_prints_a_relevant_context_block(store: Path) -> None:
    """context prints the block for an opening message, within its budget."""
    status, out, err = run(
        "context", "the refresh token race again", "--store", str(store), "--budget", "400",
        "--embedder", "none",
    )  # fmt: skip
    assert status == 0, err
    assert out.startswith("<relevant-context>")
    assert len(out) <= 400 * 3 + 1


def test_bad_options_are_usage_errors(store: Path) -> None:
    """An unknown embedder is one line on stderr; a score outside 0-1 is a usage error."""
    status, _, err = run("find", "x", "--store", str(store), "--embedder", "word2vec")
    assert status == 1
    assert "embedder must be one of" in err
    status, _, err = run("context", "x", "--store", str(store), "--min-score", "1.5")
    assert status == 2
    assert "expected a number from 0 to 1" in err


def test_navigate_teleports_when_the_store_has_an_index(store: Path) -> None:
    """After tocsearch index, navigate's path starts with a teleport through the index."""
    assert run("index", "--store", str(store), "--embedder", "none")[0] == 0
    status, out, err = run(
        "navigate", "refresh token race", "--store", str(store), "--json", "--verbose"
    )
    assert status == 0, err
    steps = json.loads(out)["steps"]
    assert steps[0]["phase"] == "teleport"


def test_find_shows_local_start_and_conversation(store: Path) -> None:
    """find's text shows each hit's start on the --tz clock, its segment with the project and
    session it holds, and how to resume the Claude Code session."""
    common = ("find", "refresh token rotation", "--store", str(store), "--mode", "fts")
    status, out, err = run(*common, "--limit", "3", "--json")
    assert status == 0, err
    hits = json.loads(out)["hits"]
    assert hits
    status, text, err = run(*common, "--limit", "3", "--tz", "America/Los_Angeles")
    assert status == 0, err
    lines = text.splitlines()
    zone = ZoneInfo("America/Los_Angeles")
    for hit in hits:
        at = next(i for i, line in enumerate(lines) if line.strip().startswith(hit["segment_id"]))
        start = datetime.fromisoformat(hit["start_time"]).astimezone(zone)
        assert lines[at - 1].split("  ")[1].startswith(f"{start:%Y-%m-%d %H:%M} P")
        segment, project, session = lines[at].strip().split("  ")
        assert segment == hit["segment_id"]
        assert project.startswith("project ")
        assert session.startswith("session ")
        assert lines[at + 1].strip() == f"resume: claude -r {session.removeprefix('session ')}"

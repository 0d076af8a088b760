"""``tocsearch forget`` and ``tocsearch redact``: what they remove, what they print, and the
clear errors they give on bad input without changing the store."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tests._support.cli import example_store, run
from tests._support.records import files_text, records_text

from tocsearch.examples import load_example_events
from tocsearch.privacy import load_ignore_list
from tocsearch.storage import open_store as open_existing_store

VICTIM = "2026-02-17-incident-2291"
VICTIM_EVENTS = sum(event.session_id == VICTIM for event in load_example_events())


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of the bundled example history, built once and copied by :func:`store`."""
    return example_store(tmp_path_factory.mktemp("pristine") / "store")


@pytest.fixture
def store(pristine: Path, tmp_path: Path) -> Path:
    """A fresh copy of the example store for one test to change."""
    return Path(shutil.copytree(pristine, tmp_path / "store"))


def _stats(store: Path) -> dict[str, object]:
    status, out, err = run("stats", "--store", str(store), "--json")
    assert status == 0, err
    stats: dict[str, object] = json.loads(out)
    return stats


def _search(store: Path, query: str) -> list[str]:
    status, out, err = run("search", "-q", query, "--store", str(store), "--json")
    assert status == 0, err
    return [result["node_id"] for result in json.loads(out)["results"]]


def test_forget_a_session_removes_it_and_says_what_went(store: Path) -> None:
    """forget --session removes the session's events, names it, and search no longer finds
    the words only it said; the ignore list now refuses it."""
    assert _search(store, "multi-az")
    status, out, err = run("forget", "--session", VICTIM, "--store", str(store))
    assert status == 0, err
    assert f"removed {VICTIM_EVENTS} events of 1 session" in out
    assert f"session {VICTIM}" in out
    assert "ignore list" in out
    assert _search(store, "multi-az") == []
    assert VICTIM in load_ignore_list(store).sessions
    with open_existing_store(store, readonly=True) as reader:
        assert reader.get_session_events(VICTIM) == []
        assert "multi-az" not in records_text(reader).lower()
    assert b"multi-az" not in files_text(store).lower()
    status, out, err = run("check", "--store", str(store))
    assert status == 0, err + out


def test_forget_json_reports_the_counts(store: Path) -> None:
    """--json prints the ForgetReport's fields."""
    status, out, err = run("forget", "--session", VICTIM, "--store", str(store), "--json")
    assert status == 0, err
    report = json.loads(out)
    assert report["events"] == VICTIM_EVENTS
    assert report["sessions"] == [VICTIM]
    assert report["dry_run"] is False
    assert report["ignored"] is True
    assert report["days_rebuilt"] >= 1


def test_forget_a_dry_run_changes_nothing(store: Path) -> None:
    """--dry-run says what would go and leaves the store and its ignore list as they were."""
    before = _stats(store)
    status, out, err = run("forget", "--session", VICTIM, "--dry-run", "--store", str(store))
    assert status == 0, err
    assert out.startswith(f"would remove {VICTIM_EVENTS} events")
    assert _stats(store) == before
    assert not load_ignore_list(store)


def test_forget_a_day_range_in_a_zone(store: Path) -> None:
    """--since/--until dates cover whole days in --tz, --until inclusive."""
    day = "2026-02-17"
    expected = sum(e.timestamp.date().isoformat() == day for e in load_example_events())
    assert expected
    status, out, err = run(
        "forget", "--since", day, "--until", day, "--tz", "UTC", "--store", str(store), "--json"
    )
    assert status == 0, err
    assert json.loads(out)["events"] == expected
    assert _stats(store)["events"] == len(load_example_events()) - expected


def test_forget_allow_again_keeps_the_ignore_list_empty(store: Path) -> None:
    """--allow-again removes the session without refusing it later."""
    status, out, err = run("forget", "--session", VICTIM, "--allow-again", "--store", str(store))
    assert status == 0, err
    assert "may bring them back" in out
    assert not load_ignore_list(store)


@pytest.mark.parametrize(
    ("argv", "status", "message"),
    [
        (["--session", "nope"], 1, "no stored event matches --session nope; nothing removed"),
        (["--project", "nope"], 1, "no stored event matches --project nope; nothing removed"),
        ([], 1, "say what to forget: --session, --project"),
        (["--since", "2026-03-05", "--until", "2026-03-01"], 1, "--since (2026-03-05"),
        (["--event", "not-an-event-id"], 1, "not an event id"),
        (["--since", "yesterday-ish"], 2, "--since"),
    ],
)
def test_forget_bad_input_is_a_clear_error_that_changes_nothing(
    store: Path, argv: list[str], status: int, message: str
) -> None:
    """An unknown session or project, no criterion, a backwards range, a malformed id or
    time exits non-zero with a message naming the option, and the store and its ignore list
    are unchanged."""
    before = _stats(store)
    got, out, err = run("forget", *argv, "--store", str(store))
    assert got == status
    assert out == ""
    assert message in err
    assert "Traceback" not in err
    assert _stats(store) == before
    assert not load_ignore_list(store)


def test_forget_and_redact_refuse_a_missing_store(tmp_path: Path) -> None:
    """Neither command creates a store where there is none."""
    missing = tmp_path / "missing"
    for argv in (["forget", "--session", VICTIM], ["redact", "secret"]):
        status, _, err = run(*argv, "--store", str(missing))
        assert status == 1
        assert f"no store at {missing}" in err
    assert not missing.exists()


def test_redact_replaces_every_match(store: Path) -> None:
    """redact -i replaces the pattern in every case; search finds it nowhere afterwards and
    finds the marker that took its place."""
    assert _search(store, "leeway")
    status, out, err = run("redact", "-i", "LEEWAY", "--store", str(store), "--json")
    assert status == 0, err
    report = json.loads(out)
    assert report["events"] > 0
    assert report["matches"] >= report["events"]
    assert _search(store, "leeway") == []
    assert _search(store, "redacted")
    assert _stats(store)["events"] == len(load_example_events())


def test_redact_a_dry_run_and_no_match(store: Path) -> None:
    """A dry run counts and changes nothing; a pattern nothing matches says so and exits 0."""
    status, out, err = run("redact", "leeway", "--dry-run", "--store", str(store))
    assert status == 0, err
    assert out.startswith("would replace")
    assert _search(store, "leeway")
    status, out, err = run("redact", "zz-no-such-text-zz", "--store", str(store))
    assert status == 0, err
    assert "no stored event matches" in out


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("(", "PATTERN '(' is not a regular expression"),
        ("x*", "matches the empty string"),
        ("[z-a]", "is not a regular expression"),
        ("a" * 1_001, "at most 1000 characters"),
    ],
)
def test_redact_bad_patterns_are_clear_errors(store: Path, pattern: str, message: str) -> None:
    """An invalid, empty-matching or oversized pattern exits 1 with a message and changes
    nothing."""
    before = _stats(store)
    status, out, err = run("redact", pattern, "--store", str(store))
    assert status == 1
    assert out == ""
    assert message in err
    assert _search(store, "leeway")
    assert _stats(store) == before

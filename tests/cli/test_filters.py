"""--since, --until and --limit on navigate and search."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest
from tests._support.cli import example_store, run

from tocsearch.examples import EXAMPLE_END
from tocsearch.navigate import NavigationResult

NOW = EXAMPLE_END.isoformat()


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of the bundled example history."""
    return example_store(tmp_path_factory.mktemp("store"))


def _navigate(store: Path, *extra: str) -> dict[str, object]:
    status, out, err = run(
        "navigate", "JWT refresh tokens", "--store", str(store), "--now", NOW, "--tz", "UTC",
        "--json", *extra,
    )  # fmt: skip
    assert status == 0, err
    answer: dict[str, object] = json.loads(out)
    return answer


def test_navigate_limit_caps_the_evidence(store: Path) -> None:
    """--limit 2 prints at most two evidence items."""
    evidence = NavigationResult.from_dict(_navigate(store, "--limit", "2")).evidence
    assert 1 <= len(evidence) <= 2


def test_navigate_window_keeps_evidence_inside_it(store: Path) -> None:
    """--since/--until given as dates keep only evidence from those days, --until inclusive."""
    everything = NavigationResult.from_dict(_navigate(store)).evidence
    day = everything[0].start_time.date().isoformat()
    inside = NavigationResult.from_dict(_navigate(store, "--since", day, "--until", day)).evidence
    assert inside
    for item in inside:
        assert item.start_time.date().isoformat() <= day <= item.end_time.date().isoformat()


def test_search_window_and_limit(store: Path) -> None:
    """search --since/--until keep the segments of those days; --limit caps the results."""
    status, out, err = run(
        "search", "-q", "refresh token", "--store", str(store), "--json", "--limit", "50"
    )
    assert status == 0, err
    days = sorted({result["node_id"].split(":")[2] for result in json.loads(out)["results"]})
    assert len(days) >= 2
    since, until = days[1], days[-1]
    status, out, err = run(
        "search", "-q", "refresh token", "--store", str(store), "--json", "--limit", "50",
        "--since", since, "--until", until, "--tz", "UTC",
    )  # fmt: skip
    assert status == 0, err
    kept = {result["node_id"].split(":")[2] for result in json.loads(out)["results"]}
    assert kept == {day for day in days if since <= day <= until}
    status, out, _ = run(
        "search", "-q", "refresh token", "--store", str(store), "--json", "--limit", "1"
    )
    assert status == 0
    assert len(json.loads(out)["results"]) == 1


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["navigate", "jwt", "--since", "last tuesday"], "not an ISO 8601 timestamp"),
        (["navigate", "jwt", "--since", "2026-03-02", "--until", "2026-03-01"], "must be after"),
        (["search", "-q", "jwt", "--until", "2026-02-30"], "--until"),
        (["navigate", "jwt", "--limit", "0"], "expected at least 1"),
    ],
)
def test_bad_windows_are_refused_in_cli_words(store: Path, argv: list[str], fragment: str) -> None:
    """A bad --since/--until/--limit is one line on stderr, never a traceback."""
    status, _, err = run(*argv, "--store", str(store))
    assert status in (1, 2)
    assert fragment in err
    assert "Traceback" not in err


def test_dates_are_days_on_the_askers_clock() -> None:
    """A date means its first midnight for --since and the next midnight for --until, in the
    zone given."""
    from tocsearch._clock import parse_zone
    from tocsearch.cli._common import day_bound, window_bound

    day = window_bound("2026-03-05")
    la = parse_zone("-08:00")
    assert day_bound(day, la, end_of_day=False) == datetime.fromisoformat(
        "2026-03-05T08:00:00+00:00"
    )
    assert day_bound(day, la, end_of_day=True) == datetime.fromisoformat(
        "2026-03-06T08:00:00+00:00"
    )
    moment = window_bound("2026-03-05T10:00:00Z")
    assert day_bound(moment, la, end_of_day=True) == moment

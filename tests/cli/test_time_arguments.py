"""Moments and dates on the command line, anywhere in the calendar and on any clock: an
answer, or an error message, never a traceback."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from tests._support.cli import example_store, run

from tocsearch.examples import EXAMPLE_END

NOW = EXAMPLE_END.isoformat()
OFFSETS = st.integers(min_value=-12 * 60, max_value=14 * 60).map(
    lambda minutes: timezone(timedelta(minutes=minutes))
)
TIME_VALUES = st.one_of(
    st.dates().map(date.isoformat),
    st.datetimes(timezones=OFFSETS).map(datetime.isoformat),
)
ZONES = st.sampled_from(["UTC", "+05:00", "-12:00", "+14:00", "America/Los_Angeles"])


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of the bundled example history."""
    return example_store(tmp_path_factory.mktemp("store"))


def _in_event_years(value: str) -> bool:
    """Whether ``value`` lies well inside the years events can carry, on any clock."""
    return 1971 <= int(value[:4]) <= 2285


@given(
    command=st.sampled_from(["search", "navigate", "forget"]),
    option=st.sampled_from(["--since", "--until", "--now"]),
    value=TIME_VALUES,
    zone=ZONES,
)
@example(command="search", option="--until", value="9999-12-31", zone="UTC")
@example(command="forget", option="--until", value="9999-12-31", zone="UTC")
@example(command="search", option="--since", value="0001-01-01", zone="+05:00")
@example(command="navigate", option="--now", value="0001-01-01T00:00:00+05:00", zone="UTC")
@example(command="navigate", option="--now", value="9999-12-31T23:00:00+00:00", zone="+05:00")
def test_any_moment_or_date_gets_an_answer_or_a_message(
    store: Path, command: str, option: str, value: str, zone: str
) -> None:
    """search, navigate and a dry-run forget given any date or moment as --since, --until or
    --now, read on any clock, exit with a message instead of raising; search and navigate
    answer (status 0) for one in the years events carry."""
    if command != "navigate" and option == "--now":
        option = "--since"  # only navigate reads time hints
    args = ["--store", str(store), "--tz", zone, option, value]
    if command == "forget":
        args.append("--dry-run")
    else:
        args = ["JWT refresh", *args]
        if command == "navigate" and option != "--now":
            args += ["--now", NOW]
    status, _, err = run(command, *args)
    assert "Traceback" not in err
    if status != 0:
        assert "error: " in err, err
    # --now is a moment: a bare date is a usage error there.
    readable = option != "--now" or "T" in value
    if command != "forget" and readable and _in_event_years(value):
        assert status == 0, err

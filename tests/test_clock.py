"""Whose clock: zone names and offsets, and the system's zone."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tocsearch._clock import local_time, local_zone, parse_zone, zone_name
from tocsearch.errors import InvalidArgument


@pytest.mark.parametrize(
    ("text", "offset"),
    [("UTC", 0), ("Z", 0), ("+05:30", 330), ("-08:00", -480), ("UTC-8", -480), ("+0930", 570)],
)
def test_offsets_and_utc_are_fixed_zones(text: str, offset: int) -> None:
    """UTC and written offsets give fixed zones of that many minutes."""
    assert parse_zone(text).utcoffset(None) == timedelta(minutes=offset)


def test_iana_names_know_daylight_saving() -> None:
    """An IANA name gives summer and winter offsets."""
    berlin = parse_zone("Europe/Berlin")
    assert datetime(2026, 1, 1, tzinfo=berlin).utcoffset() == timedelta(hours=1)
    assert datetime(2026, 7, 1, tzinfo=berlin).utcoffset() == timedelta(hours=2)


@pytest.mark.parametrize("text", ["Mars/Olympus", "+15:00", "", "../../etc/passwd"])
def test_unknown_zones_are_refused_by_name(text: str) -> None:
    """A name no zone has is an InvalidArgument that says how to write one."""
    with pytest.raises(InvalidArgument, match="time zone"):
        parse_zone(text)


@given(st.text(max_size=40))
def test_any_text_is_a_zone_or_a_clear_error(text: str) -> None:
    """Any text gives a zone that can tell an offset, or an InvalidArgument; nothing else."""
    try:
        found = parse_zone(text)
    except InvalidArgument as error:
        message = str(error)
        found = None
    if found is None:
        assert "time zone" in message
    else:
        assert datetime(2026, 1, 1, tzinfo=found).utcoffset() is not None


# Arabic-Indic five: a regex's \\d matches it and int() reads it as 5.
_OFFSET_DIGITS = "0123456789\u0665"


@given(
    prefix=st.sampled_from(["", "UTC", "GMT", "utc"]),
    sign=st.sampled_from("+-"),
    hours=st.text(alphabet=_OFFSET_DIGITS, min_size=1, max_size=2),
    minutes=st.one_of(st.just(""), st.text(alphabet=_OFFSET_DIGITS, min_size=2, max_size=2)),
)
@example(prefix="", sign="+", hours="5", minutes="99")
@example(prefix="", sign="+", hours="00", minutes="60")
@example(prefix="UTC", sign="+", hours="\u0665", minutes="")
def test_a_written_offset_is_read_as_written_or_refused(
    prefix: str, sign: str, hours: str, minutes: str
) -> None:
    """``+H:MM`` is that many hours and minutes east (``-``: west) when written in the digits
    0-9 with minutes under 60 and at most 14 hours; anything else is refused, never read as
    another offset (+5:99 is not +06:39)."""
    text = f"{prefix}{sign}{hours}" + (f":{minutes}" if minutes else "")
    readable = text.isascii() and int(minutes or "0") < 60
    if readable:
        offset = timedelta(hours=int(hours), minutes=int(minutes or "0"))
        readable = offset <= timedelta(hours=14)
    if not readable:
        with pytest.raises(InvalidArgument, match="time zone"):
            parse_zone(text)
        return
    assert parse_zone(text).utcoffset(None) == (offset if sign == "+" else -offset)


def test_the_system_zone_follows_tz(monkeypatch: pytest.MonkeyPatch) -> None:
    """$TZ names the system's zone when set to a known name; otherwise some zone is found."""
    monkeypatch.setenv("TZ", "Asia/Kolkata")
    assert local_zone() == ZoneInfo("Asia/Kolkata")
    monkeypatch.setenv("TZ", "Nowhere/Atall")
    assert datetime.now(local_zone()).utcoffset() is not None
    assert isinstance(datetime.now(timezone.utc).astimezone(local_zone()), datetime)


@given(
    moment=st.datetimes(
        min_value=datetime(1971, 1, 1),
        max_value=datetime(2099, 12, 31),
        timezones=st.just(timezone.utc),
    ),
    minutes=st.integers(-14 * 60, 14 * 60),
)
def test_local_time_reads_back_as_the_same_minute(moment: datetime, minutes: int) -> None:
    """On a fixed offset, the local time shown parses back to the moment, to the minute (UTC
    itself is named)."""
    sign = "-" if minutes < 0 else "+"
    zone = parse_zone(f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}")
    shown = local_time(moment, zone)
    if minutes == 0:
        assert shown.endswith(" UTC")
        shown = shown.removesuffix("UTC") + "+0000"
    read = datetime.strptime(shown, "%Y-%m-%d %H:%M %z")
    assert read == moment.replace(second=0, microsecond=0)
    assert read.utcoffset() == timedelta(minutes=minutes)


def test_local_time_names_a_named_zone() -> None:
    """An IANA zone is shown by its short name, with summer time where it applies."""
    new_york = ZoneInfo("America/New_York")
    assert local_time(datetime(2026, 7, 1, 3, 30, tzinfo=timezone.utc), new_york) == (
        "2026-06-30 23:30 EDT"
    )
    assert local_time(datetime(2026, 1, 1, 3, 30, tzinfo=timezone.utc), new_york) == (
        "2025-12-31 22:30 EST"
    )


@given(
    name=st.sampled_from(["UTC", "Europe/Berlin", "America/St_Johns", "+05:45", "-03:30"]),
    at=st.datetimes(
        min_value=datetime(1990, 1, 1),
        max_value=datetime(2060, 12, 31),
        timezones=st.just(timezone.utc),
    ),
)
def test_zone_name_reads_back_as_the_same_clock(name: str, at: datetime) -> None:
    """A zone's name, read back by parse_zone, gives the same offset at that moment."""
    zone = parse_zone(name)
    again = parse_zone(zone_name(zone, at))
    assert at.astimezone(again).utcoffset() == at.astimezone(zone).utcoffset()


def test_zone_name_of_a_system_offset_is_its_offset() -> None:
    """A fixed zone with a name of its own (as the system reports "CET") is named by offset."""
    cet = timezone(timedelta(hours=1), "CET")
    assert zone_name(cet, datetime(2026, 1, 1, tzinfo=timezone.utc)) == "+01:00"

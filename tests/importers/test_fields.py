"""Typed fields read out of parsed JSON: timestamps and epoch seconds."""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tocsearch.importers._collect import BadRecord
from tocsearch.importers._fields import epoch_seconds, parse_iso_timestamp

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
# Arabic-Indic digits: a regex's \d matches them and int() reads them, fromisoformat does not.
_DIGITS = "0123456789\u0660\u0665"


def _digits(count: int) -> st.SearchStrategy[str]:
    return st.text(alphabet=_DIGITS, min_size=count, max_size=count)


_ZONES = st.one_of(
    st.sampled_from(["Z", "z"]),
    st.builds("{}{}:{}".format, st.sampled_from("+-"), _digits(2), _digits(2)),
)


def _reference(stamp: str) -> datetime | None:
    """What ``datetime.fromisoformat`` makes of the stamp, in UTC, or None when it cannot."""
    try:
        return datetime.fromisoformat(stamp.replace("z", "Z")).astimezone(timezone.utc)
    except (ValueError, OverflowError):
        return None


@given(
    stamp=st.builds(
        "{}-{}-{}T{}:{}:{}{}{}".format,
        _digits(4),
        _digits(2),
        _digits(2),
        _digits(2),
        _digits(2),
        _digits(2),
        st.one_of(st.just(""), st.text(alphabet=_DIGITS, min_size=1, max_size=9).map(".{}".format)),
        _ZONES,
    )
)
@example(stamp="2026-01-30T10:00:00+\u0660\u0665:00")
@example(stamp="2026-01-30T10:00:00.\u0661\u0662Z")
@example(stamp="0001-01-01T00:00:00+05:00")
def test_a_timestamp_is_read_as_iso_8601_reads_it_or_refused(stamp: str) -> None:
    """A timestamp is the instant ISO 8601 (as datetime.fromisoformat reads it) gives, in UTC,
    or a BadRecord: digits of other scripts are refused in every part, offset and fraction
    included, as is an instant no UTC datetime holds."""
    expected = _reference(stamp)
    if expected is None:
        with pytest.raises(BadRecord, match="timestamp"):
            parse_iso_timestamp(stamp, "timestamp")
        return
    assert parse_iso_timestamp(stamp, "timestamp") == expected


@given(
    value=st.one_of(
        st.integers(min_value=-(10**500), max_value=10**500),
        st.floats(),
        st.integers(min_value=0, max_value=10**11),
    )
)
@example(value=10**400)
@example(value=-(10**400))
def test_epoch_seconds_are_a_time_or_refused_by_value(value: float) -> None:
    """Any number is a UTC time (from 0 up to the year 5000) or a BadRecord naming the field;
    an int too large for a float is no OverflowError."""
    if not ((isinstance(value, int) or math.isfinite(value)) and 0 <= value < 10**11):
        with pytest.raises(BadRecord, match="'create_time'"):
            epoch_seconds(value, "create_time")
        return
    when = epoch_seconds(value, "create_time")
    assert abs(when - (_EPOCH + timedelta(seconds=value))) <= timedelta(microseconds=1)

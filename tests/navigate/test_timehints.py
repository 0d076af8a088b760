"""Time hints: phrases found, resolved to UTC ranges as of a fixed now, and cut from the topic."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tocsearch.errors import InvalidArgument
from tocsearch.navigate import Navigator
from tocsearch.navigate.timehints import TimeHints, TimeRange, parse_time_hints
from tocsearch.storage import InMemoryStorage

# Wednesday 2026-02-04, 15:00 UTC: ISO week 2026-W06.
NOW = datetime(2026, 2, 4, 15, 0, tzinfo=timezone.utc)


def day(year: int, month: int, dd: int) -> datetime:
    return datetime(year, month, dd, tzinfo=timezone.utc)


def span(query: str, now: datetime = NOW) -> tuple[date, date]:
    """The single range of a query as (first day, last day) inclusive."""
    hints = parse_time_hints(query, now)
    assert len(hints.ranges) == 1, hints
    found = hints.ranges[0]
    return found.start.date(), (found.end - timedelta(microseconds=1)).date()


@pytest.mark.parametrize(
    ("query", "first", "last"),
    [
        ("today", date(2026, 2, 4), date(2026, 2, 4)),
        ("yesterday", date(2026, 2, 3), date(2026, 2, 3)),
        ("this week", date(2026, 2, 2), date(2026, 2, 4)),
        ("last week", date(2026, 1, 26), date(2026, 2, 1)),
        ("this month", date(2026, 2, 1), date(2026, 2, 4)),
        ("last month", date(2026, 1, 1), date(2026, 1, 31)),
        ("this year", date(2026, 1, 1), date(2026, 2, 4)),
        ("last year", date(2025, 1, 1), date(2025, 12, 31)),
        ("in January", date(2026, 1, 1), date(2026, 1, 31)),
        ("in Jan", date(2026, 1, 1), date(2026, 1, 31)),
        ("in March", date(2025, 3, 1), date(2025, 3, 31)),
        ("January 2025", date(2025, 1, 1), date(2025, 1, 31)),
        ("Jan 30", date(2026, 1, 30), date(2026, 1, 30)),
        ("January 30th", date(2026, 1, 30), date(2026, 1, 30)),
        ("30 January", date(2026, 1, 30), date(2026, 1, 30)),
        ("the 30th of January, 2025", date(2025, 1, 30), date(2025, 1, 30)),
        ("Feb 5", date(2025, 2, 5), date(2025, 2, 5)),
        ("2026-01-30", date(2026, 1, 30), date(2026, 1, 30)),
        ("2026-W04", date(2026, 1, 19), date(2026, 1, 25)),
        ("2026-01", date(2026, 1, 1), date(2026, 1, 31)),
        ("3 days ago", date(2026, 2, 1), date(2026, 2, 1)),
        ("a day ago", date(2026, 2, 3), date(2026, 2, 3)),
        ("a week ago", date(2026, 1, 26), date(2026, 2, 1)),
        ("two weeks ago", date(2026, 1, 19), date(2026, 1, 25)),
        ("3 months ago", date(2025, 11, 1), date(2025, 11, 30)),
        ("a couple of days ago", date(2026, 2, 2), date(2026, 2, 2)),
        ("last Tuesday", date(2026, 2, 3), date(2026, 2, 3)),
        ("last Wednesday", date(2026, 1, 28), date(2026, 1, 28)),
        ("on Wednesday", date(2026, 2, 4), date(2026, 2, 4)),
        ("on Thursday", date(2026, 1, 29), date(2026, 1, 29)),
        ("since March", date(2025, 3, 1), date(2026, 2, 4)),
        ("since Jan 5", date(2026, 1, 5), date(2026, 2, 4)),
        ("between Jan 5 and Jan 9", date(2026, 1, 5), date(2026, 1, 9)),
        ("between December and January", date(2025, 12, 1), date(2026, 1, 31)),
        ("between March and May", date(2025, 3, 1), date(2025, 5, 31)),
        ("between 2026-W02 and yesterday", date(2026, 1, 5), date(2026, 2, 3)),
        ("from last week to today", date(2026, 1, 26), date(2026, 2, 4)),
        ("in the last 3 days", date(2026, 2, 2), date(2026, 2, 4)),
        ("during the past week", date(2026, 1, 29), date(2026, 2, 4)),
        ("over the weekend", date(2026, 1, 31), date(2026, 2, 1)),
        ("last weekend", date(2026, 1, 31), date(2026, 2, 1)),
        ("in 2025", date(2025, 1, 1), date(2025, 12, 31)),
        ("in May", date(2025, 5, 1), date(2025, 5, 31)),
        ("since may", date(2025, 5, 1), date(2026, 2, 4)),
        ("May 3", date(2025, 5, 3), date(2025, 5, 3)),
        ("may 2024", date(2024, 5, 1), date(2024, 5, 31)),
        ("last night", date(2026, 2, 3), date(2026, 2, 3)),
    ],
)
def test_each_form_resolves_to_its_period(query: str, first: date, last: date) -> None:
    """Each supported hint form resolves to the documented period, as of a Wednesday."""
    assert span(query) == (first, last)


@pytest.mark.parametrize(
    "query",
    [
        "we may need a retry",
        "march forward with the migration",
        "work on march plans",
        "Feb 30 invoices",
        "2026-02-30",
        "2026-13",
        "port 8080 config",
        "the sun was out",
        "schedule for jan",
    ],
)
def test_words_that_only_look_like_dates_are_not_hints(query: str) -> None:
    """Verbs like "may"/"march", impossible dates and bare numbers leave the query untouched."""
    hints = parse_time_hints(query, NOW)
    assert hints.ranges == ()
    assert hints.topic == query


def test_topic_drops_hint_and_dangling_preposition() -> None:
    """The topic keeps the question without the hint and the words that led into it."""
    hints = parse_time_hints("What did we discuss about JWT tokens last week?", NOW)
    assert hints.topic == "What did we discuss about JWT tokens?"
    assert hints.phrases == ("last week",)
    assert parse_time_hints("caching during the past month", NOW).topic == "caching"
    assert parse_time_hints("auth bug in January", NOW).topic == "auth bug"
    assert parse_time_hints("today's deploy", NOW).topic == "deploy"


def test_two_hints_and_their_joiner_are_removed() -> None:
    """ "yesterday and today" gives two ranges, and the "and" does not dangle in the topic."""
    hints = parse_time_hints("deploys yesterday and today", NOW)
    assert hints.topic == "deploys"
    assert [found.start.date() for found in hints.ranges] == [date(2026, 2, 3), date(2026, 2, 4)]
    assert hints.span == TimeRange(day(2026, 2, 3), day(2026, 2, 5))


def test_in_january_means_this_january_when_now_is_in_january() -> None:
    """A month named in that same month is the current one, clipped to the end of today."""
    assert span("in January", datetime(2026, 1, 15, tzinfo=timezone.utc)) == (
        date(2026, 1, 1),
        date(2026, 1, 15),
    )


def test_month_boundary_last_month_in_january_is_december() -> None:
    """ "last month" on January 1st is the previous year's December."""
    assert span("last month", datetime(2026, 1, 1, 0, 5, tzinfo=timezone.utc)) == (
        date(2025, 12, 1),
        date(2025, 12, 31),
    )


def test_iso_week_boundary_last_week_across_the_new_year() -> None:
    """ "last week" on Monday 2026-01-05 is ISO week 2026-W01, Monday 2025-12-29 to Sunday."""
    assert span("last week", datetime(2026, 1, 5, 8, tzinfo=timezone.utc)) == (
        date(2025, 12, 29),
        date(2026, 1, 4),
    )


def test_year_boundary_yesterday_on_new_years_day() -> None:
    """ "yesterday" on January 1st is December 31st of the year before."""
    assert span("yesterday", datetime(2026, 1, 1, 1, tzinfo=timezone.utc)) == (
        date(2025, 12, 31),
        date(2025, 12, 31),
    )


def test_leap_day_forms() -> None:
    """Feb 29 resolves to the latest leap day; "last year" from 2025-02-28 spans 2024's leap
    day; an ISO date on a leap day is one day."""
    assert span("Feb 29", datetime(2025, 6, 1, tzinfo=timezone.utc)) == (
        date(2024, 2, 29),
        date(2024, 2, 29),
    )
    assert span("Feb 29", datetime(2024, 2, 28, tzinfo=timezone.utc)) == (
        date(2020, 2, 29),
        date(2020, 2, 29),
    )
    assert span("last year", datetime(2025, 2, 28, tzinfo=timezone.utc)) == (
        date(2024, 1, 1),
        date(2024, 12, 31),
    )
    assert span("2024-02-29") == (date(2024, 2, 29), date(2024, 2, 29))
    assert span("a month ago", datetime(2024, 3, 31, tzinfo=timezone.utc)) == (
        date(2024, 2, 1),
        date(2024, 2, 29),
    )
    assert span("last 1 month", datetime(2024, 3, 31, tzinfo=timezone.utc)) == (
        date(2024, 3, 1),
        date(2024, 3, 31),
    )


def test_days_are_the_days_of_nows_time_zone() -> None:
    """At 20:00 in UTC-8 (04:00 UTC the next day), "yesterday" is the asker's yesterday, from
    their midnight to their midnight, not the day before the UTC date."""
    pacific = timezone(timedelta(hours=-8))
    hints = parse_time_hints("yesterday", datetime(2026, 2, 5, 20, tzinfo=pacific))
    (found,) = hints.ranges
    assert found.start == datetime(2026, 2, 4, 8, tzinfo=timezone.utc)
    assert found.end == datetime(2026, 2, 5, 8, tzinfo=timezone.utc)


def test_a_zone_with_daylight_saving_keeps_its_midnights() -> None:
    """ "last week" across a clock change starts and ends at local midnights (one range of
    7 days less an hour in UTC)."""
    zone = ZoneInfo("Europe/Berlin")
    hints = parse_time_hints("last week", datetime(2026, 4, 1, 12, tzinfo=zone))
    (found,) = hints.ranges
    assert found.start == datetime(2026, 3, 23, tzinfo=zone)
    assert found.end == datetime(2026, 3, 30, tzinfo=zone)
    assert found.end - found.start == timedelta(days=7, hours=-1)


@given(
    st.integers(min_value=-12 * 60, max_value=14 * 60),
    st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(2200, 1, 1)),
)
def test_today_always_holds_now(offset_minutes: int, moment: datetime) -> None:
    """In any zone, "today" is the range of now's local date, and it holds now."""
    zone = timezone(timedelta(minutes=offset_minutes))
    now = moment.replace(tzinfo=zone)
    (found,) = parse_time_hints("today", now).ranges
    assert found.contains(now)
    assert found.start == datetime(now.year, now.month, now.day, tzinfo=zone)


def test_naive_now_is_refused() -> None:
    """A naive now is an InvalidArgument that shows the value."""
    with pytest.raises(InvalidArgument, match="naive 2026-02-04"):
        parse_time_hints("yesterday", datetime(2026, 2, 4))


def test_time_range_refuses_empty_and_naive_ranges() -> None:
    """A TimeRange must end after it starts, with aware datetimes."""
    with pytest.raises(InvalidArgument, match="must be after start"):
        TimeRange(day(2026, 1, 2), day(2026, 1, 2))
    with pytest.raises(InvalidArgument, match="naive"):
        TimeRange(datetime(2026, 1, 1), day(2026, 1, 2))


def test_time_range_helpers() -> None:
    """contains() is half-open, widened() grows by its own length, label() reads as days."""
    found = TimeRange(day(2026, 1, 5), day(2026, 1, 12))
    assert found.contains(day(2026, 1, 5))
    assert not found.contains(day(2026, 1, 12))
    assert found.widened() == TimeRange(day(2025, 12, 29), day(2026, 1, 19))
    assert found.label() == "2026-01-05..2026-01-11"
    assert TimeRange(day(2026, 1, 5), day(2026, 1, 6)).label() == "2026-01-05"
    assert TimeHints("x").span is None


# -- properties ---------------------------------------------------------------------------

PAST_HINTS = [
    "yesterday",
    "last week",
    "last month",
    "last year",
    "3 days ago",
    "a week ago",
    "2 months ago",
    "last Tuesday",
    "last Sunday",
    "last weekend",
    "in the last 5 days",
    "past month",
    "since March",
    "since Jan 5",
    "Feb 29",
    "in May",
    "30 December",
    "between Jan 5 and Jan 9",
    "between March and May",
    "today",
    "this week",
    "this month",
    "this year",
]
TOPIC_WORDS = st.lists(
    st.sampled_from(["jwt", "refresh", "cache", "postgres", "flaky", "deploy", "auth", "bug"]),
    max_size=4,
)


@given(
    now=st.datetimes(
        min_value=datetime(2000, 1, 1),
        max_value=datetime(2200, 12, 31),
        timezones=st.just(timezone.utc),
    ),
    hint=st.sampled_from(PAST_HINTS),
    before=TOPIC_WORDS,
    after=TOPIC_WORDS,
)
def test_past_hints_are_nonempty_past_ranges_cut_from_the_topic(
    now: datetime, hint: str, before: list[str], after: list[str]
) -> None:
    """Any past-oriented hint, wherever it sits in a query, gives one range with start < end that
    ends by the end of now's day, and the topic keeps every other word but not the hint."""
    query = " ".join([*before, hint, *after])
    hints = parse_time_hints(query, now)
    assert len(hints.ranges) == 1, (query, hints)
    found = hints.ranges[0]
    assert found.start < found.end
    assert found.start <= now
    assert found.end <= now + timedelta(days=1)
    assert hints.topic.split() == [*before, *after]
    assert not re.search(rf"\b{re.escape(hint)}\b", hints.topic, re.IGNORECASE)
    assert hints.phrases == (hint,)


# Fixed offsets east and west of Greenwich: at the ends of the years a question may be asked
# in, a local midnight lies in the year before or after in UTC.
OFFSETS = st.integers(min_value=-12 * 60, max_value=14 * 60).map(
    lambda minutes: timezone(timedelta(minutes=minutes))
)


@given(
    now=st.datetimes(
        min_value=datetime(1970, 1, 1),
        max_value=datetime(2286, 12, 31, 23, 59, 59),
        timezones=OFFSETS,
    ),
    # Superscripts and other scripts' digits pass str.isdigit but not always int().
    query=st.text(alphabet="abcdefgjmnoprstuwyW0123456789\u00b9\u00b2\u0663\u2460 -,", max_size=40),
)
@example(now=datetime(2026, 11, 25, tzinfo=timezone.utc), query="\u00b9 days ago")
@example(now=datetime(2026, 11, 25, tzinfo=timezone.utc), query="between 9999-12-31 and today")
@example(now=datetime(2026, 11, 25, tzinfo=timezone.utc), query="9999-W52")
@example(now=datetime(2026, 11, 25, tzinfo=timezone(timedelta(hours=5))), query="0001-01-01")
@example(now=datetime(2286, 12, 31, 23, tzinfo=timezone(timedelta(hours=-12))), query="today")
@example(now=datetime(1970, 1, 1, tzinfo=timezone(timedelta(hours=14))), query="1000 years ago")
def test_any_text_parses_to_valid_ranges(now: datetime, query: str) -> None:
    """Arbitrary text never raises, and every range found is non-empty and aware."""
    hints = parse_time_hints(query, now)
    assert len(hints.ranges) == len(hints.phrases)
    for found in hints.ranges:
        assert found.start < found.end
        assert found.start.tzinfo is timezone.utc


def test_dates_outside_the_years_of_ids_are_no_hints() -> None:
    """An ISO date or week in a year no event can carry is left in the topic, as an ISO month
    or a bare year there is: 9999-12-31 has no next day to end its range."""
    for query in ("9999-12-31", "9999-W52", "0001-01-01", "1969-W01", "2287-01-01"):
        hints = parse_time_hints(f"logs from {query}", NOW)
        assert hints.ranges == (), query
        assert query in hints.topic
    assert span("1970-01-01") == (date(1970, 1, 1), date(1970, 1, 1))
    monday = date.fromisocalendar(2286, 52, 1)
    assert span("2286-W52") == (monday, monday + timedelta(days=6))


@given(
    now=st.one_of(
        st.datetimes(max_value=datetime(1969, 12, 31, 23, 59, 59), timezones=OFFSETS),
        st.datetimes(min_value=datetime(2287, 1, 1), timezones=OFFSETS),
    )
)
@example(now=datetime(9999, 12, 31, 12, tzinfo=timezone.utc))
@example(now=datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=5))))
def test_a_now_outside_the_years_of_ids_is_refused_by_value(now: datetime) -> None:
    """A question asked on a day outside the years event ids carry is an InvalidArgument that
    shows now, not an overflow: such a today may have no tomorrow to end its range."""
    with pytest.raises(InvalidArgument, match=re.escape(now.isoformat())):
        parse_time_hints("what did we do today", now)


_FIRST = datetime.min.replace(tzinfo=timezone.utc)
_LAST = datetime.max.replace(tzinfo=timezone.utc)


@given(
    ends=st.lists(
        st.datetimes(timezones=st.just(timezone.utc)), min_size=2, max_size=2, unique=True
    ).map(sorted),
    periods=st.integers(min_value=0, max_value=3),
)
@example(
    ends=[datetime(970, 1, 1, tzinfo=timezone.utc), datetime(1976, 1, 1, tzinfo=timezone.utc)],
    periods=1,
)
@example(ends=[_LAST - timedelta(days=1), _LAST], periods=2)
def test_a_range_widens_by_its_length_up_to_the_ends_of_time(
    ends: list[datetime], periods: int
) -> None:
    """widened() grows a range by ``periods`` times its length on each side, and stops at
    datetime.min and datetime.max instead of overflowing (the last 1000 years, asked in
    1976, reach back past the year 1)."""
    found = TimeRange(ends[0], ends[1])
    wide = found.widened(periods)
    length = found.end - found.start
    assert wide.start == found.start - min(length * periods, found.start - _FIRST)
    assert wide.end == found.end + min(length * periods, _LAST - found.end)


def test_a_question_about_the_last_thousand_years_in_1976_is_answered() -> None:
    """A hinted range whose neighbours reach past the year 1 is searched up to there."""
    navigator = Navigator(InMemoryStorage(), now=datetime(1976, 6, 1, tzinfo=timezone.utc))
    assert navigator.navigate("zebra in the last 1000 years").evidence == ()

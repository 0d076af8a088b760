"""Node, grip and event ids: formats, parsing, refusal of malformed ids, week placement."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime, timedelta, timezone
from itertools import pairwise

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tests.strategies import suffixes, utc_datetimes
from tocsearch import ids
from tocsearch.errors import InvalidArgument, InvalidId
from tocsearch.ids import NodeKey
from tocsearch.levels import TocLevel

CALENDAR_LEVELS = [TocLevel.YEAR, TocLevel.MONTH, TocLevel.WEEK, TocLevel.DAY]
# Every period of a date in this range (including its ISO year) is representable.
all_dates = st.dates(min_value=date(1, 1, 1), max_value=date(9998, 12, 31))
id_datetimes = utc_datetimes(
    min_value=datetime(1970, 1, 1, tzinfo=timezone.utc),
    max_value=datetime(2286, 11, 20, tzinfo=timezone.utc),
)


def _ms(when: datetime) -> datetime:
    """``when`` truncated to whole milliseconds, as ids carry it."""
    return when.replace(microsecond=when.microsecond // 1000 * 1000)


# -- formatting --------------------------------------------------------------------------------


def test_format_every_node_id_kind() -> None:
    """Each node id kind has its documented form, zero-padded."""
    assert ids.year_id(2026) == "toc:year:2026"
    assert ids.month_id(2026, 1) == "toc:month:2026-01"
    assert ids.week_id(2026, 5) == "toc:week:2026-W05"
    assert ids.day_id(date(2026, 1, 30)) == "toc:day:2026-01-30"
    assert ids.segment_id(date(2026, 1, 30), "abc123") == "toc:segment:2026-01-30:abc123"


def test_format_event_and_grip_ids() -> None:
    """Event ids carry 13-digit epoch milliseconds; grip ids carry unpadded milliseconds."""
    when = datetime(2024, 2, 1, 0, 0, 0, 123456, tzinfo=timezone.utc)
    assert ids.event_id(when, "01HN4QX") == "evt:1706745600123:01HN4QX"
    assert ids.grip_id(when, "xyz") == "grip:1706745600123:xyz"
    epoch = datetime(1970, 1, 1, tzinfo=timezone.utc)
    assert ids.event_id(epoch + timedelta(milliseconds=5), "a") == "evt:0000000000005:a"
    assert ids.grip_id(epoch + timedelta(milliseconds=5), "a") == "grip:5:a"


def test_event_id_of_non_utc_datetime_uses_the_instant() -> None:
    """An aware datetime in another zone gives the id of the same instant in UTC."""
    berlin = timezone(timedelta(hours=1))
    local = datetime(2026, 1, 30, 10, 0, tzinfo=berlin)
    assert ids.event_id(local, "a") == ids.event_id(local.astimezone(timezone.utc), "a")


def test_epoch_ms_round_trip() -> None:
    """to_epoch_ms and from_epoch_ms are inverse on whole milliseconds."""
    when = datetime(2026, 1, 30, 14, 5, 0, 123000, tzinfo=timezone.utc)
    assert ids.to_epoch_ms(when) == 1769781900123
    assert ids.from_epoch_ms(1769781900123) == when


# -- parsing ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("node_id", "key"),
    [
        ("toc:year:2026", NodeKey(TocLevel.YEAR, date(2025, 12, 29), date(2027, 1, 3))),
        ("toc:month:2026-01", NodeKey(TocLevel.MONTH, date(2025, 12, 29), date(2026, 2, 1))),
        ("toc:month:2026-02", NodeKey(TocLevel.MONTH, date(2026, 2, 2), date(2026, 3, 1))),
        ("toc:week:2026-W05", NodeKey(TocLevel.WEEK, date(2026, 1, 26), date(2026, 2, 1))),
        ("toc:week:2026-W53", NodeKey(TocLevel.WEEK, date(2026, 12, 28), date(2027, 1, 3))),
        ("toc:day:2026-01-30", NodeKey(TocLevel.DAY, date(2026, 1, 30), date(2026, 1, 30))),
        ("toc:day:2024-02-29", NodeKey(TocLevel.DAY, date(2024, 2, 29), date(2024, 2, 29))),
        (
            "toc:segment:2026-01-30:abc123",
            NodeKey(TocLevel.SEGMENT, date(2026, 1, 30), date(2026, 1, 30), "abc123"),
        ),
        (
            "toc:segment:2026-01-30:a.b-c_d:e",
            NodeKey(TocLevel.SEGMENT, date(2026, 1, 30), date(2026, 1, 30), "a.b-c_d:e"),
        ),
    ],
)
def test_parse_node_id(node_id: str, key: NodeKey) -> None:
    """A node id parses to its level, its inclusive calendar period and a segment's suffix."""
    assert ids.parse_node_id(node_id) == key
    assert ids.level_of(node_id) is key.level


def test_node_key_start_and_end() -> None:
    """A key's start is midnight UTC of its first day; its end is midnight after its last."""
    key = ids.parse_node_id("toc:week:2026-W05")
    assert key.start == datetime(2026, 1, 26, tzinfo=timezone.utc)
    assert key.end == datetime(2026, 2, 2, tzinfo=timezone.utc)


def test_parse_event_and_grip_ids() -> None:
    """Event and grip ids parse to their UTC millisecond timestamp and suffix."""
    when = datetime(2024, 2, 1, 0, 0, 0, 123000, tzinfo=timezone.utc)
    assert ids.parse_event_id("evt:1706745600123:01HN4QX") == (when, "01HN4QX")
    assert ids.parse_grip_id("grip:1706745600123:xyz") == (when, "xyz")
    assert ids.parse_grip_id("grip:0:a") == (datetime(1970, 1, 1, tzinfo=timezone.utc), "a")


@pytest.mark.parametrize(
    "node_id",
    [
        "",
        "toc:decade:2026",
        "node:year:2026",
        "TOC:YEAR:2026",
        " toc:year:2026",
        "toc:year:2026 ",
        "toc:year:26",
        "toc:year:0000",
        "toc:year:9999",
        "toc:month:2026-13",
        "toc:month:2026-00",
        "toc:month:2026-1",
        "toc:month:9999-12",
        "toc:week:2026-W54",
        "toc:week:2026-W00",
        "toc:week:2025-W53",
        "toc:week:2026-5",
        "toc:week:9999-W52",
        "toc:day:2026-02-30",
        "toc:day:2025-02-29",
        "toc:day:2026-13-01",
        "toc:day:2026-1-30",
        "toc:day:2026-01-30:abc",
        "toc:segment:2026-01-30",
        "toc:segment:2026-01-30:",
        "toc:segment:2026-01-30:bad suffix",
        "toc:segment:2026-01-30:a/b",
        "toc:segment:2026-01-30:é",
        "toc:segment:2026-02-30:abc",
        "toc:segment:2026-01-30:" + "x" * 201,
        "evt:1706745600123:a",
        "grip:1:a",
    ],
)
def test_malformed_node_ids_rejected(node_id: str) -> None:
    """A malformed node id, or one naming no real date, week or month, raises InvalidId."""
    with pytest.raises(InvalidId) as caught:
        ids.parse_node_id(node_id)
    assert repr(node_id) in str(caught.value)
    with pytest.raises(InvalidId):
        ids.level_of(node_id)
    with pytest.raises(InvalidId):
        ids.parent_id(node_id)


@pytest.mark.parametrize(
    "event_id",
    [
        "",
        "evt:170674560012:a",
        "evt:17067456001234:a",
        "evt:1706745600123:",
        "evt:1706745600123",
        "evt:1706745600123:a b",
        "evt:-706745600123:a",
        "event:1706745600123:a",
        "EVT:1706745600123:a",
        "grip:1706745600123:a",
    ],
)
def test_malformed_event_ids_rejected(event_id: str) -> None:
    """An event id without 13 digits, a suffix, or the evt: prefix raises InvalidId."""
    with pytest.raises(InvalidId) as caught:
        ids.parse_event_id(event_id)
    assert repr(event_id) in str(caught.value)


@pytest.mark.parametrize(
    "grip_id",
    [
        "",
        "grip::a",
        "grip:1:",
        "grip:x:a",
        "grip:12345678901234:a",
        "grip:1:a b",
        "evt:1:a",
        "grip:0001:x",
        "grip:00:x",
    ],
)
def test_malformed_grip_ids_rejected(grip_id: str) -> None:
    """A grip id without milliseconds, a suffix, or the grip: prefix raises InvalidId, and so
    does one whose milliseconds have leading zeros: ``grip:0001:x`` would name the grip that
    ``grip:1:x`` names while being another string, found under neither."""
    with pytest.raises(InvalidId) as caught:
        ids.parse_grip_id(grip_id)
    assert repr(grip_id) in str(caught.value)


@pytest.mark.parametrize("suffix", ["", "a b", "a/b", "é", "x" * 201, "tab\t"])
def test_bad_suffixes_rejected_when_formatting(suffix: str) -> None:
    """Formatting a segment, event or grip id with a bad suffix raises InvalidId naming it."""
    when = datetime(2026, 1, 30, tzinfo=timezone.utc)
    makers: list[Callable[[], str]] = [
        lambda: ids.segment_id(when.date(), suffix),
        lambda: ids.event_id(when, suffix),
        lambda: ids.grip_id(when, suffix),
    ]
    for make in makers:
        with pytest.raises(InvalidId, match="suffix"):
            make()


def test_timestamps_outside_id_range_rejected() -> None:
    """Event and grip ids need 1970-01-01 .. 2286-11-20: earlier or later raises InvalidId."""
    before = datetime(1969, 12, 31, 23, 59, tzinfo=timezone.utc)
    after = datetime(2286, 11, 21, tzinfo=timezone.utc)
    for when in (before, after):
        with pytest.raises(InvalidId, match="outside"):
            ids.event_id(when, "a")
        with pytest.raises(InvalidId, match="outside"):
            ids.grip_id(when, "a")


def test_naive_datetimes_rejected() -> None:
    """Every id function that takes a datetime refuses a naive one, showing its value."""
    naive = datetime(2026, 1, 30, 9, 0)
    with pytest.raises(InvalidId, match="naive 2026-01-30T09:00:00"):
        ids.to_epoch_ms(naive)
    with pytest.raises(InvalidId, match="naive"):
        ids.event_id(naive, "a")
    with pytest.raises(InvalidId, match="naive"):
        ids.grip_id(naive, "a")
    with pytest.raises(InvalidId, match="naive"):
        ids.calendar_node_id(TocLevel.DAY, naive)


def test_segments_have_no_calendar_id() -> None:
    """calendar_node_id refuses SEGMENT with an InvalidArgument pointing at segment_id."""
    with pytest.raises(InvalidArgument, match="segment_id"):
        ids.calendar_node_id(TocLevel.SEGMENT, date(2026, 1, 30))


# -- round trips -----------------------------------------------------------------------------


@given(day=all_dates)
def test_calendar_ids_round_trip(day: date) -> None:
    """Parsing a calendar id gives its level and a period that holds the date it came from."""
    for level in CALENDAR_LEVELS:
        key = ids.parse_node_id(ids.calendar_node_id(level, day))
        assert key.level is level
        assert key.first_day <= day <= key.last_day
        assert key.suffix is None
    assert ids.parse_node_id(ids.day_id(day)).first_day == day


@given(iso=all_dates.map(lambda day: day.isocalendar()))
def test_week_id_round_trip(iso: tuple[int, int, int]) -> None:
    """week_id(year, week) parses back to the Monday..Sunday of that ISO week."""
    year, week, _ = iso
    key = ids.parse_node_id(ids.week_id(year, week))
    assert key.first_day == date.fromisocalendar(year, week, 1)
    assert key.last_day == date.fromisocalendar(year, week, 7)


@given(year=st.integers(2, 9998), month=st.integers(1, 12))
def test_month_id_round_trip(year: int, month: int) -> None:
    """month_id parses back to whole weeks, Monday to Sunday, that hold the month's Thursdays."""
    key = ids.parse_node_id(ids.month_id(year, month))
    assert key.level is TocLevel.MONTH
    assert key.first_day.weekday() == 0
    assert key.last_day.weekday() == 6
    thursdays = [
        key.first_day + timedelta(days=offset)
        for offset in range(3, (key.last_day - key.first_day).days, 7)
    ]
    assert thursdays
    assert all((thursday.year, thursday.month) == (year, month) for thursday in thursdays)


@given(day=all_dates, suffix=suffixes)
def test_segment_id_round_trip(day: date, suffix: str) -> None:
    """segment_id parses back to its day and suffix."""
    key = ids.parse_node_id(ids.segment_id(day, suffix))
    assert key == NodeKey(TocLevel.SEGMENT, day, day, suffix)


@given(when=id_datetimes, suffix=suffixes)
@example(when=datetime(1970, 1, 1, tzinfo=timezone.utc), suffix="x")
@example(when=datetime(1970, 1, 1, 0, 0, 0, 1000, tzinfo=timezone.utc), suffix="0:1")
def test_event_and_grip_ids_round_trip(when: datetime, suffix: str) -> None:
    """Event and grip ids parse back to their timestamp, to the millisecond, and suffix, and
    those parts format back to the very id."""
    for make, parse in ((ids.event_id, ids.parse_event_id), (ids.grip_id, ids.parse_grip_id)):
        made = make(when, suffix)
        assert parse(made) == (_ms(when), suffix)
        assert make(*parse(made)) == made


@given(ms=st.integers(0, 10**13 - 1))
def test_epoch_ms_round_trip_property(ms: int) -> None:
    """from_epoch_ms then to_epoch_ms is the identity over the id range."""
    assert ids.to_epoch_ms(ids.from_epoch_ms(ms)) == ms


@given(
    stamped=st.lists(st.tuples(id_datetimes, suffixes), min_size=2, max_size=20),
)
def test_event_ids_sort_in_time_order(stamped: list[tuple[datetime, str]]) -> None:
    """Sorting event ids as strings sorts them by time, whatever their suffixes."""
    by_id = sorted(stamped, key=lambda item: ids.event_id(*item))
    times = [ids.to_epoch_ms(when) for when, _ in by_id]
    assert times == sorted(times)


# -- week placement --------------------------------------------------------------------------


def _chain(day: date) -> list[str]:
    return [ids.calendar_node_id(level, day) for level in reversed(CALENDAR_LEVELS)]


@pytest.mark.parametrize(
    ("day", "chain"),
    [
        # Sunday 2026-02-01 closes the week of Thursday 2026-01-29: it stays in January.
        (
            date(2026, 2, 1),
            ["toc:day:2026-02-01", "toc:week:2026-W05", "toc:month:2026-01", "toc:year:2026"],
        ),
        (
            date(2026, 2, 2),
            ["toc:day:2026-02-02", "toc:week:2026-W06", "toc:month:2026-02", "toc:year:2026"],
        ),
        # Monday 2024-12-30 opens ISO week 2025-W01, whose Thursday is 2025-01-02.
        (
            date(2024, 12, 30),
            ["toc:day:2024-12-30", "toc:week:2025-W01", "toc:month:2025-01", "toc:year:2025"],
        ),
        # Thursday 2026-01-01 keeps 2025-12-29 .. 2026-01-04 in January 2026.
        (
            date(2025, 12, 29),
            ["toc:day:2025-12-29", "toc:week:2026-W01", "toc:month:2026-01", "toc:year:2026"],
        ),
        # Friday 2021-01-01 belongs to 2020-W53, a December 2020 week.
        (
            date(2021, 1, 1),
            ["toc:day:2021-01-01", "toc:week:2020-W53", "toc:month:2020-12", "toc:year:2020"],
        ),
        (
            date(2024, 2, 29),
            ["toc:day:2024-02-29", "toc:week:2024-W09", "toc:month:2024-02", "toc:year:2024"],
        ),
    ],
)
def test_week_placement_examples(day: date, chain: list[str]) -> None:
    """A week belongs to the month, and year, of its Thursday; parents follow the same rule."""
    assert _chain(day) == chain
    assert [ids.parent_id(node_id) for node_id in chain] == [*chain[1:], None]


def test_leap_day_lies_inside_its_periods() -> None:
    """2024-02-29 lies inside the week, month and year its ids name."""
    for node_id in _chain(date(2024, 2, 29)):
        key = ids.parse_node_id(node_id)
        assert key.first_day <= date(2024, 2, 29) <= key.last_day


def test_month_of_week() -> None:
    """month_of_week names the month of the week's Thursday."""
    assert ids.month_of_week(2026, 5) == (2026, 1)
    assert ids.month_of_week(2026, 6) == (2026, 2)
    assert ids.month_of_week(2025, 1) == (2025, 1)
    assert ids.month_of_week(2020, 53) == (2020, 12)


def test_calendar_node_id_of_datetime_uses_utc_date() -> None:
    """A datetime is placed by its UTC date, not its local one."""
    tokyo = timezone(timedelta(hours=9))
    local = datetime(2026, 2, 2, 8, 0, tzinfo=tokyo)  # 2026-02-01T23:00Z
    assert ids.calendar_node_id(TocLevel.DAY, local) == "toc:day:2026-02-01"
    assert ids.calendar_node_id(TocLevel.MONTH, local) == "toc:month:2026-01"


@given(day=all_dates, suffix=suffixes)
def test_calendar_chain_equals_parent_chain(day: date, suffix: str) -> None:
    """For every date, the calendar ids day > week > month > year are each other's parents,
    and each parent's period covers its child's."""
    segment = ids.segment_id(day, suffix)
    chain = [segment, *_chain(day)]
    for child, parent in pairwise(chain):
        assert ids.parent_id(child) == parent
        child_key = ids.parse_node_id(child)
        parent_key = ids.parse_node_id(parent)
        assert parent_key.level is child_key.level.parent()
        assert parent_key.first_day <= child_key.first_day
        assert child_key.last_day <= parent_key.last_day
    assert ids.parent_id(chain[-1]) is None


@given(day=all_dates)
def test_periods_tile_the_calendar(day: date) -> None:
    """Consecutive months and years meet with no gap and no overlap."""
    month = ids.parse_node_id(ids.calendar_node_id(TocLevel.MONTH, day))
    year = ids.parse_node_id(ids.calendar_node_id(TocLevel.YEAR, day))
    after_month = month.last_day + timedelta(days=1)
    after_year = year.last_day + timedelta(days=1)
    if after_month <= date(9998, 12, 31):
        following = ids.parse_node_id(ids.calendar_node_id(TocLevel.MONTH, after_month))
        assert following.first_day == after_month
        assert following != month
    if after_year <= date(9998, 12, 31):
        following = ids.parse_node_id(ids.calendar_node_id(TocLevel.YEAR, after_year))
        assert following.first_day == after_year


@given(floor=utc_datetimes(), when=utc_datetimes(), suffix=suffixes)
def test_the_event_id_floor_splits_ids_by_time(
    floor: datetime, when: datetime, suffix: str
) -> None:
    """An event id sorts at or after the floor of a time exactly when its millisecond is at or
    after that time's: range reads over ids in time order start at the floor."""
    at_or_after = ids.to_epoch_ms(when) >= ids.to_epoch_ms(floor)
    assert (ids.event_id(when, suffix) >= ids.event_id_floor(floor)) == at_or_after


@given(day=st.dates(min_value=date(1971, 1, 1)), other=st.dates(), suffix=suffixes)
def test_a_segment_id_starts_with_its_days_prefix_only(day: date, other: date, suffix: str) -> None:
    """Every segment id of a day starts with that day's segment prefix and no other day's."""
    made = ids.segment_id(day, suffix)
    assert made.startswith(ids.segment_prefix(day))
    assert made.startswith(ids.segment_prefix(other)) == (other == day)
    assert ids.node_period(made) == f"{day.isoformat()}:{suffix}"


def test_node_period_is_what_the_id_names_after_its_level() -> None:
    """The period of each kind of node id, as written in it; a non-id is refused."""
    assert ids.node_period("toc:year:2026") == "2026"
    assert ids.node_period("toc:week:2026-W05") == "2026-W05"
    assert ids.node_period("toc:day:2026-01-30") == "2026-01-30"
    with pytest.raises(InvalidId):
        ids.node_period("evt:1769763600000:a")


id_like = st.one_of(
    st.builds(ids.event_id, id_datetimes, suffixes),
    st.builds(ids.grip_id, id_datetimes, suffixes),
    st.builds(
        lambda prefix, digits, suffix: f"{prefix}{digits}:{suffix}",
        st.sampled_from(["evt:", "grip:", "evt", "grip:-", ""]),
        st.text(alphabet="0123456789١٢", min_size=0, max_size=15),
        st.one_of(suffixes, st.text(max_size=5)),
    ),
    st.text(max_size=30),
    st.none(),
    st.integers(),
)


@given(value=id_like)
def test_checking_an_id_refuses_exactly_what_parsing_refuses(value: object) -> None:
    """check_event_id and check_grip_id raise the error, with the message, that parsing the
    same value raises, and nothing where parsing reads an id."""
    for check, parse in (
        (ids.check_event_id, ids.parse_event_id),
        (ids.check_grip_id, ids.parse_grip_id),
    ):
        parsed: str | None = None
        try:
            parse(value)  # type: ignore[arg-type]
        except InvalidId as error:
            parsed = str(error)
        checked: str | None = None
        try:
            check(value)  # type: ignore[arg-type]
        except InvalidId as error:
            checked = str(error)
        assert checked == parsed


# Arabic-Indic digits: str.isdigit and a regex's \d accept them, and int() reads them.
_DIGITS = st.text(alphabet="0123456789\u0660\u0661\u0662\u0669", min_size=1, max_size=13)
id_texts = st.one_of(
    st.builds("evt:{}:{}".format, _DIGITS, suffixes),
    st.builds("grip:{}:{}".format, _DIGITS, suffixes),
    st.builds("toc:year:{}".format, _DIGITS),
    st.builds("toc:month:{}-{}".format, _DIGITS, _DIGITS),
    st.builds("toc:week:{}-W{}".format, _DIGITS, _DIGITS),
    st.builds("toc:day:{}-{}-{}".format, _DIGITS, _DIGITS, _DIGITS),
    st.builds("toc:segment:{}-{}-{}:{}".format, _DIGITS, _DIGITS, _DIGITS, suffixes),
)


def _reformatted(value: str) -> str | None:
    """The id that the parts ``value`` parses to format to, or None when it does not parse."""
    try:
        if value.startswith(ids.EVENT_PREFIX):
            return ids.event_id(*ids.parse_event_id(value))
        if value.startswith(ids.GRIP_PREFIX):
            return ids.grip_id(*ids.parse_grip_id(value))
        key = ids.parse_node_id(value)
    except InvalidId:
        return None
    if key.level is TocLevel.SEGMENT:
        assert key.suffix is not None
        return ids.segment_id(key.first_day, key.suffix)
    return ids.calendar_node_id(key.level, key.first_day)


@given(value=id_texts)
@example(
    value="evt:\u0661\u0667\u0666\u0669\u0667\u0667\u0669\u0665\u0660\u0660\u0660\u0660\u0660:q1"
)
@example(value="toc:year:\u0662\u0660\u0662\u0666")
@example(value="grip:\u0661:x")
@example(value="grip:0001:x")
@example(value="grip:00:x")
def test_an_id_that_parses_is_the_id_its_parts_format_to(value: str) -> None:
    """Every id text that parses is exactly the id its parts format to: ids are read from the
    digits 0-9 only (a regex's \\d also takes other scripts' digits, which int() reads) and in
    their one spelling (no leading zeros in a grip's milliseconds), so event ids keep sorting in
    time order, and a stored id is found under its own time and under no other string."""
    again = _reformatted(value)
    if again is not None:
        assert value.isascii(), value
        assert again == value

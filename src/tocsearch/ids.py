"""Formats and parses the ids of TOC nodes, grips and events.

Node ids name their place in the calendar::

    toc:year:2026
    toc:month:2026-01
    toc:week:2026-W05            ISO 8601 week-numbering year and week
    toc:day:2026-01-30
    toc:segment:2026-01-30:<suffix>
    grip:<epoch_ms>:<suffix>     epoch ms without leading zeros
    evt:<epoch_ms, 13 digits>:<suffix>

Event ids sort in time order as plain strings, because the epoch milliseconds are zero-padded.
Every id is accepted in one spelling only, the one its parts format to, so an id that parses
formats back to the very same text.

Weeks that straddle a month or a year belong to the month, and so to the year, that holds
their Thursday. That is the ISO 8601 rule that already decides a week's year, applied once more
to the month, and it keeps the tree strict: each day has one week, each week one month, each
month one year. A month therefore covers whole weeks (``toc:month:2026-01`` runs from Monday
2025-12-29 to Sunday 2026-02-01). Day ids stay calendar dates, so a day is found by its date
directly, and by its calendar month through a time-range query.
"""

from __future__ import annotations

import functools
import re
from datetime import date, datetime, timedelta, timezone

import attrs

from tocsearch._checks import in_utc
from tocsearch.errors import InvalidId
from tocsearch.levels import TocLevel

__all__ = [
    "EVENT_MS",
    "EVENT_PREFIX",
    "GRIP_PREFIX",
    "NodeKey",
    "calendar_node_id",
    "check_event_id",
    "check_grip_id",
    "day_id",
    "event_id",
    "event_id_ceiling",
    "event_id_floor",
    "event_id_ms",
    "from_epoch_ms",
    "grip_id",
    "level_of",
    "month_id",
    "month_of_week",
    "node_period",
    "parent_id",
    "parse_event_id",
    "parse_grip_id",
    "parse_node_id",
    "segment_id",
    "segment_prefix",
    "to_epoch_ms",
    "week_id",
    "year_id",
]

EVENT_PREFIX = "evt:"
"""How every event id starts."""
GRIP_PREFIX = "grip:"
"""How every grip id starts."""
EVENT_MS = slice(len(EVENT_PREFIX), len(EVENT_PREFIX) + 13)
"""Where an event id holds its 13 digits of epoch milliseconds: ``int(event_id[EVENT_MS])``
reads the time of an id already known to be valid (a stored one) without parsing it."""

_MAX_EPOCH_MS = 10**13 - 1  # 13 digits: up to the year 2286
_SUFFIX = r"[A-Za-z0-9_.:-]{1,200}"
# re.ASCII: \d alone also matches other scripts' digits, which int() reads, so an id written
# in them would parse to a time while sorting and comparing unlike the id of that time.
_NODE_RE = re.compile(
    r"toc:(?:"
    r"year:(?P<year>\d{4})"
    r"|month:(?P<m_year>\d{4})-(?P<month>\d{2})"
    r"|week:(?P<w_year>\d{4})-W(?P<week>\d{2})"
    r"|day:(?P<day>\d{4}-\d{2}-\d{2})"
    r"|segment:(?P<s_day>\d{4}-\d{2}-\d{2}):(?P<suffix>" + _SUFFIX + r")"
    r")",
    re.ASCII,
)
_EVENT_RE = re.compile(EVENT_PREFIX + r"(?P<ms>\d{13}):(?P<suffix>" + _SUFFIX + r")", re.ASCII)
# A grip's milliseconds are written without leading zeros, as grip_id() writes them: an id
# text is accepted only in the one spelling its parts format back to, so "grip:0001:x" is not
# a second name (found under neither) for the grip "grip:1:x".
_GRIP_RE = re.compile(
    GRIP_PREFIX + r"(?P<ms>0|[1-9]\d{0,12}):(?P<suffix>" + _SUFFIX + r")", re.ASCII
)
_SUFFIX_RE = re.compile(_SUFFIX)


@attrs.frozen
class NodeKey:
    """What a node id says: its level, the calendar period it names, and a segment's suffix.

    ``first_day`` and ``last_day`` are inclusive; for a segment both are its day.
    """

    level: TocLevel
    first_day: date
    last_day: date
    suffix: str | None = None

    @property
    def start(self) -> datetime:
        """Midnight UTC at the start of the period."""
        return datetime(
            self.first_day.year, self.first_day.month, self.first_day.day, tzinfo=timezone.utc
        )

    @property
    def end(self) -> datetime:
        """Midnight UTC after the period: the exclusive end."""
        return self.start + timedelta(days=(self.last_day - self.first_day).days + 1)


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MILLISECOND = timedelta(milliseconds=1)


def to_epoch_ms(when: datetime) -> int:
    """Milliseconds since the Unix epoch of a timezone-aware datetime."""
    return (in_utc(when, error=InvalidId) - _EPOCH) // _MILLISECOND


def from_epoch_ms(ms: int) -> datetime:
    """The UTC datetime of an epoch-milliseconds value."""
    return _EPOCH + timedelta(milliseconds=ms)


def _check_suffix(suffix: str) -> str:
    if not _SUFFIX_RE.fullmatch(suffix):
        raise InvalidId(
            f"id suffix must be 1-200 characters of letters, digits, '_', '.', ':' or '-', "
            f"got {suffix!r}"
        )
    return suffix


def _check_ms(when: datetime) -> int:
    ms = to_epoch_ms(when)
    if not 0 <= ms <= _MAX_EPOCH_MS:
        raise InvalidId(f"timestamp {when.isoformat()} is outside 1970-01-01 .. 2286-11-20")
    return ms


def year_id(year: int) -> str:
    """``toc:year:2026``."""
    return f"toc:year:{year:04d}"


def month_id(year: int, month: int) -> str:
    """``toc:month:2026-01``."""
    return f"toc:month:{year:04d}-{month:02d}"


def week_id(iso_year: int, iso_week: int) -> str:
    """``toc:week:2026-W05`` from an ISO 8601 week-numbering year and week."""
    return f"toc:week:{iso_year:04d}-W{iso_week:02d}"


def day_id(day: date) -> str:
    """``toc:day:2026-01-30``."""
    return f"toc:day:{day.isoformat()}"


def segment_prefix(day: date) -> str:
    """``toc:segment:2026-01-30:``, what the id of every segment of ``day`` starts with."""
    return f"toc:segment:{day.isoformat()}:"


def segment_id(day: date, suffix: str) -> str:
    """``toc:segment:2026-01-30:<suffix>``."""
    return segment_prefix(day) + _check_suffix(suffix)


def _event_id_head(ms: int) -> str:
    return f"{EVENT_PREFIX}{ms:013d}:"


def event_id(timestamp: datetime, suffix: str) -> str:
    """``evt:<13-digit epoch ms>:<suffix>``; such ids sort in time order."""
    return _event_id_head(_check_ms(timestamp)) + _check_suffix(suffix)


def event_id_floor(when: datetime) -> str:
    """The smallest event id that can carry a timestamp at or after ``when``'s millisecond
    (before 1970: every event id), for range reads over ids in time order.

    >>> event_id_floor(datetime(2026, 1, 30, 9, tzinfo=timezone.utc))
    'evt:1769763600000:'
    """
    return _event_id_head(max(0, to_epoch_ms(when)))


def event_id_ceiling(when: datetime) -> str | None:
    """The smallest event id that no timestamp before ``when`` can carry (the floor of the
    next millisecond), or None when ids run out first: ``when`` is past the last millisecond
    an id can carry, as ``datetime.max`` is, so every event id is below it.

    >>> event_id_ceiling(datetime(2026, 1, 30, 9, tzinfo=timezone.utc))
    'evt:1769763600001:'
    >>> event_id_ceiling(datetime.max.replace(tzinfo=timezone.utc)) is None
    True
    """
    # Worked out in milliseconds, not as when + 1 ms, which overflows at datetime.max.
    ms = to_epoch_ms(when) + 1
    return None if ms > _MAX_EPOCH_MS else _event_id_head(max(0, ms))


def grip_id(timestamp: datetime, suffix: str) -> str:
    """``grip:<epoch ms>:<suffix>``."""
    return f"{GRIP_PREFIX}{_check_ms(timestamp)}:{_check_suffix(suffix)}"


_AN_EVENT_ID = "an event id (evt:<13-digit epoch ms>:<suffix>)"
_A_GRIP_ID = "a grip id (grip:<epoch ms, no leading zeros>:<suffix>)"


def parse_event_id(value: str) -> tuple[datetime, str]:
    """The timestamp (to the millisecond) and suffix of an event id.

    Raises:
        InvalidId: the value is not an event id.
    """
    match = _stamped(_EVENT_RE, value, _AN_EVENT_ID)
    return from_epoch_ms(int(match["ms"])), match["suffix"]


def event_id_ms(value: str) -> int:
    """The epoch milliseconds an event id carries (what :func:`parse_event_id` makes its
    timestamp of), without making the timestamp.

    >>> event_id_ms("evt:1769774400000:a1")
    1769774400000

    Raises:
        InvalidId: the value is not an event id.
    """
    return int(_stamped(_EVENT_RE, value, _AN_EVENT_ID)["ms"])


def parse_grip_id(value: str) -> tuple[datetime, str]:
    """The timestamp (to the millisecond) and suffix of a grip id.

    Raises:
        InvalidId: the value is not a grip id.
    """
    match = _stamped(_GRIP_RE, value, _A_GRIP_ID)
    return from_epoch_ms(int(match["ms"])), match["suffix"]


def check_event_id(value: str) -> None:
    """Raise what :func:`parse_event_id` raises, without making the timestamp (every id it
    reads has a time: at most 13 digits of milliseconds).

    Raises:
        InvalidId: the value is not an event id.
    """
    _stamped(_EVENT_RE, value, _AN_EVENT_ID)


def check_grip_id(value: str) -> None:
    """Raise what :func:`parse_grip_id` raises, without making the timestamp.

    Raises:
        InvalidId: the value is not a grip id.
    """
    _stamped(_GRIP_RE, value, _A_GRIP_ID)


def _stamped(pattern: re.Pattern[str], value: str, what: str) -> re.Match[str]:
    match = pattern.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        raise InvalidId(f"not {what}: {value!r}")
    return match


def _date(text: str, node_id: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise InvalidId(f"node id names no calendar date: {node_id!r}") from None


def _iso_week_days(iso_year: int, iso_week: int, node_id: str) -> tuple[date, date]:
    try:
        monday = date.fromisocalendar(iso_year, iso_week, 1)
    except ValueError:
        raise InvalidId(f"node id names no ISO week: {node_id!r}") from None
    return monday, monday + timedelta(days=6)


def _month_days(year: int, month: int) -> tuple[date, date]:
    """First and last day of the whole weeks whose Thursdays fall in the month."""
    first = date(year, month, 1)
    # The first Thursday on or after the 1st decides the first week of the month.
    first_thursday = first + timedelta(days=(3 - first.weekday()) % 7)
    next_first = date(year + month // 12, month % 12 + 1, 1)
    next_thursday = next_first + timedelta(days=(3 - next_first.weekday()) % 7)
    return first_thursday - timedelta(days=3), next_thursday - timedelta(days=4)


def parse_node_id(node_id: str) -> NodeKey:
    """What a node id says about its level and period.

    Raises:
        InvalidId: the value is not a TOC node id, or names no real date or week.
    """
    match = _NODE_RE.fullmatch(node_id)
    if match is None:
        raise InvalidId(
            "not a TOC node id (toc:year:YYYY, toc:month:YYYY-MM, toc:week:YYYY-Www, "
            f"toc:day:YYYY-MM-DD or toc:segment:YYYY-MM-DD:<suffix>): {node_id!r}"
        )
    try:
        return _node_key(match, node_id)
    except InvalidId:
        raise
    except (ValueError, OverflowError):
        # A period at the very edge of the date range (late in 9999) has no representable end.
        raise InvalidId(
            f"node id names a period outside the supported dates: {node_id!r}"
        ) from None


def _node_key(match: re.Match[str], node_id: str) -> NodeKey:
    if match["year"] is not None:
        year = int(match["year"])
        first, _ = _iso_week_days(year, 1, node_id)
        following, _ = _iso_week_days(year + 1, 1, node_id)
        return NodeKey(TocLevel.YEAR, first, following - timedelta(days=1))
    if match["month"] is not None:
        month = int(match["month"])
        if not 1 <= month <= 12:
            raise InvalidId(f"node id names no month: {node_id!r}")
        first, last = _month_days(int(match["m_year"]), month)
        return NodeKey(TocLevel.MONTH, first, last)
    if match["week"] is not None:
        first, last = _iso_week_days(int(match["w_year"]), int(match["week"]), node_id)
        return NodeKey(TocLevel.WEEK, first, last)
    if match["day"] is not None:
        day = _date(match["day"], node_id)
        return NodeKey(TocLevel.DAY, day, day)
    day = _date(match["s_day"], node_id)
    return NodeKey(TocLevel.SEGMENT, day, day, match["suffix"])


def level_of(node_id: str) -> TocLevel:
    """The level a node id names.

    Raises:
        InvalidId: the value is not a TOC node id.
    """
    return parse_node_id(node_id).level


def node_period(node_id: str) -> str:
    """The period a node id names, as written after its level: ``2026-W05`` for
    ``toc:week:2026-W05``, ``2026-01-30:<suffix>`` for a segment.

    Raises:
        InvalidId: the value is not a TOC node id.
    """
    parse_node_id(node_id)
    return node_id.split(":", 2)[2]


def month_of_week(iso_year: int, iso_week: int) -> tuple[int, int]:
    """The (year, month) a week belongs to: the month of its Thursday."""
    thursday = date.fromisocalendar(iso_year, iso_week, 4)
    return thursday.year, thursday.month


def calendar_node_id(level: TocLevel, when: datetime | date) -> str:
    """The id of the year, month, week or day node whose period holds ``when`` (in UTC).

    Raises:
        InvalidArgument: ``level`` is SEGMENT, which has no calendar id.
    """
    day = in_utc(when, error=InvalidId).date() if isinstance(when, datetime) else when
    iso_year, iso_week, _ = day.isocalendar()
    if level is TocLevel.DAY:
        return day_id(day)
    if level is TocLevel.WEEK:
        return week_id(iso_year, iso_week)
    year, month = month_of_week(iso_year, iso_week)
    if level is TocLevel.MONTH:
        return month_id(year, month)
    if level is TocLevel.YEAR:
        return year_id(year)
    raise InvalidId("segments have no calendar id; use segment_id(day, suffix)")


@functools.lru_cache(maxsize=1 << 16)  # a build asks for each day's, week's ... parent often
def parent_id(node_id: str) -> str | None:
    """The id of a node's parent, or None for a year.

    Raises:
        InvalidId: the value is not a TOC node id.
    """
    key = parse_node_id(node_id)
    parent = key.level.parent()
    if parent is None:
        return None
    return calendar_node_id(parent, key.first_day)

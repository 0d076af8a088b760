"""Time hints in a query: "yesterday", "last week", "in January", "between Jan 5 and Jan 9".

:func:`parse_time_hints` finds the phrases of a query that name a period, resolves each to a
half-open UTC :class:`TimeRange` as of a given ``now``, and returns the rest of the query as the
topic. Periods are calendar periods on the clocks of ``now``'s time zone (pass
``datetime.now(ZoneInfo("America/Los_Angeles"))`` and "yesterday" is that zone's yesterday):
days, ISO weeks (Monday to Sunday), calendar months and calendar years. Names without a year
("in January", "Jan 30", "Tuesday") mean the latest such period that has begun by ``now``.
Ranges never reach past the end of ``now``'s day, except for a date the query spells out in
full in the future ("2031-01-05").

Recognised forms (case-insensitive)::

    today, tonight, this morning/afternoon/evening      yesterday, last night
    this/last week, month, year                         last weekend, the weekend
    N days/weeks/months/years ago, a week ago           last/past N days/weeks/months/years
    past day/week/month/year (rolling)                  Tuesday, on Tuesday, last Tuesday
    January, in Jan, January 2026, Jan 30, 30th of Jan  Jan 30, 2026, 2026-01-30, 2026-W04, 2026-01
    in 2025                                             since <any of the above>
    between <any> and <any>, from <any> to/until <any>

"May" and "March" are months only next to a day number or a year, or after a word such as "in",
"since", "during", "from" or "between", so "we may need" and "march forward" are left alone; the
same holds for abbreviations and bare years. A date that does not exist (Feb 30) is no hint.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import date, datetime, timedelta, timezone, tzinfo

import attrs

from tocsearch._checks import in_utc
from tocsearch.errors import InvalidArgument
from tocsearch.text import ascii_digits

__all__ = ["TimeHints", "TimeRange", "parse_time_hints", "topic_without"]

_FIRST_TIME = datetime.min.replace(tzinfo=timezone.utc)
_LAST_TIME = datetime.max.replace(tzinfo=timezone.utc)


@attrs.frozen
class TimeRange:
    """A half-open span of time ``[start, end)`` in UTC; ``start`` is always before ``end``."""

    start: datetime = attrs.field(converter=in_utc)
    end: datetime = attrs.field(converter=in_utc)

    @end.validator
    def _after_start(self, _: attrs.Attribute[datetime], value: datetime) -> None:
        if value <= self.start:
            raise InvalidArgument(
                f"TimeRange end {value.isoformat()} must be after start {self.start.isoformat()}"
            )

    def contains(self, when: datetime) -> bool:
        """Whether ``when`` lies in the range."""
        return self.start <= in_utc(when) < self.end

    def overlaps(self, start: datetime, end: datetime) -> bool:
        """Whether a node spanning ``[start, end]`` overlaps the range, by the rule of
        :mod:`tocsearch.storage.protocol`: ``start < self.end`` and ``end >= self.start``."""
        return start < self.end and end >= self.start

    def widened(self, periods: int = 1) -> TimeRange:
        """The range grown by ``periods`` times its own length on each side, up to
        ``datetime.min`` and ``datetime.max``: the last 1000 years, asked in 1976, reach back
        past the year 1."""
        grow = (self.end - self.start) * periods
        # Compared before adding, so the range stops at the ends of time, not overflows.
        return TimeRange(
            self.start - min(grow, self.start - _FIRST_TIME),
            self.end + min(grow, _LAST_TIME - self.end),
        )

    def label(self) -> str:
        """A short human form: ``2026-01-30`` for one day, else ``2026-01-26..2026-02-01``."""
        first = self.start.date()
        last = (self.end - timedelta(microseconds=1)).date()
        return first.isoformat() if first == last else f"{first.isoformat()}..{last.isoformat()}"


@attrs.frozen
class TimeHints:
    """What :func:`parse_time_hints` found: the topic left over, the ranges and the phrases.

    ``ranges[i]`` is the period named by ``phrases[i]``.
    """

    topic: str
    ranges: tuple[TimeRange, ...] = ()
    phrases: tuple[str, ...] = ()

    @property
    def span(self) -> TimeRange | None:
        """The smallest range covering every hinted range, or None without hints."""
        if not self.ranges:
            return None
        return TimeRange(
            min(found.start for found in self.ranges), max(found.end for found in self.ranges)
        )


# -- vocabulary ----------------------------------------------------------------------------

_MONTHS: dict[str, int] = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4,
    "apr": 4, "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
    "september": 9, "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
    "december": 12, "dec": 12,
}  # fmt: skip
# Full names that are not also everyday English words, so they count as months on their own.
_PLAIN_MONTHS = frozenset(
    {"january", "february", "april", "june", "july", "august", "september", "october"}
    | {"november", "december"}
)
_WEEKDAYS: dict[str, int] = {
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5,
    "sunday": 6,
}  # fmt: skip
_NUMBER_WORDS: dict[str, int] = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}  # fmt: skip
_UNITS: dict[str, str] = {
    "day": "day", "days": "day", "week": "week", "weeks": "week", "month": "month",
    "months": "month", "year": "year", "years": "year",
}  # fmt: skip
# Words after which a bare month or year is read as a time ("in may", "since 2025"); "on",
# "to" and "at" are left out because "work on march plans" and "need to march" are not times.
_LICENSING = frozenset({"in", "during", "since", "from", "between", "throughout", "of"})
# Prepositions that lead into a hint and dangle once it is removed ("in", "the" of "in the").
_LEADING = frozenset(
    {"in", "during", "on", "over", "within", "at", "throughout", "around", "of", "from"}
)
_RANGE_JOINERS = frozenset({"to", "until", "till", "through", "thru", "-", "–"})

_TOKEN = re.compile(
    r"\d{4}-[Ww]\d{1,2}(?!\d)"  # ISO week 2026-W04
    r"|\d{4}-\d{1,2}-\d{1,2}(?!\d)"  # ISO date
    r"|\d{4}-\d{1,2}(?![\d-])"  # ISO month
    r"|\w+(?:['’]\w+)?"  # a word, with a possessive or contraction
    r"|[^\w\s]"  # one punctuation mark
)
_DAY_NUMBER = re.compile(r"(\d{1,2})(?:st|nd|rd|th)?")
_YEAR_NUMBER = re.compile(r"\d{4}")
_ISO_WEEK = re.compile(r"(\d{4})-[Ww](\d{1,2})")
_ISO_DATE = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})")
_ISO_MONTH = re.compile(r"(\d{4})-(\d{1,2})")
_MIN_YEAR, _MAX_YEAR = 1970, 2286  # what node and event ids can carry
_ONE_DAY = timedelta(days=1)


# -- calendar helpers ----------------------------------------------------------------------


@attrs.frozen
class _Period:
    """Days ``[first, stop)``; ``anchored`` periods were named by the calendar, not by now."""

    first: date
    stop: date
    anchored: bool = False


def _day(day: date) -> _Period:
    return _Period(day, day + _ONE_DAY)


def _iso_week_of(day: date) -> _Period:
    monday = day - timedelta(days=day.weekday())
    return _Period(monday, monday + timedelta(days=7))


def _month(year: int, month: int, *, anchored: bool = False) -> _Period:
    return _Period(
        date(year, month, 1), date(year + month // 12, month % 12 + 1, 1), anchored=anchored
    )


def _year(year: int, *, anchored: bool = False) -> _Period:
    return _Period(date(year, 1, 1), date(year + 1, 1, 1), anchored=anchored)


def _shift_months(day: date, months: int) -> date:
    """The same day of the month ``months`` later (negative: earlier), clamped to the month."""
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    month += 1
    following = date(year + month // 12, month % 12 + 1, 1)
    return date(year, month, min(day.day, (following - _ONE_DAY).day))


def _valid_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


# -- tokens --------------------------------------------------------------------------------


@attrs.frozen
class _Token:
    text: str
    start: int
    end: int

    @property
    def key(self) -> str:
        """The token folded for matching, without a trailing possessive ("today's")."""
        folded = self.text.casefold()
        for suffix in ("'s", "’s"):
            if folded.endswith(suffix):
                return folded[: -len(suffix)]
        return folded


@attrs.frozen
class _Found:
    """A hint over tokens ``[first, stop)`` and the period it names."""

    first: int
    stop: int
    period: _Period


class _Parser:
    """Resolves hints over a token list as of one day; each method tries one form at index i
    and returns the period and the index after it, or None."""

    def __init__(self, tokens: list[_Token], today: date) -> None:
        self.tokens = tokens
        self.today = today
        # Each form looks at the keys around it: each token's is folded once.
        self._keys = [token.key for token in tokens]
        self._forms: tuple[Callable[[int, date, bool], tuple[_Period, int] | None], ...] = (
            self._iso,
            self._relative,
            self._ago,
            self._weekday,
            self._month_first,
            self._day_first,
            self._bare_year,
        )

    def key(self, index: int) -> str:
        keys = self._keys
        return keys[index] if 0 <= index < len(keys) else ""

    # -- small pieces ---------------------------------------------------------------------
    def day_number(self, index: int) -> int | None:
        match = _DAY_NUMBER.fullmatch(self.key(index))
        if match is None:
            return None
        value = int(match[1])
        return value if 1 <= value <= 31 else None

    def year_number(self, index: int) -> int | None:
        key = self.key(index)
        if _YEAR_NUMBER.fullmatch(key) and _MIN_YEAR <= int(key) <= _MAX_YEAR:
            return int(key)
        return None

    def count(self, index: int) -> tuple[int, int] | None:
        """A small count: digits, a number word, "a couple of"."""
        key = self.key(index)
        if key in ("a", "couple") and self.key(index + (key == "a")) == "couple":
            after = index + (2 if key == "a" else 1)
            return 2, after + (self.key(after) == "of")
        if ascii_digits(key) and 0 < int(key) <= 1000:
            return int(key), index + 1
        if key in _NUMBER_WORDS:
            return _NUMBER_WORDS[key], index + 1
        return None

    def year_after(self, index: int) -> tuple[int, int] | None:
        """A year at ``index``, or after a comma or "of" there."""
        year = self.year_number(index)
        if year is not None:
            return year, index + 1
        if self.key(index) in (",", "of"):
            year = self.year_number(index + 1)
            if year is not None:
                return year, index + 2
        return None

    # -- the forms --------------------------------------------------------------------------
    def point(self, index: int, *, ref: date, licensed: bool) -> tuple[_Period, int] | None:
        """A single period at ``index``; ``ref`` is the latest day a yearless name may mean."""
        for form in self._forms:
            found = form(index, ref, licensed)
            if found is not None:
                return found
        return None

    def _iso(self, index: int, _ref: date, _licensed: bool) -> tuple[_Period, int] | None:
        key = self.key(index)
        # Like every year a hint names, an ISO date's or week's is one ids can carry: the
        # last day of 9999 has no next day to end its range.
        if match := _ISO_WEEK.fullmatch(key):
            if not _MIN_YEAR <= int(match[1]) <= _MAX_YEAR:
                return None
            try:
                monday = date.fromisocalendar(int(match[1]), int(match[2]), 1)
            except ValueError:
                return None
            return _Period(monday, monday + timedelta(days=7), anchored=True), index + 1
        if match := _ISO_DATE.fullmatch(key):
            if not _MIN_YEAR <= int(match[1]) <= _MAX_YEAR:
                return None
            day = _valid_date(int(match[1]), int(match[2]), int(match[3]))
            return (_Period(day, day + _ONE_DAY, anchored=True), index + 1) if day else None
        if match := _ISO_MONTH.fullmatch(key):
            year, month = int(match[1]), int(match[2])
            if 1 <= month <= 12 and _MIN_YEAR <= year <= _MAX_YEAR:
                return _month(year, month, anchored=True), index + 1
        return None

    def _relative(self, index: int, _ref: date, _licensed: bool) -> tuple[_Period, int] | None:
        key, following = self.key(index), self.key(index + 1)
        today = self.today
        if key in ("today", "tonight"):
            return _day(today), index + 1
        if key == "yesterday":
            return _day(today - _ONE_DAY), index + 1
        if key == "this" and following in ("morning", "afternoon", "evening"):
            return _day(today), index + 2
        if key == "last" and following == "night":
            return _day(today - _ONE_DAY), index + 2
        if key in ("this", "current") and _UNITS.get(following) == following:
            return self._calendar_unit(following, 0), index + 2
        if key in ("last", "past", "previous", "prior"):
            counted = self.count(index + 1)
            if counted is not None and counted[0] > 0 and self.key(counted[1]) in _UNITS:
                return self._rolling(counted[0], _UNITS[self.key(counted[1])]), counted[1] + 1
            if _UNITS.get(following) == following:
                if key == "past":
                    return self._rolling(1, following), index + 2
                return self._calendar_unit(following, -1), index + 2
            if key == "last" and following == "weekend":
                saturday = today - timedelta(days=today.weekday() + 2)
                return _Period(saturday, saturday + timedelta(days=2)), index + 2
        if key in ("the", "this") and following == "weekend":
            # The most recent weekend that has begun: this one on a Saturday or Sunday.
            saturday = today - timedelta(days=(today.weekday() - 5) % 7)
            return _Period(saturday, saturday + timedelta(days=2)), index + 2
        return None

    def _calendar_unit(self, unit: str, offset: int) -> _Period:
        today = self.today
        if unit == "day":
            return _day(today + timedelta(days=offset))
        if unit == "week":
            return _iso_week_of(today + timedelta(days=7 * offset))
        if unit == "month":
            shifted = _shift_months(today.replace(day=1), offset)
            return _month(shifted.year, shifted.month)
        return _year(today.year + offset)

    def _rolling(self, amount: int, unit: str) -> _Period:
        """The last ``amount`` units up to and including today."""
        stop = self.today + _ONE_DAY
        if unit == "day":
            return _Period(stop - timedelta(days=amount), stop)
        if unit == "week":
            return _Period(stop - timedelta(days=7 * amount), stop)
        months = amount if unit == "month" else 12 * amount
        return _Period(_shift_months(self.today, -months) + _ONE_DAY, stop)

    def _ago(self, index: int, _ref: date, _licensed: bool) -> tuple[_Period, int] | None:
        counted = self.count(index)
        if counted is None:
            return None
        amount, after = counted
        unit = _UNITS.get(self.key(after))
        if unit is None or self.key(after + 1) != "ago":
            return None
        return self._calendar_unit(unit, -amount), after + 2

    def _weekday(self, index: int, _ref: date, licensed: bool) -> tuple[_Period, int] | None:
        key = self.key(index)
        strictly_before = key == "last"
        if key in ("last", "this") and self.key(index + 1) in _WEEKDAYS:
            index += 1
            key = self.key(index)
        if key not in _WEEKDAYS:
            return None
        back = (self.today.weekday() - _WEEKDAYS[key]) % 7
        if strictly_before and back == 0:
            back = 7
        return _day(self.today - timedelta(days=back)), index + 1

    def _month_first(self, index: int, ref: date, licensed: bool) -> tuple[_Period, int] | None:
        key = self.key(index)
        month = _MONTHS.get(key)
        if month is None:
            return None
        day = self.day_number(index + 1)
        if day is not None:
            return self._dated(month, day, index + 2, ref)
        year = self.year_after(index + 1)
        if year is not None:
            return _month(year[0], month, anchored=True), year[1]
        if licensed or key in _PLAIN_MONTHS:
            year_of = ref.year if month <= ref.month else ref.year - 1
            return _month(year_of, month, anchored=True), index + 1
        return None

    def _day_first(self, index: int, ref: date, _licensed: bool) -> tuple[_Period, int] | None:
        day = self.day_number(index)
        if day is None:
            return None
        at = index + 1 + (self.key(index + 1) == "of")
        month = _MONTHS.get(self.key(at))
        if month is None:
            return None
        return self._dated(month, day, at + 1, ref)

    def _dated(self, month: int, day: int, after: int, ref: date) -> tuple[_Period, int] | None:
        """A month and day, with the year that follows or else the latest one by ``ref``."""
        year = self.year_after(after)
        if year is not None:
            found = _valid_date(year[0], month, day)
            return (_Period(found, found + _ONE_DAY, anchored=True), year[1]) if found else None
        # Feb 29 may lie up to eight years back (1900 and 2100 are not leap years).
        for back in range(9):
            found = _valid_date(ref.year - back, month, day)
            if found is not None and found <= ref:
                return _Period(found, found + _ONE_DAY, anchored=True), after
        return None

    def _bare_year(self, index: int, _ref: date, licensed: bool) -> tuple[_Period, int] | None:
        year = self.year_number(index)
        if year is None or not licensed:
            return None
        return _year(year, anchored=True), index + 1


# -- the scan ------------------------------------------------------------------------------


def _scan(parser: _Parser) -> list[_Found]:
    """Every hint in the query, left to right, without overlaps."""
    found: list[_Found] = []
    today = parser.today
    index = 0
    while index < len(parser.tokens):
        key = parser.key(index)
        hit: _Found | None = None
        if key == "since":
            hit = _since(parser, index)
        elif key in ("between", "from"):
            hit = _between(parser, index)
        if hit is None and key in _LEADING:
            licensed = key in _LICENSING
            lead = parser.point(index + 1, ref=today, licensed=licensed)
            if lead is None and parser.key(index + 1) == "the":
                lead = parser.point(index + 2, ref=today, licensed=licensed)
            if lead is not None:
                hit = _Found(index, lead[1], lead[0])
        if hit is None:
            single = parser.point(index, ref=today, licensed=parser.key(index - 1) in _LICENSING)
            if single is not None:
                hit = _Found(index, single[1], single[0])
        if hit is None:
            index += 1
            continue
        found.append(hit)
        index = hit.stop
    return found


def _since(parser: _Parser, index: int) -> _Found | None:
    start = parser.point(index + 1, ref=parser.today, licensed=True)
    if start is None:
        return None
    horizon = parser.today + _ONE_DAY
    period = start[0]
    stop = horizon if period.first < horizon else period.stop
    return _Found(index, start[1], _Period(period.first, stop, anchored=period.anchored))


def _between(parser: _Parser, index: int) -> _Found | None:
    today = parser.today
    first = parser.point(index + 1, ref=today, licensed=True)
    if first is None:
        return None
    joiner = parser.key(first[1])
    joined = joiner == "and" if parser.key(index) == "between" else joiner in _RANGE_JOINERS
    if not joined:
        return None
    second = parser.point(first[1] + 1, ref=today, licensed=True)
    if second is None:
        return None
    # "between March and May" in April means last year's March to May: a yearless start
    # is the latest one not after the end.
    later_ref = min(today, second[0].stop - _ONE_DAY)
    first = parser.point(index + 1, ref=later_ref, licensed=True) or first
    low = min(first[0].first, second[0].first)
    high = max(first[0].stop, second[0].stop)
    return _Found(index, second[1], _Period(low, high, anchored=True))


def _midnight(day: date, zone: tzinfo) -> datetime:
    """The start of ``day`` on the clocks of ``zone``."""
    return datetime(day.year, day.month, day.day, tzinfo=zone)


def _topic(query: str, tokens: list[_Token], removed: set[int]) -> str:
    """The query without the removed tokens, with whitespace and punctuation tidied."""
    pieces: list[str] = []
    cursor = 0
    for index, token in enumerate(tokens):
        if index in removed:
            pieces.append(query[cursor : token.start])
            cursor = token.end
    pieces.append(query[cursor:])
    return _tidy("".join(pieces))


def _tidy(text: str) -> str:
    """``text`` with runs of white space made one space, none before punctuation, no
    punctuation doubled where a phrase was cut out, and nothing dangling at either end."""
    text = re.sub(r"\s+", " ", text)
    text = re.sub(r"\s+([?.!,;:])", r"\1", text)
    text = re.sub(r"([,;:])(?=[,;:?.!])", "", text)
    return text.strip().strip(",;:- ").strip()


def topic_without(query: str, phrases: Sequence[str]) -> str:
    """``query`` with the first occurrence of each of ``phrases`` cut out, in order and tidied
    as :func:`parse_time_hints` tidies its topic: usually that topic again, so a result can
    leave it out of its JSON (it checks that it is).

    >>> topic_without("JWT bugs last week", ["last week"])
    'JWT bugs'
    """
    rest = query
    pieces: list[str] = []
    for phrase in phrases:
        at = rest.find(phrase)
        if at < 0 or not phrase:
            continue
        pieces.append(rest[:at])
        rest = rest[at + len(phrase) :]
    pieces.append(rest)
    return _tidy("".join(pieces))


def parse_time_hints(query: str, now: datetime) -> TimeHints:
    """The time hints of ``query`` resolved as of ``now``, and the topic that remains.

    Example: ``parse_time_hints("JWT bugs last week", now)`` gives the topic ``"JWT bugs"``,
    one range over the previous ISO week, and the phrase ``"last week"``.

    Raises:
        InvalidArgument: ``now`` is naive or not a datetime, or its date lies outside the
            years event ids carry (1970 to 2286), or ``query`` is not a string.
    """
    if not isinstance(query, str):
        raise InvalidArgument(f"query must be a string, got {type(query).__name__}: {query!r}")
    # Days are the asker's: "yesterday" at 20:00 in UTC-8 is the day before their today, which
    # is not the day before today in UTC. ``now``'s own zone says whose days they are.
    in_utc(now, "now")
    zone = now.tzinfo
    assert zone is not None  # in_utc refused a naive now
    today = now.date()
    # Every period a hint can name then has its bounds in the calendar ("1000 years ago" and
    # "next year's" first day included), and no stored event lies on another day anyway.
    if not _MIN_YEAR <= today.year <= _MAX_YEAR:
        raise InvalidArgument(
            f"now must lie in the years {_MIN_YEAR} to {_MAX_YEAR} that event ids carry, "
            f"got {now.isoformat()}"
        )
    tokens = [_Token(m[0], m.start(), m.end()) for m in _TOKEN.finditer(query)]
    parser = _Parser(tokens, today)
    found = _scan(parser)
    horizon = today + _ONE_DAY
    removed: set[int] = set()
    ranges: list[TimeRange] = []
    phrases: list[str] = []
    for hit in found:
        period = hit.period
        # A named period still running ends with today: nothing after now is history yet.
        stop = min(period.stop, horizon) if period.first < horizon else period.stop
        ranges.append(TimeRange(_midnight(period.first, zone), _midnight(stop, zone)))
        phrases.append(query[tokens[hit.first].start : tokens[hit.stop - 1].end])
        removed.update(range(hit.first, hit.stop))
        # Prepositions that led into the hint ("during the") would dangle without it.
        before = hit.first - 1
        while before >= 0 and before not in removed and parser.key(before) in _LEADING | {"the"}:
            removed.add(before)
            before -= 1
    # "yesterday and today": the joiner between two removed hints goes as well.
    for index in range(1, len(tokens) - 1):
        if parser.key(index) in ("and", ",", "or") and {index - 1, index + 1} <= removed:
            removed.add(index)
    return TimeHints(_topic(query, tokens, removed), tuple(ranges), tuple(phrases))

"""Whose clock: the user's time zone, for the days and weeks a question names.

Records stay in UTC; only the reading of "yesterday" or "last week" (and the dates shown to a
person) follow a zone. The zone is an IANA name where one can be found (so that a date in summer
gets summer time), else the fixed offset the system reports now.
"""

from __future__ import annotations

import os
import re
from datetime import datetime, timedelta, timezone, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from tocsearch.errors import InvalidArgument

__all__ = ["local_time", "local_zone", "parse_zone", "zone_name"]

# re.ASCII: \d alone also matches other scripts' digits (which int() reads).
_OFFSET = re.compile(r"^(?:UTC|GMT)?([+-])(\d{1,2})(?::?(\d{2}))?$", re.IGNORECASE | re.ASCII)


def parse_zone(text: str) -> tzinfo:
    """The zone named by ``text``: an IANA name (``Europe/Berlin``), ``UTC``, or an offset such
    as ``+05:30`` or ``UTC-8``.

    >>> parse_zone("UTC-8")
    datetime.timezone(datetime.timedelta(days=-1, seconds=57600))
    >>> parse_zone("Europe/Berlin")
    zoneinfo.ZoneInfo(key='Europe/Berlin')

    Raises:
        InvalidArgument: no zone has that name.
    """
    name = text.strip()
    if name.upper() in ("UTC", "Z", "GMT"):
        return timezone.utc
    offset = _OFFSET.match(name)
    if offset:
        sign, hours, minutes = offset.groups()
        if int(minutes or 0) >= 60:
            raise InvalidArgument(f"time zone offset {text!r} has {minutes} minutes")
        delta = timedelta(hours=int(hours), minutes=int(minutes or 0))
        if delta > timedelta(hours=14):
            raise InvalidArgument(f"time zone offset {text!r} is beyond 14 hours")
        return timezone(-delta if sign == "-" else delta)
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise InvalidArgument(
            f"unknown time zone {text!r}; write an IANA name such as Europe/Berlin, "
            "or an offset such as +05:30"
        ) from None


def local_zone() -> tzinfo:
    """The system's time zone: ``$TZ`` when it names one, else the zone ``/etc/localtime``
    links to, else the offset the system reports now (which knows no daylight saving)."""
    for name in (os.environ.get("TZ", "").lstrip(":"), _linked_zone_name()):
        if name:
            try:
                return ZoneInfo(name)
            except (ZoneInfoNotFoundError, ValueError):
                continue
    zone = datetime.now().astimezone().tzinfo
    return zone if zone is not None else timezone.utc


def _linked_zone_name() -> str:
    try:
        target = os.readlink("/etc/localtime")
    except OSError:
        return ""
    parts = Path(target).parts
    if "zoneinfo" in parts:
        return "/".join(parts[parts.index("zoneinfo") + 1 :])
    return ""


def local_time(moment: datetime, zone: tzinfo) -> str:
    """``moment`` as a person in ``zone`` reads it, with the zone's short name: the form every
    result shown at a terminal uses.

    >>> at = datetime(2026, 2, 18, 4, 0, tzinfo=timezone.utc)
    >>> local_time(at, parse_zone("America/Los_Angeles"))
    '2026-02-17 20:00 PST'
    >>> local_time(at, parse_zone("UTC-8"))
    '2026-02-17 20:00 -0800'
    """
    when = moment.astimezone(zone)
    name = when.tzname() or "UTC"
    # A fixed offset is named "UTC-08:00": shown as %z writes it, to keep lines short.
    return f"{when:%Y-%m-%d %H:%M} {name if len(name) <= 5 else format(when, '%z')}"


def zone_name(zone: tzinfo | None, at: datetime) -> str:
    """A name :func:`parse_zone` reads back as ``zone``: its IANA key, ``UTC``, or else its
    offset at ``at`` (a zone with neither knows no daylight saving that a name could carry).

    >>> zone_name(parse_zone("Europe/Berlin"), datetime(2026, 1, 1, tzinfo=timezone.utc))
    'Europe/Berlin'
    >>> zone_name(parse_zone("-08:00"), datetime(2026, 1, 1, tzinfo=timezone.utc))
    '-08:00'
    >>> zone_name(None, datetime(2026, 1, 1, tzinfo=timezone.utc))
    'UTC'
    """
    if isinstance(zone, ZoneInfo) and zone.key:
        return zone.key
    offset = zone.utcoffset(at.replace(tzinfo=None)) if zone is not None else None
    if not offset:
        return "UTC"
    minutes = int(offset.total_seconds()) // 60
    sign = "-" if minutes < 0 else "+"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"

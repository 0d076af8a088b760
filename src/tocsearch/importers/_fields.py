"""Reading typed fields out of parsed JSON, with reasons that name the field and the value."""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping
from datetime import datetime, timedelta, timezone
from typing import Any

from tocsearch.ids import event_id
from tocsearch.importers._collect import BadRecord
from tocsearch.text import clip, encodable

__all__ = [
    "epoch_seconds",
    "hashed_suffix",
    "optional_str",
    "parse_iso_timestamp",
    "require_mapping",
    "require_str",
    "safe_suffix",
    "short",
    "stamped_id",
    "tag",
]

_SAFE_SUFFIX = re.compile(r"[A-Za-z0-9_.:-]{1,200}")
# re.ASCII: \d alone also matches other scripts' digits, which int() reads in an offset or a
# fraction although no ISO 8601 reader does.
_ISO = re.compile(
    r"(?P<date>\d{4}-\d{2}-\d{2})[T ](?P<hour>\d{2}):(?P<minute>\d{2})"
    r"(?::(?P<second>\d{2})(?:[.,](?P<fraction>\d{1,9}))?)?"
    r"\s*(?P<zone>Z|z|[+-]\d{2}(?::?\d{2})?)?",
    re.ASCII,
)
# Epoch seconds past this (the year 5138) are almost surely milliseconds by mistake.
_MAX_EPOCH_SECONDS = 10**11
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def short(value: Any, limit: int = 60) -> str:
    """A value's repr, cut to ``limit`` characters so a message never carries a whole document."""
    return clip(repr(value), limit)


def _type_name(value: Any) -> str:
    return {
        type(None): "null",
        bool: "a boolean",
        int: "a number",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "an object",
    }.get(type(value), type(value).__name__)


def require_mapping(value: Any, what: str) -> Mapping[str, Any]:
    """``value`` when it is a JSON object, else a :class:`BadRecord`."""
    if not isinstance(value, dict):
        raise BadRecord(f"{what} must be a JSON object, got {_type_name(value)}")
    return value


def require_str(record: Mapping[str, Any], key: str, *, allow_empty: bool = False) -> str:
    """The string at ``key``; missing, non-string or (unless allowed) empty values are refused."""
    if key not in record or record[key] is None:
        raise BadRecord(f"{key!r} is missing")
    value = record[key]
    if not isinstance(value, str):
        raise BadRecord(f"{key!r} must be a string, got {_type_name(value)} {short(value)}")
    if not value and not allow_empty:
        raise BadRecord(f"{key!r} must not be empty")
    return value


def tag(record: Mapping[str, Any], key: str) -> str | None:
    """The string at ``key`` (a type, a role, a content type), or None when it is absent or
    anything else: a list or an object there names no known kind, and cannot even be looked
    up in a set of them."""
    value = record.get(key)
    return value if isinstance(value, str) else None


def optional_str(record: Mapping[str, Any], key: str) -> str | None:
    """The string at ``key``, or None when it is absent or null."""
    value = record.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise BadRecord(f"{key!r} must be a string, got {_type_name(value)} {short(value)}")
    return value


def parse_iso_timestamp(value: Any, key: str) -> datetime:
    """A timezone-aware datetime from an ISO 8601 string with ``Z`` or a UTC offset.

    Fractions past microseconds are cut (not rounded), so ``.1234567`` never rolls a second over.
    A string without an offset is refused: guessing a zone would misfile whole days.
    """
    if not isinstance(value, str):
        raise BadRecord(
            f"{key!r} must be an ISO 8601 string, got {_type_name(value)} {short(value)}"
        )
    match = _ISO.fullmatch(value.strip())
    if match is None:
        raise BadRecord(f"{key!r} is not an ISO 8601 timestamp: {short(value)}")
    zone = match["zone"]
    if zone is None:
        raise BadRecord(
            f"{key!r} has no UTC offset: {short(value)} (add 'Z' or an offset such as '+01:00')"
        )
    fraction = (match["fraction"] or "").ljust(6, "0")[:6]
    try:
        naive = datetime.fromisoformat(
            f"{match['date']}T{match['hour']}:{match['minute']}:{match['second'] or '00'}"
        ).replace(microsecond=int(fraction))
        if zone in ("Z", "z"):
            offset = timedelta(0)
        else:
            digits = zone[1:].replace(":", "")
            hours, minutes = int(digits[:2]), int(digits[2:4] or "0")
            if hours > 23 or minutes > 59:
                raise ValueError(f"offset {zone}")
            offset = timedelta(hours=hours, minutes=minutes) * (-1 if zone[0] == "-" else 1)
        return naive.replace(tzinfo=timezone(offset)).astimezone(timezone.utc)
    except (ValueError, OverflowError):
        raise BadRecord(f"{key!r} is not a valid date and time: {short(value)}") from None


def epoch_seconds(value: Any, key: str) -> datetime:
    """A UTC datetime from a number of seconds since the Unix epoch (fractions allowed)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise BadRecord(f"{key!r} must be a number of epoch seconds, got {short(value)}")
    # An int is compared as it is: math.isfinite would turn 10**400 into a float and overflow.
    if (isinstance(value, float) and not math.isfinite(value)) or value < 0:
        raise BadRecord(f"{key!r} must be a non-negative number of epoch seconds, got {value!r}")
    if value >= _MAX_EPOCH_SECONDS:
        raise BadRecord(
            f"{key!r} = {short(value)} is past the year 5000 as epoch seconds; "
            "epoch milliseconds are not accepted, divide by 1000"
        )
    whole = int(value)
    micros = round((value - whole) * 1_000_000) if isinstance(value, float) else 0
    return _EPOCH + timedelta(seconds=whole, microseconds=micros)


def hashed_suffix(*parts: str, prefix: str = "h") -> str:
    """A short, stable suffix from text parts: the same parts always give the same suffix.

    The parts are hashed as the event will hold them (:func:`~tocsearch.text.encodable`), so a
    part with an unpaired surrogate hashes like its stored form instead of failing to encode.
    """
    digest = hashlib.sha256(encodable("\x1f".join(parts)).encode("utf-8")).hexdigest()
    return f"{prefix}{digest[:20]}"


def safe_suffix(raw: str) -> str:
    """``raw`` itself when it is a valid id suffix, else a stable hash of it."""
    if _SAFE_SUFFIX.fullmatch(raw):
        return raw
    return hashed_suffix(raw)


def stamped_id(timestamp: datetime, suffix: str) -> str:
    """The event id for ``timestamp`` and ``suffix``, refusing times an id cannot carry."""
    try:
        return event_id(timestamp, suffix)
    except ValueError as error:
        raise BadRecord(str(error)) from None

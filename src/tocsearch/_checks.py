"""The argument checks that public entry points share, each spelled once so that a rule and
its message are the same wherever it is broken.

>>> whole_number("limit", 3)
3
>>> whole_number("limit", 0)
Traceback (most recent call last):
  ...
tocsearch.errors.InvalidArgument: limit must be a whole number of at least 1, got 0
>>> from datetime import timedelta, timezone
>>> in_utc(datetime(2026, 1, 30, 10, tzinfo=timezone(timedelta(hours=1)))).isoformat()
'2026-01-30T09:00:00+00:00'
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import datetime, timezone
from typing import TypeVar

from tocsearch.errors import InvalidArgument

__all__ = ["in_utc", "positive_number", "records_of", "whole_number"]

_R = TypeVar("_R")
_UTC = timezone.utc


def whole_number(name: str, value: int, minimum: int = 1, maximum: int | None = None) -> int:
    """``value`` when it is an ``int`` (a ``bool`` is not) of at least ``minimum`` and, when
    given, at most ``maximum``.

    Raises:
        InvalidArgument: it is not; the message names ``name``, the bounds and the value.
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InvalidArgument(f"{name} must be a whole number of at least {minimum}, got {value!r}")
    if maximum is not None and value > maximum:
        raise InvalidArgument(f"{name} must be at most {maximum}, got {value!r}")
    return value


def positive_number(name: str, value: float) -> float:
    """``value`` as a float when it is a finite ``int`` or ``float`` (a ``bool`` is not)
    above 0.

    >>> positive_number("weight", 2)
    2.0

    Raises:
        InvalidArgument: it is not; the message names ``name`` and the value.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 < value < math.inf:
        raise InvalidArgument(f"{name} must be a finite number above 0, got {value!r}")
    return float(value)


def in_utc(
    value: datetime, name: str = "time", *, error: type[InvalidArgument] = InvalidArgument
) -> datetime:
    """``value`` converted to UTC when it is a timezone-aware datetime.

    Raises:
        InvalidArgument: (or the subclass ``error``) it is not a datetime, or it is naive: a
            naive time could be any of 26 hours, so no zone is guessed for it; or its instant
            has no UTC datetime (early on 0001-01-01 east of Greenwich, late on 9999-12-31
            west of it).
    """
    if type(value) is datetime and value.tzinfo is _UTC:
        return value  # every stored record's times: checked for each record read
    if not isinstance(value, datetime):
        raise error(f"{name} must be a datetime, got {type(value).__name__}: {value!r}")
    if value.tzinfo is None or value.utcoffset() is None:
        raise error(f"{name} must be timezone-aware, got naive {value.isoformat()}")
    if value.tzinfo is timezone.utc:
        return value
    try:
        return value.astimezone(timezone.utc)
    except OverflowError:
        raise error(
            f"{name} {value.isoformat()} lies outside the dates a UTC datetime can hold"
        ) from None


def records_of(kind: type[_R], values: Iterable[_R], name: str) -> tuple[_R, ...]:
    """``values`` as a tuple when every one is a ``kind`` record.

    Raises:
        InvalidArgument: ``values`` is not a collection, or holds something else.
    """
    try:
        items = tuple(values)
    except TypeError:
        raise InvalidArgument(
            f"{name} must be a collection of {kind.__name__} records, got {values!r}"
        ) from None
    for item in items:
        if not isinstance(item, kind):
            raise InvalidArgument(f"{name} must hold {kind.__name__} records, got {item!r}")
    return items

"""LoCoMo conversations: a JSON list of samples, each with dated sessions of turns.

Turns carry no timestamps of their own; only each session's start (``"1:56 pm on 8 May,
2023"``, read as UTC) is known. Turn ``i`` (from 0) of a session is placed at ``start + i *
30 s``, so turns keep their order and sit minutes apart like a real chat. When that would carry
a late session past midnight, the step shrinks (to whole milliseconds) so that every turn stays
on the session's day: a day in the TOC is then exactly the sessions dated that day.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Mapping
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from tocsearch.errors import ImportFailed, InvalidArgument
from tocsearch.importers._collect import BadRecord, Collector, make_event
from tocsearch.importers._fields import require_mapping, require_str, safe_suffix, short, stamped_id
from tocsearch.importers._json import TooDeep, parse_document
from tocsearch.importers._records import ImportResult
from tocsearch.importers._source import read_text
from tocsearch.models import EventRole, EventType

__all__ = [
    "TURN_STEP",
    "load_locomo",
    "load_locomo_document",
    "parse_session_start",
    "turn_times",
]

TURN_STEP = timedelta(seconds=30)
"""The time between two turns of a session, unless the session runs too close to midnight."""

# Only the digits 0-9, and few enough for int(): a key's number orders the sessions, while the
# key itself names and dates its session (session_01 is not session_1).
_SESSION_KEY = re.compile(r"session_([0-9]{1,9})")
_SESSION_KEY_RULE = "session_ and up to 9 of the digits 0-9"
_DATE_TIME = re.compile(
    r"(?P<hour>\d{1,2}):(?P<minute>\d{2})\s*(?P<half>am|pm)\s+on\s+"
    r"(?P<day>\d{1,2})\s+(?P<month>[A-Za-z]+),?\s+(?P<year>\d{4})",
    re.IGNORECASE,
)
_MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}


def parse_session_start(text: str) -> datetime:
    """The UTC start of a session from LoCoMo's ``"1:56 pm on 8 May, 2023"``.

    >>> parse_session_start("12:09 am on 13 September, 2023").isoformat()
    '2023-09-13T00:09:00+00:00'

    Raises:
        InvalidArgument: the text is not in that form or names no real date.
    """
    match = _DATE_TIME.fullmatch(text.strip())
    month = _MONTHS.get(match["month"].lower()) if match else None
    if match is None or month is None:
        raise InvalidArgument(f"not a LoCoMo session date like '1:56 pm on 8 May, 2023': {text!r}")
    hour = int(match["hour"])
    if not 1 <= hour <= 12:
        raise InvalidArgument(f"hour {hour} is not a 12-hour clock hour in {text!r}")
    hour = hour % 12 + (12 if match["half"].lower() == "pm" else 0)
    try:
        return datetime(
            int(match["year"]),
            month,
            int(match["day"]),
            hour,
            int(match["minute"]),
            tzinfo=timezone.utc,
        )
    except ValueError as error:
        raise InvalidArgument(f"{text!r} names no real date and time: {error}") from None


def turn_times(start: datetime, count: int) -> list[datetime]:
    """The timestamps of ``count`` turns of a session that starts at ``start``.

    Turns are :data:`TURN_STEP` apart, or closer when needed to keep the last one before the
    next midnight; they never go backwards.
    """
    if count <= 0:
        return []
    # The time left before the next midnight, worked out without making that midnight: after
    # 9999-12-31 there is none to make.
    into_day = start - datetime(start.year, start.month, start.day, tzinfo=start.tzinfo)
    room = timedelta(days=1) - into_day
    step = TURN_STEP
    if step * (count - 1) >= room:
        room_ms = room // timedelta(milliseconds=1)
        step = timedelta(milliseconds=max(0, (room_ms - 1) // max(1, count - 1)))
    return [start + step * index for index in range(count)]


def _turn_text(turn: Mapping[str, Any], speaker: str) -> str:
    text = require_str(turn, "text", allow_empty=True)
    caption = turn.get("blip_caption")
    if caption is not None and not isinstance(caption, str):
        raise BadRecord(f"'blip_caption' must be a string, got {short(caption)}")
    body = f"{speaker}: {text}"
    if caption:
        body = f"{body} [shares a photo: {caption}]"
    return body


def _sessions(
    collector: Collector, sample_id: str, conversation: Mapping[str, Any]
) -> list[tuple[str, list[Any]]]:
    """The sessions that hold turns, by key, in session order. A key that numbers a session
    in other digits, or in too many, is a problem: its turns are not read."""
    found: list[tuple[int, str, list[Any]]] = []
    for key, value in conversation.items():
        if not (isinstance(value, list) and value):
            continue
        match = _SESSION_KEY.fullmatch(key)
        if match:
            found.append((int(match[1]), key, value))
        elif key.startswith("session_") and key.removeprefix("session_").isdigit():
            collector.records_read += len(value)
            collector.problem(
                f"sample {sample_id!r}",
                f"{short(key)} is not a session key ({_SESSION_KEY_RULE}), "
                f"so its {len(value)} turns were not read",
            )
    return [(key, turns) for _, key, turns in sorted(found, key=lambda item: item[:2])]


def _load_session(
    collector: Collector,
    sample_id: str,
    conversation: Mapping[str, Any],
    key: str,
    turns: list[Any],
) -> None:
    where = f"sample {sample_id!r}, {key}"
    collector.records_read += len(turns)
    date_key = f"{key}_date_time"
    stamp = conversation.get(date_key)
    if not isinstance(stamp, str):
        collector.problem(where, f"{date_key!r} is missing, so its {len(turns)} turns have no time")
        return
    try:
        start = parse_session_start(stamp)
    except InvalidArgument as error:
        collector.problem(where, f"{date_key!r}: {error}")
        return
    session_id = f"{sample_id}:{key}"
    for index, (turn, when) in enumerate(zip(turns, turn_times(start, len(turns)), strict=True)):
        turn_where = f"{where}, turn {index + 1}"
        try:
            mapping = require_mapping(turn, "a turn")
            dia_id = require_str(mapping, "dia_id")
            turn_where = f"{where}, turn {dia_id!r}"
            speaker = require_str(mapping, "speaker")
            event = make_event(
                event_id=stamped_id(when, safe_suffix(f"{sample_id}:{dia_id}")),
                session_id=session_id,
                timestamp=when,
                role=EventRole.USER,
                event_type=EventType.USER_MESSAGE,
                text=_turn_text(mapping, speaker),
                metadata={
                    "speaker": speaker,
                    "dia_id": dia_id,
                    "sample_id": sample_id,
                    "session": key,
                },
            )
        except BadRecord as bad:
            collector.problem(turn_where, bad.reason)
            continue
        collector.add([event], turn_where)


def _samples(document: Any, path: str) -> list[Any]:
    if isinstance(document, (dict, TooDeep)):
        return [document]
    if isinstance(document, list):
        return document
    raise ImportFailed(f"{path}: a LoCoMo file is a JSON list of samples or one sample object")


def load_locomo_document(
    document: Any, path: str, *, strict: bool = True, samples: Collection[str] | None = None
) -> ImportResult:
    """Events from an already parsed LoCoMo document; see :func:`load_locomo`."""
    collector = Collector(path, strict=strict)
    wanted = None if samples is None else set(samples)
    seen: list[str] = []
    for position, sample in enumerate(_samples(document, path), start=1):
        where = f"sample {position}"
        if isinstance(sample, TooDeep):
            collector.problem(where, sample.reason)
            continue
        try:
            mapping = require_mapping(sample, "a sample")
            sample_id = require_str(mapping, "sample_id")
            conversation = require_mapping(mapping.get("conversation"), "'conversation'")
        except BadRecord as bad:
            collector.problem(where, bad.reason)
            continue
        seen.append(sample_id)
        if wanted is not None and sample_id not in wanted:
            continue
        for key, turns in _sessions(collector, sample_id, conversation):
            _load_session(collector, sample_id, conversation, key, turns)
    if wanted is not None:
        missing = sorted(wanted.difference(seen))
        if missing:
            raise InvalidArgument(
                f"{path} has no sample {', '.join(map(repr, missing))} "
                f"(it has {', '.join(seen) or 'none'})"
            )
    return collector.result()


def load_locomo(
    path: str | os.PathLike[str],
    *,
    strict: bool = True,
    samples: Collection[str] | None = None,
) -> ImportResult:
    """One USER event per LoCoMo turn, ``"Speaker: text"``, with the dia_id in its metadata.

    Args:
        path: a JSON file holding a list of samples or one sample.
        strict: raise on the first bad turn or session instead of skipping it.
        samples: import only these sample ids (all when None).

    Raises:
        ImportFailed: the file is missing, not JSON, or (in strict mode) holds a bad record.
        InvalidArgument: ``samples`` names a sample the file does not have.
    """
    if isinstance(samples, str):
        raise InvalidArgument(
            f"samples must be a collection of sample ids, got the string {samples!r}"
        )
    document = parse_document(read_text(Path(path)), os.fspath(path))
    return load_locomo_document(document, os.fspath(path), strict=strict, samples=samples)

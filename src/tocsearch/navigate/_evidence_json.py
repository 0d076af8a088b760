"""The evidence of a navigation result as JSON: grouped by segment, each item without what its
group or its own ids already say.

The token budget counts the JSON, so what repeats is said once: a run of items from one
segment is one group with the segment's id, title and conversation (``project`` and
``session_id``: one segment is one conversation); an item leaves out each of those when it
equals its group's, its ``kind`` when it
is an event, its ``start_time`` when the one event it cites carries that time in its id (event
ids hold their timestamp, see :mod:`tocsearch.ids`), its ``end_time`` when it equals the start,
a statement its ``field`` when it is ``bullets``, and every key that holds its default; an
item left with nothing but its one event id, score and text is the row ``[event_id, score,
text]``, and a group left with nothing but its segment id, its pattern (below) and its items
the row ``[segment_id, (ids,) evidence]``. A run whose second or later event fits the
pattern of its first event's id says the pattern once under ``ids``, and each event item
whose id fits it cites its reference instead (:mod:`tocsearch.navigate._event_refs`).
:func:`flat_items` puts everything back, so a result read from its JSON equals the one
written, and refuses groups that are not groups.

>>> items = [
...     {"segment_id": "s", "segment_title": "T", "kind": "event", "text": "a",
...      "field": None, "grip_ids": [], "event_ids": ["evt:1769763600000:x"], "score": 1.0,
...      "matched_terms": [], "start_time": "2026-01-30T09:00:00+00:00",
...      "end_time": "2026-01-30T09:00:00+00:00", "clipped": False,
...      "project": "/home/dev/shop", "session_id": "5b1c"},
... ]
>>> groups = segment_groups(items)
>>> [groups[0][key] for key in ("segment_id", "segment_title", "project", "session_id")]
['s', 'T', '/home/dev/shop', '5b1c']
>>> groups[0]["evidence"]
[['evt:1769763600000:x', 1.0, 'a']]
>>> flat_items(groups) == items
True
"""

from __future__ import annotations

import functools
from typing import Any

from tocsearch.errors import InvalidArgument
from tocsearch.ids import EVENT_PREFIX, parse_event_id
from tocsearch.navigate._event_refs import item_ref, resolve_ref, run_pattern, sole_event

__all__ = [
    "IDS",
    "compact_item",
    "flat_items",
    "group_of_row",
    "segment_group",
    "segment_groups",
    "written_group",
]

# The keys an item leaves out when they hold these values, and flat_items puts back.
_DEFAULTS: dict[str, Any] = {
    "kind": "event",
    "field": None,
    "grip_ids": [],
    "event_ids": [],
    "matched_terms": [],
    "clipped": False,
}


_BULLETS = "bullets"

# What a group says once for its items (an item says it again only where it differs), and what
# it is when the group leaves it out.
_GROUP_KEYS = ("segment_title", "project", "session_id")

# The key of a group's event id pattern.
IDS = "ids"

# A group that says nothing but these is written as a row, ``[segment_id, (ids,) evidence]``.
_GROUP_ROW_KEYS = frozenset({"segment_id", IDS, "evidence"})

# An item that says nothing but these is written as a row, ``[event_id, score, text]``.
_ROW_KEYS = frozenset({"event_ids", "score", "text"})


def _implied_start(event_ids: Any) -> str | None:
    """The time an item citing exactly one event has by default: that event's, from its id."""
    if not isinstance(event_ids, list) or len(event_ids) != 1 or not isinstance(event_ids[0], str):
        return None
    return _event_start(event_ids[0])


@functools.lru_cache(maxsize=4096)
def _event_start(event_id: str) -> str | None:
    """The time in ``event_id``, ISO 8601; None when it is not an event id. Kept per id: a
    fit writes each candidate's JSON in several forms."""
    try:
        return parse_event_id(event_id)[0].isoformat()
    except ValueError:
        return None


def _compact(item: dict[str, Any], group: dict[str, Any]) -> dict[str, Any]:
    data = {key: value for key, value in item.items() if key != "segment_id"}
    for key in _GROUP_KEYS:
        if key in data and data[key] == group.get(key, ""):
            del data[key]
    if data.get("end_time") == data.get("start_time"):
        data.pop("end_time", None)
    if "start_time" in data and data["start_time"] == _implied_start(data.get("event_ids")):
        del data["start_time"]
    for key, default in _DEFAULTS.items():
        if key in data and data[key] == default:
            del data[key]
    # An event item ("kind" left out as the default) whose one event fits the pattern.
    ref = None if "kind" in data else item_ref(group.get(IDS), "event", data.get("event_ids", ()))
    if ref is not None:
        data["event_ids"] = [ref]
    # A statement's field is "bullets" unless it says otherwise; an event has none.
    if data.get("kind") == "bullet" and data.get("field") == _BULLETS:
        del data["field"]
    elif data.get("kind") == "bullet" and "field" not in data:
        data["field"] = None
    return data


def _row(data: dict[str, Any]) -> dict[str, Any] | list[Any]:
    """A compact item as a row ``[event_id, score, text]`` when that is all it says (a whole
    event, nothing else to tell): the keys of each item would cost more than its id."""
    if set(data) == _ROW_KEYS and len(data["event_ids"]) == 1:
        return [data["event_ids"][0], data["score"], data["text"]]
    return data


def _unrow(item: list[Any], where: str) -> dict[str, Any]:
    """The item dict of a row ``[event_id, score, text]``."""
    if len(item) != len(_ROW_KEYS) or not isinstance(item[0], str) or not isinstance(item[2], str):
        raise InvalidArgument(
            f"{where} must be an object or a row [event_id, score, text], got {item!r:.80}"
        )
    return {"event_ids": [item[0]], "score": item[1], "text": item[2]}


def segment_groups(items: list[dict[str, Any]]) -> list[dict[str, Any] | list[Any]]:
    """Items (full evidence dicts, in order) as runs of one segment: ``segment_id``, the
    first item's ``segment_title``, ``project`` and ``session_id`` (each left out when empty),
    the pattern of its event ids under ``ids`` (when a later item's id fits the first's, see
    :mod:`tocsearch.navigate._event_refs`) and the run's compact items under ``evidence``."""
    runs: list[list[dict[str, Any]]] = []
    for item in items:
        if not runs or runs[-1][0]["segment_id"] != item["segment_id"]:
            runs.append([])
        runs[-1].append(item)
    groups: list[dict[str, Any] | list[Any]] = []
    for run in runs:
        pattern = run_pattern([sole_event(item["kind"], item["event_ids"]) for item in run])
        group = segment_group(run[0], pattern)
        group["evidence"] = [compact_item(item, group) for item in run]
        groups.append(written_group(group))
    return groups


def written_group(group: dict[str, Any]) -> dict[str, Any] | list[Any]:
    """``group`` as it is written: the row ``[segment_id, evidence]`` (``[segment_id, ids,
    evidence]`` with a pattern) when that is all it says, its keys costing more than its
    id."""
    if set(group) <= _GROUP_ROW_KEYS:
        return [group["segment_id"], *([group[IDS]] if IDS in group else []), group["evidence"]]
    return group


def segment_group(item: dict[str, Any], pattern: str | None = None) -> dict[str, Any]:
    """What the group of a run that ``item`` (a full evidence dict) begins says once:
    ``segment_id``; ``segment_title``, ``project`` and ``session_id`` when not empty; and the
    run's event id ``pattern``, under ``ids``, when it has one."""
    group: dict[str, Any] = {"segment_id": item["segment_id"]}
    for key in _GROUP_KEYS:
        if item.get(key):
            group[key] = item[key]
    if pattern is not None:
        group[IDS] = pattern
    return group


def compact_item(item: dict[str, Any], group: dict[str, Any]) -> dict[str, Any] | list[Any]:
    """``item`` (a full evidence dict) as it is written in ``group``: without what the group or
    its own ids say, a row when nothing but its id, score and text is left."""
    return _row(_compact(item, group))


def _resolved(pattern: str, event_ids: Any, where: str) -> Any:
    """An event item's ``event_ids`` with its one reference (an id without the ``evt:``
    prefix) filled into ``pattern``; what is not a list of one string is left as it is (for
    the converter to refuse what is not a list of strings)."""
    if not isinstance(event_ids, list) or len(event_ids) != 1:
        return event_ids
    (reference,) = event_ids
    if not isinstance(reference, str) or reference.startswith(EVENT_PREFIX):
        return event_ids
    try:
        return [resolve_ref(pattern, reference)]
    except InvalidArgument as error:
        raise InvalidArgument(f"{where}: {error}") from None


def group_of_row(row: list[Any], where: str = "a group") -> dict[str, Any]:
    """The group dict of a row ``[segment_id, evidence]`` or ``[segment_id, ids, evidence]``.

    Raises:
        InvalidArgument: ``row`` has not two or three parts.
    """
    if len(row) not in (2, 3):
        raise InvalidArgument(
            f"{where} must be an object or a row [segment_id, (ids,) evidence], got {row!r:.80}"
        )
    group = {"segment_id": row[0], "evidence": row[-1]}
    if len(row) == 3:
        group[IDS] = row[1]
    return group


def flat_items(groups: Any) -> list[dict[str, Any]]:
    """The full evidence dicts of :func:`segment_groups` output, in order.

    Raises:
        InvalidArgument: ``groups`` is not a list of groups, each an object with a string
            ``segment_id`` and a list of objects under ``evidence``.
    """
    if not isinstance(groups, list):
        raise InvalidArgument(f"'segments' must be a list, got {type(groups).__name__}")
    items: list[dict[str, Any]] = []
    for number, group in enumerate(groups):
        where = f"segments[{number}]"
        if isinstance(group, list):
            group = group_of_row(group, where)
        if not isinstance(group, dict):
            raise InvalidArgument(f"{where} must be an object, got {type(group).__name__}")
        if not isinstance(group.get("segment_id"), str):
            raise InvalidArgument(f"{where} must have a string 'segment_id'")
        if not isinstance(group.get("evidence"), list):
            raise InvalidArgument(f"{where} must have a list 'evidence'")
        pattern = group.get(IDS)
        if pattern is not None and not isinstance(pattern, str):
            raise InvalidArgument(f"{where}.{IDS} must be a string, got {type(pattern).__name__}")
        shared = {"segment_id": group["segment_id"]}
        for key in _GROUP_KEYS:
            value = group.get(key, "")
            if not isinstance(value, str):
                raise InvalidArgument(f"{where}.{key} must be a string, got {type(value).__name__}")
            shared[key] = value
        for index, item in enumerate(group["evidence"]):
            if isinstance(item, list):
                item = _unrow(item, f"{where}.evidence[{index}]")
            if not isinstance(item, dict):
                raise InvalidArgument(
                    f"{where}.evidence[{index}] must be an object or a row, "
                    f"got {type(item).__name__}"
                )
            full: dict[str, Any] = dict(shared)
            full.update(
                {
                    key: list(value) if isinstance(value, list) else value
                    for key, value in _DEFAULTS.items()
                }
            )
            full.update(item)
            if pattern is not None and full.get("kind") == "event":
                full["event_ids"] = _resolved(
                    pattern, full["event_ids"], f"{where}.evidence[{index}]"
                )
            if full.get("kind") == "bullet" and "field" not in item:
                full["field"] = _BULLETS
            if "start_time" not in full:
                implied = _implied_start(full.get("event_ids"))
                if implied is not None:
                    full["start_time"] = implied
            full.setdefault("end_time", full.get("start_time"))
            items.append(full)
    return items

"""What a navigation returns: the path it took, the evidence it found, and how it stopped.

Every record is frozen and JSON-ready through :meth:`NavigationResult.to_dict` (the shared
converter: datetimes as ISO 8601 strings, enums as their values, tuples as lists). The
Markdown form (:meth:`NavigationResult.to_markdown`) has a "Search Path" and an "Evidence"
section, one numbered item per step and one block per segment.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Sequence
from datetime import date, datetime, timezone, tzinfo
from typing import Any

import attrs

from tocsearch._clock import local_time, parse_zone
from tocsearch.converter import from_dict, to_dict
from tocsearch.errors import InvalidArgument
from tocsearch.ids import node_period, parse_node_id
from tocsearch.levels import TocLevel
from tocsearch.navigate._event_refs import item_ref, run_pattern, sole_event
from tocsearch.navigate._evidence_json import flat_items, segment_groups
from tocsearch.navigate._terms import searched_terms
from tocsearch.navigate.timehints import TimeHints, topic_without
from tocsearch.search import SearchField
from tocsearch.text import clip

__all__ = [
    "COUNTS",
    "ELIDED_PATH_NOTE",
    "EMPTY_EVIDENCE",
    "EVENT_REFS_NOTE",
    "EXPAND_EVENT",
    "EXPAND_GRIP",
    "Evidence",
    "EvidenceKind",
    "NavigationResult",
    "NavigationStep",
    "StepMatch",
    "StepPhase",
    "evidence_dict",
    "evidence_line",
    "frame_markdown",
    "items_pattern",
    "node_label",
    "path_markdown",
    "run_markdown",
    "segment_dicts",
    "segment_markdown",
    "step_dicts",
]


class StepPhase(str, enum.Enum):
    """Why a step searched what it searched."""

    START = "start"
    """The first search: the years, or the nodes that cover the query's time range."""
    DRILL = "drill"
    """The children of the best match of the step before."""
    BACKTRACK = "backtrack"
    """The children of the next-best node left waiting, after a branch gave nothing better."""
    ADJACENT = "adjacent"
    """The periods just before and after the requested one, which held nothing."""
    BROADEN = "broaden"
    """The whole history, after the requested period and its neighbours held nothing."""
    SCAN = "scan"
    """Segments read directly, newest first, because summaries above them did not match."""
    LIST = "list"
    """Segments listed for a query that names a time and no topic."""
    TELEPORT = "teleport"
    """Segments a seeder (an index) pointed at, verified against the query before the walk."""
    GREP = "grep"
    """The raw events of the best segments (and, when those were weak, of the period) searched
    line by line for the exact evidence."""


class EvidenceKind(str, enum.Enum):
    """What an evidence item quotes."""

    BULLET = "bullet"
    """A statement of a segment's summary: a bullet, or its summary, title or keywords."""
    EVENT = "event"
    """A raw event (a message, a tool result) that matched the query itself."""


@attrs.frozen
class StepMatch:
    """A node that matched in a step: its share of the query terms and its best matching text.

    In a ``grep`` step a match is an event: ``event_id`` names it, ``node_id`` and ``title``
    are its segment's, ``field`` is None and ``text`` is the event's text, clipped.
    """

    node_id: str
    title: str
    score: float
    field: SearchField | None
    text: str
    event_id: str | None = None


@attrs.frozen
class NavigationStep:
    """One search of the walk.

    ``parent_ids`` are the nodes whose children were searched (empty when a level or a range
    was searched directly); ``searched`` counts the nodes scored, ``matched`` those that
    matched at all; ``matches`` are the ones reported, best first. ``chosen`` is the node the
    walk turned to next, if any, and ``reason`` says why in plain words.
    """

    number: int
    phase: StepPhase
    level: TocLevel
    scope: str
    parent_ids: tuple[str, ...]
    searched: int
    matched: int
    matches: tuple[StepMatch, ...]
    chosen: str | None
    reason: str


# The hash is kept: fitting an answer looks each candidate up by value dozens of times.
@attrs.frozen(cache_hash=True)
class Evidence:
    """An event or a statement from a segment that answers the query, with what proves it.

    ``kind`` says what the item quotes. An ``EVENT`` item is one raw event: ``text`` is its
    full text, ``event_ids`` names it, ``grip_ids`` are the grips of its segment whose range
    holds it (possibly none), ``field`` is None and the times are the event's. A ``BULLET``
    item is a statement of the segment's summary: ``field`` says where the text came from (a
    bullet, or the summary, title or keywords when no single bullet matched; then
    ``grip_ids`` are those of the segment's bullets), ``event_ids`` are the events of its
    grips' ranges and the times are the segment's.

    ``score`` is the weighted share of the query terms the item holds, rare terms weighing
    more (1.0 for every item of a time-only query, where the period is the whole question);
    an event's score also counts a strongly matching neighbour and its segment's relevance.
    ``matched_terms`` are the terms in ``text``. ``clipped`` is true when ``text`` is the
    start of a longer event cut to fit the token budget (expand the event for all of it).

    ``project`` and ``session_id`` name the conversation the segment holds (one segment is one
    conversation): the project's working directory or name, empty when the source has none,
    and the session's id. Both are empty when the item is lean (its ids lead back to them).
    """

    segment_id: str
    segment_title: str
    kind: EvidenceKind
    text: str
    field: SearchField | None
    grip_ids: tuple[str, ...]
    event_ids: tuple[str, ...]
    score: float
    matched_terms: tuple[str, ...]
    start_time: datetime
    end_time: datetime
    clipped: bool = False
    project: str = ""
    session_id: str = ""


def _known_zone(instance: Any, attribute: Any, value: str) -> None:
    parse_zone(value)


@attrs.frozen
class NavigationResult:
    """The outcome of :meth:`tocsearch.navigate.Navigator.navigate`.

    ``partial`` is true when a limit (iterations or token budget) stopped the walk before it
    was done; ``reason`` always says how the walk ended. ``tokens_used`` counts what the walk
    read (the reported matches of every step) and what it returns (the evidence); it never
    exceeds ``token_budget``. ``nodes_visited`` counts the distinct nodes scored or opened.
    ``zone`` is the clock of the asker (a name :func:`~tocsearch._clock.parse_zone` reads: an
    IANA name, ``UTC`` or an offset), on which the Markdown shows times; the JSON's times are
    UTC.
    """

    query: str
    topic: str
    terms: tuple[str, ...]
    time_hints: TimeHints
    steps: tuple[NavigationStep, ...]
    evidence: tuple[Evidence, ...]
    partial: bool
    reason: str
    tokens_used: int
    token_budget: int
    nodes_visited: int
    iterations: int
    zone: str = attrs.field(default="UTC", validator=_known_zone)

    @property
    def segment_ids(self) -> tuple[str, ...]:
        """The segments of the evidence, each once, best first."""
        return tuple(dict.fromkeys(item.segment_id for item in self.evidence))

    @functools.cached_property
    def _derived(self) -> tuple[bool, bool]:
        """Whether ``topic`` is the query without its time phrases, and whether ``terms`` are
        the topic's own: what :meth:`to_dict` leaves out, worked out once for a result (the
        record is frozen) however often it is rendered."""
        return _derived(self.query, tuple(self.time_hints.phrases), self.topic, tuple(self.terms))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict with the stable keys documented in ``docs/navigator.md``.

        It is compact, because the token budget counts it: the evidence is grouped by segment
        under ``segments`` (each run of items from one segment once, with the segment's id and
        title; see :mod:`tocsearch.navigate._evidence_json`); keys whose value is empty or the
        default (``parent_ids``, ``matches``, ``chosen`` of a step; ``kind`` when ``event``,
        ``field``, ``grip_ids``, ``event_ids``, ``matched_terms``, ``clipped`` of an item, its
        ``start_time`` when its one event's id carries it and ``end_time`` when it equals
        ``start_time``) are left out, ``topic`` is left out when it is the query without its
        time phrases, ``terms`` when they are the topic's own, ``time_hints`` when the query
        has none, ``steps`` when the path is not shown and ``zone`` when it is UTC; a
        segment's conversation (``project``, ``session_id``) is said once in its group; the
        time hints do not repeat the topic (when it is theirs); and the four counters are one
        list under ``counts``: ``[tokens_used, token_budget, nodes_visited, iterations]``.
        :meth:`from_dict` puts them back.
        """
        # Built field by field: the evidence and the path through their own helpers (the
        # converter's generic walk over every item costs more than the rest of the answer).
        data: dict[str, Any] = {
            "query": self.query,
            "topic": self.topic,
            "terms": list(self.terms),
            "time_hints": to_dict(self.time_hints),
            "steps": step_dicts(self.steps),
            "segments": segment_dicts(self.evidence),
            "partial": self.partial,
            "reason": self.reason,
            COUNTS: [self.tokens_used, self.token_budget, self.nodes_visited, self.iterations],
            "zone": self.zone,
        }
        hints = data["time_hints"]
        if hints["topic"] == data["topic"]:
            del hints["topic"]
        topic_derived, terms_derived = self._derived
        if terms_derived:
            del data["terms"]
        if topic_derived:
            del data["topic"]
        if list(hints) == ["ranges", "phrases"] and not hints["ranges"] and not hints["phrases"]:
            del data["time_hints"]
        if data["zone"] == "UTC":
            del data["zone"]
        if not data["steps"]:
            del data["steps"]
        return data

    @classmethod
    def from_dict(cls, data: Any) -> NavigationResult:
        """The result back from :meth:`to_dict` output (or from the full form with every key,
        the evidence as a flat ``evidence`` list).

        Raises:
            InvalidArgument: the data does not describe a navigation result.
        """
        if isinstance(data, dict):
            data = dict(data)
            if "topic" not in data and isinstance(data.get("query"), str):
                data["topic"] = topic_without(data["query"], _phrases(data.get("time_hints")))
            if "terms" not in data and isinstance(data.get("topic"), str):
                data["terms"] = list(searched_terms(data["topic"]))
            data.setdefault("time_hints", {"ranges": [], "phrases": []})
            data.setdefault("steps", [])
            hints = data.get("time_hints")
            if isinstance(hints, dict) and "topic" not in hints:
                data["time_hints"] = {"topic": data.get("topic"), **hints}
            if isinstance(data.get("steps"), list):
                data["steps"] = [_with_defaults(step, _STEP_DEFAULTS) for step in data["steps"]]
            if "segments" in data:
                data["evidence"] = flat_items(data.pop("segments"))
            if COUNTS in data:
                data.update(zip(_COUNTED, _counts(data.pop(COUNTS)), strict=True))
        return from_dict(data, cls)

    def to_markdown(self, *, include_path: bool = True) -> str:
        """The path and the evidence as Markdown, for a person or a model to read.

        With ``include_path=False`` only the query, its time hints and the evidence are shown;
        without a path to show there are no section headings. Each segment's heading names its
        conversation (project and session) and its start where no event line or id says it;
        times are shown on the :attr:`zone` clock, named once in the status line.
        """
        zone = parse_zone(self.zone)
        blocks: list[str] = []
        shortened = False
        for _, items in _by_segment(self.evidence):
            pattern = items_pattern(items)
            shortened = shortened or pattern is not None
            blocks.append("\n".join(run_markdown(items, zone, pattern)) + "\n\n")
        events = any(item.kind is EvidenceKind.EVENT for item in self.evidence)
        closing = ""
        if events:
            closing = f"\n{EXPAND_EVENT}{EVENT_REFS_NOTE if shortened else ''}\n"
        elif any(item.grip_ids for item in self.evidence):
            closing = f"\n{EXPAND_GRIP}\n"
        # Sections only when there is a path to set the evidence apart from: a result whose
        # path was left out (for the budget) is the question, the evidence and a status line.
        above, below = _path_parts(self.steps) if include_path and self.steps else ("", "")
        head, status = _frame_parts(self, include_path, events=events)
        said = "".join(blocks) or EMPTY_EVIDENCE
        return f"{above}{head}{below}{said}{status}{closing}"


# A fit makes several results of one question (its frame, the answer as chosen, with its
# count): each asks the same of the same question.
@functools.lru_cache(maxsize=64)
def _derived(
    query: str, phrases: tuple[str, ...], topic: str, terms: tuple[str, ...]
) -> tuple[bool, bool]:
    """:attr:`NavigationResult._derived` of a result with these fields."""
    return topic == topic_without(query, phrases), terms == searched_terms(topic)


def frame_markdown(result: NavigationResult) -> str:
    """What :meth:`NavigationResult.to_markdown` shows of ``result`` besides its path and its
    evidence (and the events' clock and the last line that come with them): the question,
    its time hints and terms, and the status line. The pieces of an answer go into it."""
    head, status = _frame_parts(result, True, events=False)
    return head + status


def _frame_parts(result: NavigationResult, include_path: bool, *, events: bool) -> tuple[str, str]:
    """The Markdown's lines above the evidence (the question, its time hints and terms) and
    its status line."""
    head = [f'Query: "{result.query}"']
    for phrase, found in zip(result.time_hints.phrases, result.time_hints.ranges, strict=True):
        head.append(f'Time: "{phrase}" -> {found.label()}')
    if result.terms and not result._derived[1]:
        # As in the JSON, terms that are the topic's own are worked out again from it.
        head.append("Terms: " + ", ".join(result.terms))
    # One word each: the line is paid for by every answer, out of the evidence's budget.
    status = "Partial" if result.partial else "Done"
    # The fit may cut the reason away to make room for evidence: then the status stands alone.
    said = f"{status}: {result.reason}" if result.reason else status
    searches = f"{result.iterations} searches"
    if include_path and not result.steps:
        searches += ELIDED_PATH_NOTE if result.iterations else ""
    counts = (
        f"{searches}, {result.nodes_visited} nodes, "
        f"{result.tokens_used} of {result.token_budget} tokens"
    )
    if events:
        # The clock of the events' times, said once for every line.
        counts += f", times {result.zone}"
    return "\n".join(head) + "\n\n", f"_{said} ({counts})_\n"


# The key of the four counters in the JSON, and the fields they are, in their order there:
# one list costs a third of what four keys do, in every answer.
COUNTS = "counts"
_COUNTED = ("tokens_used", "token_budget", "nodes_visited", "iterations")


def _counts(value: Any) -> list[int]:
    """The four counters of a result's ``counts``.

    Raises:
        InvalidArgument: ``value`` is not a list of four whole numbers.
    """
    if (
        not isinstance(value, list)
        or len(value) != len(_COUNTED)
        or not all(isinstance(count, int) and not isinstance(count, bool) for count in value)
    ):
        raise InvalidArgument(
            f"'{COUNTS}' must be a list of four whole numbers "
            f"[{', '.join(_COUNTED)}], got {value!r:.80}"
        )
    return value


# The keys to_dict leaves out of a step when they hold these values, and from_dict puts back.
_STEP_DEFAULTS: dict[str, Any] = {"parent_ids": [], "matches": [], "chosen": None}


def segment_dicts(evidence: Sequence[Evidence]) -> list[dict[str, Any] | list[Any]]:
    """The evidence as :meth:`NavigationResult.to_dict` shows it under ``segments``."""
    return segment_groups([evidence_dict(item) for item in evidence])


def evidence_dict(item: Evidence) -> dict[str, Any]:
    """``item`` as the shared converter unstructures it (every key, datetimes as ISO 8601,
    enums as values, tuples as lists), built directly: the converter's generic walk costs
    more than the rest of an answer's JSON."""
    start = item.start_time.isoformat()
    # An event's item holds its one timestamp twice: written once.
    end = start if item.end_time is item.start_time else item.end_time.isoformat()
    return {
        "segment_id": item.segment_id,
        "segment_title": item.segment_title,
        "kind": item.kind.value,
        "text": item.text,
        "field": None if item.field is None else item.field.value,
        "grip_ids": list(item.grip_ids),
        "event_ids": list(item.event_ids),
        "score": item.score,
        "matched_terms": list(item.matched_terms),
        "start_time": start,
        "end_time": end,
        "clipped": item.clipped,
        "project": item.project,
        "session_id": item.session_id,
    }


def step_dicts(steps: Sequence[NavigationStep]) -> list[dict[str, Any]]:
    """The path as :meth:`NavigationResult.to_dict` shows it under ``steps`` (an empty path
    is left out there): each step without the keys that hold their default."""
    data: list[dict[str, Any]] = []
    for step in steps:
        # What the converter gives (a property test holds them equal), built directly.
        shown: dict[str, Any] = {
            "number": step.number,
            "phase": step.phase.value,
            "level": step.level.value,
            "scope": step.scope,
            "parent_ids": list(step.parent_ids),
            "searched": step.searched,
            "matched": step.matched,
            "matches": [_match_dict(match) for match in step.matches],
            "chosen": step.chosen,
            "reason": step.reason,
        }
        _drop_empty(shown, _STEP_DEFAULTS)
        data.append(shown)
    return data


def _match_dict(match: StepMatch) -> dict[str, Any]:
    return {
        "node_id": match.node_id,
        "title": match.title,
        "score": match.score,
        "field": None if match.field is None else match.field.value,
        "text": match.text,
        "event_id": match.event_id,
    }


def path_markdown(steps: Sequence[NavigationStep]) -> str:
    """What the path adds to :meth:`NavigationResult.to_markdown`, in characters: its heading
    above the question, and below it one numbered item per step and the evidence's heading
    (both parts together, for costing)."""
    above, below = _path_parts(steps)
    return above + below


def _path_parts(steps: Sequence[NavigationStep]) -> tuple[str, str]:
    lines = "".join(line + "\n" for step in steps for line in _step_lines(step))
    return "## Search Path\n\n", lines + "\n## Evidence\n\n"


def _phrases(hints: Any) -> list[str]:
    """The time phrases of a result's ``time_hints`` JSON, none when it has none."""
    phrases = hints.get("phrases") if isinstance(hints, dict) else None
    if not isinstance(phrases, list):
        return []
    return [phrase for phrase in phrases if isinstance(phrase, str)]


def _drop_empty(data: dict[str, Any], defaults: dict[str, Any]) -> None:
    for key, default in defaults.items():
        if key in data and data[key] == default:
            del data[key]


def _with_defaults(data: Any, defaults: dict[str, Any]) -> Any:
    if not isinstance(data, dict):
        return data
    return {**defaults, **data}


ELIDED_PATH_NOTE = ", path left out"
"""What the Markdown's status line adds when searches ran and their path is not shown."""
EMPTY_EVIDENCE = "No evidence found.\n\n"
"""The Markdown's evidence section when it has no item."""
EXPAND_EVENT = "Expand an id to see the conversation around it."
"""The Markdown's last line when it cites an event."""
EVENT_REFS_NOTE = " [a:b] fills the two * of its segment's ids."
"""What the Markdown's last line adds when a segment's events are cited by references (see
:mod:`tocsearch.navigate._event_refs`)."""
EXPAND_GRIP = "Expand a grip to see the full conversation behind a statement."
"""The Markdown's last line when it cites statements with grips and no event."""


def segment_markdown(items: Sequence[Evidence], zone: tzinfo = timezone.utc) -> list[str]:
    """The Markdown lines of a run of items from one segment, as
    :meth:`NavigationResult.to_markdown` writes them (see :func:`run_markdown`), with the
    event id pattern of :func:`items_pattern`."""
    return run_markdown(items, zone, items_pattern(items))


def items_pattern(items: Sequence[Evidence]) -> str | None:
    """The event id pattern a run of one segment's items writes, if any (see
    :func:`~tocsearch.navigate._event_refs.run_pattern`)."""
    return run_pattern([sole_event(item.kind.value, item.event_ids) for item in items])


def run_markdown(items: Sequence[Evidence], zone: tzinfo, pattern: str | None) -> list[str]:
    """The Markdown lines of a run of items from one segment: a heading with the segment's id,
    the first item's title, its start on the ``zone`` clock, its conversation (project and
    session) and the run's event id ``pattern``, then one line per item, its event cited by
    its reference under ``pattern`` where it fits.

    The start of a run that opens with an event is its date alone, and only when the
    segment's id does not already say it: the event's line shows its time, and the status
    line names the clock once."""
    first = items[0]
    title = f" {first.segment_title}" if first.segment_title else ""
    day = first.start_time.astimezone(zone).date()
    where = []
    if first.kind is not EvidenceKind.EVENT:
        where.append(local_time(first.start_time, zone))
    elif _segment_day(first.segment_id) != day:
        where.append(day.isoformat())
    if first.project:
        where.append(f"project {first.project}")
    if first.session_id:
        where.append(f"session {first.session_id}")
    if pattern is not None:
        where.append(f"ids {pattern}")
    heading = f"**{first.segment_id}**{title}"
    if where:
        heading += f" ({', '.join(where)})"
    return [heading, *(_evidence_line(item, day, zone, pattern) for item in items)]


def evidence_line(
    item: Evidence, opener: Evidence, zone: tzinfo = timezone.utc, pattern: str | None = None
) -> str:
    """The Markdown line of ``item`` in a run of its segment that ``opener`` begins, as
    :func:`run_markdown` writes it with ``pattern`` (its date said only when it is not the
    opener's)."""
    return _evidence_line(item, opener.start_time.astimezone(zone).date(), zone, pattern)


@functools.lru_cache(maxsize=4096)
def _segment_day(segment_id: str) -> date | None:
    """The day a segment's id names, if it is a segment id (kept per id: a fit writes each
    candidate's heading in several forms)."""
    try:
        key = parse_node_id(segment_id)
    except ValueError:
        return None
    return key.first_day if key.level is TocLevel.SEGMENT else None


# The fit writes each item's line in each place it may take, and the answer writes it again:
# the lines of the last few items are kept (an item is a frozen record that keeps its hash).
@functools.lru_cache(maxsize=256)
def _evidence_line(item: Evidence, day: date, zone: tzinfo, pattern: str | None) -> str:
    """One Markdown line: a quoted event with its time on the ``zone`` clock (the date only
    when it is not ``day``, the date of its segment's heading) and id (its reference where it
    fits ``pattern``), or a statement with its grips."""
    grips = " ".join(f"[{grip}]" for grip in item.grip_ids)
    if item.kind is EvidenceKind.EVENT:
        ref = item_ref(pattern, item.kind.value, item.event_ids)
        shown = item.event_ids if ref is None else (ref,)
        cited = " ".join(f"[{event_id}]" for event_id in shown)
        refs = f"{cited} {grips}".rstrip()
        said = item.start_time.astimezone(zone)
        when = f"{said.hour:02d}:{said.minute:02d}"
        if said.date() != day:
            when = f"{said:%Y-%m-%d} {when}"
        # The score is the JSON's: the order of the lines already ranks them.
        return f'- {when} "{clip(item.text, _EVENT_DISPLAY)}" {refs}'
    source = "" if item.field in (SearchField.BULLETS, None) else f" ({item.field.value})"
    return f'- "{item.text}" {grips or "[no grip]"} ({item.score:.2f}){source}'


def node_label(node_id: str) -> str:
    """A short name for a node: ``Year 2026``, ``Week 2026-W04``, ``Day 2026-01-30 (Friday)``.

    Ids that do not parse are returned unchanged.
    """
    try:
        key = parse_node_id(node_id)
    except ValueError:
        return node_id
    tail = node_period(node_id)
    if key.level is TocLevel.DAY:
        return f"Day {tail} ({key.first_day:%A})"
    return f"{key.level.value.capitalize()} {tail}"


def _step_lines(step: NavigationStep) -> list[str]:
    if step.phase is StepPhase.GREP:
        noun = "event" + ("" if step.searched == 1 else "s")
    else:
        noun = f"{step.level.value} node" + ("" if step.searched == 1 else "s")
    head = f"{step.number}. **{step.scope}** - Searched {step.searched} {noun}"
    if step.matched and not step.matches:
        # A step of the one-per-phase path: the totals without the matches.
        head += f", {step.matched} matched"
    lines = [head]
    for match in step.matches[:3]:
        lines.append(
            f'   - Matched: "{clip(match.text, _MATCH_DISPLAY)}" (score: {match.score:.2f})'
        )
    if len(step.matches) > 3:
        lines.append(f"   - ... and {step.matched - 3} more matches")
    elif not step.matched:
        lines.append("   - No match")
    if step.reason:
        lines.append(f"   - {step.reason}")
    return lines


# Characters of an event shown in Markdown; the full text is in the JSON form and is what the
# token budget counted.
_EVENT_DISPLAY = 300
# Characters of a matched text shown in a step of the path.
_MATCH_DISPLAY = 100


def _by_segment(evidence: tuple[Evidence, ...]) -> list[tuple[str, list[Evidence]]]:
    """The runs of consecutive items from one segment, as the JSON groups them."""
    runs: list[tuple[str, list[Evidence]]] = []
    for item in evidence:
        if not runs or runs[-1][0] != item.segment_id:
            runs.append((item.segment_id, []))
        runs[-1][1].append(item)
    return runs

"""The term digests of built nodes (:mod:`tocsearch.digest`).

A segment's digest holds every word of its events (every role, tool output whole, and who
said it, from the ``speaker`` metadata) and of its own title, summary, bullets and keywords,
sized to them (a few hundred bytes). A day's digest holds the same for all its events and
segments, at full size, so it is a function of the stored events alone; behind it sits the
day's :class:`~tocsearch._segment_map.SegmentMap`, its segments' digests side by side, so a
search finds the segments of the day that may hold a term without reading them. A week, month or
year holds the union of its children's; when any child's digest is unknown (empty), so is the
parent's, because a parent that claims less than its children say would hide them from a
search.
"""

from __future__ import annotations

from array import array
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import TypeVar

from tocsearch._segment_map import SegmentMap, attach, without_map
from tocsearch.digest import TermDigest, text_positions
from tocsearch.errors import InvalidArgument
from tocsearch.ids import parent_id
from tocsearch.models import Event, TocNode, time_order

__all__ = [
    "MAP_SEGMENTS",
    "DayDigests",
    "FreshUnions",
    "SegmentPositions",
    "Unions",
    "day_digest",
    "segment_map",
    "segment_positions",
    "union_digest",
    "with_segment_map",
]

MAP_SEGMENTS = 8
"""The fewest segments a day's segment map is made for: the map takes a byte per row bit for
up to eight segments, and reading a few segments' own digests costs no more."""
_CACHED_DAYS = 4096
# A day rebuilt for new events reads its other segments' positions from here; a few thousand
# positions a segment at four bytes each keep this to about ten megabytes.
_CACHED_SEGMENTS = 1024
# The event metadata naming who said an event: the navigator matches a term naming a speaker
# against it, so digests hold it too.
_SPEAKER = "speaker"


def _event_texts(events: Iterable[Event]) -> list[str]:
    texts: list[str] = []
    for event in events:
        texts.append(event.text)
        speaker = event.metadata.get(_SPEAKER)
        if isinstance(speaker, str) and speaker:
            texts.append(speaker)
    return texts


def segment_positions(events: Iterable[Event], segment: TocNode) -> set[int]:
    """The full-size digest bit positions of a segment made of ``events``: sized down
    (``TermDigest.from_positions(positions, sized=True)``) they are the segment's digest, and
    joined with the other segments' of its day, the day's."""
    return text_positions([*_event_texts(events), *segment.searchable_texts])


class SegmentPositions:
    """:func:`segment_positions` remembered by what they are made of: the segment's event ids
    (an event id always names the same event) and its texts. A day rebuilt for a few new
    events then reads only its new and changed segments for the day's digest, not all its
    text again. Bounded: the least recently used segment goes first; positions are kept as
    arrays of four-byte integers, a tenth of what a set of them holds. The builder remembers
    the segments of the newest day of each ingest: converting every segment's positions
    would cost a one-batch build more than it saves.
    """

    def __init__(self, capacity: int = _CACHED_SEGMENTS) -> None:
        self.capacity = capacity
        self._entries: OrderedDict[tuple[object, ...], array[int]] = OrderedDict()

    def remember(
        self, events: Sequence[Event], segment: TocNode, positions: Collection[int]
    ) -> None:
        """Keep ``positions``, the :func:`segment_positions` of ``events`` and ``segment``."""
        key = (tuple(event.event_id for event in events), segment.searchable_texts)
        _remember(self._entries, self.capacity, key, array("I", positions))

    def of(self, events: Sequence[Event], segment: TocNode) -> Collection[int]:
        """:func:`segment_positions` of ``events`` and ``segment`` (remembered or worked out
        and remembered)."""
        key = (tuple(event.event_id for event in events), segment.searchable_texts)
        found = self._entries.get(key)
        if found is not None:
            self._entries.move_to_end(key)
            return found
        positions = segment_positions(events, segment)
        self.remember(events, segment, positions)
        return positions


def _day_texts(events: Iterable[Event], segments: Sequence[TocNode]) -> list[str]:
    """The texts whose words a day's digest holds: its events' and its segments'."""
    texts = _event_texts(events)
    for segment in segments:
        texts.extend(segment.searchable_texts)
    return texts


def day_digest(events: Iterable[Event], segments: Sequence[TocNode]) -> str:
    """The digest text of a day with ``events`` and ``segments``, with the segments' map."""
    return with_segment_map(TermDigest.from_texts(_day_texts(events, segments)).to_text(), segments)


def segment_map(segments: Sequence[TocNode]) -> SegmentMap:
    """The :class:`~tocsearch._segment_map.SegmentMap` of a day's ``segments`` (in any
    order: the map follows the day's, by time), from their stored digests; a segment
    without a readable digest gets a full row."""
    ordered = sorted(segments, key=time_order)
    digests: list[TermDigest | None] = []
    for segment in ordered:
        try:
            digests.append(TermDigest.from_text(segment.digest) if segment.digest else None)
        except InvalidArgument:
            digests.append(None)
    return SegmentMap.of(digests, [segment.node_id for segment in ordered])


def with_segment_map(digest_text: str, segments: Sequence[TocNode]) -> str:
    """A day's ``digest_text`` with the map of its ``segments`` behind it; without one for a
    day of fewer than :data:`MAP_SEGMENTS` segments (their own digests are read as fast) or
    when no segment has a digest (such a map could rule nothing out)."""
    if len(segments) < MAP_SEGMENTS or not any(segment.digest for segment in segments):
        return digest_text
    return attach(digest_text, segment_map(segments))


class DayDigests:
    """Day digests remembered by what they are made of: the day's event ids (an event id
    always names the same event) and its segments' texts. Re-ingesting a day whose events did
    not change then costs no digest work. Bounded: the least recently used day goes first."""

    def __init__(self, capacity: int = _CACHED_DAYS) -> None:
        self.capacity = capacity
        self._entries: OrderedDict[tuple[object, ...], str] = OrderedDict()

    def of(
        self,
        events: Sequence[Event],
        segments: Sequence[TocNode],
        positions: Callable[[], Iterable[Collection[int]]] | None = None,
        alone: TermDigest | None = None,
    ) -> tuple[str, TermDigest | None]:
        """:func:`day_digest` of ``events`` and ``segments``, with the digest itself when it
        was worked out now (None when it was remembered as text).

        Args:
            positions: when the segments own exactly ``events`` between them, gives each
                segment's :func:`segment_positions`; their union is the day's, so the day's
                text need not be read again.
            alone: the full-size digest of the day's one segment, which is the day's.
        """
        key = _day_key(events, segments)
        found = self._entries.get(key)
        if found is not None:
            self._entries.move_to_end(key)
            return found, None
        if alone is not None:
            digest = alone
        elif positions is None:
            digest = TermDigest.from_texts(_day_texts(events, segments))
        else:
            parts = list(positions())
            # One segment's positions are the day's as they are; several are joined.
            union = parts[0] if len(parts) == 1 else set().union(*parts)
            digest = TermDigest.from_positions(union)
        text = with_segment_map(digest.to_text(), segments)
        _remember(self._entries, self.capacity, key, text)
        return text, digest

    def keep(self, events: Sequence[Event], segments: Sequence[TocNode], text: str) -> None:
        """Remember ``text`` as :func:`day_digest` of ``events`` and ``segments`` (worked out
        elsewhere, such as in a helper process)."""
        _remember(self._entries, self.capacity, _day_key(events, segments), text)


def _day_key(events: Sequence[Event], segments: Sequence[TocNode]) -> tuple[object, ...]:
    """What a day's digest is made of: its event ids (an event id always names the same
    event) and its segments' texts, ids and digests."""
    return (
        tuple(event.event_id for event in events),
        tuple(node.searchable_texts for node in segments),
        tuple(node.node_id for node in segments),
        tuple(node.digest for node in segments),
    )


def union_digest(children: Sequence[TocNode]) -> str:
    """The digest text of a parent: the union of its children's, or "" when any is unknown
    or unreadable."""
    if not children or any(not child.digest for child in children):
        return ""
    try:
        digests = [TermDigest.from_text(child.digest) for child in children]
    except InvalidArgument:
        return ""
    return digests[0].union(digests[1:]).to_text()


class Unions:
    """:func:`union_digest` remembered by the children's digest texts (bounded, least recently
    used first out): a year is rolled up on every ingest while most of its months stay put."""

    def __init__(self, capacity: int = _CACHED_DAYS) -> None:
        self.capacity = capacity
        self._entries: OrderedDict[tuple[str, ...], str] = OrderedDict()

    def of(self, children: Sequence[TocNode]) -> str:
        """:func:`union_digest` of ``children``."""
        key = tuple(child.digest for child in children)
        found = self._entries.get(key)
        if found is not None:
            self._entries.move_to_end(key)
            return found
        text = union_digest(children)
        self.remember(key, text)
        return text

    def remember(self, key: tuple[str, ...], text: str) -> None:
        """Keep ``text`` as the union of the digests whose texts are ``key``."""
        _remember(self._entries, self.capacity, key, text)


class FreshUnions:
    """The unions of digests an ingest has just made, worked out as they are made, for
    :class:`Unions` to find when the week, month and year are rolled up: reading them back
    from their texts (decompressing 32 KiB a child, at every level) is most of what a
    roll-up of many new days costs.

    Days come in date order, so the children of a week come one after another, as do the
    weeks of a month and the months of a year: one open group per level holds a parent's
    children until the first child of the next parent arrives. A parent's union is
    remembered under its children's texts, which is the key :meth:`Unions.of` looks up: it is
    used only when the stored children are exactly these (a week with older days that were
    not rebuilt looks up a longer key and reads its children as before). A parent with one
    new child has that child's digest, at no cost.
    """

    def __init__(self, unions: Unions) -> None:
        self._unions = unions
        # Per depth (0: the days' parents): the parent id, its children's texts and digests.
        self._open: dict[int, tuple[str, list[str], list[TermDigest | None]]] = {}

    def add(self, node_id: str, text: str, digest: TermDigest | None, depth: int = 0) -> None:
        """A new node's digest ``text`` (and the digest, or None when it is not at hand: its
        parents then are left to :class:`Unions`), in time order."""
        parent = parent_id(node_id)
        if parent is None:
            return
        group = self._open.get(depth)
        if group is not None and group[0] != parent:
            self._close(depth)
            group = None
        if group is None:
            group = self._open[depth] = (parent, [], [])
        group[1].append(text)
        group[2].append(digest)

    def finish(self) -> None:
        """Work out the unions of the groups still open, the days' parents first."""
        depth = 0
        while depth in self._open or any(level > depth for level in self._open):
            if depth in self._open:
                self._close(depth)
            depth += 1

    def _close(self, depth: int) -> None:
        parent, texts, digests = self._open.pop(depth)
        known = [digest for digest in digests if digest is not None]
        if len(known) < len(digests) or not all(texts):
            self.add(parent, "", None, depth + 1)
            return
        if len(known) == 1:
            # A day's text carries its segment map, which is the day's alone.
            union, text = known[0], texts[0] if depth else without_map(texts[0])
        else:
            union = known[0].union(known[1:])
            text = union.to_text()
        self._unions.remember(tuple(texts), text)
        self.add(parent, text, union, depth + 1)


_Key = TypeVar("_Key")
_Value = TypeVar("_Value")


def _remember(entries: OrderedDict[_Key, _Value], capacity: int, key: _Key, value: _Value) -> None:
    """Put ``value`` under ``key`` as the newest of ``entries``, first dropping the oldest ones
    that would take it past ``capacity`` (0 keeps nothing)."""
    entries.pop(key, None)
    while len(entries) >= capacity > 0:
        entries.popitem(last=False)
    if capacity:
        entries[key] = value

"""Decoded term digests (:mod:`tocsearch.digest`) of the nodes a navigator reads.

A stored digest is compressed text; decoding one costs a fraction of a millisecond and a
decoded one takes :data:`~tocsearch.digest.DIGEST_BITS` / 8 bytes, so decoded digests are kept
in a small least-recently-used cache keyed by ``(node_id, version)``: a node rewritten with new
events has a new version and is decoded afresh. An empty or malformed digest is *unknown*:
it never rules a node out. A day's segment map (:mod:`tocsearch._segment_map`) is read with
its digest and cached beside it; the day's bitmap is decompressed only when asked for. What
is made of many decoded digests (a year's bit-sliced months and weeks) is kept in the same
cache, counted as the digests it copies, so the cache bounds it too.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import TypeVar, cast

from tocsearch._checks import whole_number
from tocsearch._segment_map import SegmentMap, split
from tocsearch.digest import TermDigest
from tocsearch.errors import InvalidArgument
from tocsearch.models import TocNode

__all__ = ["DEFAULT_DIGESTS", "DigestCache"]

_T = TypeVar("_T")


DEFAULT_DIGESTS = 4096
"""How many decoded digests a navigator keeps: every day, week, month and year of five busy
years (a scan of the whole history reads them all, and a cache smaller than that evicts each
one before it is read again). A week or above takes 32 KiB decoded; a day its segment map
(about 130 bytes a segment) and its bitmap compressed, 32 KiB once decompressed."""


class DigestCache:
    """A bounded cache of decoded digests by ``(node_id, version)``, and of what is made of
    them (:meth:`derived`).

    Runtime complexity: O(1) per lookup of a cached digest; O(m) to decode one of m bits.
    """

    def __init__(self, capacity: int = DEFAULT_DIGESTS) -> None:
        self.capacity = whole_number("capacity", capacity, 0)
        # Decoded digests by (node_id, version, length), and what was made of them
        # (:meth:`derived`) by its own key, in the order they were last used.
        self._entries: OrderedDict[object, _Decoded | _Derived | None] = OrderedDict()
        # What the entries made of digests count beyond one each.
        self._extra = 0

    def __len__(self) -> int:
        return len(self._entries)

    def of(self, node: TocNode) -> TermDigest | None:
        """The decoded digest of ``node``, or None when it is unknown (empty or malformed)."""
        entry = self._entry(node)
        if entry is None:
            return None
        if entry.packed is not None:
            # Decompressed on first use: a day read through its segment map alone never is.
            try:
                entry.digest = TermDigest.from_packed(entry.packed)[0]
            except InvalidArgument:
                entry.digest = None
            entry.packed = None
        return entry.digest

    def segment_map(self, node: TocNode) -> SegmentMap | None:
        """The segment map stored behind a day's digest, or None when there is none, the
        digest is unknown, or the map was not made for exactly the day's children."""
        entry = self._entry(node)
        if entry is None or entry.segment_map is None:
            return None
        ids = node.child_node_ids
        # Checked once per entry: the children a map was checked against are remembered.
        if ids is not entry.checked and ids != entry.checked:
            if not entry.segment_map.covers(ids):
                return None
            entry.checked = ids
        return entry.segment_map

    def derived(self, key: object, weight: int, make: Callable[[], _T]) -> _T:
        """What ``make`` gives, kept under ``key`` (an object equal to no digest's key) as
        ``weight`` decoded digests would be: it counts against the capacity as they do and
        is evicted like them, least recently used first, then made again when asked for.
        What is made of digests held this way lives no longer than the cache lets it.

        Runtime complexity: O(1) while it is kept."""
        entries = self._entries
        # Kept under a key of its own, never as None.
        found = entries.get(key)
        if found is not None:
            try:  # noqa: SIM105
                entries.move_to_end(key)
            except KeyError:
                pass
            return cast(_T, cast("_Derived", found).value)
        value = make()
        if weight <= self.capacity:
            self._make_room(weight)
            entries[key] = _Derived(value, weight)
            self._extra += weight - 1
        return value

    def _make_room(self, weight: int) -> None:
        """Evict the least recently used entries until one of ``weight`` fits."""
        entries = self._entries
        try:
            while entries and len(entries) + self._extra + weight > self.capacity:
                evicted = entries.popitem(last=False)[1]
                if type(evicted) is _Derived:
                    self._extra -= evicted.weight - 1
        except KeyError:
            pass
        if not entries:
            # Threads that evicted at once may have miscounted: an empty cache holds nothing.
            self._extra = 0

    def _entry(self, node: TocNode) -> _Decoded | None:
        if not node.digest:
            return None
        # The text's length is part of the key, so a node whose digest changed without a new
        # version (a hand-edited store) is not answered from a stale entry.
        key = (node.node_id, node.version, len(node.digest))
        entries = self._entries
        try:
            found = entries[key]
        except KeyError:
            pass
        else:
            # Another thread may have evicted it meanwhile: that costs a decode, never an answer.
            try:  # noqa: SIM105
                entries.move_to_end(key)
            except KeyError:
                pass
            # A digest's key is never a derived entry's.
            return cast("_Decoded | None", found)
        parts = split(node.digest)
        entry = None if parts is None else _Decoded(*parts)
        if self.capacity:
            self._make_room(1)
            entries[key] = entry
        return entry


class _Decoded:
    """A node's digest as read so far: its segment map at once, its bitmap when first asked
    (until then ``packed`` holds it compressed)."""

    __slots__ = ("checked", "digest", "packed", "segment_map")

    def __init__(self, packed: bytes, segment_map: SegmentMap | None) -> None:
        self.packed: bytes | None = packed
        self.digest: TermDigest | None = None
        self.segment_map = segment_map
        # The child ids the map was last found to cover.
        self.checked: tuple[str, ...] | None = None


class _Derived:
    """What :meth:`DigestCache.derived` keeps: a value made of digests and how many decoded
    digests it counts as."""

    __slots__ = ("value", "weight")

    def __init__(self, value: object, weight: int) -> None:
        self.value = value
        self.weight = weight

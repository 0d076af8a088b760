"""The segment maps of a year's days stacked (:mod:`tocsearch._stacked_maps`), kept between
questions.

A query whose words are each said in most days is looked for in every day's segment map,
thousands of days for a long history; a year's maps stacked answer for all its days with a
few reads. A stack is made once from the days' maps as the :class:`DigestCache` reads them and
kept by the year's ``(version, digest length)``, as the digest cache keeps a node: a year
rewritten is stacked afresh. A year is not rewritten when a day below it gains a segment
whose words it already covers, so each day keeps the ``(version, digest length, children)``
its map was read with, and a day that no longer matches them is not answered for from the
stack: the caller reads that day's own map, so a stack never answers for a day as it no
longer is."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from typing import cast

from tocsearch._checks import whole_number
from tocsearch._segment_map import SegmentMap
from tocsearch._stacked_maps import StackedMaps
from tocsearch.levels import TocLevel
from tocsearch.models import TocNode
from tocsearch.navigate._digests import DEFAULT_DIGESTS, DigestCache

__all__ = ["DIRECT_PARENTS", "DayStack", "DayStacks", "Whole"]

Whole = tuple[list[int], tuple[str, ...], list[int]]
"""What :meth:`DayStack.whole` says of a list of days the stack holds: their places, their
ids, and their places spread (:meth:`~tocsearch._stacked_maps.StackedMaps.spread`)."""


class _Listed:
    """A list of days asked of a stack (kept with it, so its id is not reused), with their
    places and what :meth:`DayStack.whole` says of them."""

    __slots__ = ("days", "places", "whole")

    def __init__(self, days: list[TocNode], places: list[int | None], whole: Whole | None) -> None:
        self.days = days
        self.places = places
        self.whole = whole


def _whole(days: Sequence[TocNode], places: list[int | None], maps: StackedMaps) -> Whole | None:
    if None in places:
        return None
    held = cast(list[int], places)
    return held, tuple(day.node_id for day in days), maps.spread(held)


class DayStack:
    """The segment maps of some days, stacked, and the state of each day they were read in.

    Runtime complexity: O(1) to find a day's place (one dict lookup, and an identity check
    when the store hands out the very day the stack was made from, else a comparison of its
    version, digest and children)."""

    __slots__ = ("_members", "_placed", "maps")

    def __init__(self, days: Iterable[TocNode], digests: DigestCache) -> None:
        members: dict[str, tuple[int, int, int, tuple[str, ...], TocNode]] = {}
        maps: list[SegmentMap] = []
        for day in days:
            found = None if day.level is not TocLevel.DAY else digests.segment_map(day)
            if found is None or day.node_id in members:
                continue
            state = (len(maps), day.version, len(day.digest), day.child_node_ids, day)
            members[day.node_id] = state
            maps.append(found)
        self._members = members
        self.maps = StackedMaps(maps)
        # The places of each list of days asked, by the list's identity (the list is kept
        # with them, so its id is not reused): a navigator that keeps the tree between
        # questions asks the very same lists again (:mod:`tocsearch.navigate._skeleton`).
        self._placed: dict[int, _Listed] = {}

    def __len__(self) -> int:
        return len(self._members)

    def place(self, day: TocNode) -> int | None:
        """The index of ``day``'s map in :attr:`maps`, or None when the stack was not made
        from the day as it is now (or the day has no map)."""
        return self.places((day,))[0]

    def places(self, days: Iterable[TocNode]) -> list[int | None]:
        """:meth:`place` of each of ``days``, in one pass; for a list asked before, the
        places found then (records are immutable: the same days have the same places, so
        the caller must not change the list, nor the places returned)."""
        if type(days) is not list:
            return self._places(days)
        return self._listed(days).places

    def whole(self, days: Sequence[TocNode]) -> Whole | None:
        """The places of ``days`` (:meth:`places`), their ids and their places spread over
        the stack's row shapes (:meth:`~tocsearch._stacked_maps.StackedMaps.spread`), when
        the stack was made from every one of them as it is now; None otherwise. Kept for a
        list as :meth:`places` keeps its places."""
        if type(days) is not list:
            return _whole(days, self._places(days), self.maps)
        known = self._placed.get(id(days))
        if known is not None and known.days is days:
            return known.whole
        return self._listed(days).whole

    def _listed(self, days: list[TocNode]) -> _Listed:
        placed = self._placed
        known = placed.get(id(days))
        if known is not None and known.days is days:
            return known
        places = self._places(days)
        listed = _Listed(days, places, _whole(days, places, self.maps))
        if len(placed) > len(self._members) // 4 + 64:
            # Lists of one question that is over, or of a tree since rewritten.
            placed.clear()
        placed[id(days)] = listed
        return listed

    def _places(self, days: Iterable[TocNode]) -> list[int | None]:
        members = self._members
        found: list[int | None] = []
        for day in days:
            member = members.get(day.node_id)
            if member is not None:
                index, version, size, ids, made_from = member
                if made_from is day:
                    # Records are immutable: the very day the map was read from is as it was.
                    found.append(index)
                    continue
                children = day.child_node_ids
                if (
                    day.version == version
                    and len(day.digest) == size
                    and (children is ids or children == ids)
                ):
                    found.append(index)
                    continue
            found.append(None)
        return found


DIRECT_PARENTS = 2
"""How many lists of days (a week's) of a stacked year a question reads through the days'
own maps before it reads the stack, by default (:class:`DayStacks`): a question that reaches
only a few weeks of a year (words said in few weeks) spends less on their days' maps than on
the stack's columns for the whole year, and one that reaches more spends far less on the
stack."""


class DayStacks:
    """A bounded cache of :class:`DayStack` by parent node, at most ``capacity`` days in all
    (the least recently used stacks go first; a parent with more days is not stacked). A
    parent is stacked when it is asked for after ``unstacked`` earlier asks (one a question),
    so a navigator asked one question never pays for stacking; a question reads a stack only
    after reaching ``direct`` of its parents (:data:`DIRECT_PARENTS`).

    Runtime complexity: O(1) per lookup of a current stack; O(d) to make one of d days."""

    def __init__(
        self, capacity: int = DEFAULT_DIGESTS, *, unstacked: int = 1, direct: int = DIRECT_PARENTS
    ) -> None:
        self.capacity = whole_number("capacity", capacity, 0)
        self.unstacked = whole_number("unstacked", unstacked, 0)
        self.direct = whole_number("direct", direct, 0)
        self._entries: OrderedDict[str, tuple[tuple[int, int], DayStack]] = OrderedDict()
        self._days = 0
        # Parents asked for but not stacked yet: their state when asked, and how often.
        self._asked: dict[str, tuple[tuple[int, int], int]] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def of(
        self,
        parent: TocNode,
        days: Callable[[], Sequence[TocNode]],
        digests: DigestCache,
    ) -> DayStack | None:
        """The stack of the days below ``parent``, made from ``days()`` when there is none
        for the parent as it is now; None when it would hold more than ``capacity`` days, or
        the parent as it is now was asked for fewer than ``unstacked`` times before."""
        if not self.capacity:
            return None
        key = (parent.version, len(parent.digest))
        entries = self._entries
        found = entries.get(parent.node_id)
        if found is not None and found[0] == key:
            # Another thread may have evicted it meanwhile: that costs a rebuild, never an answer.
            try:  # noqa: SIM105
                entries.move_to_end(parent.node_id)
            except KeyError:
                pass
            return found[1]
        asked = self._asked.get(parent.node_id)
        times = asked[1] if asked is not None and asked[0] == key else 0
        if times < self.unstacked:
            if len(self._asked) >= self.capacity:
                self._asked.clear()
            self._asked[parent.node_id] = (key, times + 1)
            return None
        self._asked.pop(parent.node_id, None)
        listed = days()
        if len(listed) > self.capacity:
            return None
        stack = DayStack(listed, digests)
        try:
            self._forget(parent.node_id)
            while entries and self._days + len(stack) > self.capacity:
                self._forget(next(iter(entries)))
            entries[parent.node_id] = (key, stack)
            self._days += len(stack)
        except KeyError:
            pass
        return stack

    def _forget(self, node_id: str) -> None:
        dropped = self._entries.pop(node_id, None)
        if dropped is not None:
            self._days -= len(dropped[1])

"""The segment maps of a year's days stacked (:mod:`tocsearch._stacked_maps`), kept between
questions.

A query whose words are each said in most days is looked for in every day's segment map,
thousands of days for a long history; a year's maps stacked answer for all its days with a
few reads. A stack is made once from the days' maps as the :class:`DigestCache` reads them and
kept by the year's ``(version, digest length)``, as the digest cache keeps a node: a year
rewritten (new days or segments below it) is stacked afresh. Below that, each day keeps the
``(version, digest length, children)`` its map was read with and each week the same of its
own: a day or week that no longer matches them (the store changed under a year that did not)
is not answered for from the stack, and the caller reads the day's own map. A week that
matches is answered for without reading its days, as the route already trusts a week's digest
to cover its days."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence

from tocsearch._checks import whole_number
from tocsearch._segment_map import SegmentMap
from tocsearch._stacked_maps import StackedMaps
from tocsearch.levels import TocLevel
from tocsearch.models import TocNode
from tocsearch.navigate._digests import DEFAULT_DIGESTS, DigestCache

__all__ = ["DayStack", "DayStacks", "Places"]

Places = tuple[int | None, ...]
"""For each day of a parent, the index of its map in a stack, or None when it has none."""


class DayStack:
    """The segment maps of the days of some parents (weeks), stacked, and the state of each
    day and parent they were read in.

    Runtime complexity: O(1) to find a day's place or a parent's days (a dict lookup and a
    comparison of their children, by identity when the store hands out the same tuple)."""

    __slots__ = ("_families", "_members", "maps")

    def __init__(
        self, families: Iterable[tuple[TocNode, Sequence[TocNode]]], digests: DigestCache
    ) -> None:
        members: dict[str, tuple[int, int, int, tuple[str, ...]]] = {}
        parents: dict[str, tuple[int, int, tuple[str, ...], tuple[str, ...], Places]] = {}
        maps: list[SegmentMap] = []
        for parent, children in families:
            places: list[int | None] = []
            for day in children:
                found = None if day.level is not TocLevel.DAY else digests.segment_map(day)
                if found is None or day.node_id in members:
                    places.append(None)
                    continue
                members[day.node_id] = (len(maps), day.version, len(day.digest), day.child_node_ids)
                places.append(len(maps))
                maps.append(found)
            ids = tuple(day.node_id for day in children)
            # A parent is answered for as a whole only when its children are all days, each
            # named once, in the order the store gives them.
            if (
                all(day.level is TocLevel.DAY for day in children)
                and len(set(ids)) == len(ids)
                and set(ids) == set(parent.child_node_ids)
            ):
                key = (parent.version, len(parent.digest), parent.child_node_ids)
                parents[parent.node_id] = (*key, ids, tuple(places))
        self._members = members
        self._families = parents
        self.maps = StackedMaps(maps)

    def __len__(self) -> int:
        return len(self._members)

    def place(self, day: TocNode) -> int | None:
        """The index of ``day``'s map in :attr:`maps`, or None when the stack was not made
        from the day as it is now (or the day has no map)."""
        return self.places((day,))[0]

    def places(self, days: Iterable[TocNode]) -> list[int | None]:
        """:meth:`place` of each of ``days``, in one pass."""
        members = self._members
        found: list[int | None] = []
        for day in days:
            member = members.get(day.node_id)
            if member is not None:
                index, version, size, ids = member
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

    def family(self, parent: TocNode) -> tuple[tuple[str, ...], Places] | None:
        """The ids of ``parent``'s days in the store's (time) order and the indexes of their
        maps in :attr:`maps` (None for a day without one), or None when the stack was not
        made from the parent as it is now or its children are not all days.

        The days themselves are not compared: a day is rewritten only with its parent (its
        parent's digest covers its terms), as the route's pruning by the parent's digest
        already assumes."""
        found = self._families.get(parent.node_id)
        if found is None:
            return None
        version, size, named, ids, places = found
        children = parent.child_node_ids
        if (
            parent.version != version
            or len(parent.digest) != size
            or (children is not named and children != named)
        ):
            return None
        return ids, places


class DayStacks:
    """A bounded cache of :class:`DayStack` by parent node, at most ``capacity`` days in all
    (the least recently used stacks go first; a parent with more days is not stacked).

    Runtime complexity: O(1) per lookup of a current stack; O(d) to make one of d days."""

    def __init__(self, capacity: int = DEFAULT_DIGESTS) -> None:
        self.capacity = whole_number("capacity", capacity, 0)
        self._entries: OrderedDict[str, tuple[tuple[int, int], DayStack]] = OrderedDict()
        self._days = 0

    def __len__(self) -> int:
        return len(self._entries)

    def of(
        self,
        parent: TocNode,
        families: Callable[[], Sequence[tuple[TocNode, Sequence[TocNode]]]],
        digests: DigestCache,
    ) -> DayStack | None:
        """The stack of the days below ``parent``, made from ``families()`` (each parent of
        days below it with its stored children) when there is none for the parent as it is
        now; None when it would hold more than ``capacity`` days."""
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
        listed = families()
        if sum(len(children) for _, children in listed) > self.capacity:
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

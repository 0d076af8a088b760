"""The segments whose term digests may hold the query's terms, in the order to read them.

Digests (:mod:`tocsearch.digest`) sit on years, months, weeks, days and segments; a node's
digest may say "maybe" about a term none of its texts holds, never "no" about one that does.
A :class:`DigestRoute` descends from the years, newest first, into the children whose digest
may hold at least ``k`` of the terms (or is unknown), for ``k`` from all the terms down to one,
and yields the segments it reaches a batch at a time. Both the scan of the segments' summaries
and the grep of their events read segments in this order, so they read first exactly the
segments that may hold the terms, newest first among those that may hold as many.

Below a year the route reads the days' segment maps stacked (:mod:`._day_stacks`): one look
answers for every day of the year, so a pair of words said in most days costs a few column
reads a year instead of a few a day.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from tocsearch._segment_map import positions
from tocsearch.errors import NotFound
from tocsearch.levels import TocLevel
from tocsearch.models import TocNode, time_order
from tocsearch.navigate._day_stacks import DayStack
from tocsearch.navigate._lens import Lens
from tocsearch.navigate._skeleton import SkeletonView
from tocsearch.navigate._walk import Walk, inside, level_of, wholly_inside
from tocsearch.navigate._year_plan import YearPlan, plan_year, spread_of
from tocsearch.navigate.timehints import TimeRange
from tocsearch.storage.protocol import Storage

__all__ = ["DigestRoute", "may_hold_all"]

# The levels below each level, for a membership test that needs no depth lookups.
_DEEPER: dict[TocLevel, tuple[TocLevel, ...]] = {
    level: tuple(other for other in TocLevel if other.depth > level.depth) for level in TocLevel
}


class DigestRoute:
    """Digest-guided enumeration of the segments of ``ranges`` (all, when empty)."""

    def __init__(
        self,
        storage: Storage,
        lens: Lens,
        ranges: Sequence[TimeRange],
        stored: dict[str, list[TocNode]] | None = None,
        skeleton: SkeletonView | None = None,
    ) -> None:
        self.storage = storage
        self.lens = lens
        self.ranges = ranges
        # Stored children by parent id, shared by the routes of one walk.
        self._stored = stored if stored is not None else {}
        # The same above the days, and what a route over everything opens, kept between
        # questions while the store is unchanged.
        self._skeleton = skeleton
        self._children: dict[str, tuple[list[TocNode], bool]] = {}
        # Per level, how many nodes the first pass (every term needed) considered and skipped.
        self.pruning: dict[TocLevel, list[int]] = {}
        # The first pass: every term needed (the one whose skips are tallied).
        self._every = len(lens.terms)

    def years(self) -> list[TocNode] | None:
        """The years of the ranges, newest first, or None when one lacks a digest (then no
        digest can guide the reading)."""
        if not self.lens.terms:
            return None
        years = [
            node
            for node in self.storage.get_nodes_by_level(TocLevel.YEAR)
            if inside(node, self.ranges)
        ]
        if not years or any(self.lens.may_hold(year) is None for year in years):
            return None
        years.sort(key=time_order, reverse=True)
        return years

    def segments(
        self, years: list[TocNode], proceed: Callable[[int], bool]
    ) -> Iterator[list[TocNode]]:
        """Batches of segments, pass by pass from every term needed down to one, each
        segment once; a pass for ``need`` terms starts only while ``proceed(need)``."""
        for _, batch in self.graded(years, proceed):
            yield batch

    def graded(
        self, years: list[TocNode], proceed: Callable[[int], bool]
    ) -> Iterator[tuple[int, list[TocNode]]]:
        """:meth:`segments` with the pass each batch comes from: how many of the terms the
        digests say its segments may hold at least. A segment that holds more came in an
        earlier pass (digests never rule out a term a node holds)."""
        count = len(self.lens.terms)
        read: set[str] = set()
        yielded: set[str] = set()
        for need in range(count, 0, -1):
            if not proceed(need):
                return
            kept = self._kept(years, need)
            for batch in self._descend(kept, need, read):
                fresh = [node for node in batch if node.node_id not in yielded]
                if fresh:
                    yielded.update(node.node_id for node in fresh)
                    yield need, fresh

    def note(self) -> str:
        """ "; skipped 11 of 12 month nodes: not every term in their digest" for the levels
        where the first pass skipped nodes."""
        parts = [
            f"{skipped} of {total} {level.value} nodes"
            for level, (total, skipped) in sorted(
                self.pruning.items(), key=lambda entry: entry[0].depth
            )
            if skipped
        ]
        if not parts:
            return ""
        return "; skipped " + ", ".join(parts) + ": not every term in their digest"

    def _kept(
        self,
        nodes: list[TocNode],
        need: int,
        *,
        ascending: bool = False,
        stack: DayStack | None = None,
        masks: dict[str, int] | None = None,
    ) -> list[TocNode]:
        """``nodes`` that may hold ``need`` terms, newest first, tallying the first pass's
        skips. ``ascending`` says ``nodes`` are in time order already (as a store returns
        children), so reversing them puts them newest first without sorting again; ``stack``
        holds the maps of the days among them; ``masks`` receives what the map of each day
        kept says of its segments (:meth:`_pruned`)."""
        kept = self._pruned(nodes, need, stack, masks)
        if nodes:
            self._tally(need, level_of(nodes), len(nodes), len(nodes) - len(kept))
        if ascending:
            kept.reverse()
        else:
            kept.sort(key=time_order, reverse=True)
        return kept

    def _pruned(
        self,
        nodes: list[TocNode],
        need: int,
        stack: DayStack | None = None,
        masks: dict[str, int] | None = None,
    ) -> list[TocNode]:
        """``nodes`` without those that cannot hold ``need`` terms: by the segment map for a
        day that has one (no segment may hold them; read from ``stack`` when it holds the
        day), by the digest otherwise. ``masks`` receives the segments each map keeps, by
        day, so a kept day's map is not read again (:meth:`_mapped`)."""
        lens = self.lens
        day = TocLevel.DAY
        if not any(node.level is day for node in nodes):
            # No map to read (months, weeks): each node by its digest, in one call. The
            # stack's bookkeeping of lists read day by day is kept as maps_kept keeps it.
            lens.read_through(stack)
            return lens.prune(nodes, need)
        within = self._within if self.ranges else None
        kept: list[TocNode] = []
        for node, mapped in zip(nodes, lens.maps_kept(nodes, need, stack), strict=True):
            if mapped is not None and (within is None or within(node)):
                if mapped:
                    kept.append(node)
                    if masks is not None:
                        masks[node.node_id] = mapped
                continue
            kept.extend(lens.prune((node,), need))
        return kept

    def _tally(self, need: int, level: TocLevel, considered: int, skipped: int) -> None:
        if need == self._every:
            tally = self.pruning.get(level)
            if tally is None:
                tally = self.pruning[level] = [0, 0]
            tally[0] += considered
            tally[1] += skipped

    def _descend(
        self,
        nodes: list[TocNode],
        need: int,
        read: set[str],
        stack: DayStack | None = None,
        masks: dict[str, int] | None = None,
    ) -> Iterator[list[TocNode]]:
        """The segments below ``nodes`` (newest first) whose ancestors' digests all may hold
        ``need`` terms, skipping days already ``read`` in this pass order; a node's segment
        children come as one batch. The maps of a year's days are read stacked (``stack``
        below the year; ``masks`` what the maps of ``nodes`` that are days said of their
        segments, when they were read already)."""
        leaves = [node for node in nodes if node.level is TocLevel.SEGMENT]
        if leaves:
            yield leaves
        for node in nodes:
            if node.level is TocLevel.SEGMENT:
                continue
            if node.level is TocLevel.DAY:
                known = masks.get(node.node_id) if masks else None
                mapped = self._mapped(node, need, stack, known)
                if mapped is not None:
                    if mapped:
                        yield mapped
                    continue
            children, plain = self._children_of(node)
            if plain:
                # A day whose segments carry no digest: none can be ruled out, so all are read
                # (once: a later pass would yield the same segments again).
                if node.node_id in read:
                    continue
                read.add(node.node_id)
                if children:
                    self._tally(need, TocLevel.SEGMENT, len(children), 0)
                    yield children[::-1]
                continue
            if node.level is TocLevel.YEAR and (not self.ranges or self._within(node)):
                # A year the ranges cut is read day by day: stacking all its days would
                # cost more than reading the few the ranges keep.
                stack = self._stack(node)
                plan = self._plan(node, stack)
                if plan is not None:
                    yield from self._planned(plan, need, read)
                    continue
            # Only days are stacked: a list of months or weeks is never answered for.
            kept_days = (
                None
                if self.ranges or (children and children[0].level is not TocLevel.DAY)
                else self._stacked_days(children, need, stack)
            )
            if kept_days is not None:
                # A week of stacked days: what _kept and a deeper _descend would do, flat.
                yield from self._stacked_segments(kept_days, need, stack)
                continue
            yield from self._kept_below(children, need, read, stack)

    def _planned(self, plan: YearPlan, need: int, read: set[str]) -> Iterator[list[TocNode]]:
        """What :meth:`_descend` yields below the year of ``plan``, month by month: the same
        segments in the same order, the same tallies and the same digests consulted. A month
        none of whose digest-kept weeks has a day whose map keeps a segment is ruled out by
        one look at the stack (:meth:`~tocsearch._stacked_maps.StackedKept.any_in`), its
        days tallied and counted as consulted in bulk, as the week-by-week walk would."""
        lens, stack = self.lens, plan.stack
        checked = lens.digest_checked
        # What _kept does with the year's months (they are no days: no map to read).
        lens.read_through(stack)
        month_columns, week_columns = plan.columns(lens.digests)
        months = plan.kept_months(lens.columns_kept(month_columns, need))
        checked.update(month_columns.consulted)
        self._tally(need, TocLevel.MONTH, len(plan.months), len(plan.months) - len(months))
        for month in reversed(months):
            month_plan = plan.plans[month.node_id]
            kept = lens.stacked_kept_by(stack, need)
            if kept is None:
                # The question reads this year's days through their own maps so far: week
                # by week, as the stack's bookkeeping expects (Lens.read_through).
                yield from self._kept_below(month_plan.weeks, need, read, stack)
                continue
            weeks = month_plan.weeks
            held = month_plan.kept_weeks(lens.columns_kept(week_columns, need))
            checked.update(month_plan.consulted)
            self._tally(need, TocLevel.WEEK, len(weeks), len(weeks) - len(held))
            if len(held) == len(weeks):
                chosen, spread = month_plan.days, month_plan.spread
            elif held:
                ids = {week.node_id for week in held}
                chosen = [
                    days
                    for week, days in zip(weeks, month_plan.days, strict=True)
                    if week.node_id in ids
                ]
                spread = spread_of(chosen)
            else:
                continue
            if spread is not None and not kept.any_in(spread):
                count = 0
                for days, whole in chosen:
                    if whole is not None:
                        checked.update(whole[1])
                    count += len(days)
                if count:
                    self._tally(need, TocLevel.DAY, count, count)
                continue
            # The days of weeks ruled out by one look, tallied before anything is yielded
            # (the tallies are sums: read at a yield, they are what the walk would have).
            ruled_out = 0
            for days, whole in reversed(chosen):
                if whole is not None and not kept.any_in(whole[2]):
                    checked.update(whole[1])
                    ruled_out += len(days)
                    continue
                if ruled_out:
                    self._tally(need, TocLevel.DAY, ruled_out, ruled_out)
                    ruled_out = 0
                stacked = self._stacked_days(days, need, stack)
                if stacked is None:
                    # A week with a day the stack does not hold: day by day, as _descend.
                    yield from self._kept_below(days, need, read, stack)
                else:
                    yield from self._stacked_segments(stacked, need, stack)
            if ruled_out:
                self._tally(need, TocLevel.DAY, ruled_out, ruled_out)

    def _kept_below(
        self, nodes: list[TocNode], need: int, read: set[str], stack: DayStack | None
    ) -> Iterator[list[TocNode]]:
        """The segments below those of ``nodes`` (siblings in time order) that their digests
        (or, for days, their maps) keep: :meth:`_kept`, then :meth:`_descend` with what the
        maps said."""
        masks: dict[str, int] = {}
        kept = self._kept(nodes, need, ascending=True, stack=stack, masks=masks)
        yield from self._descend(kept, need, read, stack, masks)

    def _stacked_segments(
        self, days: list[tuple[TocNode, int]], need: int, stack: DayStack | None
    ) -> Iterator[list[TocNode]]:
        """The segments the maps keep of each of ``days`` (days of a week with what the
        stacked maps said of them, :meth:`_stacked_days`), newest day first."""
        for day, mask in reversed(days):
            mapped = self._mapped(day, need, stack, mask)
            if mapped:
                yield mapped

    def _plan(self, year: TocNode, stack: DayStack | None) -> YearPlan | None:
        """The :class:`YearPlan` of ``year`` for ``stack``, kept between questions with the
        skeleton; None for a route the ranges cut, without a stack or a skeleton, or a year
        the plan cannot lay out."""
        skeleton = self._skeleton
        if self.ranges or stack is None or skeleton is None:
            return None
        known = skeleton.plans.get(year.node_id)
        if known is not None and known[0] is stack:
            return known[1]
        plan = plan_year(stack, year, self._children_of)
        skeleton.keep_plan(year, stack, plan)
        return plan

    def _stacked_days(
        self, days: list[TocNode], need: int, stack: DayStack | None
    ) -> list[tuple[TocNode, int]] | None:
        """The ``days`` (in time order) whose maps in ``stack`` keep some segment for
        ``need`` terms, each with what its map keeps, tallied as :meth:`_kept` tallies;
        None when the stack does not answer for every one of them as it is now (then
        nothing was done)."""
        found = self.lens.stacked_found(days, need, stack)
        if found is None:
            return None
        kept = [(days[index], mask) for index, mask in found] if found else []
        if days and need == self._every:
            self._tally(need, TocLevel.DAY, len(days), len(days) - len(kept))
        return kept

    def _stack(self, year: TocNode) -> DayStack | None:
        """The stacked segment maps of all the days of ``year`` (the stack is kept between
        questions, so it holds the days the ranges leave out too)."""

        def days() -> list[TocNode]:
            found: list[TocNode] = []
            parents = [year]
            while parents:
                below: list[TocNode] = []
                for parent in parents:
                    for child in self._stored_children(parent.node_id):
                        if child.level is TocLevel.DAY:
                            found.append(child)
                        elif child.level.depth < TocLevel.DAY.depth:
                            below.append(child)
                parents = below
            return found

        return self.lens.stack(year, days)

    def _mapped(
        self,
        day: TocNode,
        need: int,
        stack: DayStack | None = None,
        known: int | None = None,
    ) -> list[TocNode] | None:
        """The segments of ``day`` (newest first) that may hold ``need`` terms by the day's
        segment map, found without reading the others; None when the map cannot tell (no
        map, or the day reaches out of the ranges).

        The map answers as the segments' own digests do, except for a segment whose digest is
        wider than the map's rows: folded, it may be kept where its own digest would not, and
        is then read for nothing; never the other way round. ``known`` is what the day's map
        keeps when it was read already (by :meth:`_pruned`, for a day inside the ranges)."""
        mapped = known if known is not None else self.lens.map_kept(day, need, stack)
        if mapped is None or not self._within(day):
            return None
        ids = day.child_node_ids
        find = self.storage.find_node
        picked: list[TocNode] = []
        for index in positions(mapped):
            child = find(ids[index])
            if child is not None and child.level is TocLevel.SEGMENT:
                picked.append(child)
        self._tally(need, TocLevel.SEGMENT, len(ids), len(ids) - len(picked))
        return picked

    def _within(self, day: TocNode) -> bool:
        """Whether every child of ``day`` lies inside the ranges: the day lies inside one."""
        return wholly_inside(day, self.ranges)

    def _children_of(self, node: TocNode) -> tuple[list[TocNode], bool]:
        """The node's children inside the ranges, in time order, and whether it is a day
        whose segments carry no digest."""
        cached = self._children.get(node.node_id)
        if cached is None:
            ranges = self.ranges
            skeleton = None if ranges else self._skeleton
            if skeleton is not None:
                cached = skeleton.routed.get(node.node_id)
            if cached is None:
                stored = self._stored_children(node.node_id)
                deeper = _DEEPER[node.level]
                children = [
                    child
                    for child in stored
                    if child.level in deeper and (not ranges or inside(child, ranges))
                ]
                plain = node.level is TocLevel.DAY and not any(child.digest for child in children)
                cached = (children, plain)
                if skeleton is not None:
                    skeleton.keep_routed(node, cached)
            self._children[node.node_id] = cached
        return cached

    def _stored_children(self, node_id: str) -> list[TocNode]:
        """The stored children of ``node_id`` (none when it is gone), read once a walk."""
        stored = self._stored.get(node_id)
        if stored is None:
            skeleton = self._skeleton
            if skeleton is not None:
                stored = skeleton.children.get(node_id)
            if stored is None:
                try:
                    stored = self.storage.get_child_nodes(node_id)
                except NotFound:
                    stored = []
                if skeleton is not None:
                    skeleton.keep_children(node_id, stored)
            self._stored[node_id] = stored
        return stored


def may_hold_all(walk: Walk, ranges: Sequence[TimeRange]) -> bool:
    """Whether the digests of ``ranges`` say some segment there may hold every term (False
    when they cannot tell: a store without digests)."""
    route = DigestRoute(walk.storage, walk.lens, ranges, walk.children, walk.skeleton)
    years = route.years()
    if years is None:
        return False
    every = len(walk.lens.terms)
    return next(iter(route.segments(years, lambda need: need == every)), None) is not None

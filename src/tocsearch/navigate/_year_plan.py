"""A year's months, weeks and stacked days laid out once for the digest route.

A question without a time hint walks every month and week of every year its digests keep
(:mod:`tocsearch.navigate._route`), and a pair of words said in most weeks but rarely in one
segment keeps almost all of them: some 300 weeks for five years, each listed, checked against
the year's stacked day maps (:mod:`tocsearch.navigate._day_stacks`) and found to keep nothing.
A :class:`YearPlan` holds what that walk reads below a year, made once while the year's stack
and the tree above the segments are unchanged: each month's weeks, each week's days with their
places in the stack, and the places of all the days of a month spread over the stack's row
shapes, so a month (or a week) none of whose days keeps a segment is ruled out with one AND
per row shape, without the calls the node-by-node walk makes for each week; and the digests
of its months and weeks bit-sliced (:mod:`tocsearch.navigate._digest_columns`), so which of
them may hold the terms is read for the whole year in a few slices. The digest cache keeps the
slices, as it keeps the digests they copy: a plan outlives evictions from the cache, and its
slices would otherwise hold a year's bitmaps over the cache's bound.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import reduce
from operator import or_

from tocsearch.levels import TocLevel
from tocsearch.models import TocNode
from tocsearch.navigate._day_stacks import DayStack, Whole
from tocsearch.navigate._digest_columns import DigestColumns
from tocsearch.navigate._digests import DigestCache

__all__ = ["MonthPlan", "YearPlan", "plan_year", "spread_of"]


class MonthPlan:
    """The weeks of one month (in time order), each with its days (in time order) and what
    the stack says of them (:meth:`DayStack.whole`: None when it does not hold every one),
    and the places of all their days spread over the stack's row shapes (None when the
    stack does not hold them all). ``first`` is the place of its first week among the
    weeks of the year, month after month (:meth:`YearPlan.columns`)."""

    __slots__ = ("consulted", "days", "first", "spread", "weeks")

    def __init__(
        self,
        weeks: list[TocNode],
        days: list[tuple[list[TocNode], Whole | None]],
        spread: list[int] | None,
        first: int = 0,
    ) -> None:
        self.weeks = weeks
        self.days = days
        self.spread = spread
        self.first = first
        # The weeks whose digests a look at the month's weeks consults (those that have one).
        self.consulted = tuple(week.node_id for week in weeks if week.digest)

    def kept_weeks(self, kept: int) -> list[TocNode]:
        """The weeks whose bits are set in ``kept`` (bit ``i`` for week ``i`` of the year,
        as :meth:`DigestColumns.kept` gives it for the year's weeks), in time order."""
        bits = kept >> self.first
        return [week for index, week in enumerate(self.weeks) if bits >> index & 1]


class YearPlan:
    """The months of a year (in time order) with their :class:`MonthPlan`, for the one
    ``stack`` it was made with."""

    __slots__ = ("_key", "_weight", "months", "plans", "stack")

    def __init__(self, stack: DayStack, months: list[TocNode], plans: list[MonthPlan]) -> None:
        self.stack = stack
        self.months = months
        # By month id: a route hands the months it keeps in its own order.
        self.plans = {month.node_id: plan for month, plan in zip(months, plans, strict=True)}
        # What the digest cache keeps this plan's columns under: unique while it is kept.
        self._key = object()
        # As many bitmaps as the columns copy.
        self._weight = len(months) + sum(len(plan.weeks) for plan in plans)

    def columns(self, digests: DigestCache) -> tuple[DigestColumns, DigestColumns]:
        """The digests of the months, and of the weeks of every month one month after
        another, bit-sliced (:class:`DigestColumns`), kept by ``digests`` as the bitmaps
        they copy would be (:meth:`DigestCache.derived`): the plan lives as long as the
        tree it was made from, and holding them itself would keep their bytes past the
        cache's bound.

        Runtime complexity: O(1) while kept; O(n * b) to make for n nodes of b bytes."""
        return digests.derived(self._key, self._weight, lambda: self._made(digests))

    def _made(self, digests: DigestCache) -> tuple[DigestColumns, DigestColumns]:
        weeks = [week for plan in self.plans.values() for week in plan.weeks]
        return (
            DigestColumns(self.months, _bitmaps(self.months, digests)),
            DigestColumns(weeks, _bitmaps(weeks, digests)),
        )

    def kept_months(self, kept: int) -> list[TocNode]:
        """The months whose bits are set in ``kept`` (as :meth:`DigestColumns.kept` gives it
        for the months), in time order."""
        return [month for index, month in enumerate(self.months) if kept >> index & 1]


def _bitmaps(nodes: Sequence[TocNode], digests: DigestCache) -> list[bytes | None]:
    """The decoded digest bitmap of each of ``nodes`` (None for an empty or unknown
    digest)."""
    found: list[bytes | None] = []
    for node in nodes:
        digest = digests.of(node)
        found.append(None if digest is None else digest.bitmap)
    return found


def plan_year(
    stack: DayStack,
    year: TocNode,
    children: Callable[[TocNode], tuple[list[TocNode], bool]],
) -> YearPlan | None:
    """The plan of ``year``, whose opened children (deeper nodes in time order, and whether it
    is a day whose segments carry no digest) ``children`` lists as the route opens them; None
    unless the year holds only months, each month some weeks and nothing else, and each week
    only days (then the route walks the year node by node).

    Runtime complexity: O(n) for n nodes below the year, down to the days."""
    months, _ = children(year)
    if not months:
        return None
    plans: list[MonthPlan] = []
    first = 0
    for month in months:
        if month.level is not TocLevel.MONTH:
            return None
        weeks, _ = children(month)
        if not weeks or any(week.level is not TocLevel.WEEK for week in weeks):
            return None
        days: list[tuple[list[TocNode], Whole | None]] = []
        for week in weeks:
            below, _ = children(week)
            if any(day.level is not TocLevel.DAY for day in below):
                return None
            days.append((below, stack.whole(below)))
        plans.append(MonthPlan(weeks, days, spread_of(days), first))
        first += len(weeks)
    return YearPlan(stack, months, plans)


def spread_of(weeks: Sequence[tuple[list[TocNode], Whole | None]]) -> list[int] | None:
    """The places of the days of ``weeks`` (as a :class:`MonthPlan` holds them, at least one)
    spread over their stack's row shapes, the spreads of the weeks joined; None when the
    stack does not hold every day."""
    spreads: list[list[int]] = []
    for _, whole in weeks:
        if whole is None:
            return None
        spreads.append(whole[2])
    return [reduce(or_, shape) for shape in zip(*spreads, strict=True)]

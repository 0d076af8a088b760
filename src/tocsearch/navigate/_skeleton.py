"""What a navigator keeps of the tree between questions while the store is unchanged.

A question without a time hint walks a digest route from every year down through every month
and week to the days (:mod:`tocsearch.navigate._route`): a few thousand nodes for five years,
listed again on every question. The store's :meth:`~tocsearch.storage.Storage.revision`
says when nothing was written since: then the children of each node above the days, and
which of them a route opens, are what they were, and a :class:`SkeletonView` kept for that
revision answers them without asking the store. A question at another revision gets a new,
empty view (a question still running at the old one keeps its own), and a store that cannot
vouch for its revision (None) gets none: every question then reads the store as before.

Only nodes above the segments are kept (years, months, weeks, days: the stored objects the
store handed out, which a store in memory keeps anyway), at most ``capacity`` of them.
"""

from __future__ import annotations

from tocsearch._checks import whole_number
from tocsearch.levels import TocLevel
from tocsearch.models import TocNode
from tocsearch.navigate._day_stacks import DayStack
from tocsearch.navigate._year_plan import YearPlan

__all__ = ["Skeleton", "SkeletonView"]


class SkeletonView:
    """The children of nodes above the days as the store held them at ``revision``.

    Runtime complexity: O(1) per lookup; O(c) to keep a list of c children."""

    __slots__ = ("_room", "children", "plans", "revision", "routed")

    def __init__(self, revision: int, capacity: int) -> None:
        self.revision = revision
        # The stored children of a node, by its id (get_child_nodes).
        self.children: dict[str, list[TocNode]] = {}
        # What a route over the whole history opens below a node: its children deeper than
        # it, and whether it is a day whose segments carry no digest.
        self.routed: dict[str, tuple[list[TocNode], bool]] = {}
        # The plan of each year a route laid out (None: it cannot be), with the stack of
        # the year's days it was made with.
        self.plans: dict[str, tuple[DayStack, YearPlan | None]] = {}
        self._room = capacity

    def keep_children(self, node_id: str, children: list[TocNode]) -> None:
        """Keep the stored children of ``node_id`` unless they are segments (or there is no
        room left for them)."""
        if len(children) > self._room or any(child.level is TocLevel.SEGMENT for child in children):
            return
        self._room -= len(children)
        self.children[node_id] = children

    def keep_routed(self, node: TocNode, opened: tuple[list[TocNode], bool]) -> None:
        """Keep what a route over the whole history opens below ``node``, when its stored
        children are kept (they hold every node the route opens)."""
        if node.node_id in self.children:
            self.routed[node.node_id] = opened

    def keep_plan(self, year: TocNode, stack: DayStack, plan: YearPlan | None) -> None:
        """Keep the plan of ``year`` made with ``stack`` (replacing one made with another)."""
        self.plans[year.node_id] = (stack, plan)


class Skeleton:
    """The :class:`SkeletonView` of the store's latest revision, holding at most ``capacity``
    nodes (0 keeps none)."""

    def __init__(self, capacity: int) -> None:
        self.capacity = whole_number("capacity", capacity, 0)
        self._view: SkeletonView | None = None

    def at(self, revision: int | None) -> SkeletonView | None:
        """The view for a question asked while the store is at ``revision``: the one kept
        when the store is as it was, else a new one; None when ``revision`` is None or
        nothing is kept."""
        if revision is None or not self.capacity:
            return None
        view = self._view
        if view is None or view.revision != revision:
            view = self._view = SkeletonView(revision, self.capacity)
        return view

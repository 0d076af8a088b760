"""Weeks, months and years made while a build still takes in later days.

A build takes in its made days in date order, so a week is complete once a day of a later
week is taken in, a month once a week of a later month is complete, and a year once a month
of a later year is. Made then, while helper processes still make days, a parent leaves the
build's last step (the roll-up, which no helper shares: on a history of short days, such as
one conversation a day, making weeks and months was most of it) with little more than
writing.

An early parent is made from its stored children with this build's new ones in their place:
what the roll-up would read once the new ones are written, versions aside (a parent does not
depend on its children's versions). Until then the build writes none of a completed parent's
children but those new ones, and removes only those it replaced with none (the store has one
writer), so the roll-up takes the early parent instead of reading its children again, and a
build makes the same tree with or without early parents.
"""

from __future__ import annotations

from datetime import date

from tocsearch.ids import day_id, parent_id, parse_node_id
from tocsearch.ingest._digests import Unions
from tocsearch.ingest._rollup import ParentJob
from tocsearch.levels import TocLevel
from tocsearch.models import TocNode
from tocsearch.storage.protocol import Storage
from tocsearch.summarize._summarizer import Summarizer

__all__ = ["EarlyParents"]


class EarlyParents:
    """The parents a build completes as it takes in its days (see the module docstring).

    Call :meth:`day_taken_in` for each day of the build in date order; :meth:`made` then
    answers for the parents completed so far.
    """

    def __init__(self, storage: Storage, summarizer: Summarizer, unions: Unions) -> None:
        self._storage = storage
        self._summarizer = summarizer
        self._unions = unions
        # The parent still open at each level (more of its children may come).
        self._open: dict[TocLevel, str] = {}
        # For each parent of this build, its new children by id (None: a child left with no
        # children of its own, which the roll-up removes).
        self._new: dict[str, dict[str, TocNode | None]] = {}
        # Each completed parent (None: it has no children).
        self._made: dict[str, TocNode | None] = {}

    def day_taken_in(self, day: date, node: TocNode | None) -> None:
        """Note a day of the build with its new node (None: the day has no segments left),
        completing the parents of the days before it that it follows."""
        identifier = day_id(day)
        week = parent_id(identifier)
        assert week is not None
        self._new.setdefault(week, {})[identifier] = node
        self._enter(TocLevel.WEEK, week)

    def made(self, node_id: str) -> TocNode | None:
        """The early node of the parent ``node_id`` (unversioned), or None when it is not
        complete or has no children."""
        return self._made.get(node_id)

    def _enter(self, level: TocLevel, node_id: str) -> None:
        """A child of ``node_id`` (at ``level``) is complete: the parent open at that level
        before it is complete too when it is another one."""
        open_id = self._open.get(level)
        if open_id == node_id:
            return
        self._open[level] = node_id
        if open_id is not None:
            self._complete(level, open_id)

    def _complete(self, level: TocLevel, node_id: str) -> None:
        children = self._children(level, node_id)
        node: TocNode | None = None
        if children:
            job = ParentJob(node_id, level, children, self._unions.of(children))
            node = job.make(self._summarizer)
        self._made[node_id] = node
        parent = parent_id(node_id)
        upper = level.parent()
        if parent is None or upper is None:
            return
        self._new.setdefault(parent, {})[node_id] = node
        self._enter(upper, parent)

    def _children(self, level: TocLevel, node_id: str) -> tuple[TocNode, ...]:
        """The children of ``node_id`` as the roll-up will read them: the stored ones, with
        this build's new ones in their place, by start time (ties by id)."""
        child_level = level.child()
        assert child_level is not None
        key = parse_node_id(node_id)
        children: dict[str, TocNode | None] = {
            node.node_id: node
            for node in self._storage.get_nodes_by_level(child_level, key.start, key.end)
            if parent_id(node.node_id) == node_id
        }
        children.update(self._new.pop(node_id, {}))
        ordered = sorted(
            (node for node in children.values() if node is not None),
            key=lambda node: (node.start_time, node.node_id),
        )
        return tuple(ordered)

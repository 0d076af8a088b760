"""The trail of one navigation: its steps, its iterations, what it read, and why it stopped.

Every part of a walk (descent, scan, grep) reports through one :class:`Trail`: it asks
:meth:`Trail.begin` before a search (which counts the iteration or refuses it), charges what
the search read with :meth:`Trail.charge`, and records the step with :meth:`Trail.record_step`.
The trail enforces the walk's own limits (searches, nodes read, events read); tokens are not
its business: the token budget bounds what is returned (:mod:`tocsearch.navigate._fit`).
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from tocsearch.levels import TocLevel
from tocsearch.navigate.result import NavigationStep, StepMatch, StepPhase

__all__ = ["Trail", "WalkLimits"]


@attrs.frozen
class WalkLimits:
    """The knobs of a walk; :class:`~tocsearch.navigate.Navigator` validates them.

    ``max_iterations`` bounds the searches, ``max_nodes`` the nodes scored, ``max_events`` the
    raw events the grep reads.
    """

    max_iterations: int
    threshold: float
    width: int
    max_evidence: int
    scan_page: int
    max_nodes: int
    max_events: int


class Trail:
    """Steps, iterations, reads and the halting reason of one navigation.

    One search is reserved for the final grep (when the walk greps), so a walk stopped by its
    iteration limit still looks at the events of what it found.
    """

    def __init__(self, limits: WalkLimits, *, keeps_grep: bool) -> None:
        self.limits = limits
        self.steps: list[NavigationStep] = []
        self.iterations = 0
        self.nodes_read = 0
        self.events_read = 0
        self.halted: str | None = None
        # Nodes scored so far: a node is searched at most once per navigation.
        self.seen: set[str] = set()
        reserve = 1 if keeps_grep and limits.max_iterations > 1 else 0
        self._walk_iterations = limits.max_iterations - reserve

    def halt(self, reason: str) -> None:
        """Stop the walk for ``reason``; the first reason given is kept."""
        if self.halted is None:
            self.halted = reason

    def begin(self, *, final: bool = False) -> bool:
        """Count one more search, or refuse it (and halt) when a limit is reached. ``final``
        marks the grep, which may use the search reserved for it."""
        if self.halted is not None and not final:
            return False
        limit = self.limits.max_iterations if final else self._walk_iterations
        if self.iterations >= limit:
            self.halt(f"stopped after max_iterations={self.limits.max_iterations} searches")
            return False
        self.iterations += 1
        return True

    def room(self) -> int:
        """How many more nodes a search may score before the node limit."""
        return max(0, self.limits.max_nodes - self.nodes_read)

    def charge(self, *, nodes: Iterable[str] = (), events: int = 0) -> None:
        """Count ``nodes`` (ids) as read, and ``events`` raw events; halts once a limit is
        reached (the search that reached it keeps what it read)."""
        before = len(self.seen)
        self.seen.update(nodes)
        self.nodes_read += len(self.seen) - before
        self.events_read += events
        if self.nodes_read >= self.limits.max_nodes:
            self.halt(f"stopped after reading max_nodes={self.limits.max_nodes} nodes")

    def record_step(
        self,
        *,
        phase: StepPhase,
        level: TocLevel,
        scope: str,
        searched: int,
        matched: int = 0,
        matches: tuple[StepMatch, ...] = (),
        parent_ids: tuple[str, ...] = (),
        reason: str = "",
    ) -> NavigationStep:
        """Append a step to the path and return it."""
        step = NavigationStep(
            number=len(self.steps) + 1,
            phase=phase,
            level=level,
            scope=scope,
            parent_ids=parent_ids,
            searched=searched,
            matched=matched,
            matches=matches,
            chosen=None,
            reason=reason,
        )
        self.steps.append(step)
        return step

    def annotate(self, reason: str, chosen: str | None = None) -> None:
        """Say what the last step led to."""
        if self.steps:
            self.steps[-1] = attrs.evolve(self.steps[-1], chosen=chosen, reason=reason)

    def note(self, *, phase: StepPhase, level: TocLevel, scope: str, reason: str) -> None:
        """Record a phase that found nothing new to search, so the path shows it was tried."""
        if self.halted is None:
            self.record_step(phase=phase, level=level, scope=scope, searched=0, reason=reason)

    def stop_note(self) -> str:
        """``"Stopping: <reason>"`` for the step a halt ended."""
        return f"Stopping: {self.halted}"

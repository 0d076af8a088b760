"""What can be read back out of a damaged store: its events, and the event ids its surviving
segments name (so a repair can say which events it could not find)."""

from __future__ import annotations

import attrs

from tocsearch.levels import TocLevel
from tocsearch.models import Event, TocNode

__all__ = ["Salvage", "SalvageBuilder"]


@attrs.frozen
class Salvage:
    """Everything a repair can rebuild a store from.

    Attributes:
        events: every readable event, newest version of each id, in id order.
        missing_event_ids: ids named by a readable segment with no readable event behind them.
        problems: one line per record or file that could not be read, naming it.
    """

    events: tuple[Event, ...]
    missing_event_ids: tuple[str, ...]
    problems: tuple[str, ...]


class SalvageBuilder:
    """Collects what a backend finds while it reads a damaged store record by record."""

    def __init__(self) -> None:
        self.events: dict[str, Event] = {}
        self.cited: set[str] = set()
        self.problems: list[str] = []

    def event(self, event: Event) -> None:
        """A readable event; a later one of the same id replaces it."""
        self.events[event.event_id] = event

    def node(self, node: TocNode) -> None:
        """A readable node; a segment's events are expected to exist."""
        if node.level is TocLevel.SEGMENT:
            self.cited.update(node.event_ids)

    def problem(self, where: str, what: object) -> None:
        """A record or file that could not be read."""
        self.problems.append(f"{where}: {what}")

    def done(self) -> Salvage:
        """The salvage, events in id order."""
        return Salvage(
            events=tuple(self.events[key] for key in sorted(self.events)),
            missing_event_ids=tuple(sorted(self.cited - self.events.keys())),
            problems=tuple(self.problems),
        )

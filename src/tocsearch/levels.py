"""The levels of the time table of contents, from the coarsest to the leaves."""

from __future__ import annotations

import enum

from tocsearch.errors import InvalidArgument

__all__ = ["TocLevel"]


class TocLevel(str, enum.Enum):
    """A level of the tree: Year > Month > Week > Day > Segment."""

    YEAR = "year"
    MONTH = "month"
    WEEK = "week"
    DAY = "day"
    SEGMENT = "segment"

    @property
    def depth(self) -> int:
        """0 for YEAR up to 4 for SEGMENT."""
        return _ORDER.index(self)

    def parent(self) -> TocLevel | None:
        """The level above, or None for YEAR."""
        depth = self.depth
        return _ORDER[depth - 1] if depth > 0 else None

    def child(self) -> TocLevel | None:
        """The level below, or None for SEGMENT."""
        depth = self.depth
        return _ORDER[depth + 1] if depth + 1 < len(_ORDER) else None

    @classmethod
    def parse(cls, value: str) -> TocLevel:
        """A level from its name, case-insensitively (``"Month"`` -> MONTH).

        Raises:
            InvalidArgument: the name is not a level.
        """
        try:
            return cls(value.strip().lower())
        except ValueError:
            names = ", ".join(level.value for level in cls)
            raise InvalidArgument(f"level must be one of {names}, got {value!r}") from None


_ORDER: tuple[TocLevel, ...] = tuple(TocLevel)

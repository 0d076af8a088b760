"""TocLevel: the order of the levels, their parents, children and names."""

from __future__ import annotations

from itertools import pairwise

import pytest

from tocsearch.errors import InvalidArgument
from tocsearch.levels import TocLevel

ORDER = [TocLevel.YEAR, TocLevel.MONTH, TocLevel.WEEK, TocLevel.DAY, TocLevel.SEGMENT]


def test_levels_run_from_year_to_segment() -> None:
    """Iterating TocLevel gives Year > Month > Week > Day > Segment, with depths 0..4."""
    assert list(TocLevel) == ORDER
    assert [level.depth for level in TocLevel] == [0, 1, 2, 3, 4]


def test_parent_and_child() -> None:
    """Each level's parent is the one above and its child the one below; the ends have None."""
    assert TocLevel.YEAR.parent() is None
    assert TocLevel.SEGMENT.child() is None
    for upper, lower in pairwise(ORDER):
        assert upper.child() is lower
        assert lower.parent() is upper


@pytest.mark.parametrize("level", ORDER)
def test_parent_child_inverse(level: TocLevel) -> None:
    """Going down then up, or up then down, returns to the same level where both exist."""
    child = level.child()
    if child is not None:
        assert child.parent() is level
    parent = level.parent()
    if parent is not None:
        assert parent.child() is level


@pytest.mark.parametrize(
    ("name", "level"),
    [
        ("year", TocLevel.YEAR),
        ("Month", TocLevel.MONTH),
        (" WEEK ", TocLevel.WEEK),
        ("day\n", TocLevel.DAY),
        ("Segment", TocLevel.SEGMENT),
    ],
)
def test_parse_is_case_insensitive(name: str, level: TocLevel) -> None:
    """parse() accepts a level's name in any case, with surrounding whitespace."""
    assert TocLevel.parse(name) is level


@pytest.mark.parametrize("name", ["", "decade", "years", "seg"])
def test_parse_refuses_unknown_names(name: str) -> None:
    """parse() refuses an unknown name with InvalidArgument listing the levels."""
    with pytest.raises(InvalidArgument, match=f"year, month, week, day, segment, got {name!r}"):
        TocLevel.parse(name)


def test_levels_are_their_values() -> None:
    """A level compares equal to its string value, so it serialises as that string."""
    assert TocLevel.DAY.value == "day"
    assert isinstance(TocLevel.DAY, str)
    assert str.__eq__(TocLevel.DAY, "day")
    assert TocLevel("segment") is TocLevel.SEGMENT

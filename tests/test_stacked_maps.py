"""Stacked segment maps answer for every day exactly as the day's own map does."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import digest_probes, segment_maps
from tocsearch._segment_map import SegmentMap, at_least
from tocsearch._stacked_maps import StackedMaps

day_maps = st.lists(segment_maps(), max_size=12)


@given(day_maps, digest_probes)
def test_stacked_masks_are_each_days_own_masks(
    maps: list[SegmentMap], probes: list[tuple[int, ...] | None]
) -> None:
    """For every map and probe set, the stacked masks of a map are its own masks, whatever
    the mix of row widths and segment counts stacked together."""
    masks = StackedMaps(maps).masks(probes)
    for index, smap in enumerate(maps):
        assert masks.of(index) == smap.masks(probes)


@given(day_maps, digest_probes, st.integers(0, 6))
def test_stacked_counts_are_each_days_own_counts(
    maps: list[SegmentMap], probes: list[tuple[int, ...] | None], need: int
) -> None:
    """The segments kept for ``need`` of the terms are those the map's own masks keep
    (:func:`at_least`), and a map (or any of several) holds some exactly when that is not
    empty."""
    stacked = StackedMaps(maps)
    kept = stacked.masks(probes).kept(need)
    assert len(stacked) == len(maps)
    assert kept.any_in(stacked.spread(range(len(maps)))) is any(
        at_least(smap.masks(probes), need, smap.every) for smap in maps
    )
    assert not kept.any_in(stacked.spread([]))
    for index, smap in enumerate(maps):
        expected = at_least(smap.masks(probes), need, smap.every)
        assert kept.of(index) == expected
        assert kept.holds(index) is bool(expected)
        assert kept.any_in(stacked.spread([index])) is bool(expected)
        assert expected & ~smap.every == 0

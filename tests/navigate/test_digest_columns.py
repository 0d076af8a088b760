"""Bit-sliced digests (:mod:`tocsearch.navigate._digest_columns`) keep exactly the nodes whose
own bitmaps may hold enough of the terms, for bitmaps of mixed sizes, unknown digests and
terms that are never ruled out."""

from __future__ import annotations

from datetime import datetime, timezone

from hypothesis import given
from hypothesis import strategies as st

from tocsearch import ids
from tocsearch.digest import DIGEST_BITS
from tocsearch.levels import TocLevel
from tocsearch.models import TocNode
from tocsearch.navigate._digest_columns import DigestColumns

_WEEK = datetime(2026, 1, 5, tzinfo=timezone.utc)

# A node's digest: absent, unknown (a text no bitmap was read from), or a bitmap of a size.
digest_states = st.one_of(
    st.just("absent"),
    st.just("unknown"),
    st.sampled_from([8, 64, 128]).flatmap(lambda size: st.binary(min_size=size, max_size=size)),
)
term_probes = st.one_of(
    st.none(), st.lists(st.integers(0, DIGEST_BITS - 1), min_size=1, max_size=4).map(tuple)
)


def node(index: int, state: str | bytes) -> TocNode:
    """A week node whose digest text is empty when ``state`` says the digest is absent."""
    return TocNode(
        node_id=ids.week_id(2026, index % 52 + 1) + ("" if index < 52 else f"-{index}"),
        level=TocLevel.WEEK,
        title=f"week {index}",
        start_time=_WEEK,
        end_time=_WEEK,
        digest="" if state == "absent" else "digest",
    )


def held(bitmap: bytes, probes: tuple[int, ...] | None) -> bool:
    """Whether ``bitmap`` may hold the term of ``probes``, as a digest reads it."""
    if probes is None:
        return True
    mask = len(bitmap) * 8 - 1
    return all(bitmap[(at & mask) >> 3] >> (at & 7) & 1 for at in probes)


@given(
    states=st.lists(digest_states, min_size=1, max_size=70),
    terms=st.lists(term_probes, min_size=1, max_size=4),
    extra=st.integers(-1, 1),
)
def test_columns_keep_what_each_bitmap_keeps(
    states: list[str | bytes], terms: list[tuple[int, ...] | None], extra: int
) -> None:
    """A node is kept when its digest is absent or unknown, or its bitmap may hold at least
    ``need`` of the terms; every node with a digest counts as consulted."""
    nodes = [node(index, state) for index, state in enumerate(states)]
    bitmaps = [state if isinstance(state, bytes) else None for state in states]
    columns = DigestColumns(nodes, bitmaps)
    need = max(1, len(terms) + extra)
    kept = columns.kept(columns.holders(terms), need)
    for index, bitmap in enumerate(bitmaps):
        expected = bitmap is None or sum(held(bitmap, probes) for probes in terms) >= need
        assert bool(kept >> index & 1) == expected, (index, need)
    assert kept >> len(nodes) == 0
    assert columns.consulted == tuple(
        item.node_id for item, state in zip(nodes, states, strict=True) if state != "absent"
    )
    assert columns.nodes == nodes

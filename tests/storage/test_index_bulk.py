"""NodeIndex.add_many: the bulk load behind the lazy JSON-directory index gives the same index
as adding each entry on its own."""

from __future__ import annotations

from datetime import datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from navigate.navtree import utc
from tocsearch.levels import TocLevel
from tocsearch.storage._index import NodeIndex

ORIGIN = utc(2026, 1, 1, 0)
Entry = tuple[str, datetime, datetime]

entries = st.lists(
    st.tuples(
        st.sampled_from([f"toc:segment:2026-01-01:n{n}" for n in range(12)]),
        st.integers(0, 500),
        st.integers(0, 200),
    ).map(
        lambda raw: (
            raw[0],
            ORIGIN + timedelta(hours=raw[1]),
            ORIGIN + timedelta(hours=raw[1] + raw[2]),
        )
    ),
    max_size=30,
)


def _state(index: NodeIndex) -> tuple[object, ...]:
    windows = [(None, None), (ORIGIN + timedelta(hours=100), ORIGIN + timedelta(hours=300))]
    return (
        sorted(index.ids()),
        [index.span(node_id) for node_id in sorted(index.ids())],
        [index.query(TocLevel.SEGMENT, start, end) for start, end in windows],
    )


@given(before=entries, batch=entries)
def test_add_many_equals_adding_one_by_one(before: list[Entry], batch: list[Entry]) -> None:
    """Bulk-adding a batch after some single adds leaves the same spans, ids and query answers
    as adding the batch one entry at a time (replaced ids, repeats and all)."""
    one_by_one, bulk = NodeIndex(), NodeIndex()
    for node_id, start, end in before:
        one_by_one.add(node_id, TocLevel.SEGMENT, start, end)
        bulk.add(node_id, TocLevel.SEGMENT, start, end)
    for node_id, start, end in batch:
        one_by_one.add(node_id, TocLevel.SEGMENT, start, end)
    bulk.add_many(TocLevel.SEGMENT, iter(batch))
    bulk.check()
    assert _state(bulk) == _state(one_by_one)

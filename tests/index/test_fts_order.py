"""The index ranks full-text matches by BM25 as FTS5's own ``rank`` orders them, ties included:
its queries sort ``bm25()`` scores themselves, which must not change a ranking."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st
from tests._support.examples import scaled
from tests.strategies import events, toc_nodes

from tocsearch.index import SearchIndex
from tocsearch.index._query import match_expressions
from tocsearch.index._sidecar import _time_filter
from tocsearch.levels import TocLevel
from tocsearch.storage import InMemoryStorage

# Few words, short texts: many rows score alike, so the order of ties is tested too.
_WORDS = ("alpha", "beta", "gamma", "delta")
_texts = st.lists(st.sampled_from(_WORDS), min_size=1, max_size=3).map(" ".join)
_queries = st.lists(st.sampled_from(_WORDS), min_size=1, max_size=3).map(" ".join)
_T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
_times = st.integers(0, 40).map(lambda hours: _T0 + timedelta(hours=hours))
_spans = st.one_of(
    st.just((None, None)),
    st.tuples(st.none() | _times, st.none() | _times),
)

_BY_RANK = {
    "events": (
        "SELECT events.event_id FROM events_fts JOIN events ON events.id = events_fts.rowid "
        "WHERE events_fts MATCH ?{where} ORDER BY rank LIMIT ?",
        ("events.time_us >= ?", "events.time_us < ?"),
    ),
    "segments": (
        "SELECT nodes.node_id FROM segments_fts JOIN nodes ON nodes.id = segments_fts.rowid "
        "WHERE segments_fts MATCH ?{where} ORDER BY rank LIMIT ?",
        ("nodes.end_us >= ?", "nodes.start_us < ?"),
    ),
}


def _by_rank(
    index: SearchIndex,
    table: str,
    query: str,
    limit: int,
    start: datetime | None,
    end: datetime | None,
) -> list[str]:
    """What the index answers, by FTS5's ``ORDER BY rank``: rows holding every word, then
    rows holding any."""
    sql, (after, before) = _BY_RANK[table]
    where, values = _time_filter(after, before, start, end)
    found: dict[str, None] = {}
    every, some = match_expressions(query)
    for expression in (every,) if some == every else (every, some):
        if expression is None or len(found) >= limit:
            break
        rows = index._connection.execute(
            sql.format(where=where), (expression, *values, limit)
        ).fetchall()
        found.update(dict.fromkeys(row[0] for row in rows))
    return list(found)[:limit]


@settings(max_examples=scaled(40), deadline=None)
@given(
    texts=st.lists(st.tuples(_times, _texts), min_size=1, max_size=30),
    titles=st.lists(st.tuples(_times, _texts, _texts), max_size=12),
    query=_queries,
    limit=st.integers(1, 12),
    span=_spans,
    data=st.data(),
)
def test_full_text_rankings_are_those_of_fts5_rank(
    texts: list[tuple[datetime, str]],
    titles: list[tuple[datetime, str, str]],
    query: str,
    limit: int,
    span: tuple[datetime | None, datetime | None],
    data: st.DataObject,
) -> None:
    """fts_events, fts_event_owners and fts_segments return the rows, in the order, that
    ordering by FTS5's rank gives, within any time span and limit."""
    store = InMemoryStorage()
    stored = [attrs.evolve(data.draw(events(when)), text=text) for when, text in texts]
    store.put_events(stored)
    segments = []
    for when, title, summary in titles:
        node = data.draw(toc_nodes(TocLevel.SEGMENT))
        segments.append(
            attrs.evolve(
                node,
                title=title,
                summary=summary,
                bullets=(),
                keywords=(),
                start_time=when,
                end_time=when + timedelta(hours=2),
            )
        )
    store.put_nodes(segments)
    index = SearchIndex(store)
    index.sync()
    start, end = span
    ranked = index.fts_events(query, limit=limit, start=start, end=end)
    assert ranked == _by_rank(index, "events", query, limit, start, end)
    owned = index.fts_event_owners(query, limit=limit, start=start, end=end)
    assert [event_id for event_id, _ in owned] == ranked
    assert index.fts_segments(query, limit=limit, start=start, end=end) == _by_rank(
        index, "segments", query, limit, start, end
    )

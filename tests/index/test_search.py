"""search(): hybrid, full-text, vector and navigator modes, min_score, fallbacks."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tocsearch.errors import InvalidArgument
from tocsearch.examples import load_example_events
from tocsearch.index import HashingEmbedder, SearchIndex, SearchMode
from tocsearch.index._sidecar_file import INDEX_FILE_NAME
from tocsearch.ingest import TocBuilder
from tocsearch.storage import InMemoryStorage, JsonDirStorage

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

QUERY = "JWT refresh token rotation"


@pytest.fixture(scope="module")
def store() -> InMemoryStorage:
    built = InMemoryStorage()
    TocBuilder(built).ingest(load_example_events())
    return built


@pytest.mark.parametrize("mode", ["hybrid", "fts", "vec", "toc"])
def test_each_mode_finds_hydrated_segments(store: InMemoryStorage, mode: str) -> None:
    """Every mode returns segments with their time range, grips, matched events and a score."""
    outcome = SearchIndex(store, embedder=HashingEmbedder()).search(QUERY, mode=mode, limit=4)
    assert outcome.mode_used is SearchMode(mode)
    assert outcome.note == ""
    assert 1 <= len(outcome.hits) <= 4
    for hit in outcome.hits:
        node = store.get_node(hit.segment_id)
        assert (hit.start_time, hit.end_time, hit.title) == (
            node.start_time,
            node.end_time,
            node.title,
        )
        assert set(hit.event_ids) <= set(node.event_ids) | set(node.overlap_event_ids)
        assert 0.0 < hit.score <= 1.0
    scores = [hit.score for hit in outcome.hits]
    assert scores == sorted(scores, reverse=True)


def test_hybrid_puts_the_segment_both_rankings_agree_on_first(store: InMemoryStorage) -> None:
    """The fused first hit holds the query's words and scores above a single ranking's best."""
    index = SearchIndex(store, embedder=HashingEmbedder())
    hybrid = index.search(QUERY, limit=3)
    assert hybrid.mode_used is SearchMode.HYBRID
    top = hybrid.hits[0]
    assert "jwt" in top.text.casefold() or "refresh" in top.text.casefold()
    assert top.grip_ids
    assert all(store.get_grip(grip_id).toc_node_id == top.segment_id for grip_id in top.grip_ids)


def test_min_score_drops_weak_hits(store: InMemoryStorage) -> None:
    """No hit scores under min_score, and a high floor keeps fewer hits."""
    index = SearchIndex(store, embedder=HashingEmbedder())
    loose = index.search(QUERY, limit=10)
    strict = index.search(QUERY, limit=10, min_score=0.6)
    assert all(hit.score >= 0.6 for hit in strict.hits)
    assert len(strict.hits) < len(loose.hits)


def test_time_range_filters_hits(store: InMemoryStorage) -> None:
    """Hits lie in [start, end) when a range is given."""
    start = datetime(2026, 3, 1, tzinfo=timezone.utc)
    end = datetime(2026, 4, 1, tzinfo=timezone.utc)
    outcome = SearchIndex(store, embedder=HashingEmbedder()).search(
        QUERY, limit=10, start=start, end=end
    )
    assert outcome.hits
    assert all(hit.end_time >= start and hit.start_time < end for hit in outcome.hits)


def test_an_empty_store_has_no_hits() -> None:
    """Searching an empty store finds nothing and raises nothing."""
    outcome = SearchIndex(InMemoryStorage()).search("anything at all", mode="fts")
    assert outcome.hits == ()
    assert outcome.mode_used is SearchMode.FTS


def test_hybrid_without_an_embedder_runs_full_text_and_says_so(store: InMemoryStorage) -> None:
    """No embedder: hybrid degrades to full-text, vec to the navigator, with a note."""
    index = SearchIndex(store)
    hybrid = index.search(QUERY)
    assert (hybrid.mode_used, hybrid.note) == (SearchMode.FTS, "no embedder: full-text only")
    assert hybrid.hits
    vec = index.search(QUERY, mode="vec")
    assert vec.mode_used is SearchMode.TOC
    assert "no embedder" in vec.note


class _BrokenEmbedder:
    name = "broken"
    dimension = 8

    def __init__(self) -> None:
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.calls += 1
        if self.calls > 1:  # indexing works, the query's embedding fails
            raise ConnectionError("model server went away")
        return HashingEmbedder(8).embed(texts)


def test_an_embedder_failing_at_query_time_degrades_to_full_text() -> None:
    """A failing embedder is reported in the note; the search still answers."""
    built = InMemoryStorage()
    TocBuilder(built).ingest(load_example_events()[:40])
    outcome = SearchIndex(built, embedder=_BrokenEmbedder()).search("deploy")
    assert outcome.mode_used is SearchMode.FTS
    assert "model server went away" in outcome.note


def test_a_corrupt_index_falls_back_to_the_navigator(tmp_path: Path) -> None:
    """An unreadable sidecar never raises from search: the navigator answers instead."""
    with JsonDirStorage(tmp_path / "store") as built:
        TocBuilder(built).ingest(load_example_events())
        (tmp_path / "store" / INDEX_FILE_NAME).write_bytes(b"\x00garbage" * 512)
        outcome = SearchIndex(built).search(QUERY, mode="fts")
        assert outcome.mode_used is SearchMode.TOC
        assert INDEX_FILE_NAME in outcome.note
        assert outcome.hits


@pytest.mark.parametrize(
    ("options", "message"),
    [({"mode": "bm25"}, "mode must be"), ({"limit": 0}, "limit"), ({"min_score": 2}, "min_score")],
)
def test_bad_arguments_are_refused(
    store: InMemoryStorage, options: dict[str, object], message: str
) -> None:
    """An unknown mode, a limit under 1 or a min_score outside 0-1 is an InvalidArgument."""
    with pytest.raises(InvalidArgument, match=message):
        SearchIndex(store).search(QUERY, **options)  # type: ignore[arg-type]


def test_outcome_to_dict_is_json_ready(store: InMemoryStorage) -> None:
    """The outcome converts to plain data with the modes as strings."""
    data = SearchIndex(store).search(QUERY, mode="fts", limit=2).to_dict()
    assert data["mode_used"] == "fts"
    assert isinstance(data["hits"][0]["start_time"], str)


@pytest.mark.parametrize("mode", ["fts", "hybrid", "vec"])
def test_a_limit_past_every_row_finds_what_a_large_one_does(
    store: InMemoryStorage, mode: str
) -> None:
    """A limit larger than SQLite's integers (10**20) is a limit past every hit, not an
    OverflowError from the full-text query."""
    index = SearchIndex(store, embedder=HashingEmbedder())
    every = index.search(QUERY, mode=mode, limit=1000)
    assert index.search(QUERY, mode=mode, limit=10**20).hits == every.hits


@pytest.mark.parametrize("mode", ["fts", "hybrid"])
@pytest.mark.parametrize("noise", ["\x00", "\ud800"])
def test_a_nul_or_a_lone_surrogate_in_a_query_is_searched_past(
    store: InMemoryStorage, mode: str, noise: str
) -> None:
    """A query holding a NUL or an unpaired surrogate is searched in the index like the
    query without it: no UnicodeEncodeError, and no report of an unusable index."""
    index = SearchIndex(store, embedder=HashingEmbedder())
    plain = index.search(QUERY, mode=mode, limit=4)
    noisy = index.search(f"{QUERY} {noise}", mode=mode, limit=4)
    assert noisy.mode_used == plain.mode_used == mode
    assert noisy.note == plain.note
    assert [hit.segment_id for hit in noisy.hits] == [hit.segment_id for hit in plain.hits]


@pytest.mark.parametrize("mode", ["fts", "toc"])
def test_an_unencodable_query_is_echoed_as_utf8_can_write_it(
    store: InMemoryStorage, mode: str
) -> None:
    """A query with an unpaired surrogate (a command line's bytes that are not UTF-8) comes
    back in the outcome with U+FFFD in its place, so the answer can be written as UTF-8."""
    outcome = SearchIndex(store, embedder=HashingEmbedder()).search(
        f"{QUERY} \udcff", mode=mode, limit=2
    )
    assert outcome.query == f"{QUERY} \ufffd"
    json.dumps(outcome.to_dict(), ensure_ascii=False).encode("utf-8")

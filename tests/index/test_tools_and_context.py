"""memory_search and relevant context: well-formed JSON, blocks within budget, fallbacks."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from tests._support.budget import evidence_items

from tocsearch.examples import EXAMPLE_END, load_example_events
from tocsearch.index import (
    HashingEmbedder,
    IndexSeeder,
    SearchIndex,
    format_context,
    relevant_context,
)
from tocsearch.index._sidecar_file import INDEX_FILE_NAME
from tocsearch.ingest import TocBuilder
from tocsearch.navigate import Navigator
from tocsearch.storage import InMemoryStorage, JsonDirStorage
from tocsearch.text import estimate_tokens
from tocsearch.tools import AgentTools


@pytest.fixture(scope="module")
def store() -> InMemoryStorage:
    built = InMemoryStorage()
    TocBuilder(built).ingest(load_example_events())
    return built


def test_memory_search_returns_results_with_ids_and_scores(store: InMemoryStorage) -> None:
    """The tool answers JSON with hydrated results, the mode used and no error."""
    tools = AgentTools(store, now=EXAMPLE_END, index=SearchIndex(store, embedder=HashingEmbedder()))
    answer = json.loads(tools.handle_tool_call("memory_search", {"query": "refresh token race"}))
    assert answer["mode_used"] == "hybrid"
    assert 1 <= len(answer["results"]) <= 5
    first = answer["results"][0]
    assert set(first) >= {"segment_id", "event_ids", "grip_ids", "start_time", "text", "score"}
    assert store.find_node(first["segment_id"]) is not None
    assert 0 < first["score"] <= 1


def test_memory_search_without_an_index_uses_the_navigator(store: InMemoryStorage) -> None:
    """With no index the tool still answers, through the navigator, and says so."""
    answer = json.loads(
        AgentTools(store).handle_tool_call("memory_search", '{"query": "JWT refresh", "limit": 2}')
    )
    assert answer["mode_used"] == "toc"
    assert answer["note"] == "no search index"
    assert len(answer["results"]) <= 2


@pytest.mark.parametrize(
    "arguments",
    ['{"query": 3}', '{"limit": 2}', '{"query": "x", "limit": 0}', '{"query": "x", "k": 1}', "[]"],
)
def test_memory_search_reports_bad_arguments_as_errors(
    store: InMemoryStorage, arguments: str
) -> None:
    """Bad arguments come back as an error object, never an exception."""
    answer = json.loads(AgentTools(store).handle_tool_call("memory_search", arguments))
    assert set(answer) == {"error"}
    assert answer["error"]["type"] == "InvalidArgument"


def test_relevant_context_is_a_block_within_its_budget(store: InMemoryStorage) -> None:
    """The block is tagged, names segments and fits the token budget."""
    index = SearchIndex(store, embedder=HashingEmbedder())
    block = relevant_context(index, "JWT refresh token rotation", token_budget=300)
    assert block.startswith("<relevant-context>\n")
    assert block.endswith("\n</relevant-context>")
    assert "toc:segment:" in block
    assert estimate_tokens(block) <= 300


def test_relevant_context_is_empty_when_nothing_scores_high_enough(store: InMemoryStorage) -> None:
    """Nothing above min_score, or a budget too small for one entry, gives an empty string."""
    index = SearchIndex(store)
    assert relevant_context(index, "zebra xylophone quasar") == ""
    hits = index.search("JWT refresh", limit=3).hits
    assert hits
    assert format_context(hits, token_budget=10) == ""


def test_agent_tools_relevant_context_matches_the_index_function(store: InMemoryStorage) -> None:
    """AgentTools.relevant_context gives the same block as relevant_context over its index."""
    index = SearchIndex(store)
    tools = AgentTools(store, index=index)
    assert tools.relevant_context("JWT refresh token") == relevant_context(
        index, "JWT refresh token"
    )


def test_navigate_with_an_index_teleports_and_keeps_citations(store: InMemoryStorage) -> None:
    """With an index the navigator's path starts with a teleport via FTS5, and its evidence
    still cites events and grips."""
    tools = AgentTools(store, now=EXAMPLE_END, index=SearchIndex(store))
    answer = json.loads(
        tools.handle_tool_call("navigate", {"query": "refresh token race", "full_path": True})
    )
    phases = [step["phase"] for step in answer["steps"]]
    assert phases[0] == "teleport"
    assert "Teleported via FTS5" in answer["steps"][0]["scope"]
    assert evidence_items(answer)
    assert all(item["event_ids"] for item in evidence_items(answer))


def test_a_seeder_over_an_unreadable_index_lets_the_walk_go_on(tmp_path: Path) -> None:
    """An index that fails is noted in the path; the navigator still answers."""
    with JsonDirStorage(tmp_path / "store") as built:
        TocBuilder(built).ingest(load_example_events())
        (tmp_path / "store" / INDEX_FILE_NAME).write_bytes(b"\x00garbage" * 512)
        result = Navigator(built, seeder=IndexSeeder(SearchIndex(built))).navigate(
            "refresh token race", full_path=True
        )
        assert "The seeder failed" in result.steps[0].reason
        assert result.evidence


def test_an_index_seeder_with_vectors_ranks_events_of_segments(store: InMemoryStorage) -> None:
    """seed_events names stored events with the segment that holds each, nearest first, scores
    in (0, 1] falling, at most the limit; without vectors it names none."""
    index = SearchIndex(store, embedder=HashingEmbedder())
    seeder = IndexSeeder(index)
    triples = seeder.seed_events("refresh token race", limit=7, start=None, end=None)
    assert 1 <= len(triples) <= 7
    ids = [event_id for event_id, _, _ in triples]
    assert ids == index.nearest_events("refresh token race", limit=7)
    for event_id, segment_id, score in triples:
        segment = store.get_node(segment_id)
        assert event_id in segment.event_ids
        assert 0.0 < score <= 1.0
    scores = [score for _, _, score in triples]
    assert scores == sorted(scores, reverse=True)
    assert seeder.last_error == ""
    assert (
        IndexSeeder(SearchIndex(store)).seed_events(
            "refresh token race", limit=7, start=None, end=None
        )
        == []
    )


def test_an_index_seeder_whose_embedder_fails_ranks_no_events(store: InMemoryStorage) -> None:
    """An embedder that raises gives no events and says why in last_error."""

    class Failing(HashingEmbedder):
        def embed(self, texts: Sequence[str]) -> Any:
            if texts == ["refresh token race"]:
                raise OSError("model server is down")
            return super().embed(texts)

    seeder = IndexSeeder(SearchIndex(store, embedder=Failing()))
    assert seeder.seed_events("refresh token race", limit=5, start=None, end=None) == []
    assert "model server is down" in seeder.last_error

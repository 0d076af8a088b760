"""The full-text methods of the LoCoMo evaluation on the six-turn fixture: they need nothing
beyond the core (the vector methods are tested in ``test_indexed_vectors.py``)."""

from __future__ import annotations

import pytest
from benchmarks._indexed import (
    FusedTurnsRetriever,
    IndexSearchRetriever,
    TeleportedNavigator,
    onnx_embedder,
    shared_index,
)
from tests._support.tiny_locomo import dia_ids, tiny_conversation

from benchmarks import _indexed
from tocsearch.errors import InvalidArgument
from tocsearch.index import SearchIndex, SearchMode


def test_index_search_returns_the_matched_turns_of_each_hit() -> None:
    """index-fts returns, per segment hit, the turns holding the question's words, best
    first; a question no turn or summary matches returns nothing."""
    retriever = IndexSearchRetriever(
        shared_index(tiny_conversation(), None), SearchMode.FTS, name="index-fts"
    )
    ranked = retriever.retrieve("Did Biscuit the puppy chew sneakers?")
    assert dia_ids(ranked) == ["D2:2", "D1:1"]
    assert all(item.label.startswith("toc:segment:") for item in ranked)
    assert retriever.retrieve("zebra quasar") == []


def test_index_search_refuses_to_be_scored_in_a_fallback_mode() -> None:
    """A vector method without an embedder would run the navigator: the retriever stops."""
    retriever = IndexSearchRetriever(
        shared_index(tiny_conversation(), None), SearchMode.VEC, name="index-vec"
    )
    with pytest.raises(RuntimeError, match="index-vec: search ran in mode toc, not vec"):
        retriever.retrieve("Biscuit")


def test_shared_index_is_built_once_per_conversation() -> None:
    """Every method of a conversation reads one synced index; the next conversation's index
    replaces it and the old one is closed."""
    first = tiny_conversation()
    index = shared_index(first, None)
    assert shared_index(first, None) is index
    assert index.fts_events("Lisbon", limit=5)
    second = tiny_conversation()
    other = shared_index(second, None)
    assert other is not index
    assert other.storage is second.storage
    assert shared_index(first, None) is not index  # rebuilt, as the old one was closed


def test_teleported_navigator_answers_at_its_budget() -> None:
    """navigator-teleport-fts finds the turn that holds the question's words first."""
    conversation = tiny_conversation()
    retriever = TeleportedNavigator(
        shared_index(conversation, None),
        now=conversation.now,
        token_budget=1000,
        name="navigator-teleport-fts",
    )
    found = dia_ids(retriever.retrieve("Did Biscuit the puppy chew sneakers?"))
    assert found[0] == "D2:2"
    assert "D1:1" in found
    assert retriever.output_tokens is not None
    assert 0 < retriever.output_tokens <= 1000


def test_teleported_navigator_stops_when_its_seeder_fails() -> None:
    """The navigator walks on when its index cannot be read; scored as a teleport, that walk
    would be misnamed, so the retriever stops with the seeder's error."""
    conversation = tiny_conversation()
    index = SearchIndex(conversation.storage)
    index.sync()
    retriever = TeleportedNavigator(
        index, now=conversation.now, token_budget=1000, name="navigator-teleport-fts"
    )
    assert dia_ids(retriever.retrieve("Biscuit sneakers"))[0] == "D2:2"
    index.close()
    with pytest.raises(RuntimeError, match="navigator-teleport-fts: the FTS5 seeder failed"):
        retriever.retrieve("Biscuit sneakers")


def test_onnx_embedder_missing_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the model the vector methods end the script with a message, not a traceback."""
    monkeypatch.setattr(_indexed, "_EMBEDDERS", {})
    monkeypatch.setattr("tocsearch.index._onnx.installed_onnx_model", lambda: None)
    with pytest.raises(InvalidArgument, match=r"pip install -e '\.\[eval\]'"):
        onnx_embedder()


def test_fused_turns_need_an_index_with_vectors() -> None:
    """index-hybrid-turns over a full-text-only index is refused when the method is made,
    before any question could be scored without vectors."""
    with pytest.raises(InvalidArgument, match="index-hybrid-turns needs an index with an embedder"):
        FusedTurnsRetriever(shared_index(tiny_conversation(), None), name="index-hybrid-turns")

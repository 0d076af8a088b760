"""The vector methods of the LoCoMo evaluation on the six-turn fixture, with the real ONNX model
the test extra installs (as the embedder tests in ``tests/index`` do)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest
from benchmarks._indexed import (
    FusedTurnsRetriever,
    IndexSearchRetriever,
    TeleportedNavigator,
    onnx_embedder,
    shared_index,
)
from tests._support.tiny_locomo import dia_ids, tiny_conversation

from tocsearch.index import HashingEmbedder, SearchIndex, SearchMode
from tocsearch.index._onnx import installed_onnx_model


def _onnx_installed() -> None:
    assert installed_onnx_model() is not None, 'the test extra installs "tocsearch[onnx]"'


def test_vector_search_finds_a_paraphrase_full_text_cannot() -> None:
    """index-vec ranks the violin turn first for a question sharing no word with it, where
    full text finds nothing; hybrid keeps it first."""
    _onnx_installed()
    conversation = tiny_conversation()
    question = "Who plays a string instrument?"
    fts = IndexSearchRetriever(shared_index(conversation, None), SearchMode.FTS, name="f")
    assert fts.retrieve(question) == []
    index = shared_index(conversation, onnx_embedder())
    assert index.embedder is not None
    assert index.embedder.dimension == 384
    for mode in (SearchMode.VEC, SearchMode.HYBRID):
        ranked = IndexSearchRetriever(index, mode, name=f"index-{mode.value}").retrieve(question)
        assert dia_ids(ranked)[0] == "D2:1"
        assert set(dia_ids(ranked)) == {"D1:1", "D1:2", "D1:3", "D2:1", "D2:2", "D2:3"}


def test_teleported_navigator_with_vectors_is_named_and_answers() -> None:
    """navigator-teleport-hybrid seeds its walk from FTS5 fused with the model's vectors."""
    _onnx_installed()
    conversation = tiny_conversation()
    retriever = TeleportedNavigator(
        shared_index(conversation, onnx_embedder()),
        now=conversation.now,
        token_budget=2000,
        name="navigator-teleport-hybrid",
    )
    assert dia_ids(retriever.retrieve("Biscuit sneakers"))[0] == "D2:2"
    steps = retriever._navigator.navigate("Biscuit sneakers").steps
    assert steps[0].scope.startswith("Teleported via FTS5+vector to toc:segment:")


class _BrokenModel(HashingEmbedder):
    """Embeds the stored events, then fails on every query, like a model server gone away."""

    def __init__(self) -> None:
        super().__init__(dimension=32)
        self.broken = False

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        if self.broken:
            raise ConnectionError("model server gone")
        return super().embed(texts)


def test_teleported_navigator_stops_when_its_vectors_fail() -> None:
    """The hybrid seeder degrades to full text when its model fails; in the evaluation that
    stops the run instead of scoring full text as hybrid. A question asked before the model
    failed is still ranked by its vector, which the index kept."""
    conversation = tiny_conversation()
    model = _BrokenModel()
    index = SearchIndex(conversation.storage, embedder=model)
    index.sync()
    retriever = TeleportedNavigator(
        index, now=conversation.now, token_budget=1000, name="navigator-teleport-hybrid"
    )
    assert dia_ids(retriever.retrieve("Biscuit sneakers"))[0] == "D2:2"
    model.broken = True
    with pytest.raises(RuntimeError, match=r"FTS5\+vector seeder failed: .*model server gone"):
        retriever.retrieve("Who plays a string instrument?")
    assert dia_ids(retriever.retrieve("Biscuit sneakers"))[0] == "D2:2"


def test_fused_turns_rank_single_turns_from_both_lists() -> None:
    """index-hybrid-turns returns one turn per item: the turn both lists put first leads, a
    turn only the vectors found follows, and no turn comes twice."""
    _onnx_installed()
    index = shared_index(tiny_conversation(), onnx_embedder())
    retriever = FusedTurnsRetriever(index, name="index-hybrid-turns")
    ranked = retriever.retrieve("Biscuit sneakers")
    assert all(len(item.turns) == 1 for item in ranked)
    found = dia_ids(ranked)
    assert found[:2] == ["D2:2", "D1:1"]
    assert len(found) == len(set(found)) == 6
    assert [item.label for item in ranked[:1]] == index.fts_events("Biscuit sneakers", limit=1)
    assert dia_ids(retriever.retrieve("Who plays a string instrument?"))[0] == "D2:1"

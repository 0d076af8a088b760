"""QueryVectors: each query embedded once while it is kept, never a vector kept from an
embedding that raised, and the index's teleport embedding a question once."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING

import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from tocsearch.errors import InvalidArgument
from tocsearch.examples import load_example_events
from tocsearch.index import HashingEmbedder, IndexSeeder, SearchIndex
from tocsearch.index._query_vectors import QueryVectors
from tocsearch.ingest import TocBuilder
from tocsearch.navigate import Navigator
from tocsearch.storage import InMemoryStorage

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

queries = st.sampled_from(["jwt", "redis", "deploy", "jwt refresh", "", "JWT"])


class _Model:
    """An embedder stand-in that counts its calls and fails on the queries it is told to."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.failing: set[str] = set()

    def __call__(self, query: str) -> tuple[str, int]:
        self.calls.append(query)
        if query in self.failing:
            raise ConnectionError(f"cannot embed {query!r}")
        return query, len(self.calls)


class KeptVectors(RuleBasedStateMachine):
    """The cache against a model of it: an ordered dict of the last ``size`` queries asked."""

    def __init__(self) -> None:
        super().__init__()
        self.size = 3
        self.vectors: QueryVectors[tuple[str, int]] = QueryVectors(self.size)
        self.embedder: object = object()
        # The embedder last asked with: another one empties the cache at its first ask.
        self.asked_with: object = self.embedder
        self.model = _Model()
        self.kept: OrderedDict[str, tuple[str, int]] = OrderedDict()

    @rule(query=queries, fails=st.booleans())
    def ask(self, query: str, fails: bool) -> None:
        if fails:
            self.model.failing.add(query)
        else:
            self.model.failing.discard(query)
        calls = len(self.model.calls)
        if self.embedder is not self.asked_with:
            self.kept.clear()
            self.asked_with = self.embedder
        if query in self.kept:
            assert self.vectors.get(self.embedder, query, self.model) == self.kept[query]
            assert len(self.model.calls) == calls
            self.kept.move_to_end(query)
        elif fails:
            with pytest.raises(ConnectionError):
                self.vectors.get(self.embedder, query, self.model)
            assert self.model.calls[calls:] == [query]
        else:
            vector = self.vectors.get(self.embedder, query, self.model)
            assert vector == (query, calls + 1)
            self.kept[query] = vector
            if len(self.kept) > self.size:
                self.kept.popitem(last=False)

    @rule()
    def change_embedder(self) -> None:
        self.embedder = object()

    @invariant()
    def holds_what_the_model_holds(self) -> None:
        assert len(self.vectors) == len(self.kept) <= self.size


TestKeptVectors = KeptVectors.TestCase


@given(st.one_of(st.integers(max_value=0), st.booleans(), st.floats(), st.text()))
def test_a_size_that_is_not_a_whole_number_above_zero_is_refused(size: object) -> None:
    """The cache's size names what was wrong."""
    with pytest.raises(InvalidArgument, match="size must be a whole number"):
        QueryVectors(size)  # type: ignore[arg-type]


class _CountingEmbedder(HashingEmbedder):
    """A hashing embedder that counts the texts it embeds and can be told to fail."""

    def __init__(self) -> None:
        super().__init__(16)
        self.texts: list[str] = []
        self.down = False

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        if self.down:
            raise ConnectionError("model server went away")
        self.texts.extend(texts)
        return super().embed(texts)


def test_the_teleport_embeds_a_question_once_and_never_keeps_a_failure() -> None:
    """A navigation through the index embeds its question once for both rankings; while the
    model is down nothing is kept, so the same question is embedded again once it is back."""
    store = InMemoryStorage()
    TocBuilder(store).ingest(load_example_events())
    embedder = _CountingEmbedder()
    index = SearchIndex(store, embedder=embedder)
    index.sync()
    embedder.texts.clear()
    seeder = IndexSeeder(index)
    navigator = Navigator(store, seeder=seeder)
    question = "JWT refresh token rotation"
    first = navigator.navigate(question)
    assert embedder.texts.count("JWT refresh token rotation") == 1
    assert first.evidence
    embedder.down = True
    failed = navigator.navigate("redis cache eviction")
    assert "model server went away" in seeder.last_error
    assert failed.evidence
    embedder.down = False
    embedder.texts.clear()
    navigator.navigate("redis cache eviction")
    assert "redis cache eviction" in embedder.texts
    again = navigator.navigate(question)
    assert again.evidence == first.evidence

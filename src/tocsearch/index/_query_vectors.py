"""The vectors of the last few queries, so that one query is embedded once: the teleport ranks
segments and then single events by the same words, and a model call costs more than the
rest of the ranking.

>>> calls = []
>>> def embed(text: str) -> str:
...     calls.append(text)
...     return text.upper()
>>> vectors: QueryVectors[str] = QueryVectors(size=2)
>>> [vectors.get("model", query, embed) for query in ("jwt", "jwt", "redis")]
['JWT', 'JWT', 'REDIS']
>>> calls
['jwt', 'redis']
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

from tocsearch._checks import whole_number

__all__ = ["QueryVectors"]

V = TypeVar("V")

QUERY_VECTORS_KEPT = 8
"""How many query vectors an index keeps: the spans of one question and a few before it."""


class QueryVectors(Generic[V]):
    """Up to ``size`` query vectors of one embedder, the most recently asked kept.

    A query is looked up by its exact text. Another embedder (compared by identity) empties
    the cache; an embedding that raises keeps no entry, so the next ask calls the embedder
    again.

    Raises:
        InvalidArgument: ``size`` is not a whole number of at least 1.
    """

    def __init__(self, size: int = QUERY_VECTORS_KEPT) -> None:
        self._size = whole_number("size", size, 1)
        self._embedder: object | None = None
        self._vectors: OrderedDict[str, V] = OrderedDict()

    def get(self, embedder: object, query: str, embed: Callable[[str], V]) -> V:
        """The vector of ``query`` by ``embedder``: kept, or ``embed(query)`` (then kept)."""
        if embedder is not self._embedder:
            self._vectors.clear()
            self._embedder = embedder
        if query in self._vectors:
            self._vectors.move_to_end(query)
            return self._vectors[query]
        vector = embed(query)
        self._vectors[query] = vector
        if len(self._vectors) > self._size:
            self._vectors.popitem(last=False)
        return vector

    def __len__(self) -> int:
        return len(self._vectors)

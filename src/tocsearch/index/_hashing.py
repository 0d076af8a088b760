"""A deterministic embedder with no model: hashed word and character features.

Useful for tests and as a lexical-ish vector baseline; it knows nothing of meaning.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tocsearch._checks import whole_number
from tocsearch.index._embedder import normalized_rows

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["HashingEmbedder"]

_WORD = re.compile(r"\w+")


class HashingEmbedder:
    """Embeds a text as the signed hashes of its case-folded words and their character
    trigrams, scaled to unit length: the same text always gives the same vector, and texts
    sharing words point the same way.

    >>> embedder = HashingEmbedder(dimension=64)
    >>> rows = embedder.embed(["jwt refresh", "JWT refresh", "lunch plans"])
    >>> float(rows[0] @ rows[1]) > 0.99, float(rows[0] @ rows[2]) < 0.5
    (True, True)
    """

    def __init__(self, dimension: int = 256) -> None:
        self._dimension = whole_number("dimension", dimension)

    @property
    def name(self) -> str:
        return f"hashing-{self._dimension}"

    @property
    def dimension(self) -> int:
        return self._dimension

    def _features(self, text: str) -> dict[int, float]:
        weights: dict[int, float] = {}
        for word in _WORD.findall(text.casefold()):
            grams = [word] + [word[i : i + 3] for i in range(max(0, len(word) - 2))]
            for position, gram in enumerate(grams):
                digest = hashlib.blake2b(gram.encode("utf-8", "surrogatepass"), digest_size=8)
                value = int.from_bytes(digest.digest(), "little")
                slot = value % self._dimension
                sign = 1.0 if value >> 63 else -1.0
                # The whole word weighs as much as all its trigrams together.
                weight = 1.0 if position == 0 else 1.0 / max(1, len(grams) - 1)
                weights[slot] = weights.get(slot, 0.0) + sign * weight
        return weights

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        import numpy as np

        rows = np.zeros((len(texts), self._dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for slot, weight in self._features(text).items():
                rows[row, slot] = weight
        return normalized_rows(rows)

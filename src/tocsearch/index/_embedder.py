"""The Embedder protocol: anything that turns texts into unit-length float32 vectors."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["Embedder", "normalized_rows"]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors for the index's nearest-neighbour search.

    ``name`` identifies the model (an index built with one embedder is re-embedded when another
    is used); ``dimension`` is the length of every vector. ``embed`` returns one float32 row
    per text, in order, as a ``numpy`` array of shape ``(len(texts), dimension)``.
    """

    @property
    def name(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]: ...


def normalized_rows(matrix: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """``matrix`` as float32 with every row scaled to unit length (zero rows stay zero), so a
    dot product is the cosine similarity."""
    import numpy as np

    rows = np.asarray(matrix, dtype=np.float32)
    if rows.ndim != 2:
        rows = rows.reshape(len(rows), -1)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    scaled: npt.NDArray[np.float32] = (rows / norms).astype(np.float32, copy=False)
    return scaled

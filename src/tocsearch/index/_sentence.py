"""SentenceTransformerEmbedder: any sentence-transformers model the user has installed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["SentenceTransformerEmbedder"]


class SentenceTransformerEmbedder:
    """Wraps a ``sentence_transformers.SentenceTransformer`` (a model name or path, or a model
    already loaded). sentence-transformers is not a dependency of tocsearch: install it
    yourself; without it, constructing this raises ImportError saying so.
    """

    def __init__(self, model: Any, *, name: str | None = None, batch_size: int = 32) -> None:
        if isinstance(model, str):
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as error:
                raise ImportError(
                    "SentenceTransformerEmbedder needs sentence-transformers: "
                    "pip install sentence-transformers"
                ) from error
            self._name = name or model
            model = SentenceTransformer(model)
        else:
            self._name = name or type(model).__name__
        self._model = model
        self._batch_size = batch_size
        size = model.get_sentence_embedding_dimension()
        if not isinstance(size, int):
            raise ImportError(f"model {self._name!r} does not say its embedding dimension")
        self._dimension = size

    @property
    def name(self) -> str:
        return self._name

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        import numpy as np

        from tocsearch.index._embedder import normalized_rows

        rows = self._model.encode(
            list(texts), batch_size=self._batch_size, convert_to_numpy=True, show_progress_bar=False
        )
        return normalized_rows(np.asarray(rows, dtype=np.float32).reshape(len(texts), -1))

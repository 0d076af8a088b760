"""OllamaEmbedder: embeddings from an Ollama server's ``/api/embed`` endpoint (stdlib HTTP)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tocsearch._json_text import read_json
from tocsearch.errors import InvalidArgument, StorageError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["DEFAULT_OLLAMA_MODEL", "DEFAULT_OLLAMA_URL", "OllamaEmbedder"]

DEFAULT_OLLAMA_URL = "http://127.0.0.1:11434"
DEFAULT_OLLAMA_MODEL = "qwen3-embedding:0.6b"


class OllamaEmbedder:
    """Embeds texts with a model served by Ollama.

    ``dimension`` is learnt from the server by embedding one short text, unless given. Every
    failure (server down, unknown model, an answer of the wrong shape) raises
    :class:`~tocsearch.errors.StorageError` naming the server and the model.
    """

    def __init__(
        self,
        model: str = DEFAULT_OLLAMA_MODEL,
        *,
        url: str = DEFAULT_OLLAMA_URL,
        dimension: int | None = None,
        timeout: float = 60.0,
    ) -> None:
        if not model:
            raise InvalidArgument("model must not be empty")
        if not url.startswith(("http://", "https://")):
            raise InvalidArgument(f"url must start with http:// or https://, got {url!r}")
        self.model = model
        self.url = url.rstrip("/")
        self.timeout = timeout
        self._dimension = dimension

    @property
    def name(self) -> str:
        return f"ollama:{self.model}"

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self._dimension = len(self._request(["dimension probe"])[0])
        return self._dimension

    def _request(self, texts: Sequence[str]) -> list[list[float]]:
        # Imported here: urllib.request pulls in http, ssl and socket, a fifth of the start-up
        # of every command, and only an Ollama embedder needs them.
        import urllib.error
        import urllib.request

        body = json.dumps({"model": self.model, "input": list(texts)}).encode("utf-8")
        request = urllib.request.Request(
            f"{self.url}/api/embed",
            data=body,
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        where = f"Ollama at {self.url} (model {self.model!r})"
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                answer: Any = read_json(response.read().decode("utf-8"))
        except urllib.error.HTTPError as error:
            detail = error.read().decode("utf-8", "replace")[:200]
            raise StorageError(f"{where} answered HTTP {error.code}: {detail}") from None
        except (urllib.error.URLError, OSError) as error:
            raise StorageError(f"{where} cannot be reached: {error}") from None
        except ValueError as error:
            raise StorageError(f"{where} answered something that is not JSON: {error}") from None
        rows = answer.get("embeddings") if isinstance(answer, dict) else None
        if (
            not isinstance(rows, list)
            or len(rows) != len(texts)
            or not all(isinstance(row, list) and row for row in rows)
        ):
            raise StorageError(f"{where} answered without {len(texts)} embeddings")
        return rows

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        import numpy as np

        from tocsearch.index._embedder import normalized_rows

        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        rows = self._request(texts)
        if self._dimension is None:
            self._dimension = len(rows[0])
        if any(len(row) != self._dimension for row in rows):
            raise StorageError(
                f"Ollama at {self.url} (model {self.model!r}) answered vectors that are not all "
                f"{self._dimension} long"
            )
        where = f"Ollama at {self.url} (model {self.model!r})"
        try:
            matrix = np.asarray(rows, dtype=np.float32)
        except (TypeError, ValueError):
            matrix = None
        # NaN or infinity would be stored as vectors that compare as nothing.
        if matrix is None or not np.isfinite(matrix).all():
            raise StorageError(f"{where} answered vectors that are not all finite numbers")
        return normalized_rows(matrix)

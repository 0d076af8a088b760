"""Embedders by name, for the command line and the benchmarks."""

from __future__ import annotations

from tocsearch.errors import InvalidArgument
from tocsearch.index._embedder import Embedder
from tocsearch.index._hashing import HashingEmbedder
from tocsearch.index._ollama import OllamaEmbedder
from tocsearch.index._onnx import OnnxEmbedder, installed_onnx_model

__all__ = ["EMBEDDER_CHOICES", "embedder_named"]

EMBEDDER_CHOICES = ("auto", "none", "onnx", "hashing", "ollama", "ollama:MODEL")
"""What :func:`embedder_named` accepts."""


def embedder_named(name: str) -> Embedder | None:
    """The embedder ``name`` selects: ``none`` (full-text only), ``auto`` (the installed ONNX
    model when there is one, else none), ``onnx``, ``hashing`` or ``ollama[:MODEL]``.

    >>> embedder_named("none") is None, embedder_named("hashing").name
    (True, 'hashing-256')

    Raises:
        InvalidArgument: an unknown name.
        ImportError: ``onnx`` without the model installed.
    """
    if name == "none":
        return None
    if name == "auto":
        return OnnxEmbedder() if installed_onnx_model() is not None else None
    if name == "onnx":
        return OnnxEmbedder()
    if name == "hashing":
        return HashingEmbedder()
    if name == "ollama":
        return OllamaEmbedder()
    if name.startswith("ollama:") and name != "ollama:":
        return OllamaEmbedder(name.removeprefix("ollama:"))
    raise InvalidArgument(f"embedder must be one of {', '.join(EMBEDDER_CHOICES)}, got {name!r}")

"""Embedders by name, for the command line and the benchmarks."""

from __future__ import annotations

from tocsearch.errors import InvalidArgument
from tocsearch.index._embedder import Embedder
from tocsearch.index._hashing import HashingEmbedder
from tocsearch.index._ollama import OllamaEmbedder
from tocsearch.index._onnx import DEFAULT_ONNX_MODEL, OnnxEmbedder, installed_onnx_model
from tocsearch.text import ascii_digits

__all__ = ["EMBEDDER_CHOICES", "embedder_named", "recorded_embedder"]

EMBEDDER_CHOICES = ("auto", "none", "onnx", "hashing", "ollama", "ollama:MODEL")
"""What :func:`embedder_named` accepts."""


def recorded_embedder(key: str | None) -> Embedder | None:
    """The embedder an index records its vectors came from (``name:dimension``), when it can
    be made here without a server: the installed ONNX model or a hashing embedder; else None.

    >>> recorded_embedder("hashing-64:64").dimension, recorded_embedder("ollama:x:8") is None
    (64, True)
    """
    if not key:
        return None
    name, _, dimension = key.rpartition(":")
    if name == DEFAULT_ONNX_MODEL and installed_onnx_model() is not None:
        return OnnxEmbedder()
    if name.startswith("hashing-") and ascii_digits(dimension) and name == f"hashing-{dimension}":
        return HashingEmbedder(int(dimension))
    return None


def embedder_named(name: str, *, recorded: str | None = None) -> Embedder | None:
    """The embedder ``name`` selects: ``none`` (full-text only), ``auto`` (the one the index
    recorded, see :func:`recorded_embedder`, when ``recorded`` names one; else the installed
    ONNX model when there is one; else none), ``onnx``, ``hashing`` or ``ollama[:MODEL]``.

    >>> embedder_named("none") is None, embedder_named("hashing").name
    (True, 'hashing-256')

    Raises:
        InvalidArgument: an unknown name.
        ImportError: ``onnx`` without the model installed.
    """
    if name == "none":
        return None
    if name == "auto":
        if recorded:
            return recorded_embedder(recorded)
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

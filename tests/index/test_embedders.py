"""Embedder adapters: Ollama over HTTP (a fake server on 127.0.0.1), ONNX, sentence-transformers."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from tocsearch.errors import InvalidArgument, StorageError
from tocsearch.examples import load_example_events
from tocsearch.index import Embedder, SearchIndex
from tocsearch.index._choice import embedder_named
from tocsearch.index._ollama import OllamaEmbedder
from tocsearch.index._onnx import OnnxEmbedder, installed_onnx_model
from tocsearch.index._sentence import SentenceTransformerEmbedder
from tocsearch.ingest import TocBuilder
from tocsearch.storage import InMemoryStorage


class _FakeOllama(BaseHTTPRequestHandler):
    """Answers /api/embed with a 4-d vector per input: letter counts of a, e, o and the length."""

    requests: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append(body)
        if self.path != "/api/embed" or body.get("model") == "missing":
            self.send_response(404)
            self.end_headers()
            self.wfile.write(b'{"error": "model not found"}')
            return
        rows: list[list[Any]] = [
            [t.count("a") + 1, t.count("e"), t.count("o"), len(t)] for t in body["input"]
        ]
        if body.get("model") == "words":  # a broken server: numbers as words
            rows = [["one", "two"] for _ in body["input"]]
        if body.get("model") == "nan":  # a broken model: vectors that are not numbers
            rows = [[float("nan"), 1.0] for _ in body["input"]]
        payload = json.dumps({"model": body["model"], "embeddings": rows}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        """Quiet."""


@pytest.fixture
def ollama() -> Iterator[str]:
    server = HTTPServer(("127.0.0.1", 0), _FakeOllama)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_ollama_embedder_posts_the_texts_and_normalises_the_answer(ollama: str) -> None:
    """The adapter sends the model and inputs, learns the dimension and returns unit rows."""
    embedder = OllamaEmbedder("nomic", url=ollama)
    assert isinstance(embedder, Embedder)
    rows = embedder.embed(["banana", "oboe"])
    assert embedder.dimension == 4
    assert embedder.name == "ollama:nomic"
    assert rows.dtype == np.float32
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0)
    assert _FakeOllama.requests[-1] == {"model": "nomic", "input": ["banana", "oboe"]}


def test_ollama_errors_name_the_server_and_model(ollama: str) -> None:
    """An unknown model or a server that is not there is a StorageError saying which."""
    with pytest.raises(StorageError, match="HTTP 404"):
        OllamaEmbedder("missing", url=ollama).embed(["x"])
    with pytest.raises(StorageError, match="cannot be reached"):
        OllamaEmbedder("nomic", url="http://127.0.0.1:9", timeout=2).embed(["x"])
    with pytest.raises(InvalidArgument, match="url must start"):
        OllamaEmbedder(url="localhost:11434")


@pytest.mark.parametrize("model", ["words", "nan"])
def test_ollama_vectors_that_are_not_finite_numbers_are_refused(ollama: str, model: str) -> None:
    """A server that answers words, NaN or infinity for numbers is a StorageError naming it,
    not a ValueError from numpy or vectors that compare as nothing."""
    with pytest.raises(StorageError, match="vectors that are not all finite numbers"):
        OllamaEmbedder(model, url=ollama).embed(["x", "y"])


def test_an_index_over_ollama_vectors_searches_them(ollama: str) -> None:
    """The index embeds through the server and vector search returns segments."""
    store = InMemoryStorage()
    TocBuilder(store).ingest(load_example_events()[:30])
    outcome = SearchIndex(store, embedder=OllamaEmbedder("nomic", url=ollama)).search(
        "deploy", mode="vec", limit=2
    )
    assert outcome.mode_used.value == "vec"
    assert len(outcome.hits) == 2


def test_search_with_ollama_down_degrades_to_full_text(ollama: str) -> None:
    """Vectors built while the server was up; a query while it is down runs full-text."""
    store = InMemoryStorage()
    TocBuilder(store).ingest(load_example_events()[:30])
    index = SearchIndex(store, embedder=OllamaEmbedder("nomic", url=ollama))
    index.sync()
    index.embedder = OllamaEmbedder("nomic", url="http://127.0.0.1:9", dimension=4, timeout=2)
    outcome = index.search("deploy")
    assert outcome.mode_used.value == "fts"
    assert "cannot be reached" in outcome.note


def test_onnx_embedder_ranks_paraphrases_above_unrelated_text() -> None:
    """The installed MiniLM model puts a paraphrase nearer than an unrelated sentence."""
    assert installed_onnx_model() is not None, 'the test extra installs "tocsearch[onnx]"'
    embedder = OnnxEmbedder()
    rows = embedder.embed(["rotate the refresh tokens", "token rotation for refresh", "lunch"])
    assert rows.shape == (3, embedder.dimension) == (3, 384)
    assert float(rows[0] @ rows[1]) > float(rows[0] @ rows[2]) + 0.3
    assert embedder.embed([]).shape == (0, 384)


def test_onnx_embedder_from_paths_checks_them(tmp_path: Path) -> None:
    """Both paths or neither; a missing file is named."""
    with pytest.raises(InvalidArgument, match="both"):
        OnnxEmbedder(tmp_path / "model.onnx")
    with pytest.raises(InvalidArgument, match="no such file"):
        OnnxEmbedder(tmp_path / "model.onnx", tmp_path / "tokenizer.json")


class _FakeSentenceModel:
    def get_sentence_embedding_dimension(self) -> int:
        return 3

    def encode(self, texts: Sequence[str], **options: Any) -> Any:
        return np.array([[len(t), 1.0, 0.0] for t in texts], dtype=np.float64)


def test_sentence_transformer_embedder_wraps_a_loaded_model() -> None:
    """A loaded model is wrapped: its dimension, float32 unit rows."""
    embedder = SentenceTransformerEmbedder(_FakeSentenceModel(), name="fake")
    rows = embedder.embed(["ab", "abcdef"])
    assert (embedder.name, embedder.dimension) == ("fake", 3)
    assert rows.dtype == np.float32
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0)


def test_embedders_by_name() -> None:
    """The names the CLI accepts select the adapters; others are refused."""
    assert embedder_named("none") is None
    assert isinstance(embedder_named("onnx"), OnnxEmbedder)
    assert isinstance(embedder_named("auto"), OnnxEmbedder)
    ollama = embedder_named("ollama:all-minilm")
    assert isinstance(ollama, OllamaEmbedder)
    assert ollama.model == "all-minilm"
    with pytest.raises(InvalidArgument, match="embedder must be one of"):
        embedder_named("word2vec")

"""Indexed search: SQLite FTS5 and vector nearest neighbours over a store's texts, fused by
Reciprocal Rank Fusion, with the index-free navigator as the fallback.

>>> from tocsearch.storage import InMemoryStorage
>>> from tocsearch.ingest import TocBuilder
>>> from tocsearch.examples import load_example_events
>>> store = InMemoryStorage()
>>> _ = TocBuilder(store).ingest(load_example_events())
>>> index = SearchIndex(store, embedder=HashingEmbedder())
>>> outcome = index.search("JWT refresh token rotation", limit=3)
>>> outcome.mode_used.value, len(outcome.hits), 0.0 < outcome.hits[0].score <= 1.0
('hybrid', 3, True)
"""

from tocsearch._fusion import reciprocal_rank_fusion
from tocsearch.index._context import format_context, relevant_context
from tocsearch.index._embedder import Embedder
from tocsearch.index._hashing import HashingEmbedder
from tocsearch.index._ollama import OllamaEmbedder
from tocsearch.index._onnx import OnnxEmbedder
from tocsearch.index._query import fts_phrases, match_all, match_any
from tocsearch.index._search import SearchHit, SearchMode, SearchOutcome
from tocsearch.index._seeder import IndexSeeder
from tocsearch.index._sentence import SentenceTransformerEmbedder
from tocsearch.index._sidecar import SearchIndex
from tocsearch.index._sidecar_file import default_index_path
from tocsearch.index._sidecar_sync import IndexSync
from tocsearch.index._syncing import IndexingStorage

__all__ = [
    "Embedder",
    "HashingEmbedder",
    "IndexSeeder",
    "IndexSync",
    "IndexingStorage",
    "OllamaEmbedder",
    "OnnxEmbedder",
    "SearchHit",
    "SearchIndex",
    "SearchMode",
    "SearchOutcome",
    "SentenceTransformerEmbedder",
    "default_index_path",
    "format_context",
    "fts_phrases",
    "match_all",
    "match_any",
    "reciprocal_rank_fusion",
    "relevant_context",
]

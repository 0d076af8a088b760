"""Exact cosine nearest neighbours and the hashing embedder."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tocsearch.errors import InvalidArgument
from tocsearch.index import Embedder, HashingEmbedder
from tocsearch.index._embedder import normalized_rows
from tocsearch.index._vectors import VectorMatrix


def test_nearest_returns_ids_in_distance_order() -> None:
    """Rows come back most similar first, with their cosines."""
    rows = normalized_rows(
        np.array([[1, 0, 0], [0.6, 0.8, 0], [0, 0, 1], [0.9, 0.1, 0]], dtype=np.float32)
    )
    matrix = VectorMatrix(["a", "b", "c", "d"], [0, 1, 2, 3], rows)
    found = matrix.nearest(np.array([1, 0, 0], dtype=np.float32), 3)
    assert [event_id for event_id, _ in found] == ["a", "d", "b"]
    assert found[0][1] == pytest.approx(1.0)


def test_nearest_honours_the_time_range() -> None:
    """Rows outside [start, end) are never returned."""
    rows = normalized_rows(np.eye(3, dtype=np.float32))
    matrix = VectorMatrix(["a", "b", "c"], [10, 20, 30], rows)
    found = matrix.nearest(np.array([1, 1, 1], dtype=np.float32), 5, start_us=15, end_us=30)
    assert [event_id for event_id, _ in found] == ["b"]


def test_hashing_embedder_is_an_embedder_of_unit_rows() -> None:
    """The hashing embedder meets the protocol and returns unit float32 rows."""
    embedder = HashingEmbedder(dimension=32)
    assert isinstance(embedder, Embedder)
    rows = embedder.embed(["alpha beta", "gamma"])
    assert rows.dtype == np.float32
    assert rows.shape == (2, 32)
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0)
    assert embedder.name == "hashing-32"


def test_hashing_embedder_refuses_a_bad_dimension() -> None:
    """A dimension under 1 is an error that names the value."""
    with pytest.raises(InvalidArgument, match="dimension must be a whole number"):
        HashingEmbedder(dimension=0)


@given(st.lists(st.text(max_size=40), min_size=1, max_size=5))
def test_hashing_embedder_is_deterministic(texts: list[str]) -> None:
    """The same texts always give the same vectors, of length 1 or 0 (no words)."""
    first = HashingEmbedder(16).embed(texts)
    second = HashingEmbedder(16).embed(texts)
    assert np.array_equal(first, second)
    norms = np.linalg.norm(first, axis=1)
    assert all(abs(n - 1.0) < 1e-5 or n == 0.0 for n in norms)

"""Embedding a search index's events: the vectors every event has from the current embedder,
and the cheap test that they are all there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tocsearch.errors import StorageError
from tocsearch.index._embedder import normalized_rows
from tocsearch.index._schema import read_meta, write_meta
from tocsearch.index._sidecar_file import SidecarFile
from tocsearch.models import Event
from tocsearch.storage._sqlite_fts import event_text

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["EmbeddedSidecar", "embedding_text"]

_EMBED_BATCH = 64
# Texts embedded between two commits of their vectors.
_EMBED_CHUNK = _EMBED_BATCH * 16
# Embedding models read a few hundred tokens; the rest of a long tool output would be cut anyway.
_EMBED_CHARS = 2_000


def embedding_text(event: Event) -> str:
    """What an event's vector is made from: its indexed text, cut to :data:`_EMBED_CHARS`."""
    return event_text(event)[:_EMBED_CHARS]


class EmbeddedSidecar(SidecarFile):
    """A sidecar file that embeds its events when it has an embedder."""

    def _vectors_complete(self) -> tuple[int, str] | None:
        """The state of the last complete check (``(data_version, embedder)``) when it still
        holds, that is every event has its vector from this embedder; else None."""
        if self.embedder is None or self._embedded is None:
            return None
        with self._errors():
            (version,) = self._connection.execute("PRAGMA data_version").fetchone()
        state = (version, self._embedder_key())
        return state if self._embedded == state else None

    def _embed_missing(self) -> int:
        """Embed every event without a vector from the current embedder (all of them when the
        vectors came from another); skipped while :meth:`_vectors_complete` holds.

        Runtime complexity: O(1) while complete; otherwise one scan of every event."""
        embedder = self.embedder
        if embedder is None:
            return 0
        key = self._embedder_key()
        with self._errors():
            # SQLite's data_version changes when another connection commits to the file: while
            # it stays and this index wrote no event without its vector since, every event
            # still has its vector, and the scan of every event for one without is skipped.
            (version,) = self._connection.execute("PRAGMA data_version").fetchone()
            if self._embedded == (version, key):
                return 0
            if read_meta(self._connection, "embedder") != key:
                with self._transaction() as connection:
                    connection.execute("DELETE FROM vectors")
                    write_meta(connection, "embedder", key)
            missing = self._connection.execute(
                "SELECT events.id, events.event_id FROM events "
                "LEFT JOIN vectors ON vectors.id = events.id WHERE vectors.id IS NULL "
                "ORDER BY events.id"
            ).fetchall()
        for start in range(0, len(missing), _EMBED_CHUNK):
            self._store_vectors(self._event_texts(missing[start : start + _EMBED_CHUNK]))
        self._embedded = (version, key)
        return len(missing)

    def _store_vectors(self, texts: Sequence[tuple[int, str]]) -> None:
        """Embed ``(rowid, text)`` pairs and store each vector under its event's rowid, a
        transaction per :data:`_EMBED_CHUNK` texts."""
        for start in range(0, len(texts), _EMBED_CHUNK):
            chunk = texts[start : start + _EMBED_CHUNK]
            rows = self._embed([text for _, text in chunk])
            with self._transaction() as connection:
                connection.executemany(
                    "INSERT OR REPLACE INTO vectors (id, embedding) VALUES (?, ?)",
                    ((rowid, rows[i].tobytes()) for i, (rowid, _) in enumerate(chunk)),
                )

    def _event_texts(self, rows: Sequence[tuple[int, str]]) -> list[tuple[int, str]]:
        """``(rowid, event_id)`` rows with the id replaced by the text the event's vector is
        made from, read from the store (empty for an event the store no longer has)."""
        texts: list[tuple[int, str]] = []
        for rowid, event_id in rows:
            event = self.storage.find_event(event_id)
            texts.append((rowid, "" if event is None else embedding_text(event)))
        return texts

    def _embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        import numpy as np

        assert self.embedder is not None
        dimension = self.embedder.dimension
        parts = [
            normalized_rows(self.embedder.embed(texts[i : i + _EMBED_BATCH]))
            for i in range(0, len(texts), _EMBED_BATCH)
        ]
        rows = np.concatenate(parts) if parts else np.zeros((0, dimension), dtype=np.float32)
        if rows.shape != (len(texts), dimension):
            raise StorageError(
                f"embedder {self.embedder.name!r} returned an array of shape {rows.shape} for "
                f"{len(texts)} texts of dimension {dimension}"
            )
        return rows

"""Lexical baselines over plain documents: SQLite FTS5 (stdlib) and bm25s (optional).

Both take ``(key, text)`` documents and return keys best first. Queries are split into word
terms and OR-ed, so a document needs only one shared term to be found, as in the navigator's own
term-overlap search.
"""

from __future__ import annotations

import importlib
import os
import re
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from tocsearch.errors import InvalidArgument

__all__ = ["Bm25sIndex", "Fts5Index", "bm25s_available", "fts5_query", "word_terms"]

_WORD = re.compile(r"\w+")


def word_terms(text: str) -> list[str]:
    """The distinct case-folded word terms of a text, in first-seen order."""
    return list(dict.fromkeys(_WORD.findall(text.casefold())))


def fts5_query(text: str) -> str | None:
    """An FTS5 MATCH expression that OR-s the text's word terms, each quoted so that no term
    can be read as FTS5 syntax; None when the text has no word.

    >>> fts5_query("When did Caroline go?")
    '"when" OR "did" OR "caroline" OR "go"'
    """
    terms = word_terms(text)
    if not terms:
        return None
    return " OR ".join(f'"{term}"' for term in terms)


class Fts5Index:
    """A SQLite FTS5 table (``tokenize='porter unicode61'``) ranked by ``bm25()``, in memory or
    in a file (``path``), with an optional time per document for time-filtered queries.

    Raises:
        InvalidArgument: a document key is repeated, or ``path`` already exists.
    """

    def __init__(
        self,
        documents: Iterable[tuple[str, str]],
        *,
        times: Mapping[str, float] | None = None,
        path: Path | None = None,
    ) -> None:
        if path is not None and path.exists():
            raise InvalidArgument(f"{path} already exists; open it with Fts5Index.open")
        self._db = sqlite3.connect(":memory:" if path is None else os.fspath(path))
        self._db.execute(
            "CREATE VIRTUAL TABLE docs USING "
            "fts5(key UNINDEXED, at UNINDEXED, body, tokenize='porter unicode61')"
        )
        seen: set[str] = set()

        def rows() -> Iterator[tuple[str, float | None, str]]:
            for key, text in documents:
                if key in seen:
                    raise InvalidArgument(f"document key {key!r} is repeated")
                seen.add(key)
                yield key, None if times is None else times.get(key), text

        with self._db:
            self._db.executemany("INSERT INTO docs(key, at, body) VALUES (?, ?, ?)", rows())

    @classmethod
    def open(cls, path: Path) -> Fts5Index:
        """An index an earlier run wrote to ``path``, opened read-only.

        Raises:
            InvalidArgument: there is no file at ``path``.
        """
        if not path.is_file():
            raise InvalidArgument(f"no FTS5 index at {path}")
        index = cls.__new__(cls)
        index._db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        return index

    def __len__(self) -> int:
        (count,) = self._db.execute("SELECT count(*) FROM docs").fetchone()
        return int(count)

    def search(
        self, query: str, limit: int, *, start: float | None = None, end: float | None = None
    ) -> list[str]:
        """The keys of up to ``limit`` documents sharing a term with ``query``, best BM25 score
        first (ties in insertion order); with ``start``/``end``, only documents whose time lies
        in ``[start, end)``."""
        expression = fts5_query(query)
        if expression is None:
            return []
        where = "docs MATCH ?"
        arguments: list[object] = [expression]
        if start is not None:
            where += " AND at >= ?"
            arguments.append(start)
        if end is not None:
            where += " AND at < ?"
            arguments.append(end)
        rows = self._db.execute(
            f"SELECT key FROM docs WHERE {where} ORDER BY bm25(docs), rowid LIMIT ?",
            (*arguments, limit),
        ).fetchall()
        return [key for (key,) in rows]

    def close(self) -> None:
        """Release the database."""
        self._db.close()


def bm25s_available() -> bool:
    """Whether the optional ``bm25s`` package (the ``bench`` extra) can be imported."""
    try:
        importlib.import_module("bm25s")
    except ImportError:
        return False
    return True


class Bm25sIndex:
    """A bm25s index over the documents, with the same word terms as :func:`word_terms`.

    Raises:
        ImportError: ``bm25s`` is not installed (install the ``bench`` extra).
    """

    def __init__(self, documents: Sequence[tuple[str, str]]) -> None:
        # Imported here so that the rest of the benchmarks run without the optional extra.
        self._bm25s: Any = importlib.import_module("bm25s")
        self._keys = [key for key, _ in documents]
        corpus = [word_terms(text) or ["\u2205"] for _, text in documents]
        self._retriever: Any = self._bm25s.BM25()
        self._retriever.index(corpus, show_progress=False)

    def search(self, query: str, limit: int) -> list[str]:
        """The keys of up to ``limit`` documents, best BM25 score first; documents sharing no
        term with the query are left out."""
        terms = word_terms(query)
        if not terms or not self._keys:
            return []
        k = min(limit, len(self._keys))
        documents, scores = self._retriever.retrieve([terms], k=k, show_progress=False)
        return [
            self._keys[int(index)]
            for index, score in zip(documents[0], scores[0], strict=True)
            if float(score) > 0.0
        ]

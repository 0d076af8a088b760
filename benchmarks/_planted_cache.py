"""Built stores for the planted-needle benchmark, cached on disk between runs.

A 1M-event history takes minutes to build, so every artefact is kept under
``benchmarks/.cache/planted/`` (git-ignored) and reused while it is still valid:

- ``h<events>-n<needles>-s<seed>-v<version>/history.jsonl`` and ``needles.json``: the generated
  history in the generic JSONL format, and where its needles are. Valid while the generator
  (:data:`GENERATOR_VERSION`) and its arguments are the same.
- ``.../fts5.sqlite``: the FTS5 baseline over the same turns.
- ``.../<backend>-<source>/``: a store built from the JSONL through the importer and
  :class:`tocsearch.TocBuilder`, with ``meta.json`` written last. ``<source>`` hashes the
  library's sources that decide the stored tree (all but the navigator, the search index, the
  CLI and the facades), so a change to the builder, summarizer, digests or storage rebuilds it,
  while a change to a reader alone reuses it. The in-memory store is kept as a pickle of the
  built ``InMemoryStorage``.

A directory without its ``meta.json`` is an interrupted build: it is removed and built again.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
import subprocess
import time
from datetime import datetime, timezone
from pathlib import Path

import attrs

import tocsearch
from benchmarks._backends import ON_DISK, open_backend
from benchmarks._lexical import Fts5Index
from benchmarks._planted import (
    Needle,
    leaked_needles,
    plant_history,
    read_needles,
    write_jsonl,
    write_needles,
)
from tocsearch.errors import InvalidArgument
from tocsearch.importers import load_jsonl
from tocsearch.ingest import TocBuilder
from tocsearch.storage.memory import InMemoryStorage
from tocsearch.storage.protocol import Storage

__all__ = [
    "COMMIT_VARIABLE",
    "DEFAULT_ROOT",
    "GENERATOR_VERSION",
    "BuiltStore",
    "History",
    "ensure_fts5",
    "ensure_history",
    "ensure_store",
    "latest_built",
    "open_built",
    "source_digest",
    "write_json",
]

DEFAULT_ROOT = Path(__file__).resolve().parent / ".cache" / "planted"
COMMIT_VARIABLE = "TOCSEARCH_BENCH_COMMIT"
"""Names the commit a store is built from when the sources are not a git checkout."""
GENERATOR_VERSION = 1
"""Raise when the history generator or the planting changes, so cached histories are redone."""


@attrs.frozen
class History:
    """A generated history on disk: its JSONL file, its needles and how many events it holds."""

    directory: Path
    events: int
    end: datetime
    """The last event's time: the ``now`` questions are asked at."""
    needles: tuple[Needle, ...]

    @property
    def jsonl(self) -> Path:
        """The history in the generic JSONL format."""
        return self.directory / "history.jsonl"


def ensure_history(root: Path, events: int, *, needles_per_size: int, seed: int) -> History:
    """The history of about ``events`` events with ``needles_per_size`` needles of each size,
    generated and written on the first call, read back afterwards."""
    directory = root / f"h{events}-n{needles_per_size}-s{seed}-v{GENERATOR_VERSION}"
    meta = directory / "history.json"
    if not meta.is_file():
        _clear(directory)
        planted = plant_history(events, needles_per_size=needles_per_size, seed=seed)
        write_jsonl(planted.events, directory / "history.jsonl")
        write_needles(planted.needles, directory / "needles.json")
        write_json(meta, {"events": len(planted.events), "end": planted.end.isoformat()})
    facts = json.loads(meta.read_text(encoding="utf-8"))
    return History(
        directory,
        int(facts["events"]),
        datetime.fromisoformat(facts["end"]),
        read_needles(directory / "needles.json"),
    )


def ensure_fts5(history: History) -> tuple[Path, float]:
    """The FTS5 baseline index over every turn of ``history`` (keyed by event id, timed by the
    event's epoch seconds), and the seconds its build took when it was built."""
    path = history.directory / "fts5.sqlite"
    meta = history.directory / "fts5.json"
    if not meta.is_file():
        path.unlink(missing_ok=True)
        records = [json.loads(line) for line in history.jsonl.open(encoding="utf-8")]
        times = {
            r["event_id"]: datetime.fromisoformat(r["timestamp"].replace("Z", "+00:00")).timestamp()
            for r in records
        }
        started = time.perf_counter()
        index = Fts5Index(((r["event_id"], r["text"]) for r in records), times=times, path=path)
        seconds = time.perf_counter() - started
        index.close()
        write_json(meta, {"seconds": seconds})
    return path, float(json.loads(meta.read_text(encoding="utf-8"))["seconds"])


@attrs.frozen
class BuiltStore:
    """A store built from a history, and what its build measured."""

    backend: str
    path: Path
    events: int
    nodes: int
    import_seconds: float
    build_seconds: float
    leaked: tuple[str, ...]
    """Event ids of needles whose terms reached a title, summary, bullet, keyword or excerpt."""
    source: str
    commit: str
    built_at: str
    reused: bool

    @property
    def events_per_second(self) -> float:
        """Build throughput through TocBuilder (import excluded)."""
        return self.events / self.build_seconds if self.build_seconds else 0.0


def ensure_store(
    history: History, backend: str, *, rebuild: bool = False, built_by: str | None = None
) -> BuiltStore:
    """The store of ``backend`` built from ``history`` by the current sources: imported with
    :func:`tocsearch.importers.load_jsonl`, built with :class:`tocsearch.TocBuilder`, checked for
    leaked needles; reused from the cache when it is there and ``rebuild`` is false.

    ``built_by`` names the :func:`source_digest` of earlier sources whose cached store is read
    instead (by today's readers), when building anew takes too long for a change that leaves
    the tree as it was.

    Raises:
        InvalidArgument: ``built_by`` names no complete store of ``backend`` in the cache.
    """
    source = source_digest() if built_by is None else built_by
    directory = history.directory / f"{backend}-{source}"
    meta = directory / "meta.json"
    if built_by is not None and not meta.is_file():
        raise InvalidArgument(f"no complete {backend} store built by {built_by} in {directory}")
    if meta.is_file() and not rebuild:
        return _built(json.loads(meta.read_text(encoding="utf-8")), directory, reused=True)
    _clear(directory)
    started = time.perf_counter()
    imported = load_jsonl(history.jsonl)
    import_seconds = time.perf_counter() - started
    storage = open_backend(backend, directory / "store")
    try:
        started = time.perf_counter()
        TocBuilder(storage).ingest(imported.events)
        build_seconds = time.perf_counter() - started
        leaked = leaked_needles(storage, history.needles)
        nodes = storage.count_nodes()
        if backend not in ON_DISK:
            with (directory / "store.pickle").open("wb") as handle:
                pickle.dump(storage, handle, protocol=pickle.HIGHEST_PROTOCOL)
    finally:
        storage.close()
    record = {
        "backend": backend,
        "events": len(imported.events),
        "nodes": nodes,
        "import_seconds": import_seconds,
        "build_seconds": build_seconds,
        "leaked": [needle.event_id for needle in leaked],
        "source": source,
        "commit": _commit(),
        "built_at": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }
    write_json(meta, record)
    return _built(record, directory, reused=False)


def latest_built(history: History, backend: str) -> BuiltStore | None:
    """The most recent finished build of ``backend`` for ``history``, whatever sources built
    it (the store's format is what matters for opening it; its commit is reported)."""
    metas = sorted(
        history.directory.glob(f"{backend}-*/meta.json"), key=lambda path: path.stat().st_mtime
    )
    if not metas:
        return None
    return _built(json.loads(metas[-1].read_text(encoding="utf-8")), metas[-1].parent, reused=True)


def open_built(store: BuiltStore) -> Storage:
    """The built store, opened read-only (on disk) or loaded from its pickle (in memory)."""
    if store.backend in ON_DISK:
        return open_backend(store.backend, store.path / "store", readonly=True)
    with (store.path / "store.pickle").open("rb") as handle:
        loaded = pickle.load(handle)
    if not isinstance(loaded, InMemoryStorage):
        raise TypeError(f"{store.path}/store.pickle does not hold an InMemoryStorage")
    return loaded


_READERS = ("navigate/", "index/", "cli/")
_READER_MODULES = frozenset(
    {"__init__.py", "tools.py", "service.py", "mcp_server.py", "requests.py", "sync.py"}
)
"""What reads a built store without deciding it: the navigator, the search index (the SQLite
store's own full-text tables are written by ``storage/``), the CLI and the facades over them."""


def source_digest() -> str:
    """A short hash of the library's sources that decide a built tree: every ``.py`` file of
    the installed ``tocsearch`` package outside the readers (:data:`_READERS`,
    :data:`_READER_MODULES`)."""
    package = Path(tocsearch.__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package).as_posix()
        if relative.startswith(_READERS) or relative in _READER_MODULES:
            continue
        digest.update(relative.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def _built(record: dict[str, object], directory: Path, *, reused: bool) -> BuiltStore:
    leaked = record["leaked"]
    assert isinstance(leaked, list)
    return BuiltStore(
        backend=str(record["backend"]),
        path=directory,
        events=int(str(record["events"])),
        nodes=int(str(record["nodes"])),
        import_seconds=float(str(record["import_seconds"])),
        build_seconds=float(str(record["build_seconds"])),
        leaked=tuple(str(item) for item in leaked),
        source=str(record["source"]),
        commit=str(record["commit"]),
        built_at=str(record["built_at"]),
        reused=reused,
    )


def _commit() -> str:
    # A source snapshot (git archive) has no repository: its runner names the commit instead.
    named = os.environ.get(COMMIT_VARIABLE, "").strip()
    if named:
        return named
    package = Path(tocsearch.__file__).resolve().parent
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=package,
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return done.stdout.strip()


def _clear(directory: Path) -> None:
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)


def write_json(path: Path, record: dict[str, object]) -> None:
    """Write ``record`` to ``path`` whole or not at all, so a cache's meta file is complete."""
    # Written to a temporary name first: a file present under its own name is complete.
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(record, indent=1), encoding="utf-8")
    os.replace(temporary, path)

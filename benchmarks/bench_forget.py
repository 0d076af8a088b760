"""Forget and redact on a planted-needle store, as a user runs them, beside a plain FTS5 store
doing the same removal in the same run.

Run: ``python benchmarks/bench_forget.py [--events N] [--backends NAME ...] [--repeats R]
[--cache-dir DIR]`` (defaults: 100,000 events, sqlite and jsondir, 3 repeats, the cache of
``bench_speed.py``).

The store is the planted-needle benchmark's (imported with the JSONL importer, built with
:class:`tocsearch.TocBuilder`), copied to a scratch directory so the cached one stays intact.
Each repeat takes a needle, then:

- **forget**: :func:`tocsearch.forget_events` of the needle's whole session (rebuilding its
  days, scrubbing the files), beside the FTS5 baseline deleting the same session's rows, merging
  its index and vacuuming the file (the least a flat full-text store pays to forget it);
- **redact**: :func:`tocsearch.redact_events` of another needle's term, beside the FTS5
  baseline rewriting the rows that match it, merging and vacuuming; and a flat scan of every
  stored event with the same regular expression (what any redact must read).

After each operation the benchmark checks that no event, node or grip holds the removed
needle term and that the tree still passes ``check_tree``: a figure for a removal that left
text behind would be worthless. Medians of ``--repeats`` runs and their ratios to the FTS5
baseline; the operations alternate with their baselines, so load slows them alike. Not a
test: nothing asserts a time.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

_HERE = Path(__file__).resolve().parent
if str(_HERE.parent) not in sys.path:
    sys.path.insert(0, str(_HERE.parent))

from benchmarks._backends import ON_DISK, open_backend  # noqa: E402
from benchmarks._planted import Needle  # noqa: E402
from benchmarks._planted_cache import (  # noqa: E402
    DEFAULT_ROOT,
    History,
    ensure_fts5,
    ensure_history,
    ensure_store,
)
from tocsearch import ForgetRequest, RedactRequest, forget_events, redact_events  # noqa: E402
from tocsearch.ingest import check_tree  # noqa: E402
from tocsearch.privacy._select import iter_stored_events  # noqa: E402
from tocsearch.storage.protocol import Storage  # noqa: E402


def _timed(call: Callable[..., object], *arguments: object) -> float:
    """Seconds ``call(*arguments)`` took."""
    started = time.perf_counter()
    call(*arguments)
    return time.perf_counter() - started


def _fts5_forget(path: Path, keys: list[str]) -> None:
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute("BEGIN")
        connection.executemany("DELETE FROM docs WHERE key = ?", ((key,) for key in keys))
        connection.execute("INSERT INTO docs (docs) VALUES ('optimize')")
        connection.execute("COMMIT")
        connection.execute("VACUUM")
    finally:
        connection.close()


def _fts5_redact(path: Path, term: str) -> None:
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute("BEGIN")
        rows = connection.execute(
            "SELECT rowid, body FROM docs WHERE docs MATCH ?", (f'"{term}"',)
        ).fetchall()
        connection.executemany(
            "UPDATE docs SET body = ? WHERE rowid = ?",
            ((re.sub(_word(term), "[redacted]", body), rowid) for rowid, body in rows),
        )
        connection.execute("INSERT INTO docs (docs) VALUES ('optimize')")
        connection.execute("COMMIT")
        connection.execute("VACUUM")
    finally:
        connection.close()


def _word(term: str) -> str:
    """A regular expression for ``term`` as a whole word: needle terms are whole words, and
    one may end another (``stovbrink`` in ``trumstovbrink``)."""
    return rf"\b{re.escape(term)}\b"


def _flat_scan(storage: Storage, term: str) -> int:
    """How many stored events say ``term``: every event read and matched."""
    pattern = re.compile(_word(term))
    return sum(1 for event in iter_stored_events(storage) if pattern.search(event.text))


def _holds(storage: Storage, term: str) -> bool:
    """Whether any stored event, node or grip still says ``term``."""
    if _flat_scan(storage, term):
        return True
    pattern = re.compile(_word(term))
    for node_id in storage.iter_node_ids():
        node = storage.get_node(node_id)
        texts = (node.title, node.summary or "", *node.keywords, *(b.text for b in node.bullets))
        if any(pattern.search(text) for text in texts):
            return True
    return any(pattern.search(storage.get_grip(g).excerpt) for g in storage.iter_grip_ids())


def _session_keys(history: History, session: str) -> list[str]:
    keys = []
    with history.jsonl.open(encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            if record["session_id"] == session:
                keys.append(record["event_id"])
    return keys


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def run_backend(
    history: History, backend: str, fts5: Path, needles: list[Needle], scratch: Path
) -> dict[str, float]:
    """Forget the sessions of the first half of ``needles`` and redact the terms of the second
    half, on a copy of the built store, each beside its FTS5 baseline."""
    built = ensure_store(history, backend)
    copy = scratch / backend
    shutil.copytree(built.path / "store", copy)
    baseline = scratch / f"{backend}-fts5.sqlite"
    shutil.copyfile(fts5, baseline)
    times: dict[str, list[float]] = {
        name: [] for name in ("forget", "forget_fts5", "redact", "redact_fts5", "flat_scan")
    }
    removed: list[float] = []
    storage = open_backend(backend, copy)
    try:
        events = storage.count_events()
        half = len(needles) // 2
        for needle in needles[:half]:
            session = storage.get_event(needle.event_id).session_id
            keys = _session_keys(history, session)
            times["forget_fts5"].append(_timed(_fts5_forget, baseline, keys))
            request = ForgetRequest(session=session, keep_out=False)
            started = time.perf_counter()
            report = forget_events(storage, request)
            times["forget"].append(time.perf_counter() - started)
            removed.append(float(report.events))
            if _holds(storage, needle.terms[0]):
                raise AssertionError(f"{needle.terms[0]} survived the forget")
        for needle in needles[half:]:
            term = needle.terms[0]
            times["redact_fts5"].append(_timed(_fts5_redact, baseline, term))
            times["flat_scan"].append(_timed(_flat_scan, storage, term))
            redaction = RedactRequest(_word(term))
            times["redact"].append(_timed(redact_events, storage, redaction))
            if _holds(storage, term):
                raise AssertionError(f"{term} survived the redact")
        check_tree(storage)
    finally:
        storage.close()
    result = {"events": float(events), "session_events": _median(removed)}
    result.update({f"{name}_s": _median(values) for name, values in times.items()})
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--backends", nargs="+", default=["sqlite", "jsondir"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_ROOT)
    args = parser.parse_args(argv)
    history = ensure_history(args.cache_dir, args.events, needles_per_size=20, seed=29)
    fts5, _ = ensure_fts5(history)
    needles = list(history.needles[: 2 * args.repeats])
    rows: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-forget-") as scratch:
        for backend in args.backends:
            if backend not in ON_DISK:
                raise SystemExit(f"{backend}: only on-disk backends are measured here")
            rows[backend] = run_backend(history, backend, fts5, needles, Path(scratch))
    print(f"{history.events:,} events; medians of {args.repeats} runs; ratio = ours / FTS5")
    print(
        f"{'backend':8} {'session':>8} {'forget s':>9} {'FTS5 s':>8} {'ratio':>6} "
        f"{'redact s':>9} {'FTS5 s':>8} {'ratio':>6} {'scan s':>7}"
    )
    for backend, row in rows.items():
        print(
            f"{backend:8} {row['session_events']:>8.0f} {row['forget_s']:>9.2f} "
            f"{row['forget_fts5_s']:>8.2f} {row['forget_s'] / row['forget_fts5_s']:>6.1f} "
            f"{row['redact_s']:>9.2f} {row['redact_fts5_s']:>8.2f} "
            f"{row['redact_s'] / row['redact_fts5_s']:>6.1f} {row['flat_scan_s']:>7.2f}"
        )
    print(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Incremental sync of Claude Code transcripts, as a user runs it: ``tocsearch sync`` in a shell.

Run: ``python benchmarks/bench_sync.py [--source DIR] [--copies N] [--backends NAME ...]
[--repeats R]`` (defaults: the real transcripts in ``../shared/data/claude-code/projects``, 8
copies, sqlite and jsondir, 5 repeats).

The history is real: the source's transcripts (main sessions and subagents) copied ``--copies``
times, each copy with its own session and message ids and its times moved a week later, so 80
files become 640 sessions over two months. Measured per backend, every command a fresh
``tocsearch`` process (so Python's start-up is in every figure, as a user waits for it):

- the first ``sync`` of every file, and events/s;
- ``sync`` when nothing changed (the goal: <= 1 s on 600 sessions), beside three baselines from
  the same run: ``sync --full`` (read every file again), a bare ``os.stat`` of every file in
  this process (the least any sync that looks at the files can do) and ``tocsearch --version``
  (the start-up every command pays);
- one line appended to one transcript, then ``sync`` and ``navigate <its unique term>``: the time
  from the append until the answer cites the new line (the goal: <= 1 s), beside ``grep -rl`` of
  the term over the transcripts.

Medians of ``--repeats`` runs; no-op and appended runs alternate, so load slows them alike. Not a
test: nothing asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

_HERE = Path(__file__).resolve().parent
_DEFAULT_SOURCE = _HERE.parent.parent / "shared" / "data" / "claude-code" / "projects"
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_TIMESTAMP = re.compile(r'"timestamp":"([^"]+)"')
# A session id that is not a UUID (older or hand-written transcripts).
_SESSION = re.compile(r'"sessionId":"([^"]+)"')
_NAMESPACE = uuid.UUID("6f1c2c1e-8f0b-4c55-9a54-3f4b8a1d2e7c")


def _renamed(name: str, copy: int) -> str:
    """The id that copy ``copy`` gives what the source calls ``name``."""
    return str(uuid.uuid5(_NAMESPACE, f"{name}/{copy}"))


def _copied_line(line: str, copy: int) -> str:
    """``line`` of copy ``copy``: every id replaced by one of its own, times ``copy`` weeks on."""

    def new_id(found: re.Match[str]) -> str:
        return _renamed(found.group(0), copy)

    def new_session(found: re.Match[str]) -> str:
        name = found.group(1)
        return found.group(0) if _UUID.fullmatch(name) else f'"sessionId":"{_renamed(name, copy)}"'

    def later(found: re.Match[str]) -> str:
        try:
            moment = datetime.fromisoformat(found.group(1).replace("Z", "+00:00"))
        except ValueError:
            return found.group(0)
        moved = moment + timedelta(weeks=copy)
        return f'"timestamp":"{moved.isoformat().replace("+00:00", "Z")}"'

    return _TIMESTAMP.sub(later, _UUID.sub(new_id, _SESSION.sub(new_session, line)))


def make_history(source: Path, target: Path, copies: int) -> list[Path]:
    """``copies`` copies of every transcript below ``source`` under ``target``; the main
    session transcripts (not subagents) written that hold a turn to follow."""
    sessions: list[Path] = []
    for copy in range(copies):
        for path in sorted(source.rglob("*.jsonl")):
            relative = path.relative_to(source)
            parts = list(relative.parts)
            parts[0] = f"{parts[0]}-copy{copy}"
            stem = path.stem
            if not _UUID.search(stem) and not stem.startswith("agent-"):
                stem = _renamed(stem, copy)  # a session named by a non-UUID id
            parts[-1] = _copied_line(stem, copy) + ".jsonl"
            written = target.joinpath(*parts)
            written.parent.mkdir(parents=True, exist_ok=True)
            text = path.read_text(encoding="utf-8")
            written.write_text(
                "".join(_copied_line(line, copy) for line in text.splitlines(keepends=True)),
                encoding="utf-8",
            )
            main_session = "subagents" not in parts and not parts[-1].startswith("agent-")
            if main_session and _last_turn(written) is not None:
                sessions.append(written)
    return sessions


def _last_turn(path: Path) -> dict[str, object] | None:
    for line in reversed(path.read_text(encoding="utf-8").splitlines()):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and record.get("sessionId") and record.get("timestamp"):
            return record
    return None


def append_turn(path: Path, term: str) -> bool:
    """Append to ``path`` a user turn that says ``term``, after its last turn; False when the
    transcript has no turn to follow."""
    last = _last_turn(path)
    if last is None:
        return False
    stamp = str(last["timestamp"]).replace("Z", "+00:00")
    moment = datetime.fromisoformat(stamp) + timedelta(minutes=1)
    line = {
        "parentUuid": last.get("uuid"),
        "isSidechain": False,
        "userType": "external",
        "cwd": last.get("cwd", ""),
        "sessionId": last["sessionId"],
        "version": last.get("version", ""),
        "type": "user",
        "message": {"role": "user", "content": f"remember the {term} setting for the deploy"},
        "uuid": str(uuid.uuid4()),
        "timestamp": moment.astimezone(timezone.utc).isoformat().replace("+00:00", "Z"),
    }
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(line) + "\n")
    return True


def _tocsearch(*args: str) -> tuple[float, str]:
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "tocsearch", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return time.perf_counter() - began, done.stdout


def _stat_all(root: Path) -> float:
    began = time.perf_counter()
    for folder, _, names in os.walk(root):
        for name in names:
            if name.endswith(".jsonl"):
                os.stat(os.path.join(folder, name))
    return time.perf_counter() - began


def _grep(root: Path, term: str) -> float:
    began = time.perf_counter()
    subprocess.run(["grep", "-rl", "--include=*.jsonl", term, str(root)], capture_output=True)
    return time.perf_counter() - began


def _ms(seconds: list[float]) -> str:
    return f"{statistics.median(seconds) * 1000:,.0f}"


def run(source: Path, copies: int, backends: list[str], repeats: int) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-sync-") as scratch:
        history = Path(scratch) / "projects"
        sessions = make_history(source, history, copies)
        files = sum(1 for _ in history.rglob("*.jsonl"))
        size = sum(path.stat().st_size for path in history.rglob("*.jsonl"))
        print(
            f"history: {files} transcripts ({len(sessions)} main sessions), "
            f"{size / 1e6:.1f} MB, from {source}"
        )
        columns = [
            "backend",
            "first sync s",
            "events",
            "events/s",
            "no-op sync ms",
            "sync --full ms",
            "stat every file ms",
            "tocsearch --version ms",
            "sync after append ms",
            "navigate ms",
            "append -> cited ms",
            "grep -rl ms",
            "cited",
        ]
        print("| " + " | ".join(columns) + " |")
        print("| --- |" + " ---: |" * (len(columns) - 1))
        for backend in backends:
            store = Path(scratch) / f"store-{backend}"
            first, out = _tocsearch(
                "sync", str(history), "--store", str(store), "--backend", backend, "--json"
            )
            added = json.loads(out)["events_added"]
            startup = [_tocsearch("--version")[0] for _ in range(repeats)]
            noop: list[float] = []
            full: list[float] = []
            stats: list[float] = []
            synced: list[float] = []
            navigated: list[float] = []
            greps: list[float] = []
            cited = 0
            for repeat in range(repeats):
                noop.append(_tocsearch("sync", str(history), "--store", str(store))[0])
                stats.append(_stat_all(history))
                term = f"quarzvintel{backend}{repeat}"
                target = sessions[(repeat * 97) % len(sessions)]
                if not append_turn(target, term):
                    continue
                synced.append(_tocsearch("sync", str(history), "--store", str(store))[0])
                took, answer = _tocsearch("navigate", term, "--store", str(store), "--json")
                navigated.append(took)
                cited += term in answer
                greps.append(_grep(history, term))
            for _ in range(max(1, repeats // 2)):
                full.append(_tocsearch("sync", str(history), "--store", str(store), "--full")[0])
            print(
                f"| {backend} | {first:.1f} | {added:,} | {added / first:,.0f} | {_ms(noop)} "
                f"| {_ms(full)} | {_ms(stats)} | {_ms(startup)} | {_ms(synced)} | {_ms(navigated)} "
                f"| {_ms([a + b for a, b in zip(synced, navigated, strict=True)])} | {_ms(greps)} "
                f"| {cited}/{len(synced)} |"
            )
            shutil.rmtree(store, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=_DEFAULT_SOURCE)
    parser.add_argument("--copies", type=int, default=8)
    parser.add_argument("--backends", nargs="+", default=["sqlite", "jsondir"])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    if not args.source.is_dir():
        parser.error(f"--source {args.source} is not a folder")
    if args.copies < 1 or args.repeats < 1:
        parser.error("--copies and --repeats must be at least 1")
    run(args.source, args.copies, args.backends, args.repeats)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

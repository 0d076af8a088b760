"""Durability: a writer killed with SIGKILL mid-loop leaves a store that opens, passes check()
and holds every record whose put had returned."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from tests._support.storage_helpers import FILE_BACKENDS, open_file_store

_WRITER = Path(__file__).parents[1] / "_support" / "crash_writer.py"


def _run_and_kill(backend: str, path: Path, lines_before_kill: int) -> list[str]:
    """Start the crash writer, SIGKILL it after some confirmed writes, return all it printed."""
    writer = subprocess.Popen(
        [sys.executable, str(_WRITER), backend, str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert writer.stdout is not None
    printed: list[str] = []
    try:
        while len(printed) < lines_before_kill:
            line = writer.stdout.readline()
            if not line:
                raise AssertionError(
                    f"writer stopped early: {writer.stderr.read() if writer.stderr else ''}"
                )
            printed.append(line)
        os.kill(writer.pid, signal.SIGKILL)
    finally:
        writer.wait()
    printed += writer.stdout.readlines()
    writer.stdout.close()
    if writer.stderr is not None:
        writer.stderr.close()
    assert writer.returncode == -signal.SIGKILL
    return printed


@pytest.mark.parametrize("backend", FILE_BACKENDS)
@pytest.mark.parametrize("lines_before_kill", [7, 61, 233])
def test_sigkill_mid_write_loses_nothing_that_was_confirmed(
    backend: str, lines_before_kill: int, tmp_path: Path
) -> None:
    """Every id printed after its put returned is readable after the crash, in a store that
    passes check() for a reader and for the next writer."""
    path = tmp_path / "store"
    printed = _run_and_kill(backend, path, lines_before_kill)
    versions: dict[str, int] = {}
    events: set[str] = set()
    grips: set[str] = set()
    for line in printed:
        # Each line is written whole: a kill cannot leave part of one.
        assert line.endswith("\n"), line
        kind, record_id, *rest = line.split()
        if kind == "node":
            versions[record_id] = int(rest[0])
        elif kind == "event":
            events.add(record_id)
        else:
            grips.add(record_id)
    for readonly in (True, False):
        with open_file_store(backend, path, readonly=readonly) as store:
            store.check()
            for node_id, version in versions.items():
                # A later version may have been in flight and landed; an older one may not.
                assert store.get_node(node_id).version >= version
            for event_id in events:
                assert store.get_event(event_id).event_id == event_id
            for grip_id in grips:
                assert store.get_grip(grip_id).grip_id == grip_id
            assert store.count_events() >= len(events)
    leftovers = [name for _, _, names in os.walk(path) for name in names if name.endswith(".tmp")]
    assert leftovers == []

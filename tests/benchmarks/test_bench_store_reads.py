"""bench_store_reads builds a store of each file backend once and times reads of each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import bench_store_reads


def test_every_backend_and_mode_is_timed_and_the_stores_are_reused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One run prints positive timings for each backend as writer and reader; a second run
    reuses the stores it built."""
    assert bench_store_reads.main([str(tmp_path), "--rounds", "1"]) == 0
    timings = json.loads(capsys.readouterr().out)
    assert set(timings) == {
        f"{name}-{mode}" for name in ("jsondir", "shelve", "sqlite") for mode in ("rw", "ro")
    }
    assert all(lookups > 0 and questions > 0 for lookups, questions in timings.values())
    # A store's marker file is written once, when the store is made.
    markers = sorted(tmp_path.glob("*/tocsearch-store.json"))
    assert len(markers) == 3
    built = [marker.stat().st_mtime_ns for marker in markers]
    assert bench_store_reads.main([str(tmp_path), "--rounds", "1"]) == 0
    assert [marker.stat().st_mtime_ns for marker in markers] == built

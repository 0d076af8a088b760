"""The forget benchmark end to end on a small history: both removals run, are checked to leave
no copy of the needle term, and are reported beside their FTS5 baseline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from benchmarks.bench_forget import main


def test_the_benchmark_runs_and_reports_every_figure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each backend gets a row with a forget, a redact, their baselines and the flat scan."""
    argv = ["--events", "1000", "--repeats", "1", "--cache-dir", str(tmp_path), "--backends"]
    assert main([*argv, "sqlite", "jsondir"]) == 0
    out = capsys.readouterr().out
    assert "ratio = ours / FTS5" in out
    rows = json.loads(out[out.index("{") :])
    assert set(rows) == {"sqlite", "jsondir"}
    for row in rows.values():
        assert row["events"] > 0
        assert row["session_events"] >= 1
        for name in ("forget_s", "forget_fts5_s", "redact_s", "redact_fts5_s", "flat_scan_s"):
            assert row[name] > 0


def test_only_stores_on_disk_are_measured(tmp_path: Path) -> None:
    """An in-memory backend has no files to scrub, so it is refused by name."""
    with pytest.raises(SystemExit, match="memory"):
        main(["--events", "1000", "--cache-dir", str(tmp_path), "--backends", "memory"])

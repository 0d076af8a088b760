"""The default test run collects every test file: a file pytest silently skips (a folder name
in its ``norecursedirs``, a module that fails to import, a file of helpers with no test) would
otherwise pass unnoticed, as the builder's tests once did."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_test_file_contributes_a_collected_test() -> None:
    """``pytest --collect-only`` with no arguments, as the README runs it, collects at least
    one test from every ``tests/**/test_*.py``, and without errors."""
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    collected = {line.split("::", 1)[0] for line in run.stdout.splitlines() if "::" in line}
    files = {path.relative_to(ROOT).as_posix() for path in ROOT.glob("tests/**/test_*.py")}
    assert files, "no test files found"
    assert sorted(files - collected) == []
    assert "tests/test_collection.py" in collected

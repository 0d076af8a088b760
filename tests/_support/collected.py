"""What the running test session collected, as tests/conftest.py's hooks record it: the file
of every collected test, and every file that failed to collect. A check of the default run's
collection reads these instead of collecting the whole suite a second time."""

from __future__ import annotations

files: set[str] = set()
"""The path (as in a node id) of each file at least one collected test came from."""
errors: list[str] = []
"""The node id of each collector that failed, with its message."""

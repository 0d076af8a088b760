"""Hypothesis profiles: "dev" is quick, "ci" is thorough. CI=true picks "ci"; HYPOTHESIS_PROFILE
names one outright. "deep" draws twenty times CI's examples, for a long search of the modules that
read input (ids, time hints, importers, stored records), run on purpose and never by default; a
test that sets a count of its own draws twenty times that count (tests/_support/examples.py).

With ``TOCSEARCH_TEST_LOCK=msvcrt`` the session runs with ``fcntl`` hidden and the file stores
over their Windows lock (see tests/_support/fallback_lock.py).
"""

from __future__ import annotations

import os

from tests._support import collected, fallback_lock
from tests._support.examples import CI_EXAMPLES

if fallback_lock.wanted():
    fallback_lock.use_msvcrt_lock()

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=CI_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "deep",
    max_examples=20 * CI_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "dev", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


def pytest_report_header() -> str:
    """Name the writer lock the file stores use in this session."""
    from tocsearch.storage import _lock

    primitive = _lock.PRIMITIVE
    return f"tocsearch writer lock: {primitive.name if primitive is not None else 'none'}"


def pytest_itemcollected(item: pytest.Item) -> None:
    """Record the file each collected test comes from (tests/test_collection.py reads it)."""
    collected.files.add(item.nodeid.split("::", 1)[0])


def pytest_collectreport(report: pytest.CollectReport) -> None:
    """Record each collector that failed (tests/test_collection.py reads it)."""
    if report.failed:
        collected.errors.append(f"{report.nodeid}: {report.longreprtext}")

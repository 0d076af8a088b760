"""Helper processes: results in order, each job made once, the same as without helpers, and
nothing lost when a helper fails or dies."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

if sys.platform == "linux":
    import fcntl
from hypothesis import given, settings
from hypothesis import strategies as st
from tests._support import helper_checks
from tests._support.examples import scaled

from tocsearch.errors import InvalidArgument
from tocsearch.ingest import TocBuilder
from tocsearch.ingest._helpers import HelperWork, available_cpus, fork_is_safe, widen_pipe
from tocsearch.storage import InMemoryStorage

_ROOT = Path(__file__).resolve().parents[2]


def _square(job: int) -> int:
    return job * job


@settings(max_examples=scaled(15))
@given(st.lists(st.integers(-1000, 1000), max_size=40), st.integers(0, 2))
def test_results_come_in_the_jobs_order(jobs: list[int], helpers: int) -> None:
    """Whatever the jobs and however many helpers, the results are make(job) in order."""
    with HelperWork(_square, jobs, helpers=helpers) as work:
        assert list(work.results()) == [job * job for job in jobs]


def test_no_helpers_while_another_thread_runs() -> None:
    """A process with a second thread running never forks: every job is made here."""
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert not fork_is_safe()
        with HelperWork(_square, list(range(10)), helpers=2) as work:
            assert work.helpers == 0
            assert list(work.results()) == [job * job for job in range(10)]
    finally:
        stop.set()
        thread.join()


@pytest.mark.parametrize("check", helper_checks.__all__)
def test_with_forked_helpers(check: str) -> None:
    """Each check of tests/_support/helper_checks.py passes in a fresh one-thread process,
    where helpers are forked."""
    code = (
        "from tocsearch.ingest._helpers import fork_is_safe\n"
        "assert fork_is_safe()\n"
        f"from tests._support.helper_checks import {check}\n"
        f"{check}()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=_ROOT, check=False
    )
    assert done.returncode == 0, done.stderr


def test_helpers_are_checked_and_default_to_the_spare_cpus() -> None:
    """helpers must be a whole number from 0; by default it is one fewer than the CPUs, at
    most three."""
    for wrong in (-1, True, 1.5):
        with pytest.raises(InvalidArgument, match="helpers"):
            TocBuilder(InMemoryStorage(), helpers=wrong)  # type: ignore[arg-type]
    assert TocBuilder(InMemoryStorage()).helpers == min(available_cpus() - 1, 3)


def test_a_helpers_pipe_holds_many_results_on_linux() -> None:
    """On Linux a helper's pipe is widened to a megabyte (or the system's ceiling), about 24
    made days; elsewhere it is left as it is."""
    read, write = os.pipe()
    try:
        capacity = widen_pipe(write)
    finally:
        os.close(read)
        os.close(write)
    if sys.platform == "linux":
        ceiling = int(Path("/proc/sys/fs/pipe-max-size").read_text())
        assert capacity >= min(1 << 20, ceiling)
    else:
        assert capacity >= 0


def _refusing_to_widen(refused: int) -> Callable[..., Any]:
    """fcntl.fcntl, but setting a pipe's size fails as the user's pipe page limit makes it."""
    real = fcntl.fcntl

    def patched(descriptor: int, command: int, *args: Any) -> Any:
        if command == fcntl.F_SETPIPE_SZ:
            raise OSError(refused, os.strerror(refused))
        return real(descriptor, command, *args)

    return patched


@pytest.mark.skipif(sys.platform != "linux", reason="pipes are widened on Linux only")
@pytest.mark.parametrize("refused", [errno.EPERM, errno.EBUSY, errno.EINVAL])
def test_a_pipe_that_cannot_be_widened_keeps_its_default_size(
    monkeypatch: pytest.MonkeyPatch, refused: int
) -> None:
    """When the system refuses to widen a pipe (pipe-user-pages-soft spent, or any other
    refusal), widen_pipe raises nothing, leaves the pipe as it was and says its real size,
    which still carries every result of a helper."""
    read, write = os.pipe()
    try:
        before = fcntl.fcntl(write, fcntl.F_GETPIPE_SZ)
        monkeypatch.setattr(fcntl, "fcntl", _refusing_to_widen(refused))
        assert widen_pipe(write) == before
        os.write(write, b"x" * 1000)
        assert os.read(read, 2000) == b"x" * 1000
    finally:
        os.close(read)
        os.close(write)
    assert before < 1 << 20

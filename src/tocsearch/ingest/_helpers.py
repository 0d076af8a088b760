"""Results of a pure function over a list of jobs, in order, with helper processes making some.

The builder's days are pure functions of what it planned (their events, the stored segments
they replace): summarising them is most of a build, and a second CPU can summarise some while
this process stores and rolls up the others. Helpers are forked after the jobs are planned, so
they read the jobs from the memory they share with this process and send back only results.
Each job is made once, by whoever claims it first; jobs are claimed in order, from the front.
The helpers claim one whenever they are free; this process takes the results in order,
claims the job it needs next when no helper has, and, rather than wait for a result a helper
is still making, claims and makes the next unclaimed job. Neither side waits while a job is
left to claim: a helper's pipe is widened (:func:`widen_pipe`) to hold a couple of dozen
results, so a helper keeps making jobs while this process is busy; and the jobs this process
makes are taken in with the helpers' around them, so little is left to take in once the
last job is made, when the helpers have nothing to do. The results
are what this process would have made itself (the function is pure), so a build is the same
with or without helpers; a helper that fails or dies only hands its jobs back.

Forking is safe only where the process has a single thread (a lock another thread holds would
stay held in the child forever) and the platform forks cleanly (not macOS, whose system
libraries may not survive a fork); elsewhere :func:`fork_is_safe` says no and every job is
made here.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    # Imported only where helpers are forked: multiprocessing imports subprocess, which
    # takes any importable msvcrt module for a sign of Windows.
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

__all__ = ["HelperWork", "available_cpus", "fork_is_safe", "widen_pipe"]

_Job = TypeVar("_Job")
_Result = TypeVar("_Result")

_MINE = -1  # owner mark of a job this process claimed
_UNCLAIMED = -2
_JOIN_SECONDS = 5.0  # how long a finished helper may take to exit before it is stopped
# Bytes a helper may send ahead of this process's reading. A made day is about 42 KB (most of
# it the day's full-size digest), so the pipe's usual 64 KiB held one: a helper then waited
# to send whenever this process was busy making a day itself or taking days in, and
# this process made more days itself (a third of a LoCoMo-format build's helper time was
# spent waiting to send). A megabyte holds about 24 days; it is Linux's usual ceiling for a
# pipe an unprivileged process may widen.
_PIPE_BYTES = 1 << 20


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity where the platform tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def fork_is_safe() -> bool:
    """Whether this process may fork helpers: a POSIX platform other than macOS, one thread,
    ``multiprocessing`` at hand, and not itself a daemonic ``multiprocessing`` process (which
    may not have children)."""
    if os.name != "posix" or sys.platform == "darwin" or threading.active_count() != 1:
        return False
    try:
        import multiprocessing
    except ImportError:
        return False
    return (
        "fork" in multiprocessing.get_all_start_methods()
        and not multiprocessing.current_process().daemon
    )


def widen_pipe(descriptor: int, size: int = _PIPE_BYTES) -> int:
    """Let the pipe written through ``descriptor`` hold ``size`` bytes where the platform
    allows it (Linux), so that a helper need not wait for its results to be read; returns
    the pipe's capacity in bytes afterwards, or 0 where the platform does not tell it. A
    pipe that cannot be widened (a limit of the system or the user) is left as it was."""
    try:
        import fcntl
    except ImportError:
        return 0
    setting = getattr(fcntl, "F_SETPIPE_SZ", None)
    getting = getattr(fcntl, "F_GETPIPE_SZ", None)
    if setting is None or getting is None:
        return 0
    with contextlib.suppress(OSError):
        fcntl.fcntl(descriptor, setting, size)
    try:
        return int(fcntl.fcntl(descriptor, getting))
    except OSError:
        return 0


class HelperWork(Generic[_Job, _Result]):
    """``make(job)`` for every job, read in order with :meth:`results`, with up to ``helpers``
    forked processes making the jobs they claim first. With ``helpers=0`` (or when
    :func:`fork_is_safe` says no) every job is made here, in order, as a plain loop would.

    Use as a context manager, or call :meth:`start` and then :meth:`stop` in a ``finally``:
    stopping ends the helpers, whether or not every result was read. ``make`` must be a pure
    function of its job whose result pickles.
    """

    def __init__(
        self, make: Callable[[_Job], _Result], jobs: Sequence[_Job], *, helpers: int
    ) -> None:
        self._make = make
        self._jobs = jobs
        self._helpers: list[tuple[BaseProcess, Connection]] = []
        self._ready: dict[int, _Result | None] = {}
        self._dead: set[int] = set()
        self._helper_count = helpers if helpers > 0 and len(jobs) > 1 and fork_is_safe() else 0
        if not self._helper_count:
            return
        import multiprocessing

        context = multiprocessing.get_context("fork")
        # The next job to claim, the end of those left to claim (0 once stopped), and who
        # claimed each (a helper's number, or _MINE), shared with the helpers through memory
        # mapped before the fork.
        self._next = context.RawValue("q", 0)
        self._end = context.RawValue("q", len(jobs))
        self._owner = context.RawArray("b", [_UNCLAIMED] * len(jobs))
        self._lock = context.Lock()
        self._context = context

    def __enter__(self) -> HelperWork[_Job, _Result]:
        self.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def start(self) -> None:
        """Fork the helpers; they start claiming jobs at once."""
        if self._helpers:
            return
        # Frozen, the objects this process holds are never visited by a helper's garbage
        # collector, whose writes to them would copy the memory pages they sit on.
        gc.freeze()
        try:
            for number in range(self._helper_count):
                receiver, sender = self._context.Pipe(duplex=False)
                widen_pipe(sender.fileno())
                process = self._context.Process(
                    target=self._serve,
                    args=(number, sender),
                    name="tocsearch-helper",
                    daemon=True,
                )
                process.start()
                sender.close()
                self._helpers.append((process, receiver))
        finally:
            gc.unfreeze()

    def stop(self) -> None:
        """Stop the helpers (each finishes the job it is making first); results not yet read
        are then made here."""
        if not self._helpers:
            return
        with self._lock:
            self._end.value = 0  # nothing more to claim
        for process, receiver in self._helpers:
            receiver.close()  # a helper blocked on sending gets an error and exits
            process.join(_JOIN_SECONDS)
            if process.is_alive():
                process.kill()
                process.join()
        self._dead.update(range(len(self._helpers)))
        self._ready.clear()

    @property
    def helpers(self) -> int:
        """How many helper processes make jobs (0: all are made here)."""
        return self._helper_count

    def results(self) -> Iterator[_Result]:
        """``make(job)`` for each job, in the jobs' order."""
        for index, job in enumerate(self._jobs):
            yield self._result(index, job)

    def _result(self, index: int, job: _Job) -> _Result:
        if not self._helpers:
            return self._make(job)
        while index not in self._ready:
            with self._lock:
                owner = self._owner[index]
                if owner == _UNCLAIMED:
                    # Results are read in order, so every earlier job is claimed: this one
                    # is the next at the front.
                    self._owner[index] = _MINE
                    self._next.value = index + 1
            if owner in (_UNCLAIMED, _MINE) or owner in self._dead:
                break  # made here (again, when a helper failed or died)
            receiver = self._helpers[owner][1]
            if receiver.poll() or not self._make_next():
                self._receive(owner)
        made = self._ready.pop(index, None)
        return self._make(job) if made is None else made

    def _make_next(self) -> bool:
        """Claim the next unclaimed job and make it here; False when none is left.

        The next job, not the last: its result is taken in soon after the helpers' before it,
        while they make later jobs. (Made from the back, this process's results waited
        until every job was made and were then taken in with the helpers idle: on
        LoCoMo-format data, about 400 of 865 days.) A job that fails here is kept as None and
        made again when its turn comes, so that its error is raised in order."""
        with self._lock:
            index = self._next.value
            if index >= self._end.value:
                return False
            self._next.value = index + 1
            self._owner[index] = _MINE
        try:
            self._ready[index] = self._make(self._jobs[index])
        except Exception:
            self._ready[index] = None
        return True

    def _receive(self, owner: int) -> None:
        """Wait for the next result of the helper ``owner``; a helper that has died leaves
        its claimed jobs to this process."""
        try:
            number, made = self._helpers[owner][1].recv()
        except (EOFError, OSError):
            self._dead.add(owner)
            return
        self._ready[number] = made

    def _serve(self, number: int, sender: Connection) -> None:
        """A helper's loop: claim the next job, make it, send it; until none is left."""
        # Ctrl-C reaches every process of the terminal's group: the builder's process stops
        # the helpers itself, so a helper neither stops halfway nor prints a traceback.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        while True:
            with self._lock:
                index = self._next.value
                if index >= self._end.value:
                    break
                self._next.value = index + 1
                self._owner[index] = number
            try:
                made: _Result | None = self._make(self._jobs[index])
            except Exception:
                made = None  # made again by the main process, which reports the error
            try:
                sender.send((index, made))
            except (OSError, ValueError):
                break  # the main process stopped reading
            except Exception:
                sender.send((index, None))  # a result that does not pickle is made there
        sender.close()

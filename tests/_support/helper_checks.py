"""Checks of helper processes that must run in a process with one thread (a test session
may have threads of earlier tests left): ``tests/ingest/test_helpers.py`` runs each in a
fresh interpreter, as ``python -c "from tests._support.helper_checks import NAME; NAME()"``."""

from __future__ import annotations

import functools
import multiprocessing
import os
import signal
import sys
from datetime import datetime, timedelta, timezone
from typing import Any

import attrs
import pytest

from tests._support.synthetic import history
from tocsearch import ids
from tocsearch.ingest import TocBuilder, _builder, check_tree
from tocsearch.ingest._early import EarlyParents
from tocsearch.ingest._helpers import HelperWork
from tocsearch.levels import TocLevel
from tocsearch.models import Event
from tocsearch.storage import InMemoryStorage

__all__ = [
    "a_build_with_helpers_is_the_build_without",
    "a_failing_job_raises_here_as_without_helpers",
    "a_helper_ignores_ctrl_c",
    "a_helper_sends_results_ahead_of_their_reading",
    "a_helper_that_dies_hands_its_jobs_back",
    "a_helper_whose_pipe_cannot_be_widened_sends_everything",
    "a_long_history_rolls_up_the_same_with_helpers",
    "helpers_make_some_jobs_and_this_process_the_rest",
    "stopping_early_ends_the_helpers",
    "this_process_makes_the_next_job_while_a_helper_is_busy",
]

_PARENT = os.getpid()


def _square(job: int) -> int:
    return job * job


def _made_where(job: int, helped: Any) -> tuple[int, int]:
    # The first job made here waits until a helper has made one, so a helper always does.
    if os.getpid() == _PARENT:
        assert helped.wait(60)
    else:
        helped.set()
    return job, os.getpid()


def helpers_make_some_jobs_and_this_process_the_rest() -> None:
    """With a helper, some jobs are made in another process, and each result is its job's."""
    helped = multiprocessing.get_context("fork").Event()
    jobs = list(range(50))
    with HelperWork(lambda job: _made_where(job, helped), jobs, helpers=1) as work:
        assert work.helpers == 1
        made = list(work.results())
    assert [job for job, _ in made] == jobs
    assert {pid for _, pid in made} - {_PARENT}


def _fails_on_seven(job: int) -> int:
    if job == 7:
        raise ValueError("job 7 cannot be made")
    return job


def a_failing_job_raises_here_as_without_helpers() -> None:
    """A job that fails in a helper is made again here, where its error reaches the caller
    after the results before it."""
    with HelperWork(_fails_on_seven, list(range(20)), helpers=1) as work:
        results = work.results()
        read = [next(results) for _ in range(7)]
        with pytest.raises(ValueError, match="job 7"):
            next(results)
    assert read == list(range(7))


def _dies_in_a_helper(job: int) -> int:
    if os.getpid() != _PARENT:
        os._exit(3)
    return job + 1


def a_helper_that_dies_hands_its_jobs_back() -> None:
    """When a helper process dies, the jobs it claimed are made here: no result is lost."""
    jobs = list(range(30))
    with HelperWork(_dies_in_a_helper, jobs, helpers=2) as work:
        assert list(work.results()) == [job + 1 for job in jobs]


def _interrupted_in_a_helper(job: int) -> int:
    if os.getpid() != _PARENT:
        os.kill(os.getpid(), signal.SIGINT)
    return -job


def a_helper_ignores_ctrl_c() -> None:
    """An interrupt that reaches a helper (Ctrl-C reaches the whole process group) neither
    stops it nor loses a result: the builder's own process is the one that handles it."""
    helped = multiprocessing.get_context("fork").Event()
    jobs = list(range(40))

    def make(job: int) -> tuple[int, int]:
        return _interrupted_in_a_helper(job), _made_where(job, helped)[1]

    with HelperWork(make, jobs, helpers=1) as work:
        made = list(work.results())
    assert [value for value, _ in made] == [-job for job in jobs]
    assert {pid for _, pid in made} - {_PARENT}


def stopping_early_ends_the_helpers() -> None:
    """Leaving the work after reading a few results ends every helper process."""
    work = HelperWork(_square, list(range(500)), helpers=2)
    with work:
        results = work.results()
        assert [next(results) for _ in range(3)] == [0, 1, 4]
    assert not multiprocessing.active_children()


def _waits_for_this_process(
    job: int, helped: Any, made_here: Any, order: list[int]
) -> tuple[int, int]:
    # A helper makes job 0 at once, and job 1 only after this process has made a job itself.
    if os.getpid() == _PARENT:
        order.append(job)
        made_here.set()
    elif job == 1:
        helped.set()
        assert made_here.wait(60)
    return job, os.getpid()


def this_process_makes_the_next_job_while_a_helper_is_busy() -> None:
    """While the helper makes the job this process needs next, this process makes the next
    unclaimed job (job 2 after the helper's 0 and 1), not the last, so that its results are
    taken in as they come instead of all after the helpers are done."""
    context = multiprocessing.get_context("fork")
    helped, made_here = context.Event(), context.Event()
    jobs = list(range(40))
    order: list[int] = []  # the jobs made here, in the order they were made
    make = functools.partial(
        _waits_for_this_process, helped=helped, made_here=made_here, order=order
    )
    with HelperWork(make, jobs, helpers=1) as work:
        # The helper has made job 0 and is making job 1 before anything is read.
        assert helped.wait(60)
        made = list(work.results())
    assert [job for job, _ in made] == jobs
    assert made[0][1] != _PARENT
    assert made[1][1] != _PARENT
    assert order[0] == 2


def _day_sized(job: int) -> bytes:
    # About what a made day weighs when it comes back (42 KB, most of it its digest).
    return bytes([job]) * 42_000


def a_helper_sends_results_ahead_of_their_reading() -> None:
    """A helper makes and sends twenty day-sized results while none is read yet (on Linux,
    where its pipe is widened), so it never waits for this process to read one."""
    jobs = list(range(20))
    with HelperWork(_day_sized, jobs, helpers=1) as work:
        # The helper's own handle: active_children() leaves out (and reaps) a helper that has
        # already made, sent and exited, which a quick one may do before this line.
        ((helper, _),) = work._helpers
        if sys.platform == "linux":
            # Nothing is read until the helper has sent every result and exited.
            helper.join(60)
            assert helper.exitcode == 0
        assert list(work.results()) == [_day_sized(job) for job in jobs]


def a_helper_whose_pipe_cannot_be_widened_sends_everything() -> None:
    """Where the system refuses to widen a helper's pipe (the user's pipe pages spent), the
    helper sends its day-sized results through the pipe as it is: every result arrives, in
    order, and nothing is raised."""
    if sys.platform != "linux":
        return
    import fcntl

    real = fcntl.fcntl

    def refusing(descriptor: int, command: int, *args: Any) -> Any:
        if command == fcntl.F_SETPIPE_SZ:
            raise PermissionError(1, "Operation not permitted")
        return real(descriptor, command, *args)

    fcntl.fcntl = refusing  # type: ignore[assignment]
    try:
        jobs = list(range(20))
        with HelperWork(_day_sized, jobs, helpers=2) as work:
            assert work.helpers == 2
            assert list(work.results()) == [_day_sized(job) for job in jobs]
    finally:
        fcntl.fcntl = real


def _tree(storage: InMemoryStorage) -> dict[str, Any]:
    nodes = {node_id: storage.get_node(node_id) for node_id in storage.iter_node_ids()}
    grips = {grip_id: storage.get_grip(grip_id) for grip_id in storage.iter_grip_ids()}
    return {"nodes": nodes, "grips": grips}


def _one_day_a_week(weeks: int) -> list[Event]:
    """Two turns a week, a week apart: as many weeks to roll up as days."""
    start = datetime(2020, 1, 6, 9, tzinfo=timezone.utc)
    made: list[Event] = []
    for week in range(weeks):
        when = start + timedelta(days=7 * week)
        for offset, (role, text) in enumerate(
            (
                ("user", f"Week {week}: the nightly export stalls on lock {week % 17}."),
                ("assistant", f"Found it: batch {week} holds the Postgres advisory lock."),
            )
        ):
            at = when + timedelta(minutes=offset)
            made.append(
                Event(
                    event_id=ids.event_id(at, f"w{week}-{offset}"),
                    session_id=f"week-{week}",
                    timestamp=at,
                    role=role,
                    event_type=f"{role}_message",
                    text=text,
                )
            )
    return made


def _count_helpers() -> list[int]:
    """The helper count of every piece of helper work the builder starts from now on, in order.
    Each check runs in a process of its own, so the builder is patched for good."""
    used: list[int] = []
    real = HelperWork

    def counting(*args: Any, **kwargs: Any) -> HelperWork[Any, Any]:
        work = real(*args, **kwargs)
        used.append(work.helpers)
        return work

    setattr(_builder, "HelperWork", counting)  # noqa: B010 (not an attribute mypy knows)
    return used


def a_long_history_rolls_up_the_same_with_helpers() -> None:
    """Weeks rolled up by a helper (a level of more than a thousand parents) are the weeks
    rolled up here: the same nodes and grips, and helpers make the days, the weeks and the
    months. Early parents are kept out (every parent is left to the roll-up), as in a build
    that finds its early parents' children changed; with them, the roll-up has only the
    last week, month and year to make, and the tree is the same."""
    used = _count_helpers()
    events = _one_day_a_week(1100)
    trees = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(EarlyParents, "made", lambda self, node_id: None)
        for helpers in (0, 1):
            used.clear()
            storage = InMemoryStorage()
            TocBuilder(storage, helpers=helpers).ingest(events)
            check_tree(storage)
            trees.append(_tree(storage))
    assert trees[0] == trees[1]
    assert len(storage.get_nodes_by_level(TocLevel.WEEK)) == 1100
    # The days (two windows: 2,000 events and the 200 after them), the weeks (1,100 days) and
    # the months (1,100 weeks); not the years (254 months).
    assert used == [1, 1, 1, 1, 0]
    used.clear()
    storage = InMemoryStorage()
    TocBuilder(storage, helpers=1).ingest(events)
    assert _tree(storage) == trees[0]
    assert used == [1, 1, 0, 0, 0]


def a_build_with_helpers_is_the_build_without() -> None:
    """Nodes (with their digests and versions) and grips are the same with and without a
    helper, in one batch and in batches, and the helper does make days."""
    used = _count_helpers()
    events = history(3000)
    trees = []
    for helpers in (0, 1):
        storage = InMemoryStorage()
        builder = TocBuilder(storage, helpers=helpers)
        builder.ingest(events[:2000])
        builder.ingest(events[2000:])
        check_tree(storage)
        trees.append(_tree(storage))
        again = InMemoryStorage()
        TocBuilder(again, helpers=helpers).ingest(events)
        assert _tree(again)["grips"] == trees[-1]["grips"]
        assert {
            node_id: attrs.evolve(node, version=1)
            for node_id, node in _tree(again)["nodes"].items()
        } == {
            node_id: attrs.evolve(node, version=1) for node_id, node in trees[-1]["nodes"].items()
        }
    assert trees[0] == trees[1]
    assert max(used) == 1

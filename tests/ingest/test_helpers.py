"""Helper processes: results in order, each job made once, the same as without helpers, and
nothing lost when a helper fails or dies."""

from __future__ import annotations

import multiprocessing
import os
import threading
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests._support.synthetic import history

from tocsearch.errors import InvalidArgument
from tocsearch.ingest import TocBuilder, _builder, check_tree
from tocsearch.ingest._helpers import HelperWork, available_cpus, fork_is_safe
from tocsearch.storage import InMemoryStorage

_PARENT = os.getpid()


def _square(job: int) -> int:
    return job * job


@settings(max_examples=15)
@given(st.lists(st.integers(-1000, 1000), max_size=40), st.integers(0, 2))
def test_results_come_in_the_jobs_order(jobs: list[int], helpers: int) -> None:
    """Whatever the jobs and however many helpers, the results are make(job) in order."""
    with HelperWork(_square, jobs, helpers=helpers) as work:
        assert list(work.results()) == [job * job for job in jobs]


def _made_where(job: int, helped: Any) -> tuple[int, int]:
    # The first job made here waits until a helper has made one, so a helper always does.
    if os.getpid() == _PARENT:
        assert helped.wait(60)
    else:
        helped.set()
    return job, os.getpid()


def test_helpers_make_some_jobs_and_this_process_the_rest() -> None:
    """With a helper, some jobs are made in another process, and each result is its job's."""
    assert fork_is_safe(), "the test process should have one thread"
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


def test_a_failing_job_raises_here_as_without_helpers() -> None:
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


def test_a_helper_that_dies_hands_its_jobs_back() -> None:
    """When a helper process dies, the jobs it claimed are made here: no result is lost."""
    jobs = list(range(30))
    with HelperWork(_dies_in_a_helper, jobs, helpers=2) as work:
        assert list(work.results()) == [job + 1 for job in jobs]


def test_stopping_early_ends_the_helpers() -> None:
    """Leaving the work after reading a few results ends every helper process."""
    work = HelperWork(_square, list(range(500)), helpers=2)
    with work:
        results = work.results()
        assert [next(results) for _ in range(3)] == [0, 1, 4]
    assert not multiprocessing.active_children()


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


def _tree(storage: InMemoryStorage) -> dict[str, Any]:
    nodes = {node_id: storage.get_node(node_id) for node_id in storage.iter_node_ids()}
    grips = {grip_id: storage.get_grip(grip_id) for grip_id in storage.iter_grip_ids()}
    return {"nodes": nodes, "grips": grips}


def test_a_build_with_helpers_is_the_build_without(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nodes (with their digests and versions) and grips are the same with and without a
    helper, in one batch and in batches, and the helper does make days."""
    used: list[int] = []
    real = HelperWork

    def counting(*args: Any, **kwargs: Any) -> HelperWork[Any, Any]:
        work = real(*args, **kwargs)
        used.append(work.helpers)
        return work

    monkeypatch.setattr(_builder, "HelperWork", counting)
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


def test_helpers_are_checked_and_default_to_the_spare_cpus() -> None:
    """helpers must be a whole number from 0; by default it is one fewer than the CPUs, at
    most three."""
    for wrong in (-1, True, 1.5):
        with pytest.raises(InvalidArgument, match="helpers"):
            TocBuilder(InMemoryStorage(), helpers=wrong)  # type: ignore[arg-type]
    assert TocBuilder(InMemoryStorage()).helpers == min(available_cpus() - 1, 3)

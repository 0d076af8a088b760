"""Timing and memory helpers: medians and 99th percentiles over many calls, resident memory."""

from __future__ import annotations

import gc
import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

import attrs

from tocsearch.errors import InvalidArgument

__all__ = ["Timing", "percentile", "resident_bytes", "time_calls", "timing_of"]

T = TypeVar("T")


def percentile(values: Sequence[float], share: float) -> float:
    """The nearest-rank percentile of ``values`` (``share`` in [0, 1]): the smallest value with at
    least ``share`` of the values at or below it.

    >>> percentile([4.0, 1.0, 3.0, 2.0], 0.5)
    2.0

    Raises:
        InvalidArgument: no values, or ``share`` outside [0, 1].
    """
    if not values:
        raise InvalidArgument("percentile of no values")
    if not 0.0 <= share <= 1.0:
        raise InvalidArgument(f"share must be in [0, 1], got {share}")
    ordered = sorted(values)
    rank = max(1, math.ceil(share * len(ordered)))
    return ordered[rank - 1]


@attrs.frozen
class Timing:
    """Seconds per call over ``calls`` calls."""

    calls: int
    median: float
    p99: float
    mean: float
    p90: float

    def scaled(self, factor: float) -> Timing:
        """The same timing with every figure multiplied (e.g. by 1e6 for microseconds)."""
        return Timing(
            self.calls,
            self.median * factor,
            self.p99 * factor,
            self.mean * factor,
            self.p90 * factor,
        )


def timing_of(seconds: Sequence[float]) -> Timing:
    """Median, p99, mean and p90 of per-call durations.

    Raises:
        InvalidArgument: no durations.
    """
    if not seconds:
        raise InvalidArgument("timing of no calls")
    return Timing(
        len(seconds),
        percentile(seconds, 0.5),
        percentile(seconds, 0.99),
        sum(seconds) / len(seconds),
        percentile(seconds, 0.9),
    )


def time_calls(
    call: Callable[[T], object], arguments: Sequence[T], *, repeat: int = 1, warmup: int = 3
) -> Timing:
    """Time ``call(argument)`` once per argument, ``repeat`` times over, after ``warmup`` untimed
    calls; the garbage collector is paused while timing so that one call does not pay for the
    garbage of others.

    Raises:
        InvalidArgument: no arguments, or ``repeat`` less than 1.
    """
    if not arguments:
        raise InvalidArgument("time_calls needs at least one argument")
    if repeat < 1:
        raise InvalidArgument(f"repeat must be at least 1, got {repeat}")
    for index in range(min(warmup, len(arguments))):
        call(arguments[index])
    durations: list[float] = []
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        clock = time.perf_counter
        for _ in range(repeat):
            for argument in arguments:
                started = clock()
                call(argument)
                durations.append(clock() - started)
    finally:
        if enabled:
            gc.enable()
    return timing_of(durations)


def resident_bytes() -> int:
    """The current resident set size of this process in bytes (0 where /proc is unavailable)."""
    try:
        status = Path("/proc/self/status").read_text(encoding="ascii")
    except OSError:
        return 0
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0

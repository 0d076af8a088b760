"""The packed-reads benchmark asks every question of the three stores of one tree, which give
the same answers, and prints a row per store and kind of question."""

from __future__ import annotations

import pytest
from benchmarks.bench_packed_reads import main


def test_a_run_prints_a_row_per_store_and_every_store_answers_alike(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--segments", "400", "--calls", "4", "--rounds", "2"]) == 0
    out = capsys.readouterr().out
    assert "the same answer from every store for 8 of 8 questions" in out
    for store in ("objects", "packed, leaves of 16", "packed, dict of bytes"):
        for kind in ("plain", "month hint"):
            assert f"| {store} | {kind} |" in out
    assert "| objects | plain |" in out
    assert out.count("1.00x |") >= 2


def test_a_run_needs_a_warm_up_round() -> None:
    with pytest.raises(SystemExit):
        main(["--rounds", "1"])

"""The packed-reads benchmark asks every question of the three layouts of one tree, each in its
own interpreter, which give the same answers, and prints a row per layout and kind of
question."""

from __future__ import annotations

import pytest
from benchmarks.bench_packed_reads import LAYOUTS, main


def test_a_run_prints_a_row_per_layout_and_every_layout_answers_alike(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--segments", "400", "--calls", "4", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert "every layout gave the same evidence: yes" in out
    for layout in LAYOUTS:
        for kind in ("plain", "month hint"):
            assert f"| {layout} | {kind} |" in out
    assert out.count("| 1.00x |") >= 4  # the baseline's median and mean, for both kinds


def test_a_run_needs_a_round() -> None:
    with pytest.raises(SystemExit):
        main(["--rounds", "0"])

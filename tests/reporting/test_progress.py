"""The progress display of a run: a live bar on a terminal, a few plain lines elsewhere, nothing when quiet."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import cast

from rich.console import Console

from harness.reporting.progress import RunProgress
from harness.results import ScenarioResult, Verdict


def _result(verdict: str = "pass", scenario: str = "normal.single-call") -> ScenarioResult:
    return ScenarioResult(scenario, "Title", ("Single non-streaming call",), "normal", "reference", "0.1.0",
                          "streaming", cast(Verdict, verdict))


def _console(*, terminal: bool) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=terminal, width=120, color_system=None), out


def _run(progress: RunProgress, verdicts: Sequence[str], total: int | None = None) -> None:
    progress.start(len(verdicts) if total is None else total)
    for verdict in verdicts:
        progress.advance(_result(verdict))
    progress.finish()


def test_plain_lines_come_at_every_tenth_of_the_runs() -> None:
    console, out = _console(terminal=False)
    progress = RunProgress(console)
    assert not progress.live
    _run(progress, ["pass"] * 290 + ["fail"] * 5 + ["n/a"] * 5)
    lines = out.getvalue().splitlines()
    assert len(lines) == 10
    assert lines[0] == "progress: 30/300 (10%) runs finished: 30 pass"
    assert lines[-1] == "progress: 300/300 (100%) runs finished: 290 pass, 5 fail, 5 n/a"


def test_a_small_run_has_a_line_per_result_and_finish_shows_a_count_not_yet_shown() -> None:
    console, out = _console(terminal=False)
    _run(RunProgress(console), ["pass", "fail", "xfail"])
    assert out.getvalue().splitlines() == [
        "progress: 1/3 (33%) runs finished: 1 pass",
        "progress: 2/3 (66%) runs finished: 1 pass, 1 fail",
        "progress: 3/3 (100%) runs finished: 1 pass, 1 fail, 1 xfail",
    ]
    console, out = _console(terminal=False)
    _run(RunProgress(console), ["pass"] * 25, total=100)  # fewer results than announced, e.g. a missing extra
    assert out.getvalue().splitlines()[-1] == "progress: 25/100 (25%) runs finished: 25 pass"


def test_a_terminal_gets_a_live_bar_naming_the_last_run_and_the_verdicts() -> None:
    console, out = _console(terminal=True)
    progress = RunProgress(console)
    assert progress.live
    progress.start(3)
    progress.advance(_result("pass"))
    progress.advance(_result("fail"))
    progress.start(4)  # a corrected total keeps the bar and its count
    progress.advance(_result("pass", "normal.streaming-call"))
    progress.finish()  # the last frame drawn shows the final state
    text = out.getvalue()
    assert "3/4" in text
    assert "2 pass, 1 fail" in text
    assert "normal.streaming-call [reference, streaming]" in text
    assert "progress:" not in text  # no plain lines on a terminal
    assert progress.counts() == "2 pass, 1 fail"


def test_quiet_shows_nothing_on_a_terminal_or_elsewhere() -> None:
    for terminal in (True, False):
        console, out = _console(terminal=terminal)
        progress = RunProgress(console, quiet=True)
        _run(progress, ["pass", "fail"] * 20)
        assert out.getvalue() == ""
        assert progress.done == 40

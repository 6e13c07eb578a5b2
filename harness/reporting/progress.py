"""Progress of a run on the console, as results arrive.

On a terminal a live bar (rich) shows how many runs finished, the verdicts so far, the time left and the run that
finished last; the bar is green while every run passes and turns red at the first failure or error. Elsewhere (a CI
log, a pipe) the same facts come as a plain line at every tenth of the runs, so a log of 300 runs holds about ten
progress lines; once a run has taken long enough for an estimate to mean something, each line also says about how
long is left. Quiet shows nothing: the run prints its summary and errors only.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Column

from harness.reporting.text import run_where
from harness.results import VERDICTS, ScenarioResult

PLAIN_LINES = 10  # plain progress lines per run, about; one every tenth of the total
ESTIMATE_AFTER_SECONDS = 30.0  # plain lines name the time left only after this: early rates say little
PASSING_STYLE, FAILING_STYLE = "green", "red"


class RunProgress:
    """The progress display of one run: `start` once the number of runs is known, `advance` per finished run
    (in any order, e.g. as worker processes finish them), `finish` at the end, also after an error.

    `start` may be called again with a corrected total, e.g. once unavailable implementations are known.
    """

    def __init__(self, console: Console | None = None, *, quiet: bool = False,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.console = console or Console(highlight=False)
        self.quiet = quiet
        self.clock = clock
        self.started = clock()
        self.total = 0
        self.done = 0
        self.verdicts: Counter[str] = Counter()
        self._bar: Progress | None = None
        self._bar_column: BarColumn | None = None
        self._task: TaskID | None = None
        self._next_line = 0  # the count at which the next plain line is due
        self._last_line = 0  # the count the last plain line showed

    @property
    def live(self) -> bool:
        """Whether progress shows as a live bar (on a terminal) rather than as plain lines."""
        return not self.quiet and self.console.is_terminal

    def start(self, total: int) -> None:
        self.total = total
        if self.quiet:
            return
        if not self.live:
            self._plan_next_line()
        elif self._bar is None:
            # The last run's name takes what width is left and is cut first; the counts always show.
            last_run = Column(ratio=1, no_wrap=True, overflow="ellipsis", min_width=8)
            self._bar_column = BarColumn(bar_width=20, complete_style=self.bar_style,
                                         finished_style=self.bar_style)
            self._bar = Progress(TextColumn("{task.description}", markup=False, table_column=last_run),
                                 self._bar_column, MofNCompleteColumn(),
                                 TextColumn("{task.fields[verdicts]}", markup=False), TimeElapsedColumn(),
                                 TextColumn("eta"), TimeRemainingColumn(),
                                 console=self.console, transient=True, expand=True)
            self._bar.start()
            self._task = self._bar.add_task("running", total=total, verdicts="")
        elif self._task is not None:
            self._bar.update(self._task, total=total)

    def advance(self, result: ScenarioResult) -> None:
        self.done += 1
        self.verdicts[result.verdict] += 1
        if self.quiet:
            return
        if self._bar_column is not None:
            self._bar_column.complete_style = self._bar_column.finished_style = self.bar_style
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, advance=1, verdicts=self.counts(),
                             description=f"{result.scenario} "
                                         f"[{run_where(result.implementation, result.mode, result.provider)}]")
        elif not self.live and self.done >= self._next_line:
            self._print_line()
            self._plan_next_line()

    def finish(self) -> None:
        """Ends the live bar, or prints a last plain line when the final count has not been shown yet."""
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
            self._task = None
        elif not self.quiet and not self.live and self.done != self._last_line:
            self._print_line()

    @property
    def bar_style(self) -> str:
        """Green while every finished run passes (or is xfail, differs or n/a), red once one fails or errors."""
        return FAILING_STYLE if self.verdicts["fail"] or self.verdicts["error"] else PASSING_STYLE

    def remaining(self) -> str:
        """About how long the rest takes at the rate so far (``about 2m 10s left``); "" before it means much."""
        elapsed = self.clock() - self.started
        if not self.total or not self.done or self.done >= self.total or elapsed < ESTIMATE_AFTER_SECONDS:
            return ""
        seconds = round(elapsed / self.done * (self.total - self.done))
        minutes, seconds = divmod(seconds, 60)
        return f"about {minutes}m {seconds:02d}s left" if minutes else f"about {seconds}s left"

    def counts(self) -> str:
        """The verdicts so far, in the summary's order, e.g. ``12 pass, 1 fail, 2 n/a``."""
        return ", ".join(f"{self.verdicts[v]} {v}" for v in VERDICTS if self.verdicts[v])

    def _print_line(self) -> None:
        of = f"/{self.total} ({100 * self.done // self.total}%)" if self.total else ""
        left = self.remaining()
        self.console.print(f"progress: {self.done}{of} runs finished: {self.counts()}{f', {left}' if left else ''}",
                           markup=False, highlight=False, soft_wrap=True)
        self._last_line = self.done

    def _plan_next_line(self) -> None:
        step = -(-self.total // PLAIN_LINES) if self.total else 50  # a tenth of the total, rounded up
        self._next_line = (self.done // step + 1) * step

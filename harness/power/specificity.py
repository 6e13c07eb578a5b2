"""How specifically a spec row's scenarios execute given loop lines, compared with all scenario × mode runs.

Shared loop code (building the request, calling the provider, returning the response) is executed by almost every
run, so "the rows whose scenarios execute this line" names nearly every row and tells a reviewer nothing. A line
says something about a row when the row's runs execute it much more often than runs at large: the row's *lift* for
the line is the share of the row's runs executing it divided by the share of all runs executing it (its *reach*).
A line most runs execute (reach above `BROAD_REACH`) is broad: it is reported, but no row is singled out by it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from harness.power.line_coverage import IMPORT_CONTEXT, LoopCoverage

BROAD_REACH = 0.5  # a line more than half of all runs execute is shared plumbing, not any one row's code
SPECIFIC_LIFT = 2.0  # a row's runs execute a specific line at least twice as often as runs at large


@dataclass(frozen=True)
class LineReach:
    """Which runs execute one line (module-level import time left out)."""

    module: str
    line: int
    contexts: frozenset[str]
    total_runs: int

    @property
    def reach(self) -> float:
        return len(self.contexts) / self.total_runs if self.total_runs else 0.0

    @property
    def broad(self) -> bool:
        return self.reach > BROAD_REACH


@dataclass(frozen=True)
class RowReach:
    """A row named by changed lines: the most specific changed line its runs execute, and how specifically."""

    row: str
    line: LineReach
    row_runs: int  # runs naming the row
    row_runs_executing: int  # of those, runs executing `line`
    scenarios: tuple[str, ...]  # the row's scenarios executing any changed line

    @property
    def row_share(self) -> float:
        return self.row_runs_executing / self.row_runs if self.row_runs else 0.0

    @property
    def lift(self) -> float:
        return self.row_share / self.line.reach if self.line.reach else 0.0

    @property
    def broad(self) -> bool:
        """Named only through shared code: a broad line, or one the row's runs execute no more than twice as often
        as runs at large."""
        return self.line.broad or self.lift < SPECIFIC_LIFT


def runs_by_row(coverage: LoopCoverage) -> dict[str, frozenset[str]]:
    """Row -> the context keys of the runs of scenarios naming it."""
    found: dict[str, set[str]] = defaultdict(set)
    for key, run in coverage.runs.items():
        for row in run.rows:
            found[row].add(key)
    return {row: frozenset(keys) for row, keys in found.items()}


def line_reach(coverage: LoopCoverage, module: str, line: int) -> LineReach:
    contexts = frozenset(c for c in coverage.module(module).contexts_by_line.get(line, ())
                         if c != IMPORT_CONTEXT and c in coverage.runs)
    return LineReach(module, line, contexts, len(coverage.runs))


def rank_rows(coverage: LoopCoverage, changed: Iterable[tuple[str, Sequence[int]]]) -> list[RowReach]:
    """Every row whose runs execute a changed line, most specific first, broad ones last.

    `changed` holds (module, lines) pairs; lines run only at import (module-level code) count for no row. A row is
    placed by the changed line on which its lift is highest (ties: the line the fewest runs execute); rows are
    ordered by that lift, then by how few runs execute the line."""
    reaches = [line_reach(coverage, module, line) for module, lines in changed for line in lines]
    reaches = [r for r in reaches if r.contexts]
    ranked: list[RowReach] = []
    for row, keys in runs_by_row(coverage).items():
        hits = [(r, keys & r.contexts) for r in reaches if keys & r.contexts]
        if not hits:
            continue
        best, executing = min(hits, key=lambda hit: (-len(hit[1]) / len(hit[0].contexts), len(hit[0].contexts),
                                                     hit[0].line))
        scenarios = sorted({coverage.runs[key].scenario for _, found in hits for key in found})
        ranked.append(RowReach(row, best, len(keys), len(executing), tuple(scenarios)))
    ranked.sort(key=lambda r: (r.broad, -round(r.lift, 6), len(r.line.contexts), r.row))
    return ranked


def specific_lines(coverage: LoopCoverage) -> dict[str, dict[str, list[int]]]:
    """Row -> module -> the lines its runs execute at least `SPECIFIC_LIFT` times as often as all runs do, broad
    lines left out: the loop code that is the row's own rather than shared plumbing."""
    rows = runs_by_row(coverage)
    found: dict[str, dict[str, list[int]]] = defaultdict(dict)
    for module in coverage.modules:
        for line in sorted(module.contexts_by_line):
            reach = line_reach(coverage, module.name, line)
            if not reach.contexts or reach.broad:
                continue
            for row, keys in rows.items():
                share = len(keys & reach.contexts) / len(keys)
                if share and share / reach.reach >= SPECIFIC_LIFT:
                    found[row].setdefault(module.name, []).append(line)
    return found

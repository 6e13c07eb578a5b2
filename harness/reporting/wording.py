"""Sentences every coverage report shares, so Markdown, HTML, JSON and JUnit say the same thing the same way."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from harness.bundled import BUNDLED_SCENARIOS
from harness.reporting.coverage import CellStatus, CoverageMatrix
from harness.requirements import requirement
from harness.results import CheckResult, ScenarioResult

SYMBOLS: Mapping[CellStatus, str] = {
    "pass": "✅", "fail": "❌", "error": "💥", "xfail": "⚠️", "differs": "≠", "n/a": "–", "not-covered": "·",
}

# Beside a cell's own verdict: a scenario of the row tripped a general invariant, which is not the row's own
# requirement (`harness.requirements`); the failures list names it.
GENERAL_MARK = "⚑"
GENERAL_LEGEND = (f"{GENERAL_MARK} beside a mark: a scenario of the row tripped a general invariant (or a known "
                  "failure of one) that is not the row's own requirement; the mark itself is the row's own verdict")


def check_scope(check: CheckResult) -> str:
    """How reports tag a check: the row's own requirement, or a general invariant."""
    return "row" if requirement(check.id).scope == "row" else "general"


FILTERED_BANNER = (
    "Filtered run: only some scenarios, implementations or modes were selected. This report covers that "
    "selection only and is not evidence of full coverage of the spec."
)

# Titles and explanations of the gap lists, in the order reports show them.
GAP_TITLES: Mapping[str, tuple[str, str]] = {
    "uncovered_rows": ("Rows no scenario covers", "no scenario in these results names the row"),
    "unknown_rows": ("Scenarios naming unknown rows",
                     "the scenario's `spec` names a row that is not in the row list used for this report"),
    "xfail_only": ("Rows covered only by known failures",
                   "in these columns every applicable run of the row is a documented known failure"),
    "unexplained_na": ("n/a cells without a reason",
                       "the implementation could not run the scenario and the result does not say why"),
    "rowless_scenarios": ("Scenarios covering no row",
                          "the result names no spec row, e.g. a malformed scenario file"),
}


def headline(matrix: CoverageMatrix) -> str:
    covered = len(matrix.covered_rows)
    total = len(matrix.rows)
    if matrix.filtered:
        return (f"{covered} of {total} spec rows are named by a scenario in this filtered selection; "
                "coverage of the full suite is not established.")
    if matrix.claims_full_coverage:
        return f"All {total} spec rows are covered by at least one scenario."
    return f"{covered} of {total} spec rows are covered by at least one scenario; {total - covered} are not."


def problem_checks(run: ScenarioResult) -> list[CheckResult]:
    """The checks that explain a run's verdict: failed, erroring, known-failing or differing ones (every check
    that neither passed nor was n/a: in a `differs` run, what the loop does instead of what it does not claim)."""
    return [check for check in run.checks if check.verdict not in ("pass", "n/a")]


def check_line(check: CheckResult) -> str:
    where = f" (turn {check.turn})" if check.turn else ""
    message = " ".join(check.message.split())
    return f"{check.id}{where} [{check.verdict}]" + (f": {message}" if message else "")


def one_line(text: str) -> str:
    return " ".join(text.split())


def display_path(path: str) -> str:
    """A scenario's path as reports and results files give it, never a machine's absolute path: relative to the
    working directory when it lies below it (a checkout's `scenarios/normal/single-call.yaml`), else relative to the
    folder holding the scenario root (the bundled suite's `scenarios/...`, wherever the package is installed), else
    the file with its folder. CI runners' absolute checkout paths say nothing to a reader and differ between
    machines, and a committed file must not carry them."""
    if not path:
        return ""
    candidate = Path(path)
    if not candidate.is_absolute():
        return candidate.as_posix()
    resolved = candidate.resolve()
    for root in (Path.cwd().resolve(), BUNDLED_SCENARIOS.resolve().parent):
        if resolved.is_relative_to(root):
            return resolved.relative_to(root).as_posix()
    return f"{resolved.parent.name}/{resolved.name}"

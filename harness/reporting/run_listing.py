"""The short listing that ends a run: one line per failing run, and apart from it the runs that differ.

A line reads ``FAIL id [implementation, modes, provider] check: message (path:line:col)``. Runs that differ only in
their mode and fail the same check with the same message share one line (``non-streaming + streaming``), so a
defect seen in both modes is listed once. `differs` runs never read FAIL: they get their own, shorter listing.
The same grouped runs make the GitHub Actions annotations (``::error file=...``), one per line of the listing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from harness.reporting.locations import Location, check_location, display_path
from harness.results import NEUTRAL_PROVIDER, CheckResult, ScenarioResult

MAX_MESSAGE_CHARS = 200  # of a listed check's message: the details above (or -v) show the rest
MAX_ANNOTATIONS = 50  # GitHub shows at most 50 annotations of a kind per job; more only clutter the log
LISTED = ("fail", "error")
_LOCATED = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<column>\d+): (?P<message>.*)$")  # path:line:col: message


@dataclass(frozen=True)
class ListedRun:
    """One line of the listing: a failing run, or several that differ only in mode."""

    verdict: str
    scenario: str
    implementation: str
    modes: tuple[str, ...]
    provider: str
    check: str  # the first failing check's id ("" when the run has none, e.g. a broken adapter)
    message: str
    location: Location
    more_checks: int  # further failing checks of the run, not named on the line

    def where(self) -> str:
        parts = [self.implementation, " + ".join(self.modes)]
        return ", ".join([*parts, self.provider] if self.provider != NEUTRAL_PROVIDER else parts)

    def render(self) -> str:
        check = f"{self.check}: " if self.check else ""
        more = f" (+{self.more_checks} more check{'s' if self.more_checks > 1 else ''})" if self.more_checks else ""
        return (f"{self.verdict.upper()} {self.scenario} [{self.where()}] {check}{self.message}{more} "
                f"({self.location})")


def listed_runs(results: Sequence[ScenarioResult], verdicts: Sequence[str] = LISTED) -> list[ListedRun]:
    """The runs with one of `verdicts`, in result order, those equal but for the mode merged into one."""
    grouped: dict[tuple[object, ...], list[str]] = {}
    first: dict[tuple[object, ...], ListedRun] = {}
    for result in results:
        if result.verdict not in verdicts:
            continue
        listed = _listed(result)
        key = (listed.verdict, listed.scenario, listed.implementation, listed.provider, listed.check,
               listed.message, listed.location, listed.more_checks)
        modes = grouped.setdefault(key, [])
        if result.mode not in modes:
            modes.append(result.mode)
        first.setdefault(key, listed)
    return [replace(first[key], modes=tuple(modes)) for key, modes in grouped.items()]


def render_listing(results: Sequence[ScenarioResult]) -> list[str]:
    """The lines ending a run: failing runs, then the runs that differ under a heading; empty when neither."""
    failing = [run.render() for run in listed_runs(results)]
    differing = [run.render() for run in listed_runs(results, ("differs",))]
    lines: list[str] = []
    if failing:
        lines += [f"{len(failing)} failing (scenario × implementation × provider, modes merged):", *failing]
    if differing:
        lines += [f"{len(differing)} differing: differences the implementation does not claim to avoid; they never "
                  "fail the run", *differing]
    return lines


def github_annotations(results: Sequence[ScenarioResult]) -> list[str]:
    """GitHub Actions workflow commands marking each listed failure (error) and difference (notice) in the diff."""
    lines: list[str] = []
    for kind, verdicts in (("error", LISTED), ("notice", ("differs",))):
        runs = listed_runs(results, verdicts)
        for run in runs[:MAX_ANNOTATIONS]:
            title = f"{run.verdict.upper()} {run.scenario} [{run.where()}]"
            message = f"{run.check}: {run.message}" if run.check else run.message
            lines.append(f"::{kind} file={_property(run.location.path)},line={run.location.line},"
                         f"col={run.location.column},title={_property(title)}::{_data(message)}")
        if len(runs) > MAX_ANNOTATIONS:
            lines.append(f"::warning::{len(runs) - MAX_ANNOTATIONS} more {kind}s not annotated: see the job log")
    return lines


def _listed(result: ScenarioResult) -> ListedRun:
    failing = [c for c in result.checks if c.verdict in ("fail", "error")]
    check: CheckResult | None = failing[0] if failing else None
    text = _one_line(check.message if check is not None and check.message else result.reason)
    location = check_location(result, check)
    compiler_style = _LOCATED.match(text) if check is not None and check.id == "scenario-file" else None
    if compiler_style:  # a malformed file's first problem already says where it is: keep that, once
        location = Location(display_path(compiler_style["path"]), int(compiler_style["line"]),
                            int(compiler_style["column"]))
        text = compiler_style["message"]
    return ListedRun(result.verdict, result.scenario, result.implementation, (result.mode,), result.provider,
                     check.id if check is not None else "", text, location, max(len(failing) - 1, 0))


def _one_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= MAX_MESSAGE_CHARS else line[:MAX_MESSAGE_CHARS] + "…"


def _data(text: str) -> str:
    """A workflow command's message, escaped as GitHub's toolkit does."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    """A workflow command's property value, escaped as GitHub's toolkit does."""
    return _data(text).replace(":", "%3A").replace(",", "%2C")

"""Console output of a run: failures in detail, then a summary per scenario section.

Each failed check starts with the `path:line:col` of the expectation it judged (harness/reporting/locations.py).
A failure's detail is capped unless verbose output is asked for: a runaway loop can fail a check hundreds of times
or produce a transcript of megabytes, and a console full of it hides the first, telling problem.
"""

from __future__ import annotations

import difflib
from collections import Counter, defaultdict
from collections.abc import Sequence

from harness.citations import CITATIONS
from harness.reporting.locations import check_location, display_path
from harness.results import VERDICTS, CheckResult, ScenarioResult, with_provider

MAX_PROBLEMS = 10  # individual problems listed per check
MAX_DIFF_LINES = 40  # lines of a check's (folded) diff
MAX_LOG_LINES = 20  # lines of the implementation's log
MAX_LINES = 120  # lines of one failing run, everything included
MAX_LINE_CHARS = 400  # characters of one line


def render_failure(result: ScenarioResult, *, verbose: bool = False, verbose_flag: str = "-vv") -> str:
    """A failed run: where, then each failed check — turn, check, expected, actual, diff.

    Without `verbose` every list is cut after its first items and the whole text after `MAX_LINES` lines, each cut
    saying how much it left out and that `verbose_flag` (the option that sets `verbose`) shows it.
    """
    where = run_where(result.implementation, result.mode, result.provider)
    head = f"{result.verdict.upper()} {result.scenario} [{where}]"
    lines = [head, f"  scenario: {display_path(result.path)}:{result.line}"]
    if result.reason:
        lines.append(f"  reason: {result.reason}")
    for check in result.checks:
        if check.verdict in ("fail", "error"):
            lines.extend(_check_lines(result, check, verbose=verbose, flag=verbose_flag))
    if result.log:
        lines.append("  implementation log:")
        log = list(result.log)
        shown = log if verbose else _capped(log, MAX_LOG_LINES, "log line(s)", verbose_flag)
        lines.extend(f"    {line}" for line in shown)
    if verbose:
        return "\n".join(lines)
    lines = [_clip(line, verbose_flag) for line in lines]
    return "\n".join(_capped(lines, MAX_LINES, "line(s) of this failure", verbose_flag, indent="  "))


def run_where(implementation: str, mode: str, provider: str) -> str:
    """``implementation, mode``, then the provider unless it is neutral: how the console names a run."""
    return ", ".join(with_provider([implementation, mode], provider))


def check_diff(check: CheckResult) -> list[str]:
    """A unified diff of what the check expected against what it got, in full: the check's own `diff`, or else one
    made here from its multi-line `expected` and `actual` forms (e.g. one model request message per line)."""
    if check.diff:
        return list(check.diff)
    if check.expected is None or check.actual is None or "\n" not in check.expected + check.actual:
        return []
    expected, actual = check.expected.splitlines(), check.actual.splitlines()
    return list(difflib.unified_diff(expected, actual, "expected", "actual", n=max(len(expected), len(actual)),
                                     lineterm=""))


def _check_lines(result: ScenarioResult, check: CheckResult, *, verbose: bool, flag: str) -> list[str]:
    # Compiler-style: the failing expectation's path:line:col first, where an editor or terminal can jump to it.
    turn = f"turn {check.turn}, " if check.turn else ""
    lines = [f"  - {check_location(result, check)}: {turn}check {check.id}: {check.message}"]
    lines.extend(f"      {line}" for line in cited(check))
    if len(check.details) > 1:
        details = list(check.details)
        shown = details if verbose else _capped(details, MAX_PROBLEMS, "problem(s)", flag)
        lines.extend(f"      {detail}" for detail in shown)
    diff = check_diff(check)
    if diff:
        shown = diff if verbose else _capped(_fold(diff, flag), MAX_DIFF_LINES, "diff line(s)", flag)
        lines.extend(f"      {line}" for line in shown)
    elif verbose:
        if check.expected is not None:
            lines.append("      expected: " + check.expected.replace("\n", "\n                "))
        if check.actual is not None:
            lines.append("      actual:   " + check.actual.replace("\n", "\n                "))
    return lines


def cited(check: CheckResult) -> list[str]:
    """What the failing check enforces, in the spec's words: its profile and each cited row or sentence."""
    if check.profile is None and not check.cites:
        return []
    sources = [CITATIONS[c] for c in check.cites if c in CITATIONS]
    head = f"{check.profile or 'contract'} profile" + (", enforces:" if sources else "")
    return [head, *(f"  {c.source}: {c.text}" if not c.id.startswith("row:") else f"  {c.source}: row \"{c.text}\""
                   for c in sources)]


def _capped(lines: list[str], limit: int, what: str, flag: str, indent: str = "") -> list[str]:
    """The first `limit` lines, the last of them replaced by a count of what was left out when there are more."""
    if len(lines) <= limit:
        return lines
    kept = lines[: limit - 1]
    return [*kept, f"{indent}… and {len(lines) - len(kept)} more {what} ({flag} shows all)"]


def _clip(line: str, flag: str) -> str:
    if len(line) <= MAX_LINE_CHARS:
        return line
    return f"{line[:MAX_LINE_CHARS]}… ({len(line) - MAX_LINE_CHARS} more characters, {flag} shows all)"


def _fold(diff: Sequence[str], flag: str, context: int = 2) -> list[str]:
    """Keep changed lines and a little context; equal runs collapse to one marker line."""
    changed = [i for i, line in enumerate(diff) if line[:1] in "+-@" and not line.startswith(("+++", "---"))]
    keep = {j for i in changed for j in range(i - context, i + context + 1)}
    out: list[str] = []
    skipped = 0
    for i, line in enumerate(diff):
        if i in keep or line.startswith(("+++", "---")):
            if skipped:
                out.append(f"... {skipped} equal line(s) folded ({flag} shows them)")
                skipped = 0
            out.append(line)
        else:
            skipped += 1
    if skipped:
        out.append(f"... {skipped} equal line(s) folded ({flag} shows them)")
    return out


def render_summary(results: Sequence[ScenarioResult]) -> str:
    """Verdict counts per scenario section and in total, one column per verdict, each as wide as its name."""
    by_section: dict[str, Counter[str]] = defaultdict(Counter)
    for result in results:
        by_section[result.section][result.verdict] += 1
    width = max([len(s) for s in by_section] + [7])
    columns = {v: max(5, len(v)) for v in VERDICTS}

    def row(name: str, counts: Counter[str]) -> str:
        return f"{name:<{width}}  " + "  ".join(f"{counts[v]:>{columns[v]}}" for v in VERDICTS)

    lines = [f"{'section':<{width}}  " + "  ".join(f"{v:>{columns[v]}}" for v in VERDICTS)]
    total: Counter[str] = Counter()
    for section in sorted(by_section):
        total.update(by_section[section])
        lines.append(row(section, by_section[section]))
    lines.append(row("total", total))
    return "\n".join(lines)

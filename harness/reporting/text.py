"""Console output of a run: failures in detail, then a summary per scenario section."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from harness.results import VERDICTS, CheckResult, ScenarioResult


def render_failure(result: ScenarioResult, *, verbose: bool = False) -> str:
    """A failed run: where, then each failed check — turn, check, expected, actual, diff."""
    head = f"{result.verdict.upper()} {result.scenario} [{result.implementation}, {result.mode}]"
    lines = [head, f"  scenario: {result.path}:{result.line}"]
    if result.reason:
        lines.append(f"  reason: {result.reason}")
    for check in result.checks:
        if check.verdict in ("fail", "error"):
            lines.extend(_check_lines(check, result.turn_lines, verbose=verbose))
    if result.log:
        lines.append("  implementation log:")
        lines.extend(f"    {line}" for line in result.log)
    return "\n".join(lines)


def _check_lines(check: CheckResult, turn_lines: Sequence[int], *, verbose: bool) -> list[str]:
    where = ""
    if check.turn:
        line = turn_lines[check.turn - 1] if check.turn <= len(turn_lines) else None
        where = f"turn {check.turn} (line {line}), " if line else f"turn {check.turn}, "
    lines = [f"  - {where}check {check.id}: {check.message}"]
    if len(check.details) > 1:
        lines.extend(f"      {detail}" for detail in check.details)
    if check.diff:
        lines.extend(f"      {line}" for line in (check.diff if verbose else _fold(check.diff)))
    elif verbose:
        if check.expected is not None:
            lines.append("      expected: " + check.expected.replace("\n", "\n                "))
        if check.actual is not None:
            lines.append("      actual:   " + check.actual.replace("\n", "\n                "))
    return lines


def _fold(diff: Sequence[str], context: int = 2) -> list[str]:
    """Keep changed lines and a little context; equal runs collapse to one marker line."""
    changed = [i for i, line in enumerate(diff) if line[:1] in "+-@" and not line.startswith(("+++", "---"))]
    keep = {j for i in changed for j in range(i - context, i + context + 1)}
    out: list[str] = []
    skipped = 0
    for i, line in enumerate(diff):
        if i in keep or line.startswith(("+++", "---")):
            if skipped:
                out.append(f"... {skipped} equal line(s) folded (-vv shows them)")
                skipped = 0
            out.append(line)
        else:
            skipped += 1
    if skipped:
        out.append(f"... {skipped} equal line(s) folded (-vv shows them)")
    return out


def render_summary(results: Sequence[ScenarioResult]) -> str:
    by_section: dict[str, Counter[str]] = defaultdict(Counter)
    for result in results:
        by_section[result.section][result.verdict] += 1
    width = max([len(s) for s in by_section] + [7])
    lines = [f"{'section':<{width}}  " + "  ".join(f"{v:>5}" for v in VERDICTS)]
    total: Counter[str] = Counter()
    for section in sorted(by_section):
        counts = by_section[section]
        total.update(counts)
        lines.append(f"{section:<{width}}  " + "  ".join(f"{counts[v]:>5}" for v in VERDICTS))
    lines.append(f"{'total':<{width}}  " + "  ".join(f"{total[v]:>5}" for v in VERDICTS))
    return "\n".join(lines)

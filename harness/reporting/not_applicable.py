"""Why runs were n/a: a footer counting what each missing capability would unlock, and with -v every reason.

A small loop is n/a on most of the suite; the useful question is which capability to add first. The runner states a
missing capability as ``NAME lacks capability: a, b`` (harness/run/runner.py); a run that lacks one capability is
unlocked by that capability alone, a run that lacks several needs all of them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from harness.results import NEUTRAL_PROVIDER, ScenarioResult

LACKS = " lacks capability: "
TOP_CAPABILITIES = 8  # lines of the footer; -v lists every reason anyway


def missing_capabilities(result: ScenarioResult) -> tuple[str, ...]:
    """The capabilities whose absence made `result` n/a; empty for any other reason."""
    _, found, names = result.reason.partition(LACKS)
    return tuple(name.strip() for name in names.split(",") if name.strip()) if found else ()


def render_footer(results: Sequence[ScenarioResult], *, verbose_flag: str = "-v") -> list[str]:
    """A few lines on the n/a runs, or none when there are none."""
    not_applicable = [r for r in results if r.verdict == "n/a"]
    if not not_applicable:
        return []
    alone: Counter[tuple[str, str]] = Counter()
    together: Counter[tuple[str, str]] = Counter()
    other = 0
    for result in not_applicable:
        missing = missing_capabilities(result)
        if not missing:
            other += 1
        for name in missing:
            (alone if len(missing) == 1 else together)[(result.implementation, name)] += 1
    lines = [f"n/a: {len(not_applicable)} of {len(results)} runs."]
    ranked = sorted(set(alone) | set(together), key=lambda k: (-alone[k], -together[k], k))
    if ranked:
        lines.append("  capabilities that would unlock them (implementation: capability → runs it alone unlocks):")
    for implementation, name in ranked[:TOP_CAPABILITIES]:
        extra = together[(implementation, name)]
        also = f" (+{extra} needing other capabilities too)" if extra else ""
        lines.append(f"    {implementation}: {name} → {alone[(implementation, name)]}{also}")
    if len(ranked) > TOP_CAPABILITIES:
        lines.append(f"    … and {len(ranked) - TOP_CAPABILITIES} more capabilities ({verbose_flag} lists every "
                     "reason)")
    if other:
        lines.append(f"  {other} n/a for other reasons (a mode or provider the scenario or implementation does not "
                     f"have, a step not observable from outside; {verbose_flag} lists them)")
    return lines


def render_reasons(results: Sequence[ScenarioResult]) -> list[str]:
    """Every n/a run's reason, runs equal but for their mode on one line."""
    modes_of: dict[tuple[str, str, str, str], list[str]] = {}
    for result in results:
        if result.verdict == "n/a":
            key = (result.scenario, result.implementation, result.provider, result.reason)
            modes_of.setdefault(key, []).append(result.mode)
    lines: list[str] = []
    for (scenario, implementation, provider, reason), modes in modes_of.items():
        where = [implementation, " + ".join(dict.fromkeys(modes))]
        where += [provider] if provider != NEUTRAL_PROVIDER else []
        lines.append(f"N/A {scenario} [{', '.join(where)}] {reason}")
    return lines

"""The cross-framework invariant table: the universal safety rules side by side for every implementation.

The coverage matrix answers "which spec rows does this loop meet"; this table answers the question a reader asks
first — does the loop keep the safety rules at all (no duplicated side effect, no orphan, no mutated input, a
stream that agrees, rejected calls never run, approved calls run once, bounded turns) — separately from the
spec-specific expectations each scenario adds. Each failing cell lists the scenarios that broke the rule and the
command that reproduces each. There is one column per implementation (and version) × provider; a column names its
provider only when it is not the neutral one, and the wire-only rules get a row only when some run was over a wire.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from html import escape

from harness.reporting.documents import ResultsDocument
from harness.reporting.markdown import markdown_code, markdown_text
from harness.reporting.profile_counts import ProfileCounts, profile_counts
from harness.reporting.wording import display_path
from harness.results import (
    EVENT_CHECKS,
    INVARIANT_CHECKS,
    NEUTRAL_PROVIDER,
    WIRE_CHECKS,
    ScenarioResult,
    with_provider,
)

# The rules the table leads with, in the words of the spec's review checklist; the other invariants follow.
HEADLINE = ("exactly-once", "no-orphans", "inputs-unmutated", "stream-agreement", "rejected-never-runs",
            "approved-once", "bounded")
RULES = (*HEADLINE, *(c for c in INVARIANT_CHECKS if c not in HEADLINE))
MEANING = {
    "exactly-once": "no call executes more often than the model asked",
    "no-orphans": "every call has its result, every result its call",
    "inputs-unmutated": "the caller's messages and earlier responses stay as they were",
    "stream-agreement": "streamed updates, the stream's response and the non-streaming response agree",
    "rejected-never-runs": "a rejected call never executes",
    "approved-once": "an approved call executes exactly once",
    "bounded": "a turn ends within its limits, with tools disabled after a limit",
    "parallel-order": "results keep the model's order",
    "reasoning-bound": "reasoning items travel with the call they precede",
    "rejection-call-id": "a rejection carries the call's id",
    "approval-inert": "a replayed decision changes nothing",
    "no-approval-wrappers-to-model": "local approval wrappers never reach the model",
    "provider-accepts": "every request is one the real provider service accepts (wire runs only)",
    "events-well-formed": "every started message and tool call ends, one run start and one end (AG-UI runs only)",
    "result-events-once": "one result event per executed call, none for a rejected one (AG-UI runs only)",
    "snapshot-agrees": "the messages snapshot equals what the events fold to (AG-UI runs only)",
    "no-approval-controls-to-model": "no resolved approval control reaches the chat client (AG-UI runs only)",
}


@dataclass
class Cell:
    judged: int = 0  # runs in which the rule applied
    failing: list[ScenarioResult] = field(default_factory=lambda: [])
    known: list[ScenarioResult] = field(default_factory=lambda: [])  # failures documented in the baseline
    differs: list[ScenarioResult] = field(default_factory=lambda: [])  # runs that break it only as not claimed

    @property
    def status(self) -> str:
        if self.failing:
            return "fail"
        if self.known:
            return "known"
        if self.differs:
            return "differs"
        return "pass" if self.judged else "n/a"


@dataclass(frozen=True)
class InvariantTable:
    implementations: tuple[str, ...]  # "name version", then the provider unless it is neutral
    cells: dict[tuple[str, str], Cell]  # (rule, implementation) -> cell
    rules: tuple[str, ...] = RULES  # the rows shown, in order
    runs: tuple[ScenarioResult, ...] = ()  # every run that breaks a rule, once
    profiles: Mapping[str, ProfileCounts] = field(default_factory=lambda: {})
    references: Mapping[str, str] = field(default_factory=lambda: {})  # name -> `module:factory` asked for


_BREAKING = frozenset({"fail", "xfail", "error", "differs"})


def build_invariant_table(document: ResultsDocument) -> InvariantTable:
    implementations = tuple(sorted({_column(r) for r in document.results}))
    over_wire = any(r.provider != NEUTRAL_PROVIDER for r in document.results)
    over_events = any(c.id in EVENT_CHECKS for r in document.results for c in r.checks)
    rules = tuple(rule for rule in RULES if (over_wire or rule not in WIRE_CHECKS)
                  and (over_events or rule not in EVENT_CHECKS))
    cells = {(rule, impl): Cell() for rule in RULES for impl in implementations}
    breaking: dict[int, ScenarioResult] = {}
    for result in document.results:
        for check in result.checks:
            if check.id not in MEANING or check.verdict == "n/a":
                continue
            cell = cells[(check.id, _column(result))]
            cell.judged += 1
            if check.verdict in _BREAKING and result.verdict in _BREAKING:
                held = cell.differs if result.verdict == "differs" else \
                    cell.known if result.verdict == "xfail" else cell.failing
                if result not in held:
                    held.append(result)
                breaking.setdefault(id(result), result)
    return InvariantTable(implementations, cells, rules, tuple(breaking.values()),
                          profile_counts(document.results), dict(document.references))


def reproduce_command(result: ScenarioResult, references: Mapping[str, str] | None = None) -> str:
    """The command that runs this one scenario again: the implementation by the name it was asked for (its
    `module:factory` reference when it is not installed), the scenario by its path as reports give it."""
    provider = "" if result.provider == NEUTRAL_PROVIDER else f"--provider {result.provider} "
    implementation = (references or {}).get(result.implementation, result.implementation)
    return (f"loop-conformance run --impl {shlex.quote(implementation)} --mode {result.mode} {provider}"
            f"--scenarios {shlex.quote(display_path(result.path))} --no-baseline -v")


def broken_rules(result: ScenarioResult) -> list[str]:
    """The universal rules the run breaks, in table order."""
    ids = {c.id for c in result.checks if c.verdict in _BREAKING}
    return [rule for rule in RULES if rule in ids]


def render_markdown(table: InvariantTable) -> str:
    lines = ["# Universal invariants by implementation", "",
             "Each cell: ✅ every applicable run keeps the rule, ❌ some run breaks it, ⚠️ only documented known "
             "failures break it, ≠ only runs that differ (they break it where the implementation does not claim "
             "it), – no run applied. Spec-specific expectations are in `coverage.md`.", "",
             "| rule | " + " | ".join(markdown_text(i) for i in table.implementations) + " |",
             "|---|" + "---|" * len(table.implementations)]
    for rule in table.rules:
        marks = [_mark(table.cells[(rule, impl)]) for impl in table.implementations]
        lines.append(f"| {markdown_code(rule)}: {MEANING[rule]} | " + " | ".join(marks) + " |")
    lines += ["", "## Runs by profile", "",
              "Runs by the profile of their failing checks (a check without a profile counts as contract).", "",
              "| implementation | safety failures | contract failures | differs | tentative |",
              "|---|---:|---:|---:|---:|"]
    lines += [f"| {markdown_text(name)} | {c.safety} | {c.contract} | {c.differs} | {c.tentative} |"
              for name, c in table.profiles.items()]
    if table.runs:
        lines += ["", "## Where a rule breaks", "", "One line per run, with the rules it breaks."]
        lines.append("")
        for result in sorted(table.runs, key=_run_order):
            label = {"xfail": " (known failure)", "differs": " (differs)"}.get(result.verdict, "")
            rules = ", ".join(markdown_code(rule) for rule in broken_rules(result))
            lines.append(f"- {markdown_text(_column(result))} · {markdown_text(result.scenario)} "
                         f"[{result.mode}]{label}: {rules} — "
                         f"{markdown_code(reproduce_command(result, table.references))}")
    return "\n".join(lines) + "\n"


def _run_order(result: ScenarioResult) -> tuple[str, str, str, str]:
    return (_column(result), result.scenario, result.mode, result.provider)


def render_html(table: InvariantTable) -> str:
    head = "".join(f"<th>{escape(i)}</th>" for i in table.implementations)
    rows: list[str] = []
    for rule in table.rules:
        cells = "".join(_html_cell(table.cells[(rule, impl)], table.references) for impl in table.implementations)
        rows.append(f"<tr><th><code>{escape(rule)}</code><br><small>{escape(MEANING[rule])}</small></th>{cells}</tr>")
    counts = "".join(f"<tr><th>{escape(name)}</th><td>{c.safety}</td><td>{c.contract}</td><td>{c.differs}</td>"
                     f"<td>{c.tentative}</td></tr>" for name, c in table.profiles.items())
    return ("<!doctype html><html lang=en><meta charset=utf-8><title>Universal invariants by implementation</title>"
            "<style>body{font-family:system-ui,sans-serif;margin:2em}table{border-collapse:collapse}"
            "td,th{border:1px solid #ccc;padding:.4em;vertical-align:top;text-align:left}"
            ".pass{background:#e6f4ea}.fail{background:#fce8e6}.known{background:#fef7e0}"
            ".differs{background:#d3eef6}details{max-width:40em}code{font-size:.85em}</style>"
            "<h1>Universal invariants by implementation</h1>"
            "<p>Green: every applicable run keeps the rule. Red: some run breaks it (open for the scenarios and the "
            "command that reproduces each). Yellow: only documented known failures. Blue: only runs that differ "
            "(the implementation does not claim the rule's profile). Spec-specific expectations are "
            "in <a href=coverage.html>coverage.html</a>.</p>"
            f"<table><tr><th>rule</th>{head}</tr>{''.join(rows)}</table>"
            "<h2>Runs by profile</h2><table><tr><th>implementation</th><th>safety failures</th>"
            f"<th>contract failures</th><th>differs</th><th>tentative</th></tr>{counts}</table></html>\n")


def _html_cell(cell: Cell, references: Mapping[str, str]) -> str:
    label = {"pass": "keeps", "fail": f"breaks in {len(cell.failing)} run(s)",
             "known": f"{len(cell.known)} known failure(s)", "differs": f"differs in {len(cell.differs)} run(s)",
             "n/a": "–"}[cell.status]
    listed = [*cell.failing, *cell.known, *cell.differs]
    if not listed:
        return f"<td class={cell.status}>{label}</td>"
    items = "".join(f"<li>{escape(r.scenario)} [{escape(r.mode)}]<br>"
                    f"<code>{escape(reproduce_command(r, references))}</code></li>" for r in listed)
    return f"<td class={cell.status}><details><summary>{label}</summary><ul>{items}</ul></details></td>"


def _mark(cell: Cell) -> str:
    return {"pass": "✅", "fail": f"❌ {len(cell.failing)}", "known": f"⚠️ {len(cell.known)}",
            "differs": f"≠ {len(cell.differs)}", "n/a": "–"}[cell.status]


def _column(result: ScenarioResult) -> str:
    return " ".join(part for part in with_provider([result.implementation, result.version], result.provider) if part)

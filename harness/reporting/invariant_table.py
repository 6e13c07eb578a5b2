"""The cross-framework invariant table: the universal safety rules side by side for every implementation.

The coverage matrix answers "which spec rows does this loop meet"; this table answers the question a reader asks
first — does the loop keep the safety rules at all (no duplicated side effect, no orphan, no mutated input, a
stream that agrees, rejected calls never run, approved calls run once, bounded turns) — separately from the
spec-specific expectations each scenario adds. Each failing cell lists the scenarios that broke the rule and the
command that reproduces each. There is one column per implementation (and version) × provider; a column names its
provider only when it is not the neutral one, and the wire-only rules get a row only when some run was over a wire.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape

from harness.reporting.documents import ResultsDocument
from harness.reporting.markdown import markdown_code, markdown_text
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

    @property
    def status(self) -> str:
        if self.failing:
            return "fail"
        if self.known:
            return "known"
        return "pass" if self.judged else "n/a"


@dataclass(frozen=True)
class InvariantTable:
    implementations: tuple[str, ...]  # "name version", then the provider unless it is neutral
    cells: dict[tuple[str, str], Cell]  # (rule, implementation) -> cell
    rules: tuple[str, ...] = RULES  # the rows shown, in order


def build_invariant_table(document: ResultsDocument) -> InvariantTable:
    implementations = tuple(sorted({_column(r) for r in document.results}))
    over_wire = any(r.provider != NEUTRAL_PROVIDER for r in document.results)
    over_events = any(c.id in EVENT_CHECKS for r in document.results for c in r.checks)
    rules = tuple(rule for rule in RULES if (over_wire or rule not in WIRE_CHECKS)
                  and (over_events or rule not in EVENT_CHECKS))
    cells = {(rule, impl): Cell() for rule in RULES for impl in implementations}
    for result in document.results:
        for check in result.checks:
            if check.id not in MEANING or check.verdict == "n/a":
                continue
            cell = cells[(check.id, _column(result))]
            cell.judged += 1
            if check.verdict == "fail":
                (cell.known if result.verdict == "xfail" else cell.failing).append(result)
    return InvariantTable(implementations, cells, rules)


def reproduce_command(result: ScenarioResult) -> str:
    provider = "" if result.provider == NEUTRAL_PROVIDER else f"--provider {result.provider} "
    return (f"loop-conformance run --impl {result.implementation} --mode {result.mode} {provider}"
            f"--scenarios {result.path} --no-baseline -v")


def render_markdown(table: InvariantTable) -> str:
    lines = ["# Universal invariants by implementation", "",
             "Each cell: ✅ every applicable run keeps the rule, ❌ some run breaks it, ⚠️ only documented known "
             "failures break it, – no run applied. Spec-specific expectations are in `coverage.md`.", "",
             "| rule | " + " | ".join(markdown_text(i) for i in table.implementations) + " |",
             "|---|" + "---|" * len(table.implementations)]
    for rule in table.rules:
        marks = [_mark(table.cells[(rule, impl)]) for impl in table.implementations]
        lines.append(f"| {markdown_code(rule)}: {MEANING[rule]} | " + " | ".join(marks) + " |")
    failures = [(rule, impl, cell) for (rule, impl), cell in table.cells.items() if cell.failing or cell.known]
    if failures:
        lines += ["", "## Where a rule breaks", ""]
        for rule, impl, cell in failures:
            for result in [*cell.failing, *cell.known]:
                known = " (known failure)" if result in cell.known else ""
                lines.append(f"- {markdown_code(rule)} · {markdown_text(impl)} · "
                             f"{markdown_text(result.scenario)} [{result.mode}]{known}: "
                             f"{markdown_code(reproduce_command(result))}")
    return "\n".join(lines) + "\n"


def render_html(table: InvariantTable) -> str:
    head = "".join(f"<th>{escape(i)}</th>" for i in table.implementations)
    rows: list[str] = []
    for rule in table.rules:
        cells = "".join(_html_cell(table.cells[(rule, impl)]) for impl in table.implementations)
        rows.append(f"<tr><th><code>{escape(rule)}</code><br><small>{escape(MEANING[rule])}</small></th>{cells}</tr>")
    return ("<!doctype html><html lang=en><meta charset=utf-8><title>Universal invariants by implementation</title>"
            "<style>body{font-family:system-ui,sans-serif;margin:2em}table{border-collapse:collapse}"
            "td,th{border:1px solid #ccc;padding:.4em;vertical-align:top;text-align:left}"
            ".pass{background:#e6f4ea}.fail{background:#fce8e6}.known{background:#fef7e0}"
            "details{max-width:40em}code{font-size:.85em}</style>"
            "<h1>Universal invariants by implementation</h1>"
            "<p>Green: every applicable run keeps the rule. Red: some run breaks it (open for the scenarios and the "
            "command that reproduces each). Yellow: only documented known failures. Spec-specific expectations are "
            "in <a href=coverage.html>coverage.html</a>.</p>"
            f"<table><tr><th>rule</th>{head}</tr>{''.join(rows)}</table></html>\n")


def _html_cell(cell: Cell) -> str:
    label = {"pass": "keeps", "fail": f"breaks in {len(cell.failing)} run(s)",
             "known": f"{len(cell.known)} known failure(s)", "n/a": "–"}[cell.status]
    listed = [*cell.failing, *cell.known]
    if not listed:
        return f"<td class={cell.status}>{label}</td>"
    items = "".join(f"<li>{escape(r.scenario)} [{escape(r.mode)}]<br><code>{escape(reproduce_command(r))}</code></li>"
                    for r in listed)
    return f"<td class={cell.status}><details><summary>{label}</summary><ul>{items}</ul></details></td>"


def _mark(cell: Cell) -> str:
    return {"pass": "✅", "fail": f"❌ {len(cell.failing)}", "known": f"⚠️ {len(cell.known)}", "n/a": "–"}[cell.status]


def _column(result: ScenarioResult) -> str:
    return " ".join(part for part in with_provider([result.implementation, result.version], result.provider) if part)


"""The coverage matrix as GitHub-flavoured Markdown: for the spec itself, a PR comment or a CI step summary.

Only constructs GitHub renders everywhere (tables, lists, ``<a id>`` anchors, ``<br>``) are used, so the same text
reads well in a job summary and pasted under a heading of the spec; `heading_level` lets it nest there.
"""

from __future__ import annotations

import re

from harness.reporting.coverage import CELL_STATUSES, LABELS, Column, CoverageMatrix
from harness.reporting.wording import (
    FILTERED_BANNER,
    GAP_TITLES,
    SYMBOLS,
    check_line,
    display_path,
    headline,
    one_line,
    problem_checks,
)

_LONG = 300  # characters of a message or reason kept inline; the HTML and JSON reports carry the full text


def render_markdown(matrix: CoverageMatrix, *, heading_level: int = 1, title: str = "Spec coverage") -> str:
    h = "#" * heading_level
    lines = [f"{h} {title}", ""]
    if matrix.filtered:
        lines += [f"> ⚠️ **{FILTERED_BANNER}**", ""]
    lines += [headline(matrix), ""]
    counts = matrix.status_counts()
    legend = " · ".join(f"{SYMBOLS[s]} {LABELS[s]} ({counts[s]})" for s in CELL_STATUSES)
    lines += [f"Cells, worst verdict of the scenarios covering the row: {legend}.", ""]
    if matrix.sources:
        lines += [f"Results: {_cell_text(matrix.sources)}", ""]

    header = "| Spec row | " + " | ".join(_column_header(c) for c in matrix.columns) + " | Scenarios |"
    rule = "|---|" + ":---:|" * len(matrix.columns) + "---|"
    for section, rows in matrix.sections():
        lines += [f"{h}# {section}", "", header, rule]
        for row in rows:
            marks = " | ".join(SYMBOLS[matrix.cell(row, c).status] for c in matrix.columns)
            links = ", ".join(f"[{s}](#{_anchor(s)})" for s in matrix.row_scenarios(row)) or "—"
            lines.append(f"| {_cell_text(row.name)} | {marks} | {links} |")
        lines.append("")

    lines += _gaps(matrix, h)
    lines += _failures(matrix, h)
    lines += _not_applicable(matrix, h)
    lines += _scenarios(matrix, h)
    return "\n".join(lines).rstrip() + "\n"


def _column_header(column: Column) -> str:
    return f"{column.implementation} {column.version}<br>{column.mode}"


def _anchor(scenario: str) -> str:
    return "scenario-" + re.sub(r"[^a-z0-9]+", "-", scenario.lower()).strip("-")


def _cell_text(text: str) -> str:
    return one_line(text).replace("|", "\\|")


def _short(text: str) -> str:
    text = one_line(text)
    return text if len(text) <= _LONG else text[: _LONG - 1] + "…"


def _gaps(matrix: CoverageMatrix, h: str) -> list[str]:
    gaps = matrix.gaps
    lines = [f"{h}# Gaps", ""]
    if matrix.filtered:
        lines += ["Computed over the filtered selection only.", ""]
    sections: list[tuple[str, list[str]]] = [
        ("uncovered_rows", [f"- {row.section} › {row.name}" for row in gaps.uncovered_rows]),
        ("unknown_rows", [f"- [{u.scenario}](#{_anchor(u.scenario)}) names “{u.row}”" for u in gaps.unknown_rows]),
        ("xfail_only", [f"- {x.row.section} › {x.row.name}: " + ", ".join(c.label for c in x.columns)
                        for x in gaps.xfail_only]),
        ("unexplained_na", [f"- {n.row.section} › {n.row.name}, {n.column.label}: " + ", ".join(n.scenarios)
                            for n in gaps.unexplained_na]),
        ("rowless_scenarios", [f"- [{r.scenario}](#{_anchor(r.scenario)}): " + ", ".join(r.verdicts)
                               for r in gaps.rowless_scenarios]),
    ]
    for key, items in sections:
        title, why = GAP_TITLES[key]
        lines += [f"{h}## {title} ({len(items)})", "", f"_{why}._", "", *(items or ["None."]), ""]
    return lines


def _failures(matrix: CoverageMatrix, h: str) -> list[str]:
    items: list[str] = []
    for run in matrix.runs():
        if run.verdict not in ("fail", "error", "xfail"):
            continue
        items.append(f"- {SYMBOLS[run.verdict]} [{run.scenario}](#{_anchor(run.scenario)}) — "
                     f"{run.implementation} {run.version} {run.mode}")
        if run.reason:
            items.append(f"  - reason: {_short(run.reason)}")
        items += [f"  - {_short(check_line(check))}" for check in problem_checks(run)]
    title = "Failures and known failures"
    return [f"{h}# {title}", "", *(items or ["None."]), ""]


def _not_applicable(matrix: CoverageMatrix, h: str) -> list[str]:
    grouped: dict[tuple[str, str], list[str]] = {}
    for run in matrix.runs():
        if run.verdict == "n/a":
            where = f"{run.implementation} {run.version} {run.mode}"
            grouped.setdefault((run.scenario, run.reason.strip() or "(no reason given)"), []).append(where)
    items = [f"- [{s}](#{_anchor(s)}) — {', '.join(where)}: {_short(reason)}"
             for (s, reason), where in sorted(grouped.items())]
    return [f"{h}# Not applicable", "", *(items or ["None."]), ""]


def _scenarios(matrix: CoverageMatrix, h: str) -> list[str]:
    lines = [f"{h}# Scenarios", "", "| Scenario | Title | Spec rows | File |", "|---|---|---|---|"]
    for info in matrix.scenarios.values():
        where = f"`{display_path(info.path)}:{info.line}`" if info.path else ""
        rows = _cell_text("; ".join(info.spec_rows)) or "—"
        lines.append(f"| <a id=\"{_anchor(info.id)}\"></a>`{info.id}` | {_cell_text(info.title)} | {rows} | "
                     f"{_cell_text(where)} |")
    return [*lines, ""]


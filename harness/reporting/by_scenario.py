"""Verdicts by scenario, on demand (`loop-conformance report --by-scenario`): for every spec row, each scenario that
names it, with its verdict on the row's own requirement and the general invariants it tripped, per column.

The coverage matrix folds a row's scenarios into one cell; this is the unfolded view a reader asks for when a cell
says ⚑ or a row has several scenarios, so that "the row's own requirement fails" is never mistaken for "a scenario
of this row tripped a general invariant".
"""

from __future__ import annotations

from harness.reporting.coverage import CoverageMatrix
from harness.reporting.markdown import markdown_code, markdown_text
from harness.reporting.wording import GENERAL_LEGEND, GENERAL_MARK, SYMBOLS

REPORT_FILE = "verdicts-by-scenario.md"


def render_by_scenario(matrix: CoverageMatrix, *, title: str = "Verdicts by scenario") -> str:
    lines = [f"# {title}", "",
             "Each spec row with every scenario naming it: per column, the scenario's verdict on the row's own "
             f"requirement. {GENERAL_LEGEND}, named after the mark.", ""]
    header = "| Scenario | " + " | ".join(markdown_text(c.label) for c in matrix.columns) + " |"
    rule = "|---|" + ":---:|" * len(matrix.columns)
    for section, rows in matrix.sections():
        lines += [f"## {section}", ""]
        for row in rows:
            scenarios = matrix.row_scenarios(row)
            if not scenarios:
                continue
            lines += [f"### {row.name}", "", header, rule]
            for scenario in scenarios:
                marks: list[str] = []
                for column in matrix.columns:
                    cell = matrix.cell(row, column)
                    run = next((r for r in cell.runs if r.scenario == scenario), None)
                    if run is None:
                        marks.append(SYMBOLS["not-covered"])
                        continue
                    tripped = sorted({c.id for c in cell.general_checks(run)})
                    general = f" {GENERAL_MARK} {markdown_text(', '.join(tripped))}" if tripped else ""
                    marks.append(SYMBOLS[cell.own_verdict(run)] + general)
                lines.append(f"| {markdown_code(scenario)} | " + " | ".join(marks) + " |")
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"

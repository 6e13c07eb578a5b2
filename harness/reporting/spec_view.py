"""Short views of the coverage matrix: the spec author's matrix, and the GitHub job summary.

The detailed Markdown (`markdown.render_markdown`) has one column per implementation × release × mode × provider:
dozens of columns, of which GitHub shows a handful. A spec author wants the spec's own matrix with one status per
framework, short enough to paste under the spec's heading; a CI reader wants what broke first. Both link every
cell to the detail (the HTML page, pre-filtered through its URL hash, or any other target).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from urllib.parse import urlencode

from harness.reporting.coverage import CELL_STATUSES, LABELS, CellStatus, CoverageMatrix
from harness.reporting.markdown import markdown_text
from harness.reporting.profile_counts import profile_counts
from harness.reporting.wording import SYMBOLS, problem_checks
from harness.scenario.spec_rows import SPEC_ROWS, SpecRow

# Worst first, as the cells rank; a row no run of a family covers is "not covered" there.
_RANK: tuple[CellStatus, ...] = ("error", "fail", "xfail", "differs", "pass", "n/a", "not-covered")
SUMMARY_LIMIT = 100 * 1024  # bytes; GitHub drops a whole job summary over 1 MiB
MATRIX_FILE = "spec-matrix.md"


def families(implementations: Iterable[str]) -> dict[str, str]:
    """Implementation -> its family: the shortest other implementation name it extends (`agent_framework_stateless`
    and `agent_framework_ag_ui` are variants of `agent_framework`), else itself."""
    names = sorted(set(implementations), key=len)
    return {name: next((other for other in names if name.startswith(other + "_")), name) for name in names}


def family_cell(matrix: CoverageMatrix, row: SpecRow, family: str, of: dict[str, str]) -> tuple[CellStatus, str]:
    """The family's status on `row` (the worst of its columns) and the id of the column that shows it."""
    cells = [matrix.cell(row, column) for column in matrix.columns if of[column.implementation] == family]
    if not cells:
        return "not-covered", ""
    worst = min(cells, key=lambda cell: _RANK.index(cell.status))
    return worst.status, worst.column.id


def _detail_link(target: str, row: SpecRow, column_id: str) -> str:
    """The detail of one cell: the HTML page with that cell's panel open (`open=<row id>@<column id>`)."""
    if not target or not column_id:
        return ""
    return f"{target}#{urlencode({'open': f'{row.id}@{column_id}'}, safe='/@')}"


def render_matrix_only(matrix: CoverageMatrix, *, link: str = "coverage.html",
                       rows: Sequence[SpecRow] = SPEC_ROWS) -> str:
    """The spec's scenario-to-test matrix with one status column per implementation family (the worst verdict of
    the family's variants, releases, modes and providers), every cell linking to its detail: a page to paste into
    the spec. Rows that are not the spec's own (the harness's extra section) are left out."""
    of = families(matrix.implementations)
    names = sorted(set(of.values()), key=lambda f: (f != "reference", f))
    present = {row.id for row in matrix.rows}
    chosen = [row for row in rows if row.id in present]
    counts = " · ".join(f"{SYMBOLS[s]} {LABELS[s]}" for s in CELL_STATUSES)
    lines = [f"Spec matrix{' (filtered run)' if matrix.filtered else ''}: the worst verdict of each family's "
             f"variants, releases, modes and providers; a cell links to its detail. {counts}.", "",
             "| Section | Spec row | " + " | ".join(markdown_text(f) for f in names) + " |",
             "|---|---|" + ":---:|" * len(names)]
    for row in chosen:
        marks: list[str] = []
        for family in names:
            status, column_id = family_cell(matrix, row, family, of)
            target = _detail_link(link, row, column_id)
            marks.append(f"[{SYMBOLS[status]}]({target})" if target else SYMBOLS[status])
        lines.append(f"| {_short_section(row.section)} | {_row_text(row.name)} | " + " | ".join(marks) + " |")
    return "\n".join(lines) + "\n"


def _short_section(section: str) -> str:
    return _row_text(section.split(" (")[0])


def _row_text(text: str) -> str:
    """The spec's own Markdown, on one line, pipes escaped for the table."""
    return " ".join(text.split()).replace("|", "\\|")


def render_step_summary(matrix: CoverageMatrix, *, artifact: str, limit: int = SUMMARY_LIMIT,
                        link: str = "") -> str:
    """The GitHub job summary: the failing runs first (errors, failures, then differs), the runs per implementation
    by profile, the spec-author matrix, at most `limit` bytes (UTF-8), ending with a line pointing at `artifact`
    (where the full reports are). Failing runs that do not fit are counted, not listed, so the counts and the matrix
    still show; what does not fit after that is cut at a line and said to be cut."""
    closing = f"\nFull reports (coverage.html, coverage.md, junit.xml, results.json): {artifact}\n"
    failing = _failing_lines(matrix)
    rest = "\n".join(["### Per implementation", "", *_profile_lines(matrix), ""]) + "\n" + render_matrix_only(
        matrix, link=link)
    head = f"## Loop conformance\n\n### Failing runs ({len(failing)})\n\n"
    room = limit - _size(head) - _size(rest) - _size(closing) - 200  # 200: the "and N more" line
    listed: list[str] = []
    for line in failing:
        if _size(line) + 1 > room:
            break
        listed.append(line)
        room -= _size(line) + 1
    more = len(failing) - len(listed)
    lines = listed or ([] if failing else ["None."])
    if more:
        lines.append(f"- … and {more} more failing run(s): see the full reports.")
    body = head + "\n".join(lines) + "\n\n" + rest
    return _cut(body, limit - _size(closing)) + closing


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


def _failing_lines(matrix: CoverageMatrix) -> list[str]:
    order = {"error": 0, "fail": 1, "differs": 2}
    runs = sorted((r for r in matrix.runs() if r.verdict in order), key=lambda r: order[r.verdict])
    lines: list[str] = []
    for run in runs:
        checks = ", ".join(sorted({c.id for c in problem_checks(run)})) or run.reason
        where = " ".join([run.implementation, run.version, run.mode] + (
            [run.provider] if run.provider != "neutral" else []))
        lines.append(f"- {SYMBOLS[run.verdict]} {markdown_text(run.scenario)} — {markdown_text(where)}: "
                     f"{markdown_text(checks)}")
    return lines


def _profile_lines(matrix: CoverageMatrix) -> list[str]:
    counts = profile_counts(matrix.results)
    lines = ["| Implementation | safety failures | contract failures | differs | tentative |",
             "|---|---:|---:|---:|---:|"]
    lines += [f"| {markdown_text(name)} | {c.safety} | {c.contract} | {c.differs} | {c.tentative} |"
              for name, c in counts.items()]
    return lines


def _cut(text: str, budget: int) -> str:
    encoded = text.encode("utf-8")
    if len(encoded) <= budget:
        return text
    note = "\n\n_… cut to fit the job summary's size; the full reports hold the rest._\n"
    kept = encoded[: max(0, budget - len(note.encode("utf-8")))].decode("utf-8", errors="ignore")
    return kept[: kept.rfind("\n") + 1] + note

"""The coverage matrix as one self-contained HTML page: a coloured grid, filters, details one click away.

Everything is inline (no fonts, scripts or styles fetched) so the page works as a CI artifact opened from disk.
The grid is written once and small: a cell is its status and glyph, and a cell with runs is a ``<details>``. What its
panel shows (the scenarios, their failed checks, what each check enforces) is stored once for the whole page, as one
JSON block (`page_data`: each run once, every repeated text once), and the script (`html_assets`) draws a panel when
its cell is opened. The script also adds the filters, keeps one panel open at a time and mirrors the filter state and
the open cell in the URL hash (``#section=…&impl=…&version=…&mode=…&verdict=…&open=<row id>@<column id>``), which
also lets a link or a headless browser open the page pre-filtered. When runs reached their model through more than
one provider, columns carry their provider and a provider filter (``provider=…``) joins the others. Text from
results reaches the page only as JSON data set with `textContent`, so it never renders as markup.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

from harness.reporting.coverage import CELL_STATUSES, LABELS, Cell, CellStatus, Column, CoverageMatrix
from harness.reporting.html_assets import CSS, script
from harness.reporting.profile_counts import profile_counts
from harness.reporting.text import check_diff
from harness.reporting.wording import (
    FILTERED_BANNER,
    GAP_TITLES,
    GENERAL_LEGEND,
    GENERAL_MARK,
    check_scope,
    display_path,
    headline,
    one_line,
    problem_checks,
)
from harness.requirements import requirement
from harness.results import NEUTRAL_PROVIDER, ScenarioResult
from harness.scenario.spec_rows import uncovered_text

# Glyphs distinct in shape as well as colour, for readers who cannot tell the colours apart.
_GLYPH: dict[CellStatus, str] = {
    "pass": "✓", "fail": "✗", "error": "!", "xfail": "⚠", "differs": "≠", "n/a": "–", "not-covered": "·",
}

def render_html(matrix: CoverageMatrix, *, title: str = "Spec coverage") -> str:
    counts = matrix.status_counts()
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title>",
        f"<style>{CSS}</style></head>",
        f'<body data-filtered="{str(matrix.filtered).lower()}">',
        f"<h1>{escape(title)}</h1>",
    ]
    if matrix.filtered:
        parts.append(f'<div class="banner" id="filtered-banner" role="alert">⚠ {escape(FILTERED_BANNER)}</div>')
    parts.append(f'<p class="headline">{escape(headline(matrix))}</p>')
    if matrix.sources:
        parts.append(f'<p class="chip">Results: {escape(matrix.sources)}</p>')
    parts.append('<ul class="legend">' + "".join(
        f'<li class="chip {_status_class(s)}">{_GLYPH[s]} {escape(LABELS[s])} ({counts[s]})</li>'
        for s in CELL_STATUSES) + f'<li class="chip">{escape(GENERAL_LEGEND)}</li></ul>')
    parts.append(_profiles(matrix))
    parts.append(_filters(matrix))
    parts.append(_grid(matrix))
    parts.append(_gaps(matrix))
    parts.append(_scenario_list(matrix))
    parts.append(f'<script type="application/json" id="data">{script_json(page_data(matrix))}</script>')
    parts.append(f"<script>{script(matrix.several_providers)}</script></body></html>")
    return "\n".join(parts) + "\n"


def _profiles(matrix: CoverageMatrix) -> str:
    """Runs per implementation by the profile of their failing checks (`profile_counts`)."""
    counts = profile_counts(matrix.results)
    if not counts:
        return ""
    rows = "".join(f"<tr><th>{escape(name)}</th><td>{c.safety}</td><td>{c.contract}</td><td>{c.differs}</td>"
                   f"<td>{c.tentative}</td></tr>" for name, c in counts.items())
    return ('<details class="profiles" id="profiles"><summary>Runs per implementation by profile (safety failures, '
            "contract failures, differs, tentative)</summary><table><tr><th>implementation</th><th>safety failures"
            "</th><th>contract failures</th><th>differs</th><th>tentative</th></tr>" + rows + "</table></details>")


def script_json(data: object) -> str:
    """JSON safe inside a <script> element: no `<`, `>` or `&` that could close it or start markup."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def _status_class(status: CellStatus) -> str:
    return "s-na" if status == "n/a" else f"s-{status}"


def _select(name: str, label: str, values: tuple[str, ...], labels: tuple[str, ...] | None = None) -> str:
    options = ['<option value="">all</option>'] + [
        f'<option value="{escape(v)}">{escape(t)}</option>' for v, t in zip(values, labels or values, strict=True)
    ]
    return f'<label>{escape(label)}<select name="{name}" id="f-{name}">{"".join(options)}</select></label>'


def _filters(matrix: CoverageMatrix) -> str:
    selects = [
        _select("section", "Section", tuple(section for section, _ in matrix.sections())),
        _select("impl", "Implementation", matrix.implementations),
    ]
    if matrix.several_versions:
        selects.append(_select("version", "Version", matrix.versions))
    selects.append(_select("mode", "Mode", matrix.modes))
    if matrix.several_providers:
        selects.append(_select("provider", "Provider", matrix.providers))
    selects += [
        _select("verdict", "Verdict", CELL_STATUSES, tuple(LABELS[s] for s in CELL_STATUSES)),
    ]
    return ('<form id="filters" class="filters">' + "".join(selects)
            + '<button type="button" id="reset">Reset</button><output id="shown"></output></form>')


def _column_attrs(column: Column, with_provider: bool) -> str:
    attrs = (f'data-impl="{escape(column.implementation)}" data-version="{escape(column.version)}" '
             f'data-mode="{escape(column.mode)}"')
    return f'{attrs} data-provider="{escape(column.provider)}"' if with_provider else attrs


def _grid(matrix: CoverageMatrix) -> str:
    """The grid, written once and small: a cell is its status and glyph; its column's attributes, its tooltip and
    its panel are added by the script, the panel from the page's data only when the cell is opened."""
    several = matrix.several_providers
    head = "".join(
        f'<th class="col" scope="col" {_column_attrs(c, several)}>{escape(c.implementation)}<br>{escape(c.version)}'
        f'<span class="mode">{escape(c.mode)}</span>{_provider_line(c)}</th>'
        for c in matrix.columns
    )
    parts = ['<div class="grid-wrap"><table class="grid" id="grid">',
             f'<thead><tr><th class="rowh" scope="col">Spec row</th>{head}</tr></thead>']
    for section, rows in matrix.sections():
        parts.append(f'<tbody data-section="{escape(section)}">'
                     f'<tr class="sec"><th colspan="{len(matrix.columns) + 1}" scope="rowgroup">'
                     f"{escape(section)}</th></tr>")
        for row in rows:
            ids = matrix.row_scenarios(row)
            id_text = escape(", ".join(ids)) if ids else "no scenario"
            cells = "".join(_cell(matrix.cell(row, c)) for c in matrix.columns)
            parts.append(f'<tr class="row" id="row-{escape(row.id)}" data-section="{escape(section)}">'
                         f'<th class="rowh" scope="row">{escape(row.name)}<span class="ids">{id_text}</span></th>'
                         f"{cells}</tr>")
        parts.append("</tbody>")
    parts.append("</table></div>")
    return "".join(parts)


def _provider_line(column: Column) -> str:
    return "" if column.provider == NEUTRAL_PROVIDER else f'<span class="mode">{escape(column.provider)}</span>'


def _cell(cell: Cell) -> str:
    glyph = _GLYPH[cell.status]
    if not cell.runs:
        return f'<td class="cell {_status_class(cell.status)}"><span class="empty">{glyph}</span></td>'
    mark = "" if cell.general is None else f'<sup class="general">{GENERAL_MARK}</sup>'
    return f'<td class="cell {_status_class(cell.status)}"><details><summary>{glyph}{mark}</summary></details></td>'


def page_data(matrix: CoverageMatrix) -> dict[str, Any]:
    """Everything a panel shows, each thing once: runs by index, each cell as the indices of its runs (with the
    run's verdict on the row's own requirement and the general invariants it tripped, where it failed), the
    scenarios' titles and places, what each check enforces, and every reason, message, detail list and diff as an
    index into `texts` (a known failure's reason and a check's diff repeat over many runs). Cells are keyed
    ``<row index>@<column index>``, rows and columns in grid order."""
    runs = matrix.runs()
    index = {id(run): position for position, run in enumerate(runs)}
    rows = [row for _, section_rows in matrix.sections() for row in section_rows]
    cells: dict[str, list[Any]] = {}
    for r, row in enumerate(rows):
        for c, column in enumerate(matrix.columns):
            cell = matrix.cell(row, column)
            if cell.runs:
                cells[f"{r}@{c}"] = [_cell_entry(cell, run, index[id(run)]) for run in cell.runs]
    checks = sorted({check.id for run in runs for check in problem_checks(run)})
    texts = _Texts()
    return {
        "columns": [c.id for c in matrix.columns], "columnLabels": [c.label for c in matrix.columns],
        "rows": [[row.name, row.section] for row in rows], "labels": dict(LABELS),
        "scenarios": {s.id: [s.title, f"{display_path(s.path)}:{s.line}" if s.path else ""]
                      for s in matrix.scenarios.values()},
        "requirements": {c: f"{requirement(c).text} ({requirement(c).source})" for c in checks},
        "runs": [_run_entry(run, texts) for run in runs], "cells": cells, "texts": texts.items,
    }


class _Texts:
    """Each distinct text once; 0 is the empty text."""

    def __init__(self) -> None:
        self.items: list[str] = [""]
        self._index: dict[str, int] = {"": 0}

    def __call__(self, text: str) -> int:
        if text not in self._index:
            self._index[text] = len(self.items)
            self.items.append(text)
        return self._index[text]


def _cell_entry(cell: Cell, run: ScenarioResult, position: int) -> int | list[Any]:
    if run.verdict not in ("fail", "error", "xfail", "differs"):
        return position
    return [position, cell.own_verdict(run), sorted({c.id for c in cell.general_checks(run)})]


def _run_entry(run: ScenarioResult, texts: _Texts) -> list[Any]:
    """``[scenario, verdict, reason, checks]``, trailing empty parts left out; a check is ``[id, turn, verdict,
    scope, message, details, diff]``, its texts as indices."""
    checks = [[c.id, c.turn or 0, c.verdict, check_scope(c), texts(one_line(c.message)),
               texts("\n".join(c.details) if len(c.details) > 1 else ""), texts("\n".join(check_diff(c)))]
              for c in problem_checks(run)]
    entry: list[Any] = [run.scenario, run.verdict, texts(one_line(run.reason)), checks]
    while len(entry) > 2 and not entry[-1]:
        entry.pop()
    return entry


def _gaps(matrix: CoverageMatrix) -> str:
    gaps = matrix.gaps
    lists: list[tuple[str, list[str]]] = [
        ("uncovered_rows", [uncovered_text(r) for r in gaps.uncovered_rows]),
        ("unknown_rows", [f"{u.scenario} names “{u.row}”" for u in gaps.unknown_rows]),
        ("xfail_only", [f"{x.row.section} › {x.row.name}: " + ", ".join(c.label for c in x.columns)
                        for x in gaps.xfail_only]),
        ("unexplained_na", [f"{n.row.section} › {n.row.name}, {n.column.label}: " + ", ".join(n.scenarios)
                            for n in gaps.unexplained_na]),
        ("rowless_scenarios", [f"{r.scenario}: " + ", ".join(r.verdicts) for r in gaps.rowless_scenarios]),
    ]
    parts = ['<section class="gaps" id="gaps"><h2>Gaps</h2>']
    if matrix.filtered:
        parts.append('<p class="why">Computed over the filtered selection only.</p>')
    for key, items in lists:
        title, why = GAP_TITLES[key]
        parts.append(f'<h3 id="gap-{key}">{escape(title)} ({len(items)})</h3>'
                     f'<p class="why">{escape(why.replace("`", ""))}.</p>')
        if items:
            parts.append("<details" + (" open" if len(items) <= 20 else "") + f"><summary>{len(items)} "
                         "item(s)</summary><ul>" + "".join(f"<li>{escape(i)}</li>" for i in items) + "</ul></details>")
        else:
            parts.append("<p>None.</p>")
    parts.append("</section>")
    return "".join(parts)


def _scenario_list(matrix: CoverageMatrix) -> str:
    items = "".join(
        f'<li id="scenario-{escape(s.id)}"><code>{escape(s.id)}</code> — {escape(s.title)} '
        f"<small>{escape(display_path(s.path))}:{s.line} · {escape('; '.join(s.spec_rows) or 'no spec row')}"
        "</small></li>"
        for s in matrix.scenarios.values()
    )
    return (f'<section id="scenarios"><h2>Scenarios</h2><details><summary>{len(matrix.scenarios)} '
            f"scenario(s)</summary><ul>{items}</ul></details></section>")

"""The coverage matrix as one self-contained HTML page: a coloured grid, filters, details one click away.

Everything is inline (no fonts, scripts or styles fetched) so the page works as a CI artifact opened from disk.
The grid is rendered on the server side and works without JavaScript — each cell is a ``<details>`` whose panel
lists the scenarios and failed checks; the script only adds the filters, keeps one panel open at a time and
mirrors the filter state and the open cell in the URL hash (``#section=…&impl=…&version=…&mode=…&verdict=…&open=
<row id>@<column id>``), which also lets a link or a headless browser open the page pre-filtered. When runs reached
their model through more than one provider, columns carry their provider and a provider filter (``provider=…``)
joins the others; a page of neutral runs only is the same as before providers existed.
"""

from __future__ import annotations

from html import escape

from harness.reporting.coverage import CELL_STATUSES, LABELS, Cell, CellStatus, Column, CoverageMatrix
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

_CSS = """
:root { --pass:#1a7f37; --pass-bg:#d2f4dc; --fail:#cf222e; --fail-bg:#ffd8d3; --error:#8250df;
  --error-bg:#eddeff; --xfail:#9a6700; --xfail-bg:#fff1b3; --na:#57606a; --na-bg:#e6e9ec; --nc:#8c959f;
  --nc-bg:#ffffff; --line:#d0d7de; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; color:#1f2328; }
body { margin: 0 1.5rem 3rem; }
h1 { margin: 1rem 0 .25rem; font-size: 1.5rem; }
.banner { border: 2px solid var(--xfail); background: var(--xfail-bg); padding: .6rem .9rem; border-radius: 6px;
  font-weight: 600; margin: .5rem 0; }
.legend { display: flex; flex-wrap: wrap; gap: .4rem; margin: .5rem 0; padding: 0; list-style: none; }
.chip { display: inline-block; padding: .1rem .5rem; border-radius: 1rem; font-size: .85rem;
  border: 1px solid var(--line); }
.filters { display: flex; flex-wrap: wrap; gap: .8rem; align-items: end; margin: .8rem 0; padding: .6rem .8rem;
  background: #f6f8fa; border: 1px solid var(--line); border-radius: 6px; position: sticky; top: 0; z-index: 3; }
.filters label { display: flex; flex-direction: column; font-size: .8rem; color: #59636e; }
.filters select { font-size: .9rem; padding: .15rem; max-width: 18rem; }
#shown { font-size: .85rem; color: #59636e; margin-left: auto; }
.grid-wrap { overflow: auto; border: 1px solid var(--line); border-radius: 6px; max-height: 75vh; }
table.grid { border-collapse: separate; border-spacing: 0; font-size: .85rem; }
.grid th, .grid td { border-bottom: 1px solid var(--line); border-right: 1px solid var(--line); }
.grid thead th { position: sticky; top: 0; background: #f6f8fa; z-index: 2; font-weight: 600; padding: .3rem;
  font-size: .75rem; min-width: 4.5rem; vertical-align: bottom; }
.grid thead th .mode { display: block; font-weight: 400; color: #59636e; }
.grid th.rowh { text-align: left; position: sticky; left: 0; background: #fff; z-index: 1; padding: .25rem .5rem;
  min-width: 16rem; max-width: 24rem; font-weight: 500; }
.grid thead th.rowh { z-index: 3; background: #f6f8fa; }
.grid .ids { display: block; font-size: .7rem; color: #59636e; font-weight: 400; font-family: ui-monospace, monospace; }
.grid tr.sec th { text-align: left; background: #eef1f4; padding: .35rem .5rem; font-size: .9rem;
  position: sticky; left: 0; }
td.cell { text-align: center; padding: 0; min-width: 4.5rem; height: 2rem; }
td.cell summary, td.cell .empty { list-style: none; cursor: pointer; display: block; padding: .35rem 0;
  font-weight: 700; font-size: 1rem; }
td.cell summary::-webkit-details-marker { display: none; }
td.cell .empty { cursor: default; }
.s-pass { background: var(--pass-bg); color: var(--pass); }
.s-fail { background: var(--fail-bg); color: var(--fail); }
.s-error { background: var(--error-bg); color: var(--error); }
.s-xfail { background: var(--xfail-bg); color: var(--xfail); }
.s-na { background: var(--na-bg); color: var(--na); }
.s-not-covered { background: var(--nc-bg); color: var(--nc); }
td.cell.dim { opacity: .25; }
td.cell details[open] > summary { outline: 3px solid #0969da; outline-offset: -3px; }
.panel { position: fixed; right: 1rem; top: 1rem; bottom: 1rem; width: min(42rem, 46vw); overflow: auto;
  background: #fff; color: #1f2328; text-align: left; border: 1px solid var(--line); border-radius: 8px;
  box-shadow: 0 8px 24px rgba(31,35,40,.2); padding: .8rem 1rem; z-index: 10; font-size: .85rem; font-weight: 400; }
.panel h2 { font-size: 1rem; margin: 0 0 .5rem; }
.panel .run { border-top: 1px solid var(--line); padding: .5rem 0; }
.panel code, .panel pre { font-family: ui-monospace, monospace; font-size: .78rem; }
.panel pre { background: #f6f8fa; padding: .4rem; overflow: auto; max-height: 16rem; }
.panel .close { float: right; }
.panel pre .add { color: var(--pass); background: var(--pass-bg); }
.panel pre .del { color: var(--fail); background: var(--fail-bg); }
section.gaps h3 { font-size: 1rem; margin-bottom: .2rem; }
section.gaps p.why { margin: 0 0 .3rem; color: #59636e; font-size: .85rem; }
"""

_JS = """
(function () {
  'use strict';
  var form = document.getElementById('filters');
  var grid = document.getElementById('grid');
  var shown = document.getElementById('shown');
  var keys = ['section', 'impl', 'version', 'mode', 'verdict'];
  var opened = '';  // the cell whose panel the URL asks to open (open=<row id>@<column id>)
  function field(k) { return form.elements.namedItem(k); }
  function readHash() {
    var params = new URLSearchParams(location.hash.replace(/^#/, ''));
    opened = params.get('open') || '';
    keys.forEach(function (k) {
      var el = field(k);
      if (!el) return;
      var wanted = params.get(k) || '';
      var known = Array.prototype.some.call(el.options, function (o) { return o.value === wanted; });
      el.value = known ? wanted : '';
    });
  }
  function writeHash() {
    var params = new URLSearchParams();
    keys.forEach(function (k) { var el = field(k); if (el && el.value) params.set(k, el.value); });
    var open = grid.querySelector('td.cell details[open]');
    if (open) params.set('open', open.parentElement.dataset.key);
    var text = params.toString();
    try { history.replaceState(null, '', text ? '#' + text : location.pathname + location.search); }
    catch (e) { location.hash = text; }
  }
  function value(k) { var el = field(k); return el ? el.value : ''; }
  function apply() {
    var f = {}; keys.forEach(function (k) { f[k] = value(k); });
    function columnShown(el) {
      return (!f.impl || el.dataset.impl === f.impl) && (!f.version || el.dataset.version === f.version) &&
        (!f.mode || el.dataset.mode === f.mode);
    }
    var columns = 0;
    grid.querySelectorAll('thead th.col').forEach(function (th) {
      th.hidden = !columnShown(th);
      if (!th.hidden) columns++;
    });
    var rows = 0, cells = 0;
    grid.querySelectorAll('tbody').forEach(function (body) {
      var sectionShown = !f.section || body.dataset.section === f.section, any = false;
      body.querySelectorAll('tr.row').forEach(function (tr) {
        var match = false, visible = 0;
        tr.querySelectorAll('td.cell').forEach(function (td) {
          var ok = columnShown(td);
          td.hidden = !ok;
          if (!ok) { var d = td.querySelector('details'); if (d) d.open = false; return; }
          visible++;
          var hit = !f.verdict || td.dataset.status === f.verdict;
          td.classList.toggle('dim', !hit);
          if (hit) match = true;
        });
        tr.hidden = !(sectionShown && match);
        if (!tr.hidden) { rows++; cells += visible; any = true; }
      });
      var head = body.querySelector('tr.sec');
      head.hidden = !any;
      head.firstElementChild.colSpan = columns + 1;
    });
    shown.textContent = rows + ' rows \\u00d7 ' + columns + ' columns shown (' + cells + ' cells)';
    shown.dataset.rows = String(rows);
    shown.dataset.columns = String(columns);
    shown.dataset.cells = String(cells);
    if (opened) {
      grid.querySelectorAll('td.cell').forEach(function (td) {
        var d = td.querySelector('details');
        if (d && td.dataset.key === opened && !td.hidden) d.open = true;
      });
      opened = '';
    }
    document.body.dataset.ready = '1';
  }
  form.addEventListener('change', function () { apply(); writeHash(); });
  form.addEventListener('submit', function (e) { e.preventDefault(); });
  document.getElementById('reset').addEventListener('click', function () {
    keys.forEach(function (k) { var el = field(k); if (el) el.value = ''; }); apply(); writeHash();
  });
  window.addEventListener('hashchange', function () { readHash(); apply(); });
  // <details> toggle events do not bubble, so listen in the capture phase to keep a single panel open.
  grid.addEventListener('toggle', function (e) {
    if (e.target.open) {
      grid.querySelectorAll('details[open]').forEach(function (d) { if (d !== e.target) d.open = false; });
    }
    writeHash();
  }, true);
  grid.addEventListener('click', function (e) {
    if (e.target.classList && e.target.classList.contains('close')) {
      var d = e.target.closest('details'); if (d) d.open = false;
    }
  });
  document.addEventListener('keydown', function (e) {
    if (e.key === 'Escape') grid.querySelectorAll('details[open]').forEach(function (d) { d.open = false; });
  });
  readHash();
  apply();
})();
"""


# The provider filter, patched into the script only for a page with several providers, so that a page of neutral
# runs stays byte for byte what it was before providers existed.
_PROVIDER_PATCHES = (
    ("var keys = ['section', 'impl', 'version', 'mode', 'verdict'];",
     "var keys = ['section', 'impl', 'version', 'mode', 'provider', 'verdict'];"),
    ("(!f.mode || el.dataset.mode === f.mode);",
     "(!f.mode || el.dataset.mode === f.mode) &&\n        (!f.provider || el.dataset.provider === f.provider);"),
)


def _script(with_providers: bool) -> str:
    script = _JS
    for before, after in _PROVIDER_PATCHES if with_providers else ():
        if before not in script:
            raise AssertionError(f"the page script no longer holds {before!r}: update _PROVIDER_PATCHES")
        script = script.replace(before, after)
    return script


def render_html(matrix: CoverageMatrix, *, title: str = "Spec coverage") -> str:
    counts = matrix.status_counts()
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title>",
        f"<style>{_CSS}</style></head>",
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
    parts.append(_filters(matrix))
    parts.append(_grid(matrix))
    parts.append(_gaps(matrix))
    parts.append(_scenario_list(matrix))
    parts.append(f"<script>{_script(matrix.several_providers)}</script></body></html>")
    return "\n".join(parts) + "\n"


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
            cells = "".join(_cell(matrix.cell(row, c), several) for c in matrix.columns)
            parts.append(f'<tr class="row" id="row-{escape(row.id)}" data-section="{escape(section)}">'
                         f'<th class="rowh" scope="row">{escape(row.name)}<span class="ids">{id_text}</span></th>'
                         f"{cells}</tr>")
        parts.append("</tbody>")
    parts.append("</table></div>")
    return "".join(parts)


def _provider_line(column: Column) -> str:
    return "" if column.provider == NEUTRAL_PROVIDER else f'<span class="mode">{escape(column.provider)}</span>'


def _cell(cell: Cell, with_provider: bool) -> str:
    status = cell.status
    key = escape(f"{cell.row.id}@{cell.column.id}")
    attrs = (f'class="cell {_status_class(status)}" data-status="{status}" data-key="{key}" '
             f"{_column_attrs(cell.column, with_provider)}")
    general = "" if cell.general is None else f" — {GENERAL_MARK} a general invariant tripped ({LABELS[cell.general]})"
    tip = escape(f"{LABELS[status]} — {cell.row.name} — {cell.column.label}{general}")
    if not cell.runs:
        return f'<td {attrs}><span class="empty" title="{tip}">{_GLYPH[status]}</span></td>'
    mark = "" if cell.general is None else f'<sup class="general">{GENERAL_MARK}</sup>'
    return (f'<td {attrs}><details><summary title="{tip}" aria-label="{tip}">{_GLYPH[status]}{mark}</summary>'
            f"{_panel(cell)}</details></td>")


def _panel(cell: Cell) -> str:
    parts = [
        '<div class="panel" role="dialog">',
        '<button type="button" class="close" aria-label="close">✕</button>',
        f"<h2>{escape(cell.row.name)}</h2>",
        f"<p>{escape(cell.row.section)} · <b>{escape(cell.column.label)}</b> · "
        f'<span class="chip {_status_class(cell.status)}">{escape(LABELS[cell.status])}</span></p>',
    ]
    parts += [_run(run, cell) for run in cell.runs]
    parts.append("</div>")
    return "".join(parts)


def _attribution(run: ScenarioResult, cell: Cell) -> str:
    """The run's verdict on this row's own requirement, apart from the general invariants it tripped."""
    own = cell.own_verdict(run)
    tripped = cell.general_checks(run)
    text = (f'<p class="attribution">Row\'s own requirement: <span class="chip {_status_class(own)}">'
            f"{escape(LABELS[own])}</span>")
    if tripped:
        names = ", ".join(sorted({c.id for c in tripped}))
        text += (f" · {GENERAL_MARK} general invariant tripped: <code>{escape(names)}</code> "
                 "(not this row's requirement)")
    return text + "</p>"


def _run(run: ScenarioResult, cell: Cell | None = None) -> str:
    verdict_class = _status_class(run.verdict)
    where = f"{display_path(run.path)}:{run.line}" if run.path else ""
    parts = [
        f'<div class="run" data-scenario="{escape(run.scenario)}">',
        f'<p><code>{escape(run.scenario)}</code> <span class="chip {verdict_class}">{escape(LABELS[run.verdict])}'
        f"</span><br>{escape(run.title)}",
    ]
    if where:
        parts.append(f"<br><small>{escape(where)}</small>")
    parts.append("</p>")
    if cell is not None and run.verdict in ("fail", "error", "xfail"):
        parts.append(_attribution(run, cell))
    if run.reason:
        parts.append(f"<p><b>Reason:</b> {escape(one_line(run.reason))}</p>")
    problems = problem_checks(run)
    if problems:
        parts.append("<ul>")
        for check in problems:
            turn = f" (turn {check.turn})" if check.turn else ""
            need = requirement(check.id)
            parts.append(f'<li class="check"><code>{escape(check.id)}</code>{turn} '
                         f"[{escape(check.verdict)}, {escape(check_scope(check))}]: {escape(check.message)}"
                         f'<br><small class="enforces">Enforces: {escape(need.text)} ({escape(need.source)})</small>')
            if len(check.details) > 1:
                parts.append("<ul>" + "".join(f"<li>{escape(d)}</li>" for d in check.details) + "</ul>")
            diff = check_diff(check)
            if diff:
                parts.append("<pre>" + "\n".join(_diff_line(line) for line in diff) + "</pre>")
            parts.append("</li>")
        parts.append("</ul>")
    parts.append("</div>")
    return "".join(parts)


def _diff_line(line: str) -> str:
    kind = "add" if line.startswith("+") and not line.startswith("+++") else \
        "del" if line.startswith("-") and not line.startswith("---") else ""
    return f'<span class="{kind}">{escape(line)}</span>' if kind else escape(line)


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

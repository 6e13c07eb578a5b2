"""The coverage page's style and script (`html_page` writes the page): the script adds each cell's attributes, draws
a cell's panel from the page's JSON data when the cell is opened, applies the filters and mirrors them, and the open
cell, in the URL hash."""

from __future__ import annotations

CSS = """
:root { --pass:#1a7f37; --pass-bg:#d2f4dc; --fail:#cf222e; --fail-bg:#ffd8d3; --error:#8250df;
  --error-bg:#eddeff; --xfail:#9a6700; --xfail-bg:#fff1b3; --differs:#0b6e8a; --differs-bg:#d3eef6;
  --na:#57606a; --na-bg:#e6e9ec; --nc:#8c959f;
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
.s-differs { background: var(--differs-bg); color: var(--differs); }
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
  var data = JSON.parse(document.getElementById('data').textContent);
  var form = document.getElementById('filters');
  var grid = document.getElementById('grid');
  var shown = document.getElementById('shown');
  var keys = ['section', 'impl', 'version', 'mode', 'verdict'];
  var opened = '';  // the cell whose panel the URL asks to open (open=<row id>@<column id>)
  var heads = grid.querySelectorAll('thead th.col');
  var glyphs = {'pass': '\\u2713', 'fail': '\\u2717', 'error': '!', 'xfail': '\\u26a0', 'differs': '\\u2260',
    'n/a': '\\u2013', 'not-covered': '\\u00b7'};
  // The grid is written once, small; each cell's attributes come from its column and row, set here.
  grid.querySelectorAll('tr.row').forEach(function (tr, r) {
    tr.dataset.index = String(r);
    tr.querySelectorAll('td.cell').forEach(function (td, c) {
      var th = heads[c];
      ['impl', 'version', 'mode', 'provider'].forEach(function (k) {
        if (th.dataset[k]) td.dataset[k] = th.dataset[k];
      });
      td.dataset.status = td.className.replace(/.*\\bs-(\\S+).*/, '$1').replace(/^na$/, 'n/a');
      td.dataset.key = tr.id.replace(/^row-/, '') + '@' + data.columns[c];
      td.dataset.cell = r + '@' + c;
      td.title = data.labels[td.dataset.status] + ' \\u2014 ' + data.rows[r][0] + ' \\u2014 ' + data.columnLabels[c];
    });
  });
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function chip(verdict) { return el('span', 'chip s-' + (verdict === 'n/a' ? 'na' : verdict), data.labels[verdict]); }
  function runPanel(entry) {
    var index = typeof entry === 'number' ? entry : entry[0];
    var run = data.runs[index], scenario = data.scenarios[run[0]] || ['', ''];
    var div = el('div', 'run'), p = el('p');
    div.dataset.scenario = run[0];
    p.appendChild(el('code', '', run[0])); p.appendChild(document.createTextNode(' ')); p.appendChild(chip(run[1]));
    p.appendChild(el('br')); p.appendChild(document.createTextNode(scenario[0]));
    if (scenario[1]) { p.appendChild(el('br')); p.appendChild(el('small', '', scenario[1])); }
    div.appendChild(p);
    if (typeof entry !== 'number') {
      var own = el('p', 'attribution', 'Row\\'s own requirement: ');
      own.appendChild(chip(entry[1]));
      if (entry[2].length) {
        own.appendChild(document.createTextNode(' \\u00b7 \\u2691 general invariant tripped: '));
        own.appendChild(el('code', '', entry[2].join(', ')));
        own.appendChild(document.createTextNode(' (not this row\\'s requirement)'));
      }
      div.appendChild(own);
    }
    if (run[2]) {
      var why = el('p');
      why.appendChild(el('b', '', 'Reason: '));
      why.appendChild(document.createTextNode(data.texts[run[2]]));
      div.appendChild(why);
    }
    var checks = run[3] || [];
    if (checks.length) {
      var ul = el('ul');
      checks.forEach(function (c) {
        var li = el('li', 'check');
        li.appendChild(el('code', '', c[0]));
        var turn = c[1] ? ' (turn ' + c[1] + ')' : '';
        li.appendChild(document.createTextNode(turn + ' [' + c[2] + ', ' + c[3] + ']: ' + data.texts[c[4]]));
        li.appendChild(el('br'));
        li.appendChild(el('small', 'enforces', 'Enforces: ' + (data.requirements[c[0]] || '')));
        if (c[5]) {
          var details = el('ul');
          data.texts[c[5]].split('\\n').forEach(function (d) { details.appendChild(el('li', '', d)); });
          li.appendChild(details);
        }
        if (c[6]) {
          var pre = el('pre'), lines = data.texts[c[6]].split('\\n');
          lines.forEach(function (line, i) {
            var kind = /^\\+(?!\\+\\+)/.test(line) ? 'add' : /^-(?!--)/.test(line) ? 'del' : '';
            pre.appendChild(kind ? el('span', kind, line) : document.createTextNode(line));
            if (i < lines.length - 1) pre.appendChild(document.createTextNode('\\n'));
          });
          li.appendChild(pre);
        }
        ul.appendChild(li);
      });
      div.appendChild(ul);
    }
    return div;
  }
  function fill(details) {
    if (details.querySelector('.panel')) return;
    var td = details.parentElement, rc = td.dataset.cell.split('@'), row = data.rows[+rc[0]];
    var panel = el('div', 'panel');
    panel.setAttribute('role', 'dialog');
    var close = el('button', 'close', '\\u2715');
    close.type = 'button'; close.setAttribute('aria-label', 'close');
    panel.appendChild(close);
    panel.appendChild(el('h2', '', row[0]));
    var where = el('p', '', row[1] + ' \\u00b7 ');
    where.appendChild(el('b', '', data.columnLabels[+rc[1]]));
    where.appendChild(document.createTextNode(' \\u00b7 '));
    where.appendChild(chip(td.dataset.status));
    panel.appendChild(where);
    (data.cells[td.dataset.cell] || []).forEach(function (entry) { panel.appendChild(runPanel(entry)); });
    details.appendChild(panel);
  }
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
        if (d && td.dataset.key === opened && !td.hidden) { fill(d); d.open = true; }
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
      fill(e.target);
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


def script(with_providers: bool) -> str:
    text = _JS
    for before, after in _PROVIDER_PATCHES if with_providers else ():
        if before not in text:
            raise AssertionError(f"the page script no longer holds {before!r}: update _PROVIDER_PATCHES")
        text = text.replace(before, after)
    return text

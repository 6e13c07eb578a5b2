"""The coverage matrix as GitHub-flavoured Markdown: for the spec itself, a PR comment or a CI step summary.

Only constructs GitHub renders everywhere (tables, lists, ``<a id>`` anchors, ``<br>``) are used, so the same text
reads well in a job summary and pasted under a heading of the spec; `heading_level` lets it nest there.

Text that comes from scenarios, results or implementations (titles, reasons, messages, names) is escaped with
`markdown_text` or `markdown_code`: a title holding ``<img onerror=...>``, a pipe or a backtick shows as typed and
neither renders as HTML nor breaks a table. Spec row names come from the spec's own Markdown and keep their markup.
"""

from __future__ import annotations

import re

from harness.reporting.coverage import CELL_STATUSES, LABELS, Cell, Column, CoverageMatrix, run_label
from harness.reporting.profile_counts import profile_counts
from harness.reporting.wording import (
    FILTERED_BANNER,
    GAP_TITLES,
    GENERAL_LEGEND,
    GENERAL_MARK,
    SYMBOLS,
    check_scope,
    display_path,
    headline,
    one_line,
    problem_checks,
)
from harness.requirements import requirement
from harness.results import NEUTRAL_PROVIDER, CheckResult
from harness.scenario.spec_rows import uncovered_text

_LONG = 300  # characters of a message or reason kept inline; the HTML and JSON reports carry the full text

# Markdown punctuation that can start emphasis, code, a strikethrough or a table cell, escaped wherever it stands;
# `]` only where it would close a link or image (before `(`, `[` or `:`) and `_` only where it is not inside a word
# (intraword underscores never emphasise), so `messages[1]` and `agent_framework` stay as they are.
_PUNCTUATION = re.compile(r"[\\`*|~]|\](?=[(\[:])|(?<![^\W_])_|_(?![^\W_])")
_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def markdown_text(text: str) -> str:
    """`text` on one line as literal Markdown inline text, safe in a table cell: HTML shows as typed and never
    renders, Markdown punctuation is backslash-escaped, pipes cannot end the cell."""
    text = "".join(_HTML.get(ch, ch) for ch in one_line(text))
    return _PUNCTUATION.sub(lambda found: "\\" + found.group(0), text)


def markdown_code(text: str) -> str:
    """`text` on one line as a code span safe in a table cell: fenced with more backticks than it holds in a row,
    pipes escaped (a table splits cells before it reads code spans). HTML is never rendered inside a code span."""
    text = one_line(text).replace("|", "\\|")
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def render_markdown(matrix: CoverageMatrix, *, heading_level: int = 1, title: str = "Spec coverage") -> str:
    h = "#" * heading_level
    lines = [f"{h} {title}", ""]
    if matrix.filtered:
        lines += [f"> ⚠️ **{FILTERED_BANNER}**", ""]
    lines += [headline(matrix), ""]
    counts = matrix.status_counts()
    legend = " · ".join(f"{SYMBOLS[s]} {LABELS[s]} ({counts[s]})" for s in CELL_STATUSES)
    lines += [f"Cells, the row's own requirement, worst verdict of the scenarios covering the row: {legend}. "
              f"{GENERAL_LEGEND}.", ""]
    if matrix.sources:
        lines += [f"Results: {markdown_text(matrix.sources)}", ""]
    lines += _profiles(matrix)

    header = "| Spec row | " + " | ".join(_column_header(c) for c in matrix.columns) + " | Scenarios |"
    rule = "|---|" + ":---:|" * len(matrix.columns) + "---|"
    for section, rows in matrix.sections():
        lines += [f"{h}# {section}", "", header, rule]
        for row in rows:
            marks = " | ".join(_mark(matrix.cell(row, c)) for c in matrix.columns)
            links = ", ".join(_link(s) for s in matrix.row_scenarios(row)) or "—"
            lines.append(f"| {_cell_text(row.name)} | {marks} | {links} |")
        lines.append("")

    lines += _gaps(matrix, h)
    lines += _failures(matrix, h)
    lines += _requirements(matrix, h)
    lines += _not_applicable(matrix, h)
    lines += _scenarios(matrix, h)
    return "\n".join(lines).rstrip() + "\n"


def _mark(cell: Cell) -> str:
    return SYMBOLS[cell.status] + (GENERAL_MARK if cell.general is not None else "")


def _requirements(matrix: CoverageMatrix, h: str) -> list[str]:
    """What each check in these results enforces, so a failure reads against its spec sentence."""
    seen = sorted({c.id for run in matrix.results for c in run.checks},
                  key=lambda check: (requirement(check).scope != "row", check))
    lines = [f"{h}# What each check enforces", "",
             "_row: the requirement of the spec rows the scenario names, as the scenario states it; general: a "
             "universal invariant, judged on every run, that is a row's own requirement only for the rows listed._",
             "", "| Check | Scope | Enforces | Source | Own requirement of rows |", "|---|---|---|---|---|"]
    for check in seen:
        need = requirement(check)
        rows = markdown_text("; ".join(need.rows)) if need.rows else ("all" if need.scope == "row" else "—")
        lines.append(f"| {markdown_code(check)} | {need.scope} | {markdown_text(need.text)} | "
                     f"{markdown_text(need.source)} | {rows} |")
    return [*lines, ""]


def _column_header(column: Column) -> str:
    header = f"{markdown_text(column.implementation)} {markdown_text(column.version)}<br>{markdown_text(column.mode)}"
    return header if column.provider == NEUTRAL_PROVIDER else f"{header}<br>{markdown_text(column.provider)}"


def _anchor(scenario: str) -> str:
    return "scenario-" + re.sub(r"[^a-z0-9]+", "-", scenario.lower()).strip("-")


def _link(scenario: str) -> str:
    return f"[{markdown_text(scenario)}](#{_anchor(scenario)})"


def _cell_text(text: str) -> str:
    """A spec row name: the spec's own Markdown, kept, on one line and with pipes escaped for a table."""
    return one_line(text).replace("|", "\\|")


def _short(text: str) -> str:
    """Escaped text of at most `_LONG` characters (cut before escaping, so an escape is never cut in half)."""
    text = one_line(text)
    return markdown_text(text if len(text) <= _LONG else text[: _LONG - 1] + "…")


def _gaps(matrix: CoverageMatrix, h: str) -> list[str]:
    gaps = matrix.gaps
    lines = [f"{h}# Gaps", ""]
    if matrix.filtered:
        lines += ["Computed over the filtered selection only.", ""]
    sections: list[tuple[str, list[str]]] = [
        ("uncovered_rows", [f"- {markdown_text(uncovered_text(row))}" for row in gaps.uncovered_rows]),
        ("unknown_rows", [f"- {_link(u.scenario)} names “{markdown_text(u.row)}”" for u in gaps.unknown_rows]),
        ("xfail_only", [f"- {x.row.section} › {x.row.name}: " + markdown_text(", ".join(c.label for c in x.columns))
                        for x in gaps.xfail_only]),
        ("unexplained_na", [f"- {n.row.section} › {n.row.name}, {markdown_text(n.column.label)}: "
                            + markdown_text(", ".join(n.scenarios)) for n in gaps.unexplained_na]),
        ("rowless_scenarios", [f"- {_link(r.scenario)}: " + markdown_text(", ".join(r.verdicts))
                               for r in gaps.rowless_scenarios]),
    ]
    for key, items in sections:
        title, why = GAP_TITLES[key]
        lines += [f"{h}## {title} ({len(items)})", "", f"_{why}._", "", *(items or ["None."]), ""]
    return lines


def _profiles(matrix: CoverageMatrix) -> list[str]:
    """Per implementation, runs by the profile of their failing checks (`profile_counts`)."""
    counts = profile_counts(matrix.results)
    if not counts:
        return []
    lines = ["Runs per implementation by the profile of their failing checks (a check without a profile counts as "
             "contract; differs: the run fails only what the implementation does not claim, never a failure):", "",
             "| Implementation | safety failures | contract failures | differs | tentative |",
             "|---|---:|---:|---:|---:|"]
    lines += [f"| {markdown_text(name)} | {c.safety} | {c.contract} | {c.differs} | {c.tentative} |"
              for name, c in counts.items()]
    return [*lines, ""]


def _failures(matrix: CoverageMatrix, h: str) -> list[str]:
    items: list[str] = []
    for run in matrix.runs():
        if run.verdict not in ("fail", "error", "xfail", "differs"):
            continue
        items.append(f"- {SYMBOLS[run.verdict]} {_link(run.scenario)} — "
                     + markdown_text(run_label(run.implementation, run.version, run.mode, run.provider)))
        if run.reason:
            items.append(f"  - reason: {_short(run.reason)}")
        items += [f"  - {_check_item(check)}" for check in problem_checks(run)]
    title = "Failures, known failures and differences"
    return [f"{h}# {title}", "", *(items or ["None."]), ""]


def _check_item(check: CheckResult) -> str:
    """`check_line`'s wording, the check's message escaped (it quotes scenario and implementation text)."""
    where = f" (turn {check.turn})" if check.turn else ""
    message = _short(check.message) if check.message.strip() else ""
    profile = f", {check.profile}" if check.profile else ""
    return (f"{markdown_text(check.id)}{where} [{check.verdict}, {check_scope(check)}{profile}]"
            + (f": {message}" if message else ""))


def _not_applicable(matrix: CoverageMatrix, h: str) -> list[str]:
    grouped: dict[tuple[str, str], list[str]] = {}
    for run in matrix.runs():
        if run.verdict == "n/a":
            where = run_label(run.implementation, run.version, run.mode, run.provider)
            grouped.setdefault((run.scenario, run.reason.strip() or "(no reason given)"), []).append(where)
    items = [f"- {_link(s)} — {markdown_text(', '.join(where))}: {_short(reason)}"
             for (s, reason), where in sorted(grouped.items())]
    return [f"{h}# Not applicable", "", *(items or ["None."]), ""]


def _scenarios(matrix: CoverageMatrix, h: str) -> list[str]:
    lines = [f"{h}# Scenarios", "", "| Scenario | Title | Spec rows | File |", "|---|---|---|---|"]
    for info in matrix.scenarios.values():
        where = markdown_code(f"{display_path(info.path)}:{info.line}") if info.path else ""
        rows = markdown_text("; ".join(info.spec_rows)) or "—"
        lines.append(f"| <a id=\"{_anchor(info.id)}\"></a>{markdown_code(info.id)} | {markdown_text(info.title)} | "
                     f"{rows} | {where} |")
    return [*lines, ""]


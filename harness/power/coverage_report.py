"""The loop-coverage report: which loop lines each spec row's scenarios execute, and which no scenario reaches."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from harness.contents import JSON
from harness.power.document import Code, Heading, Paragraph, Part, Table, to_html, to_markdown
from harness.power.line_coverage import IMPORT_CONTEXT, LoopCoverage, portable
from harness.power.ranges import line_ranges
from harness.power.specificity import BROAD_REACH, SPECIFIC_LIFT, runs_by_row, specific_lines


def lines_by_row(coverage: LoopCoverage) -> dict[str, dict[str, set[int]]]:
    """Row -> module -> the lines its scenarios execute (module-level lines run at import are left out)."""
    found: dict[str, dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
    for module in coverage.modules:
        for line, contexts in module.contexts_by_line.items():
            for context in contexts:
                if context == IMPORT_CONTEXT or context not in coverage.runs:
                    continue
                for row in coverage.runs[context].rows:
                    found[row][module.name].add(line)
    return found


def _short(module: str) -> str:
    """The module's last name part (the table's modules all belong to one implementation)."""
    return module.rsplit(".", 1)[-1]


def unreached(coverage: LoopCoverage) -> dict[str, list[int]]:
    """Module -> statements no scenario executes (not even at import)."""
    return {m.name: [line for line in m.statements if line not in m.contexts_by_line] for m in coverage.modules}


def _parts(coverage: LoopCoverage, command: str) -> list[Part]:
    parts: list[Part] = [Paragraph(
        f"Implementation `{coverage.implementation}` {coverage.version}: {len(coverage.runs)} scenario × mode runs "
        f"(neutral provider) over its loop modules, measured with coverage.py dynamic contexts. Regenerate with "
        f"`{command}`.")]
    rows: list[tuple[str, ...]] = []
    missing = unreached(coverage)
    for module in coverage.modules:
        ran = [line for line in module.statements if line in module.contexts_by_line]
        by_scenario = [line for line in ran if set(module.contexts_by_line[line]) - {IMPORT_CONTEXT}]
        share = 100.0 * len(ran) / len(module.statements) if module.statements else 100.0
        rows.append((module.name, str(len(module.statements)), str(len(by_scenario)), str(len(ran)), f"{share:.1f}%",
                     str(len(missing[module.name]))))
    parts += [Heading("Modules"), Table(("module", "statements", "run by a scenario", "run at all (import included)",
                                         "covered", "unreached"), tuple(rows))]
    parts.append(Heading("Lines per spec row"))
    parts.append(Paragraph(
        f"Most loop lines are shared plumbing that nearly every run executes, so a row's full line set says little. "
        f"The table shows each row's *row-specific* lines: those its runs execute at least {SPECIFIC_LIFT:g} times "
        f"as often as all runs do, leaving out lines more than {BROAD_REACH:.0%} of all runs execute. The JSON "
        f"report holds every row's full line set (`rows`) next to the specific ones (`row_specific`)."))
    per_row = lines_by_row(coverage)
    specific = specific_lines(coverage)
    row_runs = runs_by_row(coverage)
    table: list[tuple[str, ...]] = []
    for row in sorted(per_row):
        own = specific.get(row, {})
        which = "; ".join(f"{_short(module)}: {line_ranges(lines)}" for module, lines in sorted(own.items()))
        table.append((row, str(len(row_runs.get(row, ()))), str(sum(len(v) for v in per_row[row].values())),
                      str(sum(len(v) for v in own.values())), which or "none (only shared lines)"))
    parts.append(Table(("spec row", "runs", "lines executed", "row-specific lines", "which (row-specific)"),
                       tuple(table)))
    parts.append(Heading("Lines no scenario reaches"))
    for module in coverage.modules:
        parts.append(Heading(module.name, 3))
        source = Path(module.path).read_text(encoding="utf-8").splitlines() if Path(module.path).exists() else []
        gaps = missing[module.name]
        if not gaps:
            parts.append(Paragraph("Every statement is reached."))
            continue
        parts.append(Paragraph(f"{len(gaps)} statements: {line_ranges(gaps)}"))
        shown = [f"{line:>5}  {source[line - 1].rstrip()}" for line in gaps if 0 < line <= len(source)]
        parts.append(Code("\n".join(shown), "text"))
    return parts


def raw_json(coverage: LoopCoverage) -> dict[str, JSON]:
    """Everything `coverage_from_json` needs to rebuild the coverage (so affected-rows can reuse a report). Each
    line's contexts are indices into `contexts`: spelled out, the hundreds of context names per line would make the
    report megabytes long."""
    names = sorted({c for m in coverage.modules for found in m.contexts_by_line.values() for c in found})
    index = {name: number for number, name in enumerate(names)}
    return {
        "version": coverage.version,
        "contexts": list[JSON](names),
        "modules": [{"name": m.name, "path": portable(m.path), "sha256": m.sha256,
                     "statements": list[JSON](m.statements),
                     "contexts_by_line": {str(line): list[JSON](index[c] for c in found)
                                          for line, found in sorted(m.contexts_by_line.items())}}
                    for m in coverage.modules],
        "runs": {key: {"scenario": r.scenario, "mode": r.mode, "rows": list[JSON](r.rows), "verdict": r.verdict,
                       "failing": list[JSON](r.failing), "seconds": round(r.seconds, 4)}
                 for key, r in coverage.runs.items()},
    }


def write_coverage_report(coverage: LoopCoverage, out_dir: Path, command: str) -> list[Path]:
    """loop-coverage-<impl>.md, .html and .json under `out_dir`."""
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = out_dir / f"loop-coverage-{coverage.implementation}"
    title = f"Loop coverage: {coverage.implementation}"
    parts = _parts(coverage, command)
    per_row = lines_by_row(coverage)
    document: dict[str, JSON] = {
        "implementation": coverage.implementation, "version": coverage.version,
        "rows": {row: {module: list[JSON](sorted(lines)) for module, lines in modules.items()}
                 for row, modules in sorted(per_row.items())},
        "row_specific": {row: {module: list[JSON](lines) for module, lines in modules.items()}
                         for row, modules in sorted(specific_lines(coverage).items())},
        "unreached": {module: list[JSON](lines) for module, lines in unreached(coverage).items()},
        "raw": raw_json(coverage),
    }
    paths = [stem.with_suffix(".md"), stem.with_suffix(".html"), stem.with_suffix(".json")]
    paths[0].write_text(f"# {title}\n\n" + to_markdown(parts), encoding="utf-8")
    paths[1].write_text(to_html(title, parts), encoding="utf-8")
    paths[2].write_text(json.dumps(document, sort_keys=True, separators=(",", ":")) + "\n", encoding="utf-8")
    return paths

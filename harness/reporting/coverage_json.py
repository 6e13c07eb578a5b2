"""The coverage matrix as JSON, documented by ``coverage.schema.json`` beside this module.

Cells reference runs by scenario id and column id instead of repeating their details, so a consumer can render
the grid from `sections` alone and look details up in `runs` only for the cells it opens.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from harness.reporting.coverage import CELL_STATUSES, Column, CoverageMatrix
from harness.reporting.profile_counts import profile_counts
from harness.reporting.wording import FILTERED_BANNER, check_scope, display_path, headline, problem_checks
from harness.requirements import requirement
from harness.results import CheckResult, ScenarioResult
from harness.scenario.spec_rows import SpecRow, awaiting

SCHEMA_VERSION = 1
SCHEMA_PATH = Path(__file__).resolve().parent / "coverage.schema.json"


def coverage_document(matrix: CoverageMatrix) -> dict[str, Any]:
    counts = matrix.status_counts()
    gaps = matrix.gaps
    return {
        "schema_version": SCHEMA_VERSION,
        "filtered": matrix.filtered,
        "full_coverage": matrix.claims_full_coverage,
        "banner": FILTERED_BANNER if matrix.filtered else None,
        "headline": headline(matrix),
        "sources": matrix.sources,
        "profiles": {name: asdict(counts) for name, counts in profile_counts(matrix.results).items()},
        "totals": {
            "rows": len(matrix.rows),
            "covered_rows": len(matrix.covered_rows),
            "cells": {status: counts[status] for status in CELL_STATUSES},
        },
        "columns": [_column(c) for c in matrix.columns],
        "sections": [
            {"name": section, "rows": [_row(matrix, row) for row in rows]} for section, rows in matrix.sections()
        ],
        "runs": [_run(run) for run in matrix.runs()],
        "requirements": _requirements(matrix),
        "scenarios": [
            {"id": s.id, "title": s.title, "path": display_path(s.path), "line": s.line, "section": s.section,
             "spec_rows": list(s.spec_rows)}
            for s in matrix.scenarios.values()
        ],
        "gaps": {
            "uncovered_rows": [_row_ref(row) | ({"awaiting": reason} if (reason := awaiting(row)) else {})
                           for row in gaps.uncovered_rows],
            "unknown_rows": [{"scenario": u.scenario, "row": u.row} for u in gaps.unknown_rows],
            "xfail_only": [{"row": _row_ref(x.row), "columns": [c.id for c in x.columns]} for x in gaps.xfail_only],
            "unexplained_na": [{"row": _row_ref(n.row), "column": n.column.id, "scenarios": list(n.scenarios)}
                               for n in gaps.unexplained_na],
            "rowless_scenarios": [{"scenario": r.scenario, "verdicts": list(r.verdicts)}
                                  for r in gaps.rowless_scenarios],
        },
    }


def render_json(matrix: CoverageMatrix) -> str:
    return json.dumps(coverage_document(matrix), indent=2, ensure_ascii=False) + "\n"


def _column(column: Column) -> dict[str, Any]:
    return {"id": column.id, "implementation": column.implementation, "version": column.version,
            "mode": column.mode, "provider": column.provider, "label": column.label}


def _row_ref(row: SpecRow) -> dict[str, Any]:
    return {"id": row.id, "section": row.section, "name": row.name}


def _row(matrix: CoverageMatrix, row: SpecRow) -> dict[str, Any]:
    cells: dict[str, Any] = {}
    for column in matrix.columns:
        cell = matrix.cell(row, column)
        cells[column.id] = {"status": cell.status, "general": cell.general,
                            "runs": [{"scenario": run.scenario, "verdict": run.verdict,
                                      "own": cell.own_verdict(run),
                                      "general_checks": sorted({c.id for c in cell.general_checks(run)})}
                                     for run in cell.runs]}
    return {"id": row.id, "name": row.name, "scenarios": list(matrix.row_scenarios(row)), "cells": cells}


def _run(run: ScenarioResult) -> dict[str, Any]:
    return {
        "scenario": run.scenario, "implementation": run.implementation, "version": run.version, "mode": run.mode,
        "provider": run.provider, "column": Column.of(run).id, "verdict": run.verdict,
        "reason": run.reason, "spec_rows": list(run.spec_rows), "entries": list(run.entries),
        "problems": [_check(check) for check in problem_checks(run)],
    }


def _check(check: CheckResult) -> dict[str, Any]:
    return {"id": check.id, "verdict": check.verdict, "scope": check_scope(check), "message": check.message,
            "turn": check.turn, "details": list(check.details), "diff": list(check.diff), "profile": check.profile,
            "cites": list(check.cites)}


def _requirements(matrix: CoverageMatrix) -> list[dict[str, Any]]:
    checks = sorted({c.id for run in matrix.results for c in run.checks})
    return [{"check": check, "scope": need.scope, "text": need.text, "source": need.source, "rows": list(need.rows)}
            for check in checks for need in (requirement(check),)]

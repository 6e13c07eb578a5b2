"""Attribution: every check names the requirement it enforces, and the coverage matrix tells a row's own failure
apart from a general invariant a scenario of the row tripped."""

from __future__ import annotations

import io
import json
from pathlib import Path

from harness.reporting.by_scenario import render_by_scenario
from harness.reporting.commands import report_command
from harness.reporting.coverage import CoverageMatrix, build_coverage
from harness.reporting.coverage_json import SCHEMA_PATH, render_json
from harness.reporting.documents import parse_results_document
from harness.reporting.html_page import page_data, render_html
from harness.reporting.markdown import render_markdown
from harness.requirements import KNOWN_CHECKS, REQUIREMENTS, requirement
from harness.scenario.spec_rows import EXTRA_ROWS, SPEC_ROWS, SpecRow

from .helpers import check, document, run
from .schema_check import validate

SINGLE = "Single non-streaming call"
INITIAL = "Initial approval request"
PARALLEL = "Parallel calls"


def _row(name: str) -> SpecRow:
    return next(r for r in SPEC_ROWS if r.name == name)


def test_every_check_names_its_requirement_and_the_rows_it_names_exist() -> None:
    assert set(REQUIREMENTS) >= KNOWN_CHECKS
    names = {r.name for r in (*SPEC_ROWS, *EXTRA_ROWS)}
    for need in REQUIREMENTS.values():
        assert need.text.strip()
        assert need.source.strip()
        assert set(need.rows) <= names, need.check
        assert need.scope == "general" or not need.rows
    # The scenario's own expectations and run checks judge the row; the invariants are general.
    assert {c for c, r in REQUIREMENTS.items() if r.scope == "row"} >= {"expect.response", "completes", "script"}
    assert requirement("parallel-order").scope == "general"
    assert requirement("some-future-check").scope == "row"  # never hidden as general


def _matrix(*runs: dict[str, object]) -> CoverageMatrix:
    return build_coverage(parse_results_document(document(*runs)), SPEC_ROWS)


def test_a_general_invariant_a_scenario_trips_is_not_the_rows_own_failure() -> None:
    # The call order of a parallel batch is known to fail in a scenario that names the initial approval request.
    tripped = run("approval.batch", [INITIAL], verdict="xfail",
                  checks=[check("completes"), check("parallel-order", "xfail", "results arrive reversed")])
    own = run("approval.single", [INITIAL], checks=[check("completes"), check("expect.response")])
    matrix = _matrix(tripped, own)
    (column,) = matrix.columns
    cell = matrix.cell(_row(INITIAL), column)
    assert (cell.status, cell.general) == ("pass", "xfail")
    assert [cell.own_verdict(r) for r in cell.runs] == ["pass", "pass"]
    assert [c.id for r in cell.runs for c in cell.general_checks(r)] == ["parallel-order"]


def test_the_same_invariant_is_the_own_requirement_of_the_rows_it_belongs_to() -> None:
    tripped = run("normal.parallel", [PARALLEL, INITIAL], verdict="fail",
                  checks=[check("completes"), check("parallel-order", "fail", "reversed")])
    matrix = _matrix(tripped)
    (column,) = matrix.columns
    parallel, initial = matrix.cell(_row(PARALLEL), column), matrix.cell(_row(INITIAL), column)
    assert (parallel.status, parallel.general) == ("fail", None)
    assert (initial.status, initial.general) == ("pass", "fail")


def test_an_expectation_failing_is_the_rows_own_failure_beside_a_general_trip() -> None:
    broken = run("normal.single", [SINGLE], verdict="fail",
                 checks=[check("expect.response", "fail", "wrong"), check("inputs-unmutated", "fail", "changed")])
    matrix = _matrix(broken)
    (column,) = matrix.columns
    cell = matrix.cell(_row(SINGLE), column)
    assert (cell.status, cell.general) == ("fail", "fail")


def test_a_run_failing_without_a_failing_check_keeps_its_verdict() -> None:
    matrix = _matrix(run("normal.single", [SINGLE], verdict="error", checks=[]))
    (column,) = matrix.columns
    assert matrix.cell(_row(SINGLE), column).status == "error"


def _reported() -> CoverageMatrix:
    return _matrix(run("approval.batch", [INITIAL], verdict="xfail",
                       checks=[check("completes"), check("parallel-order", "xfail", "results arrive reversed")]))


def test_every_format_shows_the_attribution() -> None:
    matrix = _reported()
    markdown = render_markdown(matrix)
    assert "| Initial approval request | ✅⚑ |" in markdown
    assert "  - parallel-order [xfail, general]: results arrive reversed" in markdown
    assert "| `parallel-order` | general | Parallel calls retain model order in the returned transcript." in markdown
    html = render_html(matrix)
    assert '<sup class="general">⚑</sup>' in html
    page = page_data(matrix)  # what the page's script draws the cell's panel from
    assert [entry[1:] for entries in page["cells"].values() for entry in entries] == [["pass", ["parallel-order"]]]
    assert page["requirements"]["parallel-order"].startswith(
        "Parallel calls retain model order in the returned transcript.")
    data = json.loads(render_json(matrix))
    assert validate(data, json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))) == []
    initial = next(r for s in data["sections"] for r in s["rows"] if r["name"] == INITIAL)
    (cell,) = initial["cells"].values()
    assert cell == {"status": "pass", "general": "xfail", "runs": [
        {"scenario": "approval.batch", "verdict": "xfail", "own": "pass", "general_checks": ["parallel-order"]}]}
    assert {r["check"]: r["scope"] for r in data["requirements"]} == {"completes": "row", "parallel-order": "general"}
    assert data["runs"][0]["problems"][0]["scope"] == "general"


def test_verdicts_by_scenario_unfold_each_row() -> None:
    matrix = _matrix(
        run("approval.batch", [INITIAL], verdict="xfail",
            checks=[check("completes"), check("parallel-order", "xfail", "reversed")]),
        run("approval.single", [INITIAL], verdict="fail", checks=[check("expect.response", "fail", "wrong")]))
    text = render_by_scenario(matrix)
    assert "### Initial approval request" in text
    assert "| `approval.batch` | ✅ ⚑ parallel-order |" in text
    assert "| `approval.single` | ❌ |" in text


def test_report_by_scenario_writes_the_unfolded_view(tmp_path: Path) -> None:
    results = tmp_path / "results.json"
    results.write_text(json.dumps(document(run("approval.single", [INITIAL]))), encoding="utf-8")
    out = tmp_path / "out"
    assert report_command([results], out, stdout=io.StringIO()) == 0
    assert not (out / "verdicts-by-scenario.md").exists()
    assert report_command([results], out, by_scenario=True, stdout=io.StringIO()) == 0
    assert "| `approval.single` | ✅ |" in (out / "verdicts-by-scenario.md").read_text(encoding="utf-8")

"""The short views: the spec author's matrix (report --matrix-only) and the GitHub job summary (report
--step-summary), capped, failing runs first, ending with where the full reports are."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.reporting.coverage import build_coverage
from harness.reporting.documents import parse_results_document
from harness.reporting.spec_view import families, render_matrix_only, render_step_summary
from harness.scenario.spec_rows import SPEC_ROWS

from .helpers import both_modes, check, document, run

ROW = "Single non-streaming call"


def _document() -> dict[str, object]:
    failing = [run(f"normal.case-{n}", [ROW], impl="agent_framework_stateless", version="1.23.0", verdict="fail",
                   checks=[check("completes"), check("expect.response", "fail", f"wrong answer {n} " + "x" * 200)])
               for n in range(400)]
    return document(both_modes("normal.single-call", [ROW]),
                    both_modes("normal.single-call", [ROW], impl="agent_framework", version="1.23.0"),
                    both_modes("normal.single-call", [ROW], impl="my_loop<script>", version="0.1"),
                    run("normal.single-call", [ROW], impl="agent_framework_ag_ui", version="1.7.0", verdict="xfail",
                        checks=[check("expect.response", "xfail", "known")]), failing)


def test_variants_of_an_implementation_make_one_family() -> None:
    assert families(["agent_framework", "agent_framework_stateless", "agent_framework_ag_ui", "pydantic_ai",
                     "reference", "reference_stateless"]) == {
        "agent_framework": "agent_framework", "agent_framework_stateless": "agent_framework",
        "agent_framework_ag_ui": "agent_framework", "pydantic_ai": "pydantic_ai", "reference": "reference",
        "reference_stateless": "reference"}


def test_the_spec_matrix_has_a_column_per_family_and_links_each_cell_to_its_detail() -> None:
    matrix = build_coverage(parse_results_document(_document()), SPEC_ROWS)
    text = render_matrix_only(matrix)
    lines = text.splitlines()
    assert len(lines) < 100
    assert lines[2] == "| Section | Spec row | reference | agent_framework | my_loop&lt;script&gt; |"
    row = next(line for line in lines if f"| {ROW} |" in line)
    # The family's worst cell, opened in coverage.html: the stateless variant's failure.
    assert ("[❌](coverage.html#open=normal-function-invocation/single-non-streaming-call@"
            "agent_framework_stateless/1.23.0/non-streaming)") in row
    assert "<script>" not in text
    assert sum(line.startswith("| ") for line in lines) == len(SPEC_ROWS) + 1  # the spec's rows, and the header


def test_the_step_summary_is_capped_failures_first_and_ends_with_the_artifact() -> None:
    matrix = build_coverage(parse_results_document(_document()), SPEC_ROWS)
    summary = render_step_summary(matrix, artifact="the conformance-reports artifact", limit=20_000)
    assert len(summary.encode("utf-8")) <= 20_000
    assert summary.startswith("## Loop conformance\n\n### Failing runs (400)\n\n- ❌ normal.case-0 — ")
    assert "more failing run(s): see the full reports." in summary  # listed as far as room allows, then counted
    assert "### Per implementation" in summary  # the counts and the matrix still show
    assert f"| {ROW} |" in summary
    tiny = render_step_summary(matrix, artifact="the artifact", limit=3000)
    assert len(tiny.encode("utf-8")) <= 3000
    assert "cut to fit the job summary's size" in tiny
    assert tiny.endswith("the artifact\n")
    assert summary.endswith(
        "Full reports (coverage.html, coverage.md, junit.xml, results.json): the conformance-reports artifact\n")
    roomy = render_step_summary(matrix, artifact="x", limit=10_000_000)
    assert "| agent_framework_stateless 1.23.0 | 0 | 400 | 0 | 0 |" in roomy  # runs by profile
    assert "### Per implementation" in roomy
    assert f"| {ROW} |" in roomy
    assert "cut to fit" not in roomy


def test_report_writes_the_step_summary_and_the_matrix_only_view(tmp_path: Path) -> None:
    results = tmp_path / "results.json"
    results.write_text(json.dumps(_document()), encoding="utf-8")
    summary = tmp_path / "summary.md"
    summary.write_text("an earlier step\n", encoding="utf-8")
    assert main(["report", str(results), "--step-summary", str(summary), "--summary-limit", "5000",
                 "--artifact", "ARTIFACT"]) == 0
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("an earlier step\n## Loop conformance")
    assert len(text.encode("utf-8")) <= 5000 + len("an earlier step\n")
    assert text.endswith("ARTIFACT\n")
    assert main(["report", str(results), "--out", str(tmp_path / "spec"), "--matrix-only"]) == 0
    assert [p.name for p in (tmp_path / "spec").iterdir()] == ["spec-matrix.md"]


def test_report_without_a_destination_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "results.json"
    results.write_text(json.dumps(_document()), encoding="utf-8")
    assert main(["report", str(results)]) == 2
    assert "--out DIR, --step-summary FILE or both" in capsys.readouterr().err

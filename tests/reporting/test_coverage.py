"""The coverage matrix and its gap analysis, built from hand-written results documents."""

from __future__ import annotations

from typing import Any

from harness.reporting.coverage import CoverageMatrix, build_coverage
from harness.reporting.documents import parse_results_document
from harness.scenario.spec_rows import SpecRow

from .helpers import both_modes, check, document, run

ROWS = (
    SpecRow("Normal function invocation", "Single non-streaming call"),
    SpecRow("Normal function invocation", "Streaming call"),
    SpecRow("Approval pause and resume", "Initial approval request"),
    SpecRow("Approval pause and resume", "Approved non-streaming resume"),
)


def _matrix(*runs: dict[str, Any] | list[dict[str, Any]], filtered: bool = False) -> CoverageMatrix:
    return build_coverage(parse_results_document(document(*runs, filtered=filtered)), ROWS)


def test_cells_show_the_worst_verdict_and_every_scenario() -> None:
    matrix = _matrix(
        both_modes("normal.single-call", ["Single non-streaming call"]),
        run("normal.single-call.again", ["Single non-streaming call"], verdict="fail",
            checks=[check("expect.response", "fail", "response differs", turn=1)]),
    )
    row = ROWS[0]
    non_streaming, streaming = matrix.columns
    assert (non_streaming.mode, streaming.mode) == ("non-streaming", "streaming")
    assert matrix.cell(row, non_streaming).status == "fail"
    assert matrix.cell(row, non_streaming).scenarios == ("normal.single-call", "normal.single-call.again")
    assert matrix.cell(row, streaming).status == "pass"
    assert matrix.cell(ROWS[1], streaming).status == "not-covered"
    assert matrix.row_scenarios(row) == ("normal.single-call", "normal.single-call.again")


def test_pass_beside_a_known_failure_shows_the_known_failure_and_n_a_ranks_last() -> None:
    matrix = _matrix(
        run("a", ["Streaming call"]),
        run("b", ["Streaming call"], verdict="xfail", reason="known failure: documented"),
        run("c", ["Streaming call"], verdict="n/a", reason="lacks capability: streaming"),
    )
    assert matrix.cell(ROWS[1], matrix.columns[0]).status == "xfail"


def test_columns_split_by_version_when_an_implementation_ran_at_several() -> None:
    matrix = _matrix(
        run("a", ["Streaming call"], impl="agent_framework", version="1.10.0"),
        run("a", ["Streaming call"], impl="agent_framework", version="1.9.0"),
        run("a", ["Streaming call"]),
    )
    assert [c.id for c in matrix.columns] == [
        "reference/0.1.0/non-streaming", "agent_framework/1.9.0/non-streaming",
        "agent_framework/1.10.0/non-streaming",
    ]
    assert matrix.several_versions


def test_gap_rows_no_scenario_covers() -> None:
    matrix = _matrix(both_modes("normal.single-call", ["Single non-streaming call"]))
    assert [row.name for row in matrix.gaps.uncovered_rows] == [
        "Streaming call", "Initial approval request", "Approved non-streaming resume"]
    assert [row.name for row in matrix.covered_rows] == ["Single non-streaming call"]


def test_gap_scenarios_naming_unknown_rows() -> None:
    matrix = _matrix(run("normal.typo", ["Single non-streaming call", "Singel streaming call"]))
    assert [(u.scenario, u.row) for u in matrix.gaps.unknown_rows] == [("normal.typo", "Singel streaming call")]
    # The known row it names is still covered.
    assert matrix.cell(ROWS[0], matrix.columns[0]).status == "pass"


def test_gap_rows_covered_only_by_known_failures() -> None:
    matrix = _matrix(
        run("approval.initial", ["Initial approval request"], impl="agent_framework", verdict="xfail",
            reason="known failure: documented", checks=[check("expect.response", "xfail", "differs")]),
        run("approval.initial", ["Initial approval request"], verdict="pass"),
        # A known failure beside a passing scenario of the same row and column is not "only known failures".
        run("approval.resume", ["Approved non-streaming resume"], impl="agent_framework", verdict="xfail",
            reason="known failure: documented"),
        run("approval.resume.other", ["Approved non-streaming resume"], impl="agent_framework"),
    )
    [only] = matrix.gaps.xfail_only
    assert only.row.name == "Initial approval request"
    assert [c.id for c in only.columns] == ["agent_framework/0.1.0/non-streaming"]


def test_gap_n_a_cells_without_a_reason() -> None:
    matrix = _matrix(
        run("normal.single-call", ["Single non-streaming call"], verdict="n/a", reason=""),
        run("normal.streaming", ["Streaming call"], verdict="n/a", reason="reference lacks capability: streaming"),
    )
    [silent] = matrix.gaps.unexplained_na
    assert (silent.row.name, silent.scenarios) == ("Single non-streaming call", ("normal.single-call",))


def test_gap_results_naming_no_row() -> None:
    matrix = _matrix(run("scenarios/normal/bad.yaml", [], verdict="error", reason="malformed scenario file",
                         checks=[check("scenario-file", "error", "bad.yaml:4:8: error[wrong-type]")]))
    assert [(r.scenario, r.verdicts) for r in matrix.gaps.rowless_scenarios] == [
        ("scenarios/normal/bad.yaml", ("error",))]


def test_only_an_unfiltered_run_covering_every_row_claims_full_coverage() -> None:
    everything = [both_modes(f"s{i}", [row.name]) for i, row in enumerate(ROWS)]
    assert _matrix(*everything).claims_full_coverage
    assert not _matrix(*everything, filtered=True).claims_full_coverage
    assert not _matrix(*everything[:-1]).claims_full_coverage


def test_a_document_without_the_filtered_flag_counts_as_filtered() -> None:
    data = document(run("a", ["Streaming call"]))
    del data["filtered"]
    assert parse_results_document(data).filtered

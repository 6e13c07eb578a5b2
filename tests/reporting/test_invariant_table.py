"""The cross-framework invariant table: one column per implementation, a failing cell names how to reproduce."""

from __future__ import annotations

from harness.reporting.documents import ResultsDocument
from harness.reporting.invariant_table import HEADLINE, build_invariant_table, render_html, render_markdown
from harness.results import CheckResult, ScenarioResult


def _result(impl: str, verdict: str, failing: str | None = None,
            scenario: str = "normal.single-call") -> ScenarioResult:
    checks = tuple(CheckResult(check, "fail" if check == failing else "pass") for check in HEADLINE)
    return ScenarioResult(scenario, "t", ("Single non-streaming call",), "normal", impl, "1.0", "streaming",
                          verdict, checks, path="scenarios/normal/single-call.yaml", line=1)  # type: ignore[arg-type]


def test_each_rule_is_judged_per_implementation_and_failures_say_how_to_reproduce() -> None:
    document = ResultsDocument((_result("good", "pass"), _result("bad", "fail", "exactly-once"),
                                _result("known", "xfail", "no-orphans")), False)
    table = build_invariant_table(document)
    assert table.implementations == ("bad 1.0", "good 1.0", "known 1.0")
    assert table.cells[("exactly-once", "bad 1.0")].status == "fail"
    assert table.cells[("exactly-once", "good 1.0")].status == "pass"
    assert table.cells[("no-orphans", "known 1.0")].status == "known"
    assert table.cells[("parallel-order", "good 1.0")].status == "n/a"  # no run judged it
    markdown = render_markdown(table)
    assert "| `exactly-once`: no call executes more often than the model asked | ❌ 1 | ✅ | ✅ |" in markdown
    assert ("loop-conformance run --impl bad --mode streaming --scenarios scenarios/normal/single-call.yaml "
            "--no-baseline -v") in markdown
    page = render_html(table)
    assert "breaks in 1 run(s)" in page
    assert "1 known failure(s)" in page


def test_scenario_text_is_escaped() -> None:
    table = build_invariant_table(ResultsDocument((_result("x", "fail", "bounded", "<script>alert(1)</script>"),),
                                                  False))
    assert "<script>" not in render_html(table)
    assert "<script>" not in render_markdown(table)

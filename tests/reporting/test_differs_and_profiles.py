"""`differs` (a run that fails only what its implementation does not claim) and the profile counts in every format:
shown everywhere, never a failure, never failing the gate; and a row's own verdict from the checks citing it."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from harness.reporting.coverage import build_coverage, own_verdict
from harness.reporting.coverage_json import SCHEMA_PATH, render_json
from harness.reporting.documents import parse_results_document
from harness.reporting.gate import gate
from harness.reporting.html_page import render_html
from harness.reporting.invariant_table import build_invariant_table, reproduce_command
from harness.reporting.invariant_table import render_markdown as invariants_markdown
from harness.reporting.junit import render_junit
from harness.reporting.markdown import render_markdown
from harness.reporting.profile_counts import profile_counts
from harness.reporting.version_matrix import load_results
from harness.reporting.version_matrix import render_markdown as matrix_markdown
from harness.scenario.spec_rows import SPEC_ROWS

from .helpers import check, document, run
from .schema_check import validate

APPROVED = "Approved non-streaming resume"
INITIAL = "Initial approval request"


def _document() -> dict[str, object]:
    differs = run("approval.resume.sessionless", [INITIAL, APPROVED], impl="other_loop", version="2.0",
                  verdict="differs", reason="design difference: decisions bind to the session",
                  checks=[check("completes"),
                          check("approved-once", "fail", "ran without a bound approval", turn=2, profile="contract",
                                cites=[f"row:{APPROVED}"])]) | {"entries": ["design:session-binding"],
                                                                "seconds": 1.25, "claims": ["safety"]}
    tentative = run("normal.order", ["Parallel calls"], impl="other_loop", version="2.0", verdict="differs",
                    checks=[check("parallel-order", "fail", "reordered", profile="tentative")])
    unsafe = run("approval.rejected", [INITIAL], impl="other_loop", version="2.0", verdict="fail",
                 checks=[check("rejected-never-runs", "fail", "the rejected tool ran", profile="safety",
                               cites=[f"row:{INITIAL}"])])
    old = run("normal.single-call", ["Single non-streaming call"], impl="old_loop", version="1.0", verdict="xfail",
              checks=[check("completes"), check("expect.response", "xfail", "known")])
    return document(differs, tentative, unsafe, old)


def _matrix():  # noqa: ANN202 - a CoverageMatrix
    return build_coverage(parse_results_document(_document()), SPEC_ROWS)


def test_runs_are_counted_by_the_profile_of_their_failing_checks() -> None:
    counts = {name: (c.safety, c.contract, c.differs, c.tentative)
              for name, c in profile_counts(parse_results_document(_document()).results).items()}
    # A check without a profile (results older than profiles) counts under contract.
    assert counts == {"other_loop 2.0": (1, 0, 2, 1), "old_loop 1.0": (0, 1, 0, 0)}


def test_a_row_s_own_verdict_comes_from_the_checks_citing_it() -> None:
    results = parse_results_document(_document()).results
    differs = next(r for r in results if r.scenario == "approval.resume.sessionless")
    rows = {row.name: row for row in SPEC_ROWS}
    # Only turn 2's check fails and it cites the resume row: the initial request's row holds.
    assert own_verdict(differs, rows[APPROVED]) == "differs"
    assert own_verdict(differs, rows[INITIAL]) == "pass"


def test_junit_passes_a_differs_run_and_says_what_differs_with_its_real_duration() -> None:
    root = ET.fromstring(render_junit(_matrix()))
    case = next(c for c in root.iter("testcase") if c.get("name", "").startswith("approval.resume.sessionless"))
    assert case.find("failure") is None
    assert case.find("skipped") is None
    assert case.get("time") == "1.250"
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert props["verdict"] == "differs"
    assert "approved-once (turn 2) [fail]" in (props["differs"] or "")
    assert props["entry"] == "design:session-binding"
    assert props["failing_profile"] == "contract"
    assert "design difference" in (case.findtext("system-out") or "")
    assert root.get("failures") == "1"  # the safety failure only


def test_coverage_json_counts_profiles_and_differs_and_matches_its_schema() -> None:
    data = json.loads(render_json(_matrix()))
    assert validate(data, json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))) == []
    assert data["profiles"]["other_loop 2.0"] == {"safety": 1, "contract": 0, "differs": 2, "tentative": 1}
    assert data["totals"]["cells"]["differs"] >= 1
    run_data = next(r for r in data["runs"] if r["scenario"] == "approval.resume.sessionless")
    assert run_data["entries"] == ["design:session-binding"]
    assert run_data["problems"][0]["profile"] == "contract"


def test_markdown_and_html_show_differs() -> None:
    markdown = render_markdown(_matrix())
    assert "≠ differs" in markdown
    assert "| other_loop 2.0 | 1 | 0 | 2 | 1 |" in markdown
    assert "approved-once (turn 2) [fail, general, contract]: ran without a bound approval" in markdown
    html = render_html(_matrix())
    assert '<option value="differs">differs</option>' in html
    assert 'class="cell s-differs"' in html
    assert "<tr><th>other_loop 2.0</th><td>1</td><td>0</td><td>2</td><td>1</td></tr>" in html


def test_the_invariant_table_lists_a_run_once_with_its_rules_and_shows_differs(tmp_path: Path) -> None:
    doc = parse_results_document(_document() | {"references": {"other_loop": "my_pkg.loops:make_loop"}})
    table = build_invariant_table(doc)
    text = invariants_markdown(table)
    assert "≠ 1" in text  # approved-once on other_loop breaks only in a run that differs
    lines = [line for line in text.splitlines() if line.startswith("- other_loop 2.0")]
    assert len(lines) == 3  # one line per run, with every rule it breaks
    assert any("(differs): `approved-once`" in line for line in lines)
    assert "| other_loop 2.0 | 1 | 0 | 2 | 1 |" in text
    unsafe = next(r for r in doc.results if r.scenario == "approval.rejected")
    assert reproduce_command(unsafe, table.references).startswith(
        "loop-conformance run --impl my_pkg.loops:make_loop --mode non-streaming ")


def test_differs_never_fails_the_gate() -> None:
    doc = parse_results_document(document(*[r for r in _document()["results"]  # type: ignore[union-attr]
                                            if r["verdict"] == "differs"]))
    outcome = gate(doc, [])
    assert outcome.passed
    assert "2 runs differ" in outcome.render()


def test_the_version_matrix_shows_differs_apart(tmp_path: Path) -> None:
    path = tmp_path / "2.0.json"
    path.write_text(json.dumps(_document()), encoding="utf-8")
    text = matrix_markdown(load_results([path]))
    assert "≠" in text
    assert "### Differs" in text
    assert "approved-once (contract)" in text

"""JUnit XML: well-formed, one testcase per scenario × implementation × mode, spec rows as properties."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from harness.reporting.coverage import build_coverage
from harness.reporting.documents import parse_results_document
from harness.reporting.junit import render_junit
from harness.scenario.spec_rows import SPEC_ROWS

from .helpers import both_modes, check, document, run

DOC = document(
    both_modes("approval.approved-resume", ["Initial approval request", "Approved non-streaming resume"]),
    run("normal.single-call", ["Single non-streaming call"], impl="agent_framework", version="1.23.0",
        verdict="fail", checks=[check("completes"),
                                check("expect.response", "fail", "response differs \x1b[31mred\x1b[0m", turn=1,
                                      diff=["-a", "+b"])]),
    run("normal.single-call", ["Single non-streaming call"], impl="agent_framework", version="1.23.0",
        mode="streaming", verdict="xfail", reason="known failure: documented in the baseline",
        checks=[check("expect.response", "xfail", "differs")]),
    run("normal.informational", ["Informational-only call", "Unknown row"], impl="agent_framework",
        version="1.23.0", verdict="n/a", reason="agent_framework lacks capability: informational-only"),
    filtered=True,
)


def _parse() -> ET.Element:
    return ET.fromstring(render_junit(build_coverage(parse_results_document(DOC), SPEC_ROWS)))


def test_is_well_formed_with_one_testcase_per_run() -> None:
    root = _parse()
    assert root.tag == "testsuites"
    cases = root.findall("./testsuite/testcase")
    assert sorted(c.get("name") or "" for c in cases) == [
        "approval.approved-resume[reference-non-streaming]",
        "approval.approved-resume[reference-streaming]",
        "normal.informational[agent_framework-non-streaming]",
        "normal.single-call[agent_framework-non-streaming]",
        "normal.single-call[agent_framework-streaming]",
    ]
    assert (root.get("tests"), root.get("failures"), root.get("errors"), root.get("skipped")) == ("5", "1", "0", "2")


def test_spec_rows_and_run_facts_are_properties() -> None:
    case = _parse().find("./testsuite/testcase[@name='approval.approved-resume[reference-streaming]']")
    assert case is not None
    props = [(p.get("name"), p.get("value")) for p in case.findall("./properties/property")]
    assert ("spec_row", "Initial approval request") in props
    assert ("spec_row", "Approved non-streaming resume") in props
    assert ("mode", "streaming") in props
    assert ("verdict", "pass") in props
    unknown = _parse().find("./testsuite/testcase[@name='normal.informational[agent_framework-non-streaming]']")
    assert unknown is not None
    assert ("spec_row_unknown", "Unknown row") in [(p.get("name"), p.get("value"))
                                                   for p in unknown.findall("./properties/property")]


def test_failures_known_failures_and_n_a_carry_their_details() -> None:
    root = _parse()
    failure = root.find(".//testcase[@name='normal.single-call[agent_framework-non-streaming]']/failure")
    assert failure is not None
    assert (failure.get("message") or "").startswith("expect.response (turn 1) [fail]: response differs")
    assert "\x1b" not in (failure.get("message") or "")  # control characters would make the XML unreadable
    assert "    +b" in (failure.text or "")
    xfail = root.find(".//testcase[@name='normal.single-call[agent_framework-streaming]']/skipped")
    assert xfail is not None
    assert xfail.get("message") == "known failure: documented in the baseline"
    na = root.find(".//testcase[@name='normal.informational[agent_framework-non-streaming]']/skipped")
    assert na is not None
    assert na.get("message") == "n/a: agent_framework lacks capability: informational-only"


def test_the_coverage_suite_carries_the_gaps_and_the_filtered_flag() -> None:
    suite = _parse().find("./testsuite[@name='coverage']")
    assert suite is not None
    props = [(p.get("name"), p.get("value")) for p in suite.findall("./properties/property")]
    assert ("filtered", "true") in props
    assert ("full_coverage", "false") in props
    assert ("unknown_row", "normal.informational: Unknown row") in props
    assert ("xfail_only_row", "Normal function invocation › Single non-streaming call: "
                              "agent_framework 1.23.0 streaming") in props
    assert sum(1 for name, _ in props if name == "uncovered_row") == len(SPEC_ROWS) - 4
    out = suite.findtext("system-out") or ""
    assert out.startswith("Filtered run:")

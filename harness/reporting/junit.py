"""Results as JUnit XML: one testcase per scenario × implementation × mode (× version, × provider), spec rows as
properties.

CI systems show JUnit natively, so each run becomes a testcase, its `time` the run's real duration, named like the
pytest items (``normal.single-call[reference-streaming]``, ``normal.single-call[agent_framework-streaming-openai-chat]``
over a provider's wire), carrying its spec rows as ``spec_row`` properties, as the pytest plugin does. Known failures
and n/a runs are ``<skipped>`` (with their reason) so they neither fail the CI view nor disappear; a ``differs`` run
(it fails only what the implementation does not claim) passes, with a ``differs`` property and its output saying what
differs. A separate ``coverage`` testsuite carries the gap analysis and the filtered flag as properties, since JUnit
has no other place for facts about the run as a whole.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from harness.reporting.coverage import Column, CoverageMatrix
from harness.reporting.text import check_diff
from harness.reporting.wording import FILTERED_BANNER, GAP_TITLES, check_line, display_path, headline, problem_checks
from harness.results import ScenarioResult, with_provider
from harness.scenario.spec_rows import uncovered_text

# XML 1.0 forbids most control characters even when escaped; check messages can carry them (e.g. ANSI colours
# from an implementation's log), and one such character would make the whole file unreadable to CI.
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _text(value: str) -> str:
    return _INVALID_XML.sub("\ufffd", value)


def render_junit(matrix: CoverageMatrix) -> str:
    runs = matrix.runs()
    with_version = matrix.several_versions
    known_rows = {row.name for row in matrix.rows}
    root = ET.Element("testsuites", name="loop-conformance")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for column in matrix.columns:
        column_runs = [r for r in runs if Column.of(r) == column]
        suite = ET.SubElement(root, "testsuite", name=column.label)
        counts = {"tests": len(column_runs), "failures": 0, "errors": 0, "skipped": 0}
        props = ET.SubElement(suite, "properties")
        for name, value in (("implementation", column.implementation), ("version", column.version),
                            ("mode", column.mode), ("provider", column.provider),
                            ("filtered", str(matrix.filtered).lower())):
            ET.SubElement(props, "property", name=name, value=_text(value))
        for run in column_runs:
            outcome = _testcase(suite, run, with_version=with_version, known_rows=known_rows)
            if outcome:
                counts[outcome] += 1
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
        suite.set("time", _seconds(sum(run.seconds for run in column_runs)))
    root.append(_coverage_suite(matrix))
    for key, value in totals.items():
        root.set(key, str(value))
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _testcase(suite: ET.Element, run: ScenarioResult, *, with_version: bool, known_rows: set[str]) -> str:
    """Adds the run's testcase; returns which counter it bumps (failures, errors, skipped) or ''."""
    params = with_provider([run.implementation, *([run.version] if with_version else []), run.mode], run.provider)
    case = ET.SubElement(suite, "testcase", classname=_text(run.section or "scenarios"),
                         name=_text(f"{run.scenario}[{'-'.join(params)}]"), time=_seconds(run.seconds))
    if run.path:
        case.set("file", _text(display_path(run.path)))
        case.set("line", str(run.line))
    props = ET.SubElement(case, "properties")
    for row in run.spec_rows:
        # Unknown rows keep their own property name so a dashboard never counts them as spec coverage.
        ET.SubElement(props, "property", name="spec_row" if row in known_rows else "spec_row_unknown",
                      value=_text(row))
    for name, value in (("scenario", run.scenario), ("implementation", run.implementation),
                        ("version", run.version), ("mode", run.mode), ("provider", run.provider),
                        ("verdict", run.verdict)):
        ET.SubElement(props, "property", name=name, value=_text(value))
    for entry in run.entries:
        ET.SubElement(props, "property", name="entry", value=_text(entry))
    problems = problem_checks(run)
    for profile in sorted({c.profile or "contract" for c in problems}):
        ET.SubElement(props, "property", name="failing_profile", value=profile)
    body = "\n".join(_check_text(check_line(c), c.details, tuple(check_diff(c))) for c in problems)
    if run.verdict in ("fail", "error"):
        tag = "failure" if run.verdict == "fail" else "error"
        failing = [c for c in problems if c.verdict == run.verdict] or problems
        message = "; ".join(check_line(c) for c in failing) or run.reason or run.verdict
        element = ET.SubElement(case, tag, message=_text(message), type=_text(run.verdict))
        element.text = _text("\n".join(filter(None, [f"reason: {run.reason}" if run.reason else "", body])))
        return "failures" if tag == "failure" else "errors"
    if run.verdict == "differs":
        # Not a failure: the loop does something the implementation does not claim to do otherwise. A passed
        # testcase, saying what differs.
        ET.SubElement(props, "property", name="differs", value=_text("; ".join(check_line(c) for c in problems)
                                                                     or run.reason or "differs"))
        out = ET.SubElement(case, "system-out")
        out.text = _text("\n".join(filter(None, [f"differs: {run.reason}" if run.reason else "differs", body])))
        return ""
    if run.verdict in ("xfail", "n/a"):
        label = "known failure" if run.verdict == "xfail" else "n/a"
        # apply_baseline already starts its reasons with "known failure:"; do not say it twice.
        reason = run.reason.strip()
        message = reason if reason.lower().startswith(label) else f"{label}: {reason}" if reason else label
        element = ET.SubElement(case, "skipped", message=_text(message), type=_text(run.verdict))
        element.text = _text(body) if body else None
        return "skipped"
    return ""


def _seconds(value: float) -> str:
    return f"{value:.3f}"


def _check_text(line: str, details: tuple[str, ...], diff: tuple[str, ...]) -> str:
    lines = [line]
    if len(details) > 1:
        lines += [f"    {d}" for d in details]
    lines += [f"    {d}" for d in diff]
    return "\n".join(lines)


def _coverage_suite(matrix: CoverageMatrix) -> ET.Element:
    gaps = matrix.gaps
    suite = ET.Element("testsuite", name="coverage", tests="0", failures="0", errors="0", skipped="0", time="0")
    props = ET.SubElement(suite, "properties")

    def prop(name: str, value: str) -> None:
        ET.SubElement(props, "property", name=name, value=_text(value))

    prop("filtered", str(matrix.filtered).lower())
    prop("full_coverage", str(matrix.claims_full_coverage).lower())
    prop("rows", str(len(matrix.rows)))
    prop("covered_rows", str(len(matrix.covered_rows)))
    for row in gaps.uncovered_rows:
        prop("uncovered_row", uncovered_text(row))
    for unknown in gaps.unknown_rows:
        prop("unknown_row", f"{unknown.scenario}: {unknown.row}")
    for only in gaps.xfail_only:
        prop("xfail_only_row", f"{only.row.section} › {only.row.name}: " + ", ".join(c.label for c in only.columns))
    for na in gaps.unexplained_na:
        prop("na_without_reason", f"{na.row.name}, {na.column.label}: " + ", ".join(na.scenarios))
    for rowless in gaps.rowless_scenarios:
        prop("rowless_scenario", f"{rowless.scenario}: " + ", ".join(rowless.verdicts))
    out = ET.SubElement(suite, "system-out")
    lines = ([FILTERED_BANNER] if matrix.filtered else []) + [headline(matrix)]
    counts = {"uncovered_rows": len(gaps.uncovered_rows), "unknown_rows": len(gaps.unknown_rows),
              "xfail_only": len(gaps.xfail_only), "unexplained_na": len(gaps.unexplained_na),
              "rowless_scenarios": len(gaps.rowless_scenarios)}
    lines += [f"{GAP_TITLES[key][0]}: {n}" for key, n in counts.items()]
    out.text = _text("\n".join(lines))
    return suite

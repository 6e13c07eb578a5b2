"""The JSON coverage report follows its documented schema."""

from __future__ import annotations

import json
from typing import Any

from harness.reporting.coverage import build_coverage
from harness.reporting.coverage_json import SCHEMA_PATH, coverage_document, render_json
from harness.reporting.documents import parse_results_document
from harness.scenario.spec_rows import SPEC_ROWS

from .helpers import both_modes, check, document, run
from .schema_check import validate

SCHEMA: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))

RICH = document(
    both_modes("normal.single-call", ["Single non-streaming call"]),
    run("normal.streaming-call", ["Streaming call"], impl="agent_framework", version="1.10.0", mode="streaming",
        verdict="fail", checks=[check("stream-agreement", "fail", "differs", turn=1, details=["a", "b"],
                                      diff=["-x", "+y"], expected="x", actual="y")]),
    run("normal.streaming-call", ["Streaming call"], impl="agent_framework", version="1.23.0", mode="streaming",
        verdict="xfail", reason="known failure: documented",
        checks=[check("stream-agreement", "xfail", "differs")]),
    run("normal.informational", ["Informational-only call"], impl="agent_framework", version="1.10.0",
        verdict="n/a"),
    run("normal.typo", ["No such row"]),
    run("scenarios/normal/bad.yaml", [], verdict="error", reason="malformed scenario file",
        checks=[check("scenario-file", "error", "bad")]),
    filtered=True,
)


def test_the_schema_is_itself_well_formed_and_documented() -> None:
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert SCHEMA["additionalProperties"] is False
    assert all("description" in SCHEMA["properties"][key] or "$ref" in SCHEMA["properties"][key]
               for key in ("filtered", "full_coverage", "columns", "sections", "runs", "gaps"))


def test_report_validates_against_the_schema() -> None:
    text = render_json(build_coverage(parse_results_document(RICH), SPEC_ROWS))
    data = json.loads(text)
    assert validate(data, SCHEMA) == []
    assert data["filtered"] is True
    assert data["full_coverage"] is False
    assert data["totals"]["rows"] == len(SPEC_ROWS)
    assert data["gaps"]["unknown_rows"] == [{"scenario": "normal.typo", "row": "No such row"}]
    assert [g["row"]["name"] for g in data["gaps"]["unexplained_na"]] == ["Informational-only call"]
    streaming = next(r for s in data["sections"] for r in s["rows"] if r["name"] == "Streaming call")
    assert streaming["cells"]["agent_framework/1.10.0/streaming"] == {
        "status": "fail", "general": None,
        "runs": [{"scenario": "normal.streaming-call", "verdict": "fail", "own": "fail", "general_checks": []}]}


def test_an_empty_unfiltered_report_validates_too() -> None:
    data = coverage_document(build_coverage(parse_results_document(document()), SPEC_ROWS))
    assert validate(data, SCHEMA) == []
    assert data["columns"] == []
    assert data["banner"] is None


def test_the_validator_rejects_what_the_schema_forbids() -> None:
    data = coverage_document(build_coverage(parse_results_document(RICH), SPEC_ROWS))
    data["surprise"] = 1
    data["totals"]["rows"] = -1
    data["runs"][0]["verdict"] = "maybe"
    del data["gaps"]["xfail_only"]
    problems = validate(data, SCHEMA)
    assert "$: unexpected property 'surprise'" in problems
    assert "$.totals.rows: -1 < 0" in problems
    assert any(p.startswith("$.runs[0].verdict: 'maybe' is not one of") for p in problems)
    assert "$.gaps: missing required 'xfail_only'" in problems

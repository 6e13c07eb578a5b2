"""The functions behind `report`, `gate` and `diff`: files in, reports out, exit codes."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from requirements_helper import SPEC_MISSING, require

from harness.reporting.commands import append_step_summary, load_rows, report_command
from harness.reporting.documents import ResultsDocument
from harness.scenario.spec_rows import SPEC_ROWS

from .helpers import SPEC_FILE, both_modes, document, run


def _results(tmp_path: Path, name: str, data: dict[str, Any]) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def test_report_writes_all_four_formats_from_several_versions(tmp_path: Path) -> None:
    old = _results(tmp_path, "1.12.0.json", document(both_modes("a", ["Streaming call"], impl="af",
                                                                version="1.12.0"), filtered=False))
    new = _results(tmp_path, "1.13.0.json", document(both_modes("a", ["Streaming call"], impl="af",
                                                                version="1.13.0"), filtered=False))
    out = io.StringIO()
    assert report_command([old, new], tmp_path / "reports", stdout=out) == 0
    names = sorted(p.name for p in (tmp_path / "reports").iterdir())
    assert names == ["coverage.html", "coverage.json", "coverage.md", "invariants.html", "invariants.md", "junit.xml",
                       "spec-matrix.md"]
    data = json.loads((tmp_path / "reports" / "coverage.json").read_text())
    assert [c["id"] for c in data["columns"]] == ["af/1.12.0/non-streaming", "af/1.12.0/streaming",
                                                  "af/1.13.0/non-streaming", "af/1.13.0/streaming"]
    cases = ET.parse(tmp_path / "reports" / "junit.xml").getroot().findall(".//testcase")
    assert sorted(c.get("name") or "" for c in cases)[0] == "a[af-1.12.0-non-streaming]"
    assert "note: filtered" not in out.getvalue()


def test_report_on_filtered_results_says_so(tmp_path: Path) -> None:
    path = _results(tmp_path, "r.json", document(run("a", ["Streaming call"]), filtered=True))
    out = io.StringIO()
    assert report_command([path], tmp_path / "out", stdout=out) == 0
    assert "note: filtered results; the reports do not claim full coverage" in out.getvalue()


def test_rows_come_from_a_spec_file_when_given() -> None:
    require(SPEC_FILE.exists(), SPEC_MISSING)
    assert [r.name for r in load_rows(SPEC_FILE)] == [r.name for r in SPEC_ROWS]


def test_a_spec_file_without_matrix_rows_is_an_error(tmp_path: Path) -> None:
    spec = tmp_path / "spec.md"
    spec.write_text("# A spec\n\nNo matrix here.\n")
    results = _results(tmp_path, "r.json", document())
    err = io.StringIO()
    assert report_command([results], tmp_path / "out", spec, stderr=err) == 2
    assert "no rows found under a '## Scenario-to-test matrix' heading" in err.getvalue()


def test_a_broken_results_file_is_an_error(tmp_path: Path) -> None:
    broken = tmp_path / "r.json"
    broken.write_text('{"results": [{"scenario": "a"}]}')
    err = io.StringIO()
    assert report_command([broken], tmp_path / "out", stderr=err) == 2
    assert "results[0]" in err.getvalue()


def test_the_job_summary_goes_to_the_github_step_summary_only_on_github(tmp_path: Path) -> None:
    document = ResultsDocument((), filtered=True)
    assert append_step_summary(document, env={}) is None
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    env = {"GITHUB_STEP_SUMMARY": str(summary), "GITHUB_SERVER_URL": "https://github.com",
           "GITHUB_REPOSITORY": "o/r", "GITHUB_RUN_ID": "7"}
    assert append_step_summary(document, env=env) == summary
    text = summary.read_text()
    assert text.startswith("earlier step\n## Loop conformance\n")  # appended: other steps' summaries stay
    assert text.rstrip().endswith("https://github.com/o/r/actions/runs/7#artifacts")

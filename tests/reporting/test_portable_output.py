"""What a run writes carries no machine path, and each run's real duration reaches JUnit."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from harness import BUNDLED_SCENARIOS, run_suite
from harness.adapters.reference import adapter
from harness.reporting.coverage import build_coverage
from harness.reporting.documents import ResultsDocument, load_results_document
from harness.reporting.json_report import write_json
from harness.reporting.junit import render_junit
from harness.reporting.wording import display_path


def test_paths_are_relative_to_the_working_directory_or_the_scenario_root(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    scenario = BUNDLED_SCENARIOS / "normal" / "single-call.yaml"
    monkeypatch.chdir(BUNDLED_SCENARIOS.parent)
    assert display_path(str(scenario)) == "scenarios/normal/single-call.yaml"
    monkeypatch.chdir(tmp_path)  # elsewhere: relative to the folder holding the bundled scenario root
    assert display_path(str(scenario)) == "scenarios/normal/single-call.yaml"
    assert display_path(str(tmp_path / "mine" / "x.yaml")) == "mine/x.yaml"
    assert display_path("/somewhere/else/suite/x.yaml") == "suite/x.yaml"
    assert display_path("already/relative.yaml") == "already/relative.yaml"


def test_a_results_file_holds_relative_paths_and_junit_real_durations(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    suite = run_suite([adapter()], [BUNDLED_SCENARIOS / "normal" / "single-call.yaml"])
    assert all(run.seconds > 0 for run in suite.results)
    assert all(Path(run.path).is_absolute() for run in suite.results)  # in memory, the file itself
    write_json(tmp_path / "r.json", suite.results, filtered=True)
    stored = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["results"]
    assert {r["path"] for r in stored} == {"scenarios/normal/single-call.yaml"}
    assert all(r["seconds"] > 0 for r in stored)
    document = load_results_document(tmp_path / "r.json")
    root = ET.fromstring(render_junit(build_coverage(ResultsDocument(document.results, True))))
    cases = list(root.iter("testcase"))
    assert cases
    assert all(float(case.get("time") or 0) > 0 for case in cases)
    assert all(case.get("file") == "scenarios/normal/single-call.yaml" for case in cases)

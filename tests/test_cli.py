"""The loop-conformance command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "normal" / "single-call.yaml"


def _copy(tmp_path: Path, text: str, name: str = "single-call.yaml") -> Path:
    folder = tmp_path / "normal"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(text)
    return tmp_path


def test_run_passes_and_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _copy(tmp_path, SCENARIO.read_text())
    out = tmp_path / "results.json"
    reports = str(tmp_path / "reports")
    assert main(["run", "--impl", "reference", "--scenarios", str(root), "--json", str(out), "--reports", reports]) == 0
    printed = capsys.readouterr().out
    assert "normal       2      0      0      0      0" in printed
    document = json.loads(out.read_text())
    results = document["results"]
    assert {(r["implementation"], r["mode"], r["verdict"]) for r in results} == {
        ("reference", "non-streaming", "pass"), ("reference", "streaming", "pass")}
    first = results[0]
    assert first["scenario"] == "normal.single-call"
    assert first["spec_rows"] == ["Single non-streaming call"]
    assert {"id": "exactly-once", "verdict": "pass", "message": ""} in first["checks"]
    assert document["filtered"] is True
    written = sorted(p.name for p in (tmp_path / "reports").iterdir())
    assert written == ["coverage.html", "coverage.json", "coverage.md", "junit.xml"]
    assert "Filtered run" in (tmp_path / "reports" / "coverage.md").read_text()


def test_run_fails_with_details_when_an_expectation_breaks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _copy(tmp_path, SCENARIO.read_text().replace("model_calls: 2", "model_calls: 3"))
    args = ["run", "--impl", "reference", "--scenarios", str(root), "--mode", "non-streaming", "--no-reports"]
    assert main(args) == 1
    printed = capsys.readouterr().out
    assert "FAIL normal.single-call [reference, non-streaming]" in printed
    assert "turn 1 (line 15), check expect.model-calls: 2 model calls, expected 3" in printed


def test_malformed_file_is_reported_and_the_rest_still_runs(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    root = _copy(tmp_path, SCENARIO.read_text())
    _copy(tmp_path, "id: normal.x\ntitle: t\nspec: [Streaming call]\nturns: {}\n", "bad.yaml")
    assert main(["run", "--impl", "reference", "--scenarios", str(root), "--no-reports"]) == 1
    captured = capsys.readouterr()
    assert "bad.yaml:4:8: error[wrong-type]: turns: Input should be a valid list" in captured.err
    assert "normal       2      0      2      0      0" in captured.out


def test_unknown_implementation_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--impl", "missing"]) == 2
    assert "no implementation named 'missing'" in capsys.readouterr().err


def test_schema_is_a_json_schema_rejecting_unknown_keys(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["additionalProperties"] is False
    assert {"id", "title", "spec"} <= set(schema["required"])
    assert "not_observable" in schema["properties"]
    assert "TurnSpec" in schema["$defs"]


def test_list_names_the_reference_implementation(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list"]) == 0
    assert "reference" in capsys.readouterr().out.split()


def test_gate_and_diff_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _copy(tmp_path, SCENARIO.read_text())
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    assert main(["run", "--impl", "reference", "--scenarios", str(root), "--json", str(old), "--no-reports"]) == 0
    _copy(tmp_path, SCENARIO.read_text().replace("model_calls: 2", "model_calls: 3"))
    assert main(["run", "--impl", "reference", "--scenarios", str(root), "--json", str(new), "--no-reports"]) == 1
    empty = tmp_path / "baseline.yaml"
    empty.write_text("known_failures: []\n")
    capsys.readouterr()
    assert main(["gate", "--baseline", str(empty), str(old)]) == 0
    assert main(["gate", "--baseline", str(empty), str(new)]) == 1
    assert "expect.model-calls" in capsys.readouterr().out
    assert main(["diff", str(old), str(new)]) == 0
    table = capsys.readouterr().out
    assert "normal.single-call" in table
    assert "| `expect.model-calls` | pass → **fail** |" in table

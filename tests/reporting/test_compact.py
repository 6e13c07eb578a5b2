"""Compact release files: what the gate and the version matrix need of each run, and the same verdicts, gate and
matrix as the full files they come from. The fixture (tests/data/versions-full/) is three real release files of the
version sweep cut down to three scenarios."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from text_diff import assert_same_text
from tool_loader import load_tool

from harness.reporting.baseline import BUNDLED_BASELINE, load_baseline, rejudge
from harness.reporting.compact import compact_document, expand_compact, render_compact, write_compact
from harness.reporting.documents import ResultsDocument, ResultsFileError, load_results_document
from harness.reporting.gate import gate, load_gate_baseline
from harness.reporting.version_matrix import load_results, render_json, render_markdown
from harness.results import CheckResult, ScenarioResult

from .helpers import REPO_ROOT

FULL = REPO_ROOT / "tests" / "data" / "versions-full"
PACKAGES = {"agent_framework": "agent-framework-core", "agent_framework_stateless": "agent-framework-core",
            "agent_framework_ag_ui": "agent-framework-ag-ui", "pydantic_ai": "pydantic-ai-slim"}
compact_results = load_tool("compact_results")


def _full_files() -> list[Path]:
    return sorted(FULL.rglob("*.json"))


@pytest.fixture(scope="module")
def compact_files(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    out = tmp_path_factory.mktemp("compact")
    assert compact_results.main([str(FULL), "--out", str(out)]) == 0
    return [out / path.relative_to(FULL) for path in _full_files()]


def test_the_matrix_built_from_compact_files_equals_the_one_from_full_files(compact_files: list[Path]) -> None:
    known = load_baseline(BUNDLED_BASELINE).known_failures
    for baseline in (None, known):  # as swept, and judged again against today's baseline (`nox -s versions`)
        full = load_results(_full_files(), baseline)
        compact = load_results(compact_files, baseline)
        label = "matrix from the compact files" + (" judged again" if baseline else "")
        assert_same_text(render_markdown(compact, packages=PACKAGES), render_markdown(full, packages=PACKAGES),
                         label=f"{label} (.md)")
        assert_same_text(render_json(compact, packages=PACKAGES), render_json(full, packages=PACKAGES),
                         label=f"{label} (.json)")
    markdown = render_markdown(load_results(compact_files, known), packages=PACKAGES)
    assert "## agent_framework_ag_ui (agent-framework-core 1.12.1 – 1.13.0, with agent-framework-ag-ui)" in markdown
    lines = markdown.splitlines()
    known_failure = lines.index("- **normal.string-input** (non-streaming, streaming; 1.12.1 – 1.12.1):")
    assert lines[known_failure + 1].startswith("  - Spec row")  # each reason of the entries on a line of its own


def test_the_gate_judges_a_compact_file_as_its_full_file(compact_files: list[Path]) -> None:
    entries = load_gate_baseline(BUNDLED_BASELINE)
    for full_path, compact_path in zip(_full_files(), compact_files, strict=True):
        full, compact = gate(load_results_document(full_path), entries), gate(load_results_document(compact_path),
                                                                             entries)
        assert full.passed
        assert compact.passed
        assert [f.describe().split(" [")[0] for f in compact.known] == [f.describe().split(" [")[0]
                                                                        for f in full.known]
        assert (len(compact.stale_entries), len(compact.unexercised)) == (len(full.stale_entries),
                                                                         len(full.unexercised))


def test_rejudging_a_compact_run_gives_the_verdict_of_its_full_run(compact_files: list[Path]) -> None:
    known = load_baseline(BUNDLED_BASELINE).known_failures
    for full_path, compact_path in zip(_full_files(), compact_files, strict=True):
        full = {(r.scenario, r.implementation, r.mode, r.provider): rejudge(r, known).verdict
                for r in load_results_document(full_path).results}
        compact = {(r.scenario, r.implementation, r.mode, r.provider): rejudge(r, known).verdict
                   for r in load_results_document(compact_path).results}
        assert compact == full


def test_compact_files_are_a_fraction_of_the_full_ones_and_carry_no_text_of_a_run(compact_files: list[Path]) -> None:
    assert sum(p.stat().st_size for p in compact_files) * 4 < sum(p.stat().st_size for p in _full_files())
    text = compact_files[0].read_text(encoding="utf-8")
    full = json.loads(_full_files()[0].read_text(encoding="utf-8"))
    messages = {c["message"] for r in full["results"] for c in r["checks"] if c["message"]}
    assert messages
    assert not any(message in text for message in messages)
    assert "scenarios/" not in text
    assert '"log"' not in text
    assert '"title"' not in text


def _run(**changes: Any) -> ScenarioResult:
    base = ScenarioResult("normal.single-call", "Title", ("Single non-streaming call",), "normal", "loop", "1.0",
                          "streaming", "pass", checks=(CheckResult("completes", "pass"),),
                          path="/home/ci/checkout/scenarios/normal/single-call.yaml", line=3, log=("a log line",))
    return replace(base, **changes)


def test_profiles_citations_entries_and_differs_survive_and_messages_do_not() -> None:
    differing = _run(verdict="differs", entries=("design:binding",), checks=(
        CheckResult("completes", "pass"), CheckResult("approved-once", "pass", turn=1),
        CheckResult("approved-once", "fail", "ran without approval", turn=2, profile="contract",
                    cites=("row:Approved streaming resume", "sentence:approval-binding")),
        CheckResult("parallel-order", "n/a")))
    known = _run(mode="non-streaming", verdict="xfail", entries=("known:loop-order",),
                 checks=(CheckResult("completes", "pass"), CheckResult("expect.requests", "xfail", "differs here")))
    document = ResultsDocument((differing, known), filtered=False, release="1.0")
    text = render_compact(compact_document(document))
    assert "ran without approval" not in text
    assert "/home/ci" not in text
    assert "a log line" not in text
    back = expand_compact(json.loads(text))
    assert (back.release, back.filtered) == ("1.0", False)
    by_mode = {r.mode: r for r in back.results}
    assert by_mode["streaming"].verdict == "differs"
    assert by_mode["streaming"].entries == ("design:binding",)
    failing = [c for c in by_mode["streaming"].checks if c.verdict == "fail"]
    assert [(c.id, c.profile, c.cites) for c in failing] == [
        ("approved-once", "contract", ("row:Approved streaming resume", "sentence:approval-binding"))]
    assert {c.id: c.verdict for c in by_mode["streaming"].checks if c.id != "approved-once"} == {
        "completes": "pass", "parallel-order": "n/a"}
    assert [(c.id, c.verdict) for c in by_mode["non-streaming"].checks] == [("completes", "pass"),
                                                                             ("expect.requests", "xfail")]
    assert (by_mode["non-streaming"].path, by_mode["non-streaming"].spec_rows) == ("", ("Single non-streaming call",))


def test_converting_again_writes_the_same_bytes_and_a_changed_run_changes_one_line(tmp_path: Path) -> None:
    source = _full_files()[0]
    target = tmp_path / "1.12.1.json"
    assert write_compact(source, target) is True
    first = target.read_text(encoding="utf-8")
    assert write_compact(source, target) is False
    assert_same_text(target.read_text(encoding="utf-8"), first, label="1.12.1.json written again")
    full = json.loads(source.read_text(encoding="utf-8"))
    run = next(r for r in full["results"] if r["verdict"] == "xfail")
    run["verdict"] = "pass"
    run["checks"] = [c | {"verdict": "pass"} for c in run["checks"]]
    changed = tmp_path / "changed-full.json"
    changed.write_text(json.dumps(full), encoding="utf-8")
    assert write_compact(changed, target) is True
    before, after = first.splitlines(), target.read_text(encoding="utf-8").splitlines()
    assert len(before) == len(after)
    differing = [line for line, other in zip(before, after, strict=True) if line != other]
    assert len(differing) == 1
    assert differing[0].lstrip().startswith(json.dumps(run["scenario"]))


def test_a_broken_compact_file_is_a_located_error(tmp_path: Path) -> None:
    broken = tmp_path / "1.0.json"
    broken.write_text(json.dumps({"format": "loop-conformance-compact-results/1", "columns": [{"implementation": "x",
                                  "version": "1", "mode": "streaming"}], "scenarios": {"a.b": {"runs": []}}}))
    with pytest.raises(ResultsFileError, match=r"1\.0\.json: 0 cells for 1 columns"):
        load_results_document(broken)

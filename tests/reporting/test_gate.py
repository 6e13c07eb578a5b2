"""The gate: new failing checks and baseline entries that now pass both fail it; the per-scenario format expands."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from harness.reporting.baseline import BaselineError, KnownFailure
from harness.reporting.commands import gate_command
from harness.reporting.gate import CheckBaselineEntry, gate, load_gate_baseline

from .helpers import check, document, run

REASON = "The loop forwards the string input unconverted, so the model receives no user message at all."


def _entry(check_id: str = "expect.requests", mode: str = "non-streaming", **kwargs: str | bool) -> CheckBaselineEntry:
    return CheckBaselineEntry.model_validate({"scenario": "normal.string-input", "check": check_id,
                                              "implementation": "agent_framework", "mode": mode,
                                              "reason": REASON} | kwargs)


def _string_input(verdict: str, *, version: str = "1.12.0", mode: str = "non-streaming",
                  failing: tuple[str, ...] = ("expect.requests",)) -> dict[str, Any]:
    checks = [check("completes")] + [check(c, verdict, "no user message", turn=1) for c in failing]
    if verdict == "pass":
        checks = [check("completes"), *(check(c) for c in failing)]
    return run("normal.string-input", ["String input"], impl="agent_framework", version=version, mode=mode,
               verdict=verdict, checks=checks)


def test_clean_pass() -> None:
    outcome = gate(document(run("normal.single-call", ["Single non-streaming call"])), [])
    assert outcome.passed
    assert outcome.exit_code == 0
    assert outcome.render() == (
        "Gate passed: every failing check is in the baseline, and no baseline entry now passes.\n\n"
        "0 failing checks are outside the baseline (no regression).\n"
        "0 baseline entries now pass (nothing to remove).\n"
        "0 failing checks are in the baseline (expected failures: they do not fail the gate).\n")


def test_a_failing_check_the_baseline_covers_passes_the_gate() -> None:
    outcome = gate(document(_string_input("fail")), [_entry(versions_from="1.10.0", versions_until="1.13.0")])
    assert outcome.passed
    assert [k.check for k in outcome.known] == ["expect.requests"]


def test_a_new_failure_fails_the_gate_and_is_listed() -> None:
    doc = document(_string_input("fail", failing=("expect.requests", "no-orphans")))
    outcome = gate(doc, [_entry()])
    assert not outcome.passed
    assert outcome.exit_code == 1
    assert [(f.scenario, f.check, f.mode) for f in outcome.new_failures] == [
        ("normal.string-input", "no-orphans", "non-streaming")]
    text = outcome.render()
    assert text.startswith("Gate FAILED: 1 failing check is not in the baseline, 0 baseline entries now pass.\n")
    assert "1 failing check is not in the baseline (1 regression: fix, or add a baseline entry with the reason):\n" \
           "  - normal.string-input · no-orphans · agent_framework 1.12.0 non-streaming [fail]: no user message\n" \
           in text
    assert "1 failing check is in the baseline (expected failures: they do not fail the gate)." in text


def test_an_entry_outside_its_release_range_does_not_cover_a_failure() -> None:
    outcome = gate(document(_string_input("fail", version="1.13.0")), [_entry(versions_until="1.13.0")])
    assert [f.check for f in outcome.new_failures] == ["expect.requests"]
    assert outcome.unexercised == (_entry(versions_until="1.13.0"),)


def test_xfail_checks_of_a_run_that_applied_a_baseline_are_failing_checks() -> None:
    doc = document(_string_input("xfail"))
    assert [f.verdict for f in gate(doc, []).new_failures] == ["xfail"]
    assert gate(doc, [_entry()]).passed


def test_a_stale_entry_fails_the_gate_and_is_listed() -> None:
    outcome = gate(document(_string_input("pass")), [_entry(versions_from="1.10.0")])
    assert not outcome.passed
    assert not outcome.new_failures
    [stale] = outcome.stale_entries
    assert stale.passing_in == ("1.12.0 non-streaming",)
    assert ("1 baseline entry now passes (fixed: remove from the baseline):\n  - normal.string-input · "
            "expect.requests · agent_framework non-streaming (version ≥ 1.10.0): passes on 1.12.0 non-streaming"
            ) in outcome.render()


def test_an_intermittent_entry_covers_its_failures_and_is_never_stale() -> None:
    """A defect that shows on some runs only: a run where it did not show says nothing of a fix."""
    entry = _entry(versions_until="1.13.0", intermittent=True)
    assert gate(document(_string_input("fail")), [entry]).passed
    outcome = gate(document(_string_input("pass")), [entry])
    assert outcome.passed
    assert not outcome.unexercised


def test_the_stale_marker_of_a_run_that_applied_a_baseline_is_not_a_new_failure() -> None:
    passing = _string_input("pass")
    passing["verdict"] = "fail"
    passing["checks"].append(check("baseline", "fail", "known failure now passes"))
    outcome = gate(document(passing), [_entry()])
    assert not outcome.new_failures
    assert len(outcome.stale_entries) == 1


def test_entries_no_run_reaches_are_neither_stale_nor_failures() -> None:
    na = run("normal.string-input", ["String input"], impl="agent_framework", verdict="n/a", reason="lacks it")
    outcome = gate(document(na, filtered=True), [_entry(), _entry(mode="streaming")])
    assert outcome.passed
    assert len(outcome.unexercised) == 2
    assert "Filtered run" in outcome.render()
    assert ("2 baseline entries were not judged (no run in these results reached the check: another "
            "implementation, mode, provider or release, or an n/a run).") in outcome.render()


def test_every_number_the_gate_prints_says_what_it_counts() -> None:
    doc = document(_string_input("fail", failing=("expect.requests", "no-orphans", "script")),
                   _string_input("pass", mode="streaming"))
    entries = [_entry(), _entry("script"), _entry(mode="streaming"), _entry("no-orphans", mode="streaming"),
               _entry(versions_until="1.0.0")]
    text = gate(doc, entries).render()
    assert text.splitlines() == [
        "Gate FAILED: 1 failing check is not in the baseline, 1 baseline entry now passes.",
        "",
        "1 failing check is not in the baseline (1 regression: fix, or add a baseline entry with the reason):",
        "  - normal.string-input · no-orphans · agent_framework 1.12.0 non-streaming [fail]: no user message",
        "1 baseline entry now passes (fixed: remove from the baseline):",
        "  - normal.string-input · expect.requests · agent_framework streaming: passes on 1.12.0 streaming",
        "2 failing checks are in the baseline (expected failures: they do not fail the gate).",
        "2 baseline entries were not judged (no run in these results reached the check: another implementation, "
        "mode, provider or release, or an n/a run).",
    ]


def test_per_scenario_known_failures_expand_to_one_entry_per_check_and_mode() -> None:
    known = KnownFailure(scenario="normal.string-input", implementation="agent_framework",
                         checks=["expect.requests", "script"], versions_from="1.10.0", versions_until="1.13.0",
                         reason=REASON, reproduction="repro/agent_framework/string_input.py")
    doc = document(_string_input("fail", failing=("expect.requests", "script")),
                   _string_input("fail", mode="streaming", failing=("expect.requests",)),
                   run("normal.string-input", ["String input"], impl="agent_framework", version="1.12.0",
                       mode="streaming", verdict="pass", checks=[check("script")]))
    outcome = gate(doc, [known])
    assert not outcome.new_failures
    # "script" passes in the streaming run: the per-check ratchet catches what the per-scenario xfail would not.
    assert [(s.entry.check, s.entry.mode) for s in outcome.stale_entries] == [("script", "streaming")]


def test_one_baseline_file_holds_both_formats(tmp_path: Path) -> None:
    path = tmp_path / "baseline.yaml"
    path.write_text(f"""
check_failures:
  - {{scenario: normal.single-call, check: no-orphans, implementation: reference, mode: streaming,
     reason: "{REASON}"}}
known_failures:
  - scenario: normal.string-input
    implementation: agent_framework
    checks: [script, expect.requests]
    modes: [non-streaming, streaming]
    versions_from: 1.10.0
    versions_until: 1.13.0
    reason: "{REASON}"
    reproduction: repro/agent_framework/string_input.py
""")
    entries = load_gate_baseline(path)
    assert [(e.scenario, e.check, e.mode) for e in entries] == [
        ("normal.single-call", "no-orphans", "streaming"),
        ("normal.string-input", "script", "non-streaming"),
        ("normal.string-input", "expect.requests", "non-streaming"),
        ("normal.string-input", "script", "streaming"),
        ("normal.string-input", "expect.requests", "streaming"),
    ]
    assert {e.versions_until for e in entries[1:]} == {"1.13.0"}


def test_the_bundled_known_failures_file_loads_as_a_gate_baseline() -> None:
    bundled = Path(__file__).resolve().parents[2] / "baselines" / "known-failures.yaml"
    assert all(isinstance(e, CheckBaselineEntry) for e in load_gate_baseline(bundled))


@pytest.mark.parametrize(("text", "problem"), [
    ("check_failures:\n  - {scenario: a, check: b, implementation: c, mode: sideways, reason: too short}\n", "mode"),
    ("check_failures: []\nextra: 1\n", "extra"),
    ("check_failures:\n  - !!python/object:os.system {}\n", "is not supported"),
    (f"check_failures:\n  - {{scenario: a, check: b, implementation: c, mode: streaming, versions_from: 2.0.0, "
     f"versions_until: 1.0.0, reason: '{REASON}'}}\n", "empty release range"),
])
def test_malformed_baselines_are_rejected(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "baseline.yaml"
    path.write_text(text)
    with pytest.raises(BaselineError, match=problem):
        load_gate_baseline(path)


def test_gate_command_prints_both_lists_and_sets_the_exit_code(tmp_path: Path) -> None:
    results = tmp_path / "results.json"
    results.write_text(json.dumps(document(_string_input("fail", failing=("no-orphans",)))))
    baseline = tmp_path / "baseline.yaml"
    baseline.write_text("check_failures:\n" + "".join(
        f"  - {{scenario: normal.string-input, check: {c}, implementation: agent_framework, mode: non-streaming, "
        f"reason: '{REASON}'}}\n" for c in ("expect.requests", "completes")))
    out = io.StringIO()
    assert gate_command(results, baseline, stdout=out) == 1
    text = out.getvalue()
    assert "normal.string-input · no-orphans" in text
    assert "normal.string-input · completes · agent_framework non-streaming: passes on 1.12.0 non-streaming" in text
    assert text.endswith(f"Judged 1 run (scenario × implementation × mode × provider) of {results} against 2 "
                         f"baseline entries of {baseline} (one entry per scenario, check, implementation and mode, "
                         "for one provider or every one).\n")
    err = io.StringIO()
    assert gate_command(tmp_path / "missing.json", baseline, stderr=err) == 2
    assert "missing.json" in err.getvalue()

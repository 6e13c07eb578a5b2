"""The approval layer's format, fakes, reference state and the stateless caller variants."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from fakes.approval_rules import ScriptedApprovalRules
from harness import MODES, ScenarioFileError, load_scenario, run_scenario
from harness.adapters.reference import ReferenceAdapter, stateless_adapter
from harness.adapters.reference.policy import ApprovalState, StandingRule
from harness.adapters.reference.session import LoopSession
from harness.contents import ApprovalRequest, ApprovalResponse, FunctionCall, Message
from harness.contract import SESSION_CAPABILITIES
from harness.reporting.baseline import KnownFailure
from harness.reporting.gate import expand
from harness.results import ScenarioResult
from harness.run.suite import load_all
from harness.scenario.spec_rows import AWAITING, SPEC_ROWS, uncovered_text
from harness.script import ApprovalRuleSpec

BUNDLED = Path(__file__).resolve().parent.parent / "scenarios"

SCENARIO = textwrap.dedent("""\
    id: t.layer
    title: A scenario behind an approval layer
    spec: [Standing tool rule]
    requires: [approval, sessions, approval-policy]
    session: true
    approval_policy:
      auto_approve:
        - {id: drafts, tool: write_draft}
    tools:
      - name: write_draft
        approval: required
        returns: ok
    turns:
      - input: hi
        model:
          - contents:
              - function_call: {call_id: c1, name: write_draft}
          - contents:
              - text: done
        expect:
          rules_asked:
            drafts: [{call_id: c1, name: write_draft}]
          cites: ["Standing tool rule"]
    """)


@pytest.mark.parametrize(("change", "head"), [
    (("requires: [approval, sessions, approval-policy]", "requires: [approval, sessions]"),
     "7:3: error[missing-capability]: 'approval_policy' needs 'approval-policy' in 'requires'"),
    (("session: true\n", ""),
     "6:3: error[missing-capability]: 'approval_policy' needs 'session: true': the layer keeps its state in the "
     "session"),
    (("        drafts: [", "        draft: ["),
     "22:9: error[dangling-reference]: turn 1 › expect › rules_asked refers to unknown auto-approval rule 'draft'"),
    (("    - {id: drafts, tool: write_draft}", "    - {id: drafts, tool: write_draft}\n    - {id: drafts, tool: x}"),
     "7:3: error[invalid-value]: approval_policy: auto-approval rule ids must be unique"),
])
def test_mistakes_in_the_layer_format_name_file_line_and_field(tmp_path: Path, change: tuple[str, str],
                                                               head: str) -> None:
    path = tmp_path / "scenario.yaml"
    assert change[0] in SCENARIO
    path.write_text(SCENARIO.replace(*change), encoding="utf-8")
    with pytest.raises(ScenarioFileError) as caught:
        load_scenario(path)
    assert str(caught.value).splitlines()[0].startswith(f"{path}:{head}"), str(caught.value)


def test_a_standing_decision_needs_the_capability(tmp_path: Path) -> None:
    text = SCENARIO.replace("approval_policy:\n  auto_approve:\n    - {id: drafts, tool: write_draft}\n", "")
    text = text.replace("requires: [approval, sessions, approval-policy]", "requires: [approval, sessions]")
    text = text.replace("    expect:\n      rules_asked:\n        drafts: [{call_id: c1, name: write_draft}]\n"
                        "      cites: [\"Standing tool rule\"]\n", "")
    text += "  - input:\n      - approvals: {c1: approve-always}\n"
    path = tmp_path / "scenario.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioFileError) as caught:
        load_scenario(path)
    assert "error[missing-capability]: a standing approval decision needs 'approval-policy'" in str(caught.value)


async def test_the_rule_is_asked_about_the_call_and_the_question_is_checked(tmp_path: Path) -> None:
    path = tmp_path / "scenario.yaml"
    path.write_text(SCENARIO, encoding="utf-8")
    result = await run_scenario(load_scenario(path), ReferenceAdapter(), "non-streaming")
    asked = [c for c in result.checks if c.id == "expect.rules-asked"]
    assert [c.verdict for c in asked] == ["pass"]
    path.write_text(SCENARIO.replace("drafts: [{call_id: c1, name: write_draft}]", "drafts: []"), encoding="utf-8")
    result = await run_scenario(load_scenario(path), ReferenceAdapter(), "non-streaming")
    assert [c.verdict for c in result.checks if c.id == "expect.rules-asked"] == ["fail"]


def test_scripted_rules_match_by_name_exact_arguments_and_server_and_record_a_copy() -> None:
    rules = ScriptedApprovalRules([
        ApprovalRuleSpec("any-args", "scale"),
        ApprovalRuleSpec("no-args", "flush", {}),
        ApprovalRuleSpec("docs", "search", None, "docs"),
    ])
    any_args, no_args, docs = rules.rules
    rules.turn = 2
    arguments = {"replicas": 3}
    call = FunctionCall("c1", "scale", arguments)
    assert any_args.approves(call)
    arguments["replicas"] = 9  # a loop changing what it passed cannot change what the rule was asked
    assert rules.asked[0].call.arguments == {"replicas": 3}
    assert rules.asked[0].turn == 2
    assert no_args.approves(FunctionCall("c2", "flush", {}))
    assert no_args.approves(FunctionCall("c3", "flush", "{}"))
    assert not no_args.approves(FunctionCall("c4", "flush", {"queue": "payments"}))
    assert docs.approves(FunctionCall("h1", "search", {}, server_label="docs"))
    assert not docs.approves(FunctionCall("h2", "search", {}, server_label="tickets"))
    assert not docs.approves(FunctionCall("l1", "search", {}))
    assert not any_args.approves(FunctionCall("h3", "scale", {}, server_label="docs"))
    assert [a.approved for a in rules.asked] == [True, True, True, False, True, False, False, False]


def test_the_reference_layer_state_round_trips_through_the_session_json() -> None:
    queued = ApprovalRequest("approval-2-q2", FunctionCall("q2", "purge", {}))
    session = LoopSession(approvals=ApprovalState(
        [StandingRule("deploy"), StandingRule("flush", None, {}), StandingRule("search", "docs")], [queued]))
    session.history.append(Message("user", (ApprovalResponse("a1", True, FunctionCall("d1", "deploy", {}), "tool"),)))
    restored = LoopSession.from_json(session.to_json())
    assert restored.approvals == session.approvals
    assert restored.history == session.history
    assert restored.approvals.standing[1].arguments == {}  # "no arguments", never turned into "any"


def test_standing_rules_keep_the_server_boundary_and_exact_arguments() -> None:
    state = ApprovalState()
    state.learn([Message("user", (
        ApprovalResponse("a1", True, FunctionCall("h1", "search", {"q": "x"}, server_label="docs"), "tool"),
        ApprovalResponse("a2", True, FunctionCall("f1", "flush", {}), "arguments"),
        ApprovalResponse("a3", False, FunctionCall("d1", "drop", {}), "tool"),
    ))])
    assert StandingRule("search", "docs") in state.standing
    assert not any(r.covers(FunctionCall("h2", "search", {}, server_label="tickets")) for r in state.standing)
    assert not any(r.covers(FunctionCall("l1", "search", {})) for r in state.standing)
    assert any(r.covers(FunctionCall("f2", "flush", {})) for r in state.standing)
    assert not any(r.covers(FunctionCall("f3", "flush", {"queue": "p"})) for r in state.standing)
    assert not any(r.covers(FunctionCall("d2", "drop", {})) for r in state.standing)  # a rejection sets no rule


def test_a_known_failure_may_name_several_implementations() -> None:
    known = KnownFailure(scenario="s.x", implementation=["agent_framework", "agent_framework_stateless"],
                         checks=["approved-once"], reason="x" * 40, reproduction="repro/x.py")

    def result(implementation: str) -> ScenarioResult:
        return ScenarioResult(scenario="s.x", title="t", spec_rows=(), section="s", implementation=implementation,
                              version="1.0", mode="streaming", verdict="fail", checks=())

    assert known.matches(result("agent_framework_stateless"))
    assert not known.matches(result("reference"))
    assert sorted({e.implementation for e in expand([known])}) == ["agent_framework", "agent_framework_stateless"]


def test_the_stateless_variant_holds_no_session() -> None:
    variant = stateless_adapter()
    assert variant.name == "reference_stateless"
    assert not variant.capabilities & SESSION_CAPABILITIES
    assert ReferenceAdapter().capabilities - variant.capabilities == SESSION_CAPABILITIES


@pytest.mark.parametrize("mode", MODES)
async def test_the_stateless_reference_agrees_with_the_reference_on_caller_kept_history(mode: str) -> None:
    scenario = load_scenario(BUNDLED / "mixed" / "safe-and-gated-caller-history.yaml")
    session_scenario = load_scenario(BUNDLED / "mixed" / "safe-and-gated-session.yaml")
    assert (await run_scenario(scenario, stateless_adapter(), mode)).verdict == "pass"  # type: ignore[arg-type]
    assert (await run_scenario(session_scenario, stateless_adapter(), mode)).verdict == "n/a"  # type: ignore[arg-type]


def test_the_awaiting_rows_of_the_section_say_why_and_no_scenario_claims_them() -> None:
    assert set(AWAITING) <= {row.name for row in SPEC_ROWS}  # every awaiting row is a row of the catalogue
    section = "Mixed batches and approval middleware"
    rows = {row.name: row for row in SPEC_ROWS if row.section == section}
    assert not set(rows) & set(AWAITING)  # scenarios/agui/ covers the section's AG-UI rows
    assert all(uncovered_text(row).endswith(f"({AWAITING[row.name]})") for row in SPEC_ROWS if row.name in AWAITING)
    claimed = {name for scenario in load_all([BUNDLED])[0] for name in scenario.spec.spec}
    assert not claimed & set(AWAITING), "a scenario covers a row marked as awaiting: drop it from AWAITING"
    assert set(rows) - set(AWAITING) <= claimed, "every other row of the section has a scenario"

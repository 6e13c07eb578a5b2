"""The approval invariants catch each approval negative control with the intended check, pass the correct loops,
and correlate decisions, executions and results by occurrence (reused call ids, executions without call ids)."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Literal

import pytest
from negative_controls import SCENARIOS, adapter_for
from negative_controls_approval import APPROVAL_CONTROLS, ApprovalControl

from harness import MODES, Mode, Scenario, ScenarioResult, load_scenario, run_scenario
from harness.adapters.reference import ReferenceAdapter
from harness.adapters.reference.loop import ReferenceLoop
from harness.checks.approvals import APPROVAL_CHECKS, APPROVAL_INVARIANTS, NO_APPROVALS
from harness.checks.invariants import INVARIANTS
from harness.contents import (
    ApprovalRequest,
    ApprovalResponse,
    Content,
    FunctionCall,
    FunctionResult,
    Message,
    Response,
    Role,
    Text,
    UserInputRequest,
)
from harness.contract import CallerView, LoopAdapter
from harness.records import RunRecord, TurnRecord
from harness.results import EXPECT_CHECKS, INVARIANT_CHECKS, RUN_CHECKS, CheckResult
from harness.run.runner import subject
from harness.script import ModelRequest, ModelStep, ToolExecution

JUDGED = set(INVARIANT_CHECKS) | set(RUN_CHECKS)
APPROVAL_SCENARIOS = sorted(SCENARIOS.glob("approval-*.yaml"))


@cache
def _scenario(path: Path) -> Scenario:
    return load_scenario(path)


def _failed(result: ScenarioResult) -> set[str]:
    return {check.id for check in result.checks if check.verdict == "fail"}


def _verdicts(result: ScenarioResult) -> dict[str, set[str]]:
    verdicts: dict[str, set[str]] = {}
    for check in result.checks:
        verdicts.setdefault(check.id, set()).add(check.verdict)
    return verdicts


# --- wiring -----------------------------------------------------------------------------------------------------


def test_the_approval_checks_are_universal_invariants() -> None:
    assert set(APPROVAL_CHECKS) <= set(INVARIANT_CHECKS)
    assert set(APPROVAL_INVARIANTS) <= set(INVARIANTS)
    assert len(set(APPROVAL_CHECKS)) == len(APPROVAL_CHECKS) == len(APPROVAL_INVARIANTS)


def test_every_approval_check_has_a_distinct_documented_control() -> None:
    assert {control.check for control in APPROVAL_CONTROLS} == set(APPROVAL_CHECKS)
    assert len({control.loop for control in APPROVAL_CONTROLS}) == len(APPROVAL_CONTROLS)
    for control in APPROVAL_CONTROLS:
        assert issubclass(control.loop, ReferenceLoop)
        assert control.loop is not ReferenceLoop
        doc = (control.loop.__doc__ or "").strip()
        assert doc, control.loop.__name__
        assert "\n" not in doc, control.loop.__name__
        assert control.check not in control.collateral
        assert control.collateral <= JUDGED


def test_the_approval_control_scenarios_are_all_used() -> None:
    used = {path for control in APPROVAL_CONTROLS for path in control.scenario_paths}
    assert used == set(APPROVAL_SCENARIOS)
    assert len(APPROVAL_SCENARIOS) >= 2


# --- the controls -----------------------------------------------------------------------------------------------

CASES = [
    pytest.param(control, path, mode, id=f"{control.id}-{path.stem}-{mode}")
    for control in APPROVAL_CONTROLS for path in control.scenario_paths for mode in control.modes
]


@pytest.mark.parametrize(("control", "path", "mode"), CASES)
async def test_approval_control_fails_its_check(control: ApprovalControl, path: Path, mode: Mode) -> None:
    result = await run_scenario(_scenario(path), control.adapter(), mode)
    assert result.verdict == "fail"
    assert result.implementation == f"control-{control.id}"
    intended = [check for check in result.checks if check.id == control.check]
    assert intended, f"{control.check} was not judged"
    assert any(check.verdict == "fail" for check in intended), [(c.id, c.message) for c in result.checks]
    assert all(check.message and check.turn for check in intended if check.verdict == "fail")


@pytest.mark.parametrize(("control", "path", "mode"), CASES)
async def test_approval_control_trips_no_unrelated_check(control: ApprovalControl, path: Path, mode: Mode) -> None:
    result = await run_scenario(_scenario(path), control.adapter(), mode)
    assert _failed(result) & JUDGED == {control.check} | control.collateral, [
        (c.id, c.message) for c in result.failed_checks()]
    assert not any(check.verdict == "error" for check in result.checks)
    assert _failed(result) <= JUDGED | set(EXPECT_CHECKS)


@pytest.mark.parametrize("mode", MODES)
async def test_the_inert_control_is_caught_for_the_execution_and_for_each_new_result(mode: Mode) -> None:
    control = next(c for c in APPROVAL_CONTROLS if c.check == "approval-inert")
    result = await run_scenario(_scenario(SCENARIOS / "approval-session-replay.yaml"), control.adapter(), mode)
    messages = [c.message for c in result.checks if c.id == "approval-inert" and c.verdict == "fail"]
    assert any("executed it again" in m and "'c1'" in m for m in messages), messages
    assert any("new result" in m and "'c2'" in m for m in messages), messages  # a rejection replayed: no execution
    assert {c.turn for c in result.checks if c.id == "approval-inert" and c.verdict == "fail"} == {3}


# --- the correct loops ------------------------------------------------------------------------------------------


def _correct_adapters() -> list[LoopAdapter]:
    adapters: list[LoopAdapter] = [ReferenceAdapter(), adapter_for(ReferenceLoop, "reference-via-factory")]
    if importlib.util.find_spec("agent_framework") is not None:
        from harness.adapters.agent_framework import adapter

        adapters.append(adapter())
    return adapters


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("path", APPROVAL_SCENARIOS, ids=lambda p: p.stem)
@pytest.mark.parametrize("adapter", _correct_adapters(), ids=lambda a: a.name)
async def test_correct_loops_pass_every_approval_check(path: Path, mode: Mode, adapter: LoopAdapter) -> None:
    result = await run_scenario(_scenario(path), adapter, mode)
    assert result.verdict == "pass", [(c.id, c.message) for c in result.failed_checks()]
    verdicts = _verdicts(result)
    for check in APPROVAL_CHECKS:
        assert verdicts[check] == {"pass"}, check


@pytest.mark.parametrize("mode", MODES)
async def test_a_run_without_approvals_is_not_applicable(mode: Mode) -> None:
    result = await run_scenario(_scenario(SCENARIOS / "single-call.yaml"), ReferenceAdapter(), mode)
    approval = [c for c in result.checks if c.id in APPROVAL_CHECKS]
    assert [c.id for c in approval] == list(APPROVAL_CHECKS)
    assert all(c.verdict == "n/a" and c.message == NO_APPROVALS for c in approval)


# --- correlation by occurrence, on hand-built runs --------------------------------------------------------------

TOOLS = """
tools:
  - name: delete_file
    parameters: {type: object, properties: {path: {type: string}}, required: [path]}
    approval: required
    returns: deleted
  - name: list_files
    parameters: {type: object, properties: {path: {type: string}}, required: [path]}
    returns: a.txt
"""


def _synthetic_scenario(tmp_path: Path, *, session: bool) -> Scenario:
    path = tmp_path / "synthetic.yaml"
    path.write_text(
        "id: synthetic.approvals\ntitle: hand-built runs\nspec: [Initial approval request]\ndescription: x\n"
        f"session: {'true' if session else 'false'}\n{TOOLS}"
        "turns:\n  - input: [{user: go}]\n    model: [{contents: [{text: ok}]}]\n",
        encoding="utf-8",
    )
    return load_scenario(path)


def _call(call_id: str = "c1", path: str = "/tmp/a.txt", name: str = "delete_file") -> FunctionCall:
    return FunctionCall(call_id, name, {"path": path})


def _msg(role: Role, *contents: Content) -> Message:
    return Message(role, tuple(contents))


def _turn(index: int, inputs: Sequence[Message], response: Sequence[Message] | None, *,
          served: Sequence[Sequence[Content]] = (), executions: Sequence[tuple[str, str | None]] = (),
          listings: Sequence[str | None] = (), requests: Sequence[Sequence[Message]] = ()) -> TurnRecord:
    """One turn: `executions` are (path, call id or None) of delete_file runs, `listings` the call ids of
    list_files runs on /tmp; `requests` what each model call received."""
    view = CallerView(response=Response(tuple(response)) if response is not None else None)
    steps = tuple(ModelStep(Response((Message("assistant", tuple(contents)),)), ()) for contents in served)
    runs = tuple(ToolExecution(index, "list_files", {"path": "/tmp"}, call_id) for call_id in listings) + tuple(
        ToolExecution(index, "delete_file", {"path": path}, call_id) for path, call_id in executions)
    model_calls = tuple(ModelRequest(index, n + 1, tuple(messages), None, ()) for n, messages in enumerate(requests))
    return TurnRecord(index, tuple(inputs), (), view, model_calls, runs, steps, (), ())


def _judge(scenario: Scenario, turns: list[TurnRecord]) -> dict[str, list[CheckResult]]:
    run = RunRecord(subject(scenario), "synthetic", "non-streaming", turns)
    judged: dict[str, list[CheckResult]] = {}
    for check in APPROVAL_INVARIANTS:
        for result in check(run):
            judged.setdefault(result.id, []).append(result)
    return judged


def _failing(judged: dict[str, list[CheckResult]]) -> set[str]:
    return {check for check, results in judged.items() if any(r.verdict == "fail" for r in results)}


def _reused_id_run(tmp_path: Path, *, turn2_runs: Sequence[tuple[str, str | None]],
                   turn3_runs: Sequence[tuple[str, str | None]]) -> dict[str, list[CheckResult]]:
    """Session: c1 is requested, rejected; the model calls c1 again with the same arguments; that one is approved."""
    scenario = _synthetic_scenario(tmp_path, session=True)
    first, second = ApprovalRequest("r1", _call()), ApprovalRequest("r2", _call())
    rejection = FunctionResult("c1", "rejected")
    return _judge(scenario, [
        _turn(0, [_msg("user", Text("delete a"))], [_msg("assistant", _call(), first)], served=[[_call()]]),
        _turn(1, [_msg("user", ApprovalResponse("r1", False, _call()))],
              [_msg("tool", rejection), _msg("assistant", _call(), second)], served=[[_call()]],
              executions=turn2_runs),
        _turn(2, [_msg("user", ApprovalResponse("r2", True, _call()))],
              [_msg("tool", FunctionResult("c1", "deleted")), _msg("assistant", Text("done"))],
              served=[[Text("done")]], executions=turn3_runs),
    ])


@pytest.mark.parametrize("call_id", ["c1", None], ids=["with-call-id", "without-call-id"])
def test_a_reused_call_id_approved_after_its_first_occurrence_was_rejected_may_run(
        tmp_path: Path, call_id: str | None) -> None:
    judged = _reused_id_run(tmp_path, turn2_runs=(), turn3_runs=[("/tmp/a.txt", call_id)])
    assert _failing(judged) == set()
    assert all(r.verdict == "pass" for results in judged.values() for r in results)


@pytest.mark.parametrize("call_id", ["c1", None], ids=["with-call-id", "without-call-id"])
def test_the_rejected_occurrence_of_a_reused_call_id_running_is_caught(tmp_path: Path, call_id: str | None) -> None:
    judged = _reused_id_run(tmp_path, turn2_runs=[("/tmp/a.txt", call_id)], turn3_runs=[("/tmp/a.txt", call_id)])
    assert _failing(judged) == {"rejected-never-runs"}
    failure = judged["rejected-never-runs"][0]
    assert failure.turn == 2
    assert "rejected in turn 2" in failure.message


def test_an_approved_reused_occurrence_that_never_runs_is_caught(tmp_path: Path) -> None:
    judged = _reused_id_run(tmp_path, turn2_runs=(), turn3_runs=())
    assert _failing(judged) == {"approved-once"}
    assert "never executed" in judged["approved-once"][0].message


def test_a_gated_call_run_before_its_approval_is_caught(tmp_path: Path) -> None:
    scenario = _synthetic_scenario(tmp_path, session=False)
    request = ApprovalRequest("r1", _call())
    paused = [_msg("user", Text("delete a")), _msg("assistant", _call(), request)]
    judged = _judge(scenario, [
        _turn(0, paused[:1], paused[1:], served=[[_call()]], executions=[("/tmp/a.txt", None)]),
        _turn(1, [*paused, _msg("user", ApprovalResponse("r1", True, _call()))],
              [_msg("tool", FunctionResult("c1", "deleted"))], executions=[("/tmp/a.txt", None)]),
    ])
    assert _failing(judged) == {"approved-once"}
    assert [r.turn for r in judged["approved-once"]] == [1]
    assert "before the caller approved it" in judged["approved-once"][0].message


def test_a_replayed_rejection_answered_again_without_running_is_caught_as_not_inert(tmp_path: Path) -> None:
    scenario = _synthetic_scenario(tmp_path, session=True)
    request = ApprovalRequest("r1", _call())
    rejection = ApprovalResponse("r1", False, _call())
    judged = _judge(scenario, [
        _turn(0, [_msg("user", Text("delete a"))], [_msg("assistant", _call(), request)], served=[[_call()]]),
        _turn(1, [_msg("user", rejection)], [_msg("tool", FunctionResult("c1", "rejected"))]),
        _turn(2, [_msg("user", rejection)], [_msg("tool", FunctionResult("c1", "rejected"))]),
    ])
    assert _failing(judged) == {"approval-inert"}
    assert judged["approval-inert"][0].turn == 3


def test_a_rejection_answered_under_the_request_id_only_is_caught_for_caller_and_model(tmp_path: Path) -> None:
    scenario = _synthetic_scenario(tmp_path, session=False)
    paused = [_msg("user", Text("delete a")), _msg("assistant", _call(), ApprovalRequest("r1", _call()))]
    model_bound = [paused[0], _msg("assistant", _call()), _msg("tool", FunctionResult("r1", "rejected"))]
    judged = _judge(scenario, [
        _turn(0, paused[:1], paused[1:], served=[[_call()]]),
        _turn(1, [*paused, _msg("user", ApprovalResponse("r1", False, _call()))],
              [_msg("tool", FunctionResult("r1", "rejected")), _msg("assistant", Text("kept"))],
              served=[[Text("kept")]], requests=[model_bound]),
    ])
    assert _failing(judged) == {"rejection-call-id"}
    messages = [r.message for r in judged["rejection-call-id"]]
    assert len(messages) == 2
    assert all("'r1' instead" in m for m in messages)


def test_an_approved_tool_that_asks_for_input_may_run_again_once_answered(tmp_path: Path) -> None:
    scenario = _synthetic_scenario(tmp_path, session=True)
    request = ApprovalRequest("r1", _call())
    approval = ApprovalResponse("r1", True, _call())
    judged = _judge(scenario, [
        _turn(0, [_msg("user", Text("delete a"))], [_msg("assistant", _call(), request)], served=[[_call()]]),
        _turn(1, [_msg("user", approval)], [_msg("assistant", UserInputRequest("i1", _call(), "sure?"))],
              executions=[("/tmp/a.txt", "c1")]),
        _turn(2, [_msg("user", Text("yes"))], [_msg("tool", FunctionResult("c1", "deleted"))],
              executions=[("/tmp/a.txt", "c1")]),
    ])
    assert _failing(judged) == set()


def test_hosted_approvals_may_reach_the_model_and_never_run_locally(tmp_path: Path) -> None:
    scenario = _synthetic_scenario(tmp_path, session=False)
    hosted = FunctionCall("h1", "delete_file", {"path": "/srv/x"}, server_label="files")
    request, decision = ApprovalRequest("mcpr-1", hosted), ApprovalResponse("mcpr-1", True, hosted)
    history = [_msg("user", Text("delete x")), _msg("assistant", request), _msg("user", decision)]
    judged = _judge(scenario, [
        _turn(0, history[:1], history[1:2], served=[[request]]),
        _turn(1, history, [_msg("assistant", Text("done"))], served=[[Text("done")]], requests=[history]),
    ])
    assert _failing(judged) == set()
    local = ApprovalResponse("r9", True, _call())
    leaked = _judge(scenario, [
        _turn(0, [_msg("user", Text("go"))], [_msg("assistant", Text("ok"))], served=[[Text("ok")]],
              requests=[[_msg("user", Text("go")), _msg("user", local, decision)]]),
    ])
    assert _failing(leaked) == {"no-approval-wrappers-to-model"}
    assert "'c1'" in leaked["no-approval-wrappers-to-model"][0].message
    assert "'h1'" not in leaked["no-approval-wrappers-to-model"][0].message


def test_calls_that_need_no_approval_share_ids_with_approved_ones_without_blame(tmp_path: Path) -> None:
    """A completed call and a later approval-gated call reuse id c1 in one turn (providers numbering per response)."""
    scenario = _synthetic_scenario(tmp_path, session=True)
    listing = _call("c1", "/tmp", name="list_files")
    request = ApprovalRequest("r1", _call())
    judged = _judge(scenario, [
        _turn(0, [_msg("user", Text("clean up"))],
              [_msg("assistant", listing), _msg("tool", FunctionResult("c1", "a.txt")),
               _msg("assistant", _call(), request)],
              served=[[listing], [_call()]], listings=["c1"]),
        _turn(1, [_msg("user", ApprovalResponse("r1", True, _call()))],
              [_msg("tool", FunctionResult("c1", "deleted"))], executions=[("/tmp/a.txt", "c1")]),
    ])
    # list_files is not delete_file: only the approval-gated execution is the approved call's.
    assert _failing(judged) == set()



# --- a standing decision and the requests still queued behind the approval layer --------------------------------

def _layer_scenario(tmp_path: Path) -> Scenario:
    path = tmp_path / "layer.yaml"
    path.write_text(
        "id: synthetic.layer\ntitle: hand-built runs behind an approval layer\nspec: [Queued approvals]\n"
        "description: x\nrequires: [approval, sessions, approval-policy]\nsession: true\napproval_policy: {}\n"
        f"{TOOLS}turns:\n  - input: [{{user: go}}]\n    model: [{{contents: [{{text: ok}}]}}]\n",
        encoding="utf-8",
    )
    return load_scenario(path)


def _queued_sibling_run(tmp_path: Path, *decisions: ApprovalResponse) -> dict[str, list[CheckResult]]:
    """The model asks for c1 and c2 (delete_file, other paths) in one batch; the layer shows the caller r1 only and
    keeps c2's request queued; the caller's `decisions` come next, and both calls run."""
    first, second = _call("c1", "/tmp/a.txt"), _call("c2", "/tmp/b.txt")
    return _judge(_layer_scenario(tmp_path), [
        _turn(0, [_msg("user", Text("delete a and b"))], [_msg("assistant", first, second,
                                                               ApprovalRequest("r1", first))],
              served=[[first, second]]),
        _turn(1, [_msg("user", *decisions)],
              [_msg("tool", FunctionResult("c1", "deleted"), FunctionResult("c2", "deleted"))],
              executions=[("/tmp/a.txt", "c1"), ("/tmp/b.txt", "c2")]),
    ])


def test_an_approve_always_answers_its_queued_sibling_of_the_same_tool(tmp_path: Path) -> None:
    judged = _queued_sibling_run(tmp_path, ApprovalResponse("r1", True, _call("c1", "/tmp/a.txt"), "tool"))
    assert _failing(judged) == set()


@pytest.mark.parametrize("standing", [None, "arguments"], ids=["plain-approval", "argument-scoped"])
def test_a_queued_sibling_the_caller_did_not_cover_running_is_caught(tmp_path: Path,
                                                                     standing: Literal["arguments"] | None) -> None:
    judged = _queued_sibling_run(tmp_path, ApprovalResponse("r1", True, _call("c1", "/tmp/a.txt"), standing))
    assert _failing(judged) == {"approved-once"}
    assert "'c2'" in judged["approved-once"][0].message


def test_a_sibling_the_caller_rejected_is_not_approved_by_its_approve_always(tmp_path: Path) -> None:
    judged = _queued_sibling_run(tmp_path, ApprovalResponse("r1", True, _call("c1", "/tmp/a.txt"), "tool"),
                                 ApprovalResponse("r2", False, _call("c2", "/tmp/b.txt")))
    assert "rejected-never-runs" in _failing(judged)


# --- approval wrappers the caller replays are the caller's to omit ----------------------------------------------

def _settled_round(call: FunctionCall) -> list[Message]:
    return [_msg("user", Text("delete a")), _msg("assistant", call, ApprovalRequest("r1", call)),
            _msg("user", ApprovalResponse("r1", True, call)), _msg("tool", FunctionResult(call.call_id, "deleted")),
            _msg("assistant", Text("done")), _msg("user", Text("thanks"))]


def test_wrappers_a_caller_replays_from_its_own_history_fail_as_tentative(tmp_path: Path) -> None:
    history = _settled_round(_call())
    judged = _judge(_synthetic_scenario(tmp_path, session=False), [
        _turn(0, history, [_msg("assistant", Text("ok"))], served=[[Text("ok")]], requests=[history]),
    ])
    [failure] = judged["no-approval-wrappers-to-model"]
    assert (failure.verdict, failure.profile) == ("fail", "tentative")
    assert "the spec leaves the caller to omit" in failure.message


def test_wrappers_the_loop_adds_itself_stay_contract_failures(tmp_path: Path) -> None:
    history = _settled_round(_call())
    # The session's caller hands over only the new message: the wrappers the model receives are the loop's replay.
    judged = _judge(_synthetic_scenario(tmp_path, session=True), [
        _turn(0, history[-1:], [_msg("assistant", Text("ok"))], served=[[Text("ok")]], requests=[history]),
    ])
    [failure] = judged["no-approval-wrappers-to-model"]
    assert (failure.verdict, failure.profile) == ("fail", None)
    # A wrapper the caller's history holds for a round still open is not a settled replay either.
    pending = history[:3]
    judged = _judge(_synthetic_scenario(tmp_path, session=False), [
        _turn(0, pending, [_msg("assistant", Text("ok"))], served=[[Text("ok")]], requests=[pending]),
    ])
    assert [r.profile for r in judged["no-approval-wrappers-to-model"]] == [None]


def test_a_pending_request_the_caller_replays_on_an_unrelated_turn_stays_the_loops(tmp_path: Path) -> None:
    """Spec "Pending history turn": an unresolved batch is omitted from unrelated model input by the loop."""
    request = ApprovalRequest("r1", _call())
    paused = [_msg("user", Text("delete a")), _msg("assistant", _call(), request)]
    unrelated = [*paused, _msg("user", Text("what time is it?"))]
    judged = _judge(_synthetic_scenario(tmp_path, session=False), [
        _turn(0, paused[:1], paused[1:], served=[[_call()]], requests=[paused[:1]]),
        _turn(1, unrelated, [_msg("assistant", Text("noon"))], served=[[Text("noon")]], requests=[unrelated]),
    ])
    assert [(r.verdict, r.profile) for r in judged["no-approval-wrappers-to-model"]] == [("fail", None)]

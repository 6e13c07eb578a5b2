"""The pending-approval placeholder (`APPROVAL_PENDING`) is not a terminal result: `orphans()` takes it as a pause
(allowed caller-side, a failure in model-bound history), the approval checks keep its decision pending, and the
reference loop replaces it with the terminal result of the decision and never shows it to the model."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from harness import Scenario, load_scenario
from harness.adapters.reference import approvals
from harness.checks.approvals import APPROVAL_INVARIANTS
from harness.checks.invariants import orphans
from harness.contents import (
    APPROVAL_PENDING,
    ApprovalRequest,
    ApprovalResponse,
    Content,
    FunctionCall,
    FunctionResult,
    Message,
    Response,
    Role,
    Text,
)
from harness.contract import CallerView
from harness.records import RunRecord, TurnRecord
from harness.results import CheckResult
from harness.run.runner import subject
from harness.script import ModelRequest, ModelStep, ToolExecution


def _call(call_id: str = "c1", path: str = "/tmp/a.txt", name: str = "delete_file") -> FunctionCall:
    return FunctionCall(call_id, name, {"path": path})


def _msg(role: Role, *contents: Content) -> Message:
    return Message(role, tuple(contents))


def _placeholder(call_id: str = "c1") -> FunctionResult:
    return FunctionResult(call_id, APPROVAL_PENDING)


def test_the_placeholder_text_is_the_one_the_spec_names() -> None:
    assert APPROVAL_PENDING == "[APPROVAL_PENDING]"


# --- orphans() ------------------------------------------------------------------------------------------------


def _asked(call: FunctionCall) -> ApprovalRequest:
    return ApprovalRequest(f"r-{call.call_id}", call)


def test_a_placeholder_pauses_its_call_caller_side() -> None:
    messages = [_msg("assistant", _call(), _asked(_call())), _msg("tool", _placeholder())]
    assert orphans(messages, allow_pauses=True) == []


def test_a_placeholder_and_its_paused_call_fail_in_model_bound_history() -> None:
    # Model-bound history has no approval wrappers: the caller's side says which results were its placeholders.
    problems = orphans([_msg("assistant", _call()), _msg("tool", _placeholder())], allow_pauses=False,
                       caller_placeholders={"c1"})
    assert len(problems) == 2
    assert "pending-approval placeholder" in problems[0]
    assert "is paused" in problems[1]


def test_the_terminal_result_after_a_placeholder_closes_the_call_without_an_orphan() -> None:
    messages = [_msg("assistant", _call(), _asked(_call())), _msg("tool", _placeholder()),
                _msg("tool", FunctionResult("c1", "ok"))]
    assert orphans(messages, allow_pauses=True) == []
    # The model still must not see the placeholder, even next to the terminal result.
    model_bound = [_msg("assistant", _call()), *messages[1:]]
    problems = orphans(model_bound, allow_pauses=False, caller_placeholders={"c1"})
    assert len(problems) == 1
    assert "pending-approval placeholder" in problems[0]


def test_a_placeholder_text_without_an_open_call_is_a_stray_result() -> None:
    # No occurrence awaits a decision, so the text is a result like any other, and it answers no call.
    messages = [_msg("assistant", _call()), _msg("tool", FunctionResult("c1", "ok")), _msg("tool", _placeholder())]
    assert orphans(messages, allow_pauses=True) == ["result for 'c1' has no open call before it"]


def test_a_placeholder_for_a_reused_id_belongs_to_the_open_occurrence() -> None:
    first, second = _call(name="list_files"), _call()
    messages = [_msg("assistant", first), _msg("tool", FunctionResult("c1", "a.txt")),
                _msg("assistant", second, _asked(second)), _msg("tool", _placeholder()),
                _msg("tool", FunctionResult("c1", "ok"))]
    assert orphans(messages, allow_pauses=True) == []
    assert orphans(messages[:4], allow_pauses=True) == []
    model_bound = [*messages[:2], _msg("assistant", second), messages[3]]
    assert orphans(model_bound, allow_pauses=False, caller_placeholders={"c1"})[-1] == (
        "call 'c1' (delete_file) is paused for approval or input")


# --- the approval checks ----------------------------------------------------------------------------------------

TOOLS = """tools:
  - name: delete_file
    parameters: {type: object, properties: {path: {type: string}}, required: [path]}
    approval: required
    returns: deleted
"""


def _scenario(tmp_path: Path) -> Scenario:
    path = tmp_path / "synthetic.yaml"
    path.write_text(
        "id: synthetic.placeholders\ntitle: hand-built runs\nspec: [Rejected placeholder]\ndescription: x\n"
        f"{TOOLS}turns:\n  - input: [{{user: go}}]\n    model: [{{contents: [{{text: ok}}]}}]\n",
        encoding="utf-8",
    )
    return load_scenario(path)


def _turn(index: int, inputs: Sequence[Message], response: Sequence[Message], *, served: Sequence[Sequence[Content]],
          executions: int = 0, requests: Sequence[Sequence[Message]] = ()) -> TurnRecord:
    view = CallerView(response=Response(tuple(response)))
    steps = tuple(ModelStep(Response((Message("assistant", tuple(contents)),)), ()) for contents in served)
    runs = tuple(ToolExecution(index, "delete_file", {"path": "/tmp/a.txt"}, "c1") for _ in range(executions))
    model_calls = tuple(ModelRequest(index, n + 1, tuple(messages), None, ()) for n, messages in enumerate(requests))
    return TurnRecord(index, tuple(inputs), (), view, model_calls, runs, steps, (), ())


def _resumed(tmp_path: Path, *, approved: bool, response: Sequence[Message], executions: int,
             model_bound: Sequence[Message]) -> dict[str, list[CheckResult]]:
    """Turn 1 pauses c1; turn 2 replays it with a placeholder result for c1, then the decision."""
    paused = [_msg("user", Text("delete a")), _msg("assistant", _call(), ApprovalRequest("r1", _call()))]
    resume = [*paused, _msg("tool", _placeholder()), _msg("user", ApprovalResponse("r1", approved, _call()))]
    run = RunRecord(subject(_scenario(tmp_path)), "synthetic", "non-streaming", [
        _turn(0, paused[:1], paused[1:], served=[[_call()]]),
        _turn(1, resume, response, served=[[Text("done")]], executions=executions, requests=[model_bound]),
    ])
    judged: dict[str, list[CheckResult]] = {}
    for check in APPROVAL_INVARIANTS:
        for result in check(run):
            judged.setdefault(result.id, []).append(result)
    return judged


def _failing(judged: dict[str, list[CheckResult]]) -> set[str]:
    return {check for check, results in judged.items() if any(r.verdict == "fail" for r in results)}


MODEL_PREFIX = [_msg("user", Text("delete a")), _msg("assistant", _call())]


def test_an_approval_after_a_placeholder_is_pending_and_its_result_is_not_a_replay(tmp_path: Path) -> None:
    result = _msg("tool", FunctionResult("c1", "deleted"))
    judged = _resumed(tmp_path, approved=True, response=[result, _msg("assistant", Text("done"))], executions=1,
                      model_bound=[*MODEL_PREFIX, result])
    assert _failing(judged) == set()


def test_an_approval_after_a_placeholder_that_never_runs_is_caught(tmp_path: Path) -> None:
    judged = _resumed(tmp_path, approved=True, response=[_msg("assistant", Text("done"))], executions=0,
                      model_bound=[*MODEL_PREFIX, _msg("tool", _placeholder())])
    assert _failing(judged) == {"approved-once"}
    assert "never executed" in judged["approved-once"][0].message


def test_a_rejection_after_a_placeholder_needs_its_own_result(tmp_path: Path) -> None:
    rejection = _msg("tool", FunctionResult("c1", "rejected"))
    judged = _resumed(tmp_path, approved=False, response=[rejection, _msg("assistant", Text("done"))],
                      executions=0, model_bound=[*MODEL_PREFIX, rejection])
    assert _failing(judged) == set()


def test_a_rejection_whose_placeholder_stands_in_for_the_result_is_caught_for_caller_and_model(
        tmp_path: Path) -> None:
    judged = _resumed(tmp_path, approved=False, response=[_msg("assistant", Text("done"))], executions=0,
                      model_bound=[*MODEL_PREFIX, _msg("tool", _placeholder())])
    assert _failing(judged) == {"rejection-call-id"}
    messages = [r.message for r in judged["rejection-call-id"]]
    assert len(messages) == 2
    assert "holds 0 function_result(s)" in messages[0]
    assert "without a function_result under its call id" in messages[1]


# --- the reference loop's normalisation ---------------------------------------------------------------------


def test_the_reference_replaces_each_placeholder_with_its_own_result_in_place() -> None:
    c1, c2 = _call("c1"), _call("c2", "/tmp/b.txt")
    messages = [
        _msg("user", Text("delete a and b")),
        _msg("assistant", c1, c2, ApprovalRequest("r1", c1), ApprovalRequest("r2", c2)),
        _msg("tool", _placeholder("c1"), _placeholder("c2")),
        _msg("user", ApprovalResponse("r2", True, c2), ApprovalResponse("r1", False, c1)),
    ]
    normalised = approvals.normalise(messages)
    assert [o.call.call_id for o in normalised.pending] == ["c1", "c2"]
    outcomes = [[FunctionResult("c1", "rejected")], [FunctionResult("c2", "deleted")]]
    history, resumed = approvals.settle(normalised, outcomes)
    assert history == [messages[0], _msg("assistant", c1, c2),
                       _msg("tool", FunctionResult("c1", "rejected"), FunctionResult("c2", "deleted"))]
    assert resumed == [_msg("tool", FunctionResult("c1", "rejected"), FunctionResult("c2", "deleted"))]


def test_the_reference_keeps_an_undecided_placeholder_and_its_call_from_the_model() -> None:
    messages = [
        _msg("user", Text("delete a")),
        _msg("assistant", _call(), ApprovalRequest("r1", _call())),
        _msg("tool", _placeholder()),
        _msg("user", Text("something else")),
    ]
    normalised = approvals.normalise(messages)
    assert normalised.pending == []
    assert normalised.history == [messages[0], messages[3]]


def test_the_reference_attaches_a_reused_id_placeholder_to_the_open_occurrence() -> None:
    listing = _call(name="list_files")
    messages = [
        _msg("user", Text("clean up")),
        _msg("assistant", listing), _msg("tool", FunctionResult("c1", "a.txt")),
        _msg("assistant", _call(), ApprovalRequest("r1", _call())),
        _msg("tool", _placeholder()),
        _msg("user", ApprovalResponse("r1", True, _call())),
    ]
    normalised = approvals.normalise(messages)
    assert [o.call for o in normalised.pending] == [_call()]
    history, _ = approvals.settle(normalised, [[FunctionResult("c1", "deleted")]])
    assert history == [*messages[:3], _msg("assistant", _call()), _msg("tool", FunctionResult("c1", "deleted"))]
    assert orphans(history, allow_pauses=False) == []

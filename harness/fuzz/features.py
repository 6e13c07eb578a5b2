"""What a scenario exercises, in words the fuzz allowances use (`when:`): read from the scenario itself, so an
allowance judges a generated conversation and its exported file alike."""

from __future__ import annotations

from typing import Literal, cast, get_args

from harness.contents import JSON, parse_arguments
from harness.limits import DEFAULT_MAX_CONSECUTIVE_ERRORS
from harness.parameters import argument_problems
from harness.scenario.model import Scenario
from harness.scenario.schema import ContentSpec, FunctionCallSpec, ModelStepSpec

Feature = Literal[
    "approval", "approved", "rejected", "session", "caller-history", "raise", "raise-key-error",
    "raise-timeout-error", "delay", "parallel", "calls-across-messages", "reused-id", "reasoning",
    "ignores-tool-choice", "max-iterations", "max-function-calls", "max-consecutive-errors", "blank-answer",
    "multi-turn", "mixed-batch", "decided", "declaration-only", "input-request", "hosted-call",
    "approved-together", "decided-together", "mixed-decision", "hosted-approval", "hosted-decision", "hosted-approved",
    "hosted-rejected", "hosted-approval-beside-calls", "invalid-arguments", "sequential-rounds", "unknown-call",
]
FEATURES: tuple[str, ...] = get_args(Feature)


def features(scenario: Scenario) -> frozenset[str]:
    spec = scenario.spec
    found: set[str] = set()
    found.add("session" if spec.session else "caller-history")
    if len(spec.turns) > 1:
        found.add("multi-turn")
    for tool in scenario.tools:
        found.update({"approval"} if tool.approval_required else set[str]())
        found.update({"declaration-only"} if tool.declaration_only else set[str]())
        for behaviour in tool.behaviours:
            if behaviour.kind == "raise":
                found.add("raise")
                found.update({"KeyError": {"raise-key-error"}, "TimeoutError": {"raise-timeout-error"}}.get(
                    behaviour.exception or "", set[str]()))
            if behaviour.kind == "request_input":
                found.add("input-request")
            if behaviour.delay:
                found.add("delay")
    for setting in ("max_iterations", "max_function_calls", "max_consecutive_errors"):
        if getattr(scenario.config, setting) is not None:
            found.add(setting.replace("_", "-"))
    if _error_cap_reached(scenario):
        found.add("max-consecutive-errors")  # the default cap too, where no setting names it
    seen_ids: set[str] = set()
    gated = {tool.name for tool in scenario.tools if tool.approval_required}
    for turn in spec.turns:
        approved = rejected = 0
        for item in turn.input if not isinstance(turn.input, str) else []:
            for decision in (item.approvals or {}).values():
                found.update({"decided", "rejected" if decision == "reject" else "approved"})
                approved += decision != "reject"
                rejected += decision == "reject"
            for content in item.message.contents if item.message is not None else []:
                response = content.approval_response
                if (response is not None and response.function_call is not None
                        and response.function_call.server_label is not None):
                    # the caller's decision on a hosted service's approval request
                    found.update({"hosted-decision", "hosted-approved" if response.approved else "hosted-rejected"})
        if approved > 1:
            found.add("approved-together")  # one turn approves several calls at once
        if approved + rejected > 1:
            found.add("decided-together")  # ... or decides on several, approving or rejecting each
        if approved and rejected:
            found.add("mixed-decision")  # one turn approves some calls and rejects others
        for step in turn.model:
            found.update(_step_features(step, seen_ids, gated, {tool.name for tool in scenario.tools}))
        if sum(1 for step in turn.model if _local_calls(step)) > 1:
            found.add("sequential-rounds")  # one run calls tools in two or more model rounds
    if _invalid_arguments(scenario):
        found.add("invalid-arguments")  # a call the loop must refuse with an error result, its tool never run
    return frozenset(found)


def _invalid_arguments(scenario: Scenario) -> bool:
    """Some local call's arguments break its tool's parameters."""
    parameters = {tool.name: tool.parameters for tool in scenario.tools}
    for turn in scenario.spec.turns:
        for step in turn.model:
            for call in _local_calls(step):
                schema = parameters.get(str(call.name))
                if schema is not None and argument_problems(schema, cast(JSON, parse_arguments(call.arguments))):
                    return True
    return False


def _step_features(step: ModelStepSpec, seen_ids: set[str], gated: set[str], declared: set[str]) -> set[str]:
    found: set[str] = set()
    if step.ignores_tool_choice:
        found.add("ignores-tool-choice")
    if step.messages is not None and len(step.messages) > 1:
        found.add("calls-across-messages")
    contents = _contents(step)
    if any(c.function_call is not None and c.function_call.informational_only for c in contents):
        found.add("hosted-call")  # a call a hosted service ran, returned beside its result
    if any(c.approval_request is not None and c.approval_request.function_call is not None
           and c.approval_request.function_call.server_label is not None for c in contents):
        found.add("hosted-approval")  # a hosted service asks the caller to approve a call of its own tool
    calls = _local_calls(step)
    if calls and "hosted-approval" in found:
        found.add("hosted-approval-beside-calls")  # ... in a response that also holds local calls
    if len(calls) > 1:
        found.add("parallel")
    if any(str(call.name) not in declared for call in calls):
        found.add("unknown-call")  # a call of a tool the scenario does not declare
    if len({str(call.name) in gated for call in calls}) == 2:
        found.add("mixed-batch")  # a call needing approval beside one that needs none
    ids = {str(call.call_id) for call in calls}
    if ids & seen_ids:
        found.add("reused-id")
    seen_ids.update(ids)
    if any(c.reasoning is not None for c in contents):
        found.add("reasoning")
    if any(c.text == "" for c in contents):
        found.add("blank-answer")
    return found


def _contents(step: ModelStepSpec) -> list[ContentSpec]:
    """A model response's contents, whether scripted as one message or as several."""
    return step.contents or [c for m in step.messages or [] for c in m.contents]


def _local_calls(step: ModelStepSpec) -> list[FunctionCallSpec]:
    return [c.function_call for c in _contents(step)
            if c.function_call is not None and not c.function_call.informational_only]


def _error_cap_reached(scenario: Scenario) -> bool:
    """Some turn has as many rounds in a row with a failing call as the error cap allows (the default cap when the
    scenario sets none)."""
    cap = scenario.config.max_consecutive_errors
    cap = DEFAULT_MAX_CONSECUTIVE_ERRORS if cap is None else cap
    raising = {tool.name for tool in scenario.tools if any(b.kind == "raise" for b in tool.behaviours)}
    if cap <= 0 or not raising:
        return False
    held: set[str] = set()  # the tools of the calls the previous turn paused with
    for turn in scenario.spec.turns:
        decides = not isinstance(turn.input, str) and any(item.approvals for item in turn.input)
        # A resume runs the held batch before its first model call: a failing call there is the first failing
        # round of the turn, as the generator counts it (harness.fuzz.conversations, _play_turn).
        in_row = 1 if decides and held & raising else 0
        if in_row >= cap:
            return True
        for step in turn.model:
            names = {str(c.function_call.name) for c in _contents(step) if c.function_call is not None}
            in_row = in_row + 1 if names & raising else 0
            if in_row >= cap:
                return True
        held = {str(c.function_call.name) for c in _contents(turn.model[-1]) if c.function_call is not None
                } if turn.model else set()
    return False

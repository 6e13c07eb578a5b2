"""The fuzz oracle of hosted approvals (`hosted-passthrough`): what the spec asks of a loop when a hosted service
asks the caller to approve a call of its own tool, judged on the run's model requests, responses and executions.

The universal invariants exempt hosted approval wrappers (they are the provider's protocol data) and check nothing
of them; this oracle checks what the spec promises instead (rows "Hosted approval pass-through", "Provider tool
content after an active limit"; "Approval control content": "A current hosted approval response must be sent once
on the immediate resume request"):

* every hosted approval request the model returned reaches the caller in that turn's response, untouched (its id
  is the service's, not the loop's);
* the loop adds no approval request of its own for a hosted call, runs no local tool for it, and makes up no
  function_result for it, neither in a response nor in what the model receives (only the service's own results,
  which the script returns, may appear);
* a hosted decision in a turn's caller input (not a replay of an earlier turn) reaches the turn's first model call
  exactly once, as the approval response itself;
* where the loop keeps the history (a session), neither that decision nor the request it answers reaches the model
  on a later turn: both are inert once the decision was sent (rows "Pending hosted history replay", "Approval
  control content": base history replay filters approval controls). A caller replaying its own history owns that
  rule itself (the generator ends such a conversation after the decision).

Scenarios without hosted approval requests or decisions have nothing to judge, nor have those behind an approval
layer (`approval_policy`), whose standing decisions and rules may answer a hosted request for the caller: the
bundled scenarios of the layer state what happens there.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from harness.contents import ApprovalRequest, ApprovalResponse, Content, FunctionResult, Message
from harness.scenario.model import Scenario, build_content
from harness.script import ModelRequest, ToolExecution
from harness.transcript import content_form

HOSTED_PASSTHROUGH = "hosted-passthrough"


def _key(form: dict[str, Any]) -> str:
    return json.dumps(form, sort_keys=True, ensure_ascii=False)


def _request_form(content: ApprovalRequest) -> str:
    return _key(content_form(content))


def _decision_form(content: ApprovalResponse) -> str:
    form = content_form(content)
    form["approval_response"].pop("standing", None)
    return _key(form)


def _hosted(content: Content) -> bool:
    return isinstance(content, ApprovalRequest | ApprovalResponse) and content.function_call.server_label is not None


def _contents(messages: Iterable[Message]) -> list[Content]:
    return [c for m in messages for c in m.contents]


def _flat(response: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [c for message in response for c in message["contents"]]


def hosted_problems(scenario: Scenario, transcript: Sequence[dict[str, Any]], requests: Sequence[ModelRequest],
                    executions: Sequence[ToolExecution]) -> list[str]:
    """What the run did wrong with the hosted approvals of `scenario` (empty: nothing, or none to judge).
    `transcript` is the run's caller-visible transcript (`ScenarioResult.transcript`)."""
    scripted = [[c for step in turn.steps for c in _contents(step.response.messages)] for turn in scenario.turns]
    hosted_ids = {c.function_call.call_id for contents in scripted for c in contents
                  if isinstance(c, ApprovalRequest) and _hosted(c)}
    decisions = _decisions(scenario)
    if (not hosted_ids and not any(decisions)) or scenario.spec.approval_policy is not None:
        return []  # behind an approval layer, the layer may answer a hosted request itself (its scenarios say how)
    hosted_ids |= {d.function_call.call_id for turn in decisions for d in turn}
    problems: list[str] = []
    served_results: Counter[str] = Counter()  # the service's own results for hosted calls, served so far
    settled: set[str] = set()  # ids of hosted requests whose decision an earlier turn sent
    for index, turn in enumerate(scenario.turns):
        turn_requests = [r for r in requests if r.turn == index]
        served = [c for step in turn.steps[:len(turn_requests)] for c in _contents(step.response.messages)]
        response = _flat(transcript[index]["response"]) if index < len(transcript) else []
        visible = Counter(_key(c) for c in response)
        for request in (c for c in served if isinstance(c, ApprovalRequest) and _hosted(c)):
            if not visible[_request_form(request)]:
                problems.append(f"turn {index + 1}: the hosted approval request {request.id!r} for "
                                f"{request.function_call.call_id!r} does not reach the caller as the service sent it")
        for content in response:
            request_body: dict[str, Any] | None = content.get("approval_request")
            if (request_body is not None and request_body.get("call_id") in hosted_ids
                    and request_body.get("function_call", {}).get("server_label") is None):
                problems.append(f"turn {index + 1}: the loop asks the caller to approve the hosted call "
                                f"{request_body.get('call_id')!r} as a local one")
        turn_served = Counter(c.call_id for c in served if isinstance(c, FunctionResult))
        shown = Counter(str(c["function_result"].get("call_id")) for c in response if "function_result" in c)
        for call_id in sorted(hosted_ids):
            if shown[call_id] > turn_served[call_id]:
                problems.append(f"turn {index + 1}: the caller sees a function_result for the hosted call {call_id!r} "
                                f"that the service never returned")
        for number, request in enumerate(turn_requests, 1):
            sent = Counter(c.call_id for c in _contents(request.seen) if isinstance(c, FunctionResult))
            for call_id in sorted(hosted_ids):
                if sent[call_id] > served_results[call_id]:
                    problems.append(f"turn {index + 1}: model call {number} receives a function_result for the "
                                    f"hosted call {call_id!r} that the service never returned")
            step = turn.steps[number - 1] if number <= len(turn.steps) else None
            served_results.update(c.call_id for c in _contents(step.response.messages if step else ())
                                  if isinstance(c, FunctionResult))
        for execution in executions:
            if execution.turn == index and execution.call_id in hosted_ids:
                problems.append(f"turn {index + 1}: the local tool {execution.tool!r} runs for the hosted call "
                                f"{execution.call_id!r}")
        if scenario.spec.session:
            for number, request in enumerate(turn_requests, 1):
                stale = sorted({c.id for c in _contents(request.seen)
                                 if isinstance(c, ApprovalRequest | ApprovalResponse) and _hosted(c)
                                 and c.id in settled})
                if stale:
                    problems.append(f"turn {index + 1}: model call {number} receives the settled hosted approval "
                                    f"control(s) {stale} again, after an earlier turn sent the decision")
        settled.update(d.id for d in decisions[index])
        if decisions[index]:
            if not turn_requests:
                problems.append(f"turn {index + 1}: the caller's hosted decision never reaches the service (the turn "
                                f"makes no model call)")
                continue
            first = Counter(_decision_form(c) for c in _contents(turn_requests[0].seen)
                            if isinstance(c, ApprovalResponse) and _hosted(c))
            for decision in decisions[index]:
                times = first[_decision_form(decision)]
                if times != 1:
                    problems.append(f"turn {index + 1}: the caller's hosted decision {decision.id!r} on "
                                    f"{decision.function_call.call_id!r} reaches the first model call {times} "
                                    f"time(s), not once, as it was sent")
    return list(dict.fromkeys(problems))


def _decisions(scenario: Scenario) -> list[list[ApprovalResponse]]:
    """Per turn, the hosted decisions the caller sends in it for the first time (written in its input messages)."""
    per_turn: list[list[ApprovalResponse]] = []
    for turn in scenario.spec.turns:
        found: list[ApprovalResponse] = []
        for item in turn.input if not isinstance(turn.input, str) else []:
            for spec in item.message.contents if item.message is not None else []:
                if spec.approval_response is not None:
                    content = build_content(spec, {})
                    if isinstance(content, ApprovalResponse) and _hosted(content):
                        found.append(content)
        per_turn.append(found)
    return per_turn

"""What a scenario asks of a provider's wire format: reading its script and expectations, and the rules every
OpenAI dialect shares about what no HTTP request or response of theirs can carry.

A dialect's `unexpressible` names the first such feature with its place in the scenario, so a run that could only
fail for the format's sake is reported n/a with that reason, never as the loop's failure. The rules judge what the
script holds and what the expectations assert, not the capabilities a scenario requires: a reasoning scenario
whose expectations never look at an unexpressible field still runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Protocol, cast

from harness.contents import ApprovalRequest, Content, FunctionCall, FunctionResult
from harness.script import ModelStep


class ScriptedTurn(Protocol):
    """One turn of a loaded scenario (`harness.scenario.model.Turn` is one): its model script and the turn as
    written, whose `input` and `expect` the rules read."""

    @property
    def steps(self) -> Sequence[ModelStep]: ...

    @property
    def spec(self) -> Any: ...


class ScriptedScenario(Protocol):
    """A loaded scenario, as the wire rules read it (`harness.scenario.model.Scenario` is one)."""

    @property
    def turns(self) -> Sequence[ScriptedTurn]: ...


def step_contents(scenario: ScriptedScenario) -> Iterator[tuple[str, ModelStep, Content]]:
    """Every content of every scripted model response, with where it is (``turn 2, model response 1``)."""
    for number, turn in enumerate(scenario.turns, start=1):
        for index, step in enumerate(turn.steps, start=1):
            for message in step.response.messages:
                for content in message.contents:
                    yield f"turn {number}, model response {index}", step, content


def written(turn: ScriptedTurn, part: str) -> Any:
    """A part of the turn as written (``input`` or ``expect``), as plain JSON values; matchers stay as written."""
    dumped = cast(Mapping[str, Any], turn.spec.model_dump(mode="json", by_alias=True, exclude_unset=True))
    return dumped.get(part)


def found(value: Any, wanted: Callable[[Mapping[str, Any]], bool]) -> Mapping[str, Any] | None:
    """The first mapping anywhere inside `value` (lists, mappings, matchers) that `wanted` accepts."""
    if isinstance(value, Mapping):
        mapping = cast(Mapping[str, Any], value)
        if wanted(mapping):
            return mapping
        children: list[Any] = list(mapping.values())
    elif isinstance(value, list):
        children = cast(list[Any], value)
    else:
        return None
    for child in children:
        if (hit := found(child, wanted)) is not None:
            return hit
    return None


def expected_requests(scenario: ScriptedScenario) -> Iterator[tuple[int, Mapping[str, Any]]]:
    """Every `requests:` expectation, with its turn number from 1."""
    for number, turn in enumerate(scenario.turns, start=1):
        expect = cast(Mapping[str, Any], written(turn, "expect") or {})
        for request in cast(list[Mapping[str, Any]], expect.get("requests") or []):
            yield number, request


def shared_reason(scenario: ScriptedScenario, wire: str) -> str | None:
    """What neither OpenAI format can carry; `wire` names the format in the reason (``a Responses output``)."""
    for rule in (_several_messages, _informational_call, _local_approval_request, _invocation_kwargs,
                 _result_error_flag):
        if (reason := rule(scenario, wire)) is not None:
            return reason
    return None


def _several_messages(scenario: ScriptedScenario, wire: str) -> str | None:
    for number, turn in enumerate(scenario.turns, start=1):
        for index, step in enumerate(turn.steps, start=1):
            if len(step.response.messages) > 1:
                return (f"turn {number}, model response {index} answers with {len(step.response.messages)} "
                        f"messages: {wire} is one message, so where one ends and the next begins cannot be sent")
    return None


def _informational_call(scenario: ScriptedScenario, wire: str) -> str | None:
    for where, _, content in step_contents(scenario):
        if isinstance(content, FunctionCall) and content.informational_only and content.server_label is None:
            return (f"{where} marks call {content.call_id} informational-only without a hosted server: a function "
                    f"call in {wire} is always one for the client to run, and the format has no such flag")
    return None


def _local_approval_request(scenario: ScriptedScenario, wire: str) -> str | None:
    for where, _, content in step_contents(scenario):
        if isinstance(content, ApprovalRequest) and content.function_call.server_label is None:
            return (f"{where} asks for approval of the local call {content.function_call.call_id}: a service "
                    "issues approval requests only for the hosted tools it runs")
    return None


def _invocation_kwargs(scenario: ScriptedScenario, wire: str) -> str | None:
    for number, request in expected_requests(scenario):
        if request.get("kwargs"):
            names = ", ".join(sorted(cast(Mapping[str, Any], request["kwargs"])))
            return (f"turn {number} expects model call #{request.get('call')} to receive the invocation keyword "
                    f"arguments {names}: what a caller passes to the loop is not part of any HTTP request body")
    return None


def _result_error_flag(scenario: ScriptedScenario, wire: str) -> str | None:
    def flagged(mapping: Mapping[str, Any]) -> bool:
        result = mapping.get("function_result")
        return isinstance(result, Mapping) and cast(Mapping[str, Any], result).get("error") is True

    for number, request in expected_requests(scenario):
        if (hit := found(request.get("messages"), flagged)) is not None:
            call_id = cast(Mapping[str, Any], hit["function_result"]).get("call_id")
            return (f"turn {number} expects model call #{request.get('call')} to receive the result of {call_id} "
                    "flagged as an error: a tool output on the wire is its text alone, with no error flag")
    return None


def streamed_mapping(scenario: ScriptedScenario, wire: str) -> str | None:
    """A streamed call fragment whose arguments the client delivers as a mapping: OpenAI's formats stream a call's
    arguments as JSON text deltas only, so a client reading them never holds a mapping."""
    for number, turn in enumerate(scenario.turns, start=1):
        for index, step in enumerate(turn.steps, start=1):
            if any(isinstance(c, FunctionCall) and c.arguments_as_mapping for u in step.updates for c in u.contents):
                return (f"turn {number}, model response {index} streams call arguments as a mapping: {wire} "
                        "streams them as JSON text only, so no client of it receives a mapping")
    return None


def results_in_response(scenario: ScriptedScenario, hosted_ok: bool, wire: str) -> str | None:
    """A model response holding a function result: only a hosted call's own output (`hosted_ok`) comes back from
    a model; a client's tool results are request-only."""
    for where, step, content in step_contents(scenario):
        if not isinstance(content, FunctionResult):
            continue
        hosted = {c.call_id for m in step.response.messages for c in m.contents
                  if isinstance(c, FunctionCall) and c.server_label is not None}
        if not (hosted_ok and content.call_id in hosted):
            return (f"{where} holds a result for {content.call_id}: {wire} carries the results of the client's "
                    "tools only in requests")
    return None

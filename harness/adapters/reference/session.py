"""The reference loop's session: what survives between turns, including an undelivered batch, and its JSON form.

A session round-trips through JSON so that a caller may save it and restore it in another process. Restoring
validates every field and fails closed: a malformed counter could otherwise weaken a limit (a negative error count
allows more failures than the cap), so it is an error, never a default.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from harness.adapters.reference.policy import ApprovalState, StandingRule
from harness.contents import (
    JSON,
    ApprovalRequest,
    ApprovalResponse,
    Content,
    FunctionCall,
    FunctionResult,
    Message,
    Reasoning,
    Text,
    Usage,
    UserInputRequest,
)


class InvalidSessionState(ValueError):  # noqa: N818 - reads as the condition it reports
    """A restored session holds a value the loop cannot trust; nothing is run on it."""


@dataclass
class Outbox:
    """The terminal results a resumed batch produced, kept from before the model call that delivers them until it
    succeeds: if the provider fails or invalidates that call, a retry replays them instead of running the approved
    tools again, and the budgets they spent stay spent."""

    executed: dict[str, tuple[Content, ...]]  # by call id: the terminal contents of each approved call that ran
    host_results: dict[str, FunctionResult]  # by call id: results the caller supplied for host-owned calls
    function_calls: int = 0
    errors_in_row: int = 0


@dataclass
class PausedBudget:
    """What the run that paused had spent of its budgets. The caller's answer resumes that run's batch, so the run
    that carries it out continues from these counts instead of a fresh budget: a model that pauses each batch on the
    caller would otherwise get a new budget at every answer."""

    function_calls: int = 0
    iterations: int = 0
    waiting: tuple[str, ...] = ()  # call ids of the batch's host-owned calls, whose results resume it


@dataclass
class LoopSession:
    """What a caller's session holds between turns."""

    history: list[Message] = field(default_factory=lambda: [])
    conversation_id: str | None = None  # the service conversation, when the provider stores it
    outbox: Outbox | None = None
    approvals: ApprovalState = field(default_factory=ApprovalState)  # the approval layer's, when there is one
    paused_budget: PausedBudget | None = None  # the spent budgets of the run that paused, until it resumes

    def to_json(self) -> str:
        outbox = None if self.outbox is None else {
            "executed": {k: [_content_json(c) for c in v] for k, v in self.outbox.executed.items()},
            "host_results": {k: _content_json(v) for k, v in self.outbox.host_results.items()},
            "function_calls": self.outbox.function_calls,
            "errors_in_row": self.outbox.errors_in_row,
        }
        paused = None if self.paused_budget is None else {
            "function_calls": self.paused_budget.function_calls, "iterations": self.paused_budget.iterations,
            "waiting": list(self.paused_budget.waiting)}
        return json.dumps({"history": [_message_json(m) for m in self.history],
                           "conversation_id": self.conversation_id, "outbox": outbox,
                           "approvals": _approvals_json(self.approvals), "paused_budget": paused}, sort_keys=True)

    @staticmethod
    def from_json(text: str) -> LoopSession:
        try:
            data = cast(dict[str, Any], json.loads(text))
            history = [_message_from(m) for m in data["history"]]
            conversation_id = data["conversation_id"]
            if conversation_id is not None and not isinstance(conversation_id, str):
                raise InvalidSessionState("conversation_id is not a string")
            raw = data["outbox"]
            outbox = None if raw is None else Outbox(
                {str(k): tuple(_content_from(c) for c in v) for k, v in raw["executed"].items()},
                {str(k): _result_from(v) for k, v in raw["host_results"].items()},
                _count(raw, "function_calls"),
                _count(raw, "errors_in_row"),
            )
            raw_approvals = data.get("approvals")  # absent in a session saved before the approval layer existed
            approvals = ApprovalState() if raw_approvals is None else _approvals_from(raw_approvals)
            raw_paused = data.get("paused_budget")  # absent in a session saved before budgets survived a pause
            paused = None if raw_paused is None else PausedBudget(
                _count(raw_paused, "function_calls"), _count(raw_paused, "iterations"),
                tuple(str(w) for w in raw_paused["waiting"]))
        except (KeyError, TypeError, AttributeError, ValueError) as error:
            if isinstance(error, InvalidSessionState):
                raise
            raise InvalidSessionState(f"the saved session is malformed: {error!r}") from None
        return LoopSession(history, conversation_id, outbox, approvals, paused)


def _count(raw: Mapping[str, Any], key: str) -> int:
    value = raw.get(key, 0)  # a session saved before the field existed restores the documented default
    # bool is an int subclass: True would silently count as one error
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidSessionState(f"the saved session's {key} must be a non-negative integer, got {value!r}")
    return value


def _approvals_json(state: ApprovalState) -> dict[str, JSON]:
    return {
        "standing": [{"tool": r.tool, "server": r.server,
                      "arguments": None if r.arguments is None else dict(r.arguments)} for r in state.standing],
        "queued": [{"id": q.id, "call": _call_json(q.function_call)} for q in state.queued],
    }


def _approvals_from(data: Mapping[str, Any]) -> ApprovalState:
    standing = [StandingRule(str(r["tool"]), r["server"], r["arguments"]) for r in data["standing"]]
    queued = [ApprovalRequest(str(q["id"]), _call_from(q["call"])) for q in data["queued"]]
    return ApprovalState(standing, queued)


def _call_json(call: FunctionCall) -> dict[str, JSON]:
    return {"call_id": call.call_id, "name": call.name, "arguments": cast(JSON, call.arguments),
            "informational_only": call.informational_only, "server_label": call.server_label,
            "occurrence_id": call.occurrence_id}


def _call_from(data: Mapping[str, Any]) -> FunctionCall:
    return FunctionCall(str(data["call_id"]), str(data["name"]), data["arguments"], bool(data["informational_only"]),
                        data["server_label"], data.get("occurrence_id"))


def _content_json(content: Content) -> dict[str, JSON]:
    if isinstance(content, Text):
        return {"text": content.text}
    if isinstance(content, Reasoning):
        return {"reasoning": {"text": content.text, "signature": content.signature, "item_id": content.item_id,
                              "kind": content.kind, "data": content.data}}
    if isinstance(content, FunctionCall):
        return {"function_call": _call_json(content)}
    if isinstance(content, FunctionResult):
        return {"function_result": {"call_id": content.call_id, "result": content.result, "error": content.error,
                                    "occurrence_id": content.occurrence_id}}
    if isinstance(content, ApprovalRequest):
        return {"approval_request": {"id": content.id, "function_call": _call_json(content.function_call)}}
    if isinstance(content, ApprovalResponse):
        return {"approval_response": {"id": content.id, "approved": content.approved,
                                      "function_call": _call_json(content.function_call),
                                      "standing": content.standing}}
    if isinstance(content, UserInputRequest):
        call = None if content.function_call is None else _call_json(content.function_call)
        return {"user_input_request": {"id": content.id, "function_call": call, "payload": content.payload}}
    return {"usage": {"input_tokens": content.input_tokens, "output_tokens": content.output_tokens}}


def _result_from(data: Mapping[str, Any]) -> FunctionResult:
    content = _content_from(data)
    if not isinstance(content, FunctionResult):
        raise InvalidSessionState("a saved host result is not a function_result")
    return content


def _content_from(data: Mapping[str, Any]) -> Content:
    ((kind, value),) = data.items()
    if kind == "text":
        return Text(str(value))
    if kind == "reasoning":
        kind = value.get("kind", "text")
        if kind not in ("text", "summary", "encrypted"):
            raise InvalidSessionState(f"a reasoning item's kind is {kind!r}")
        return Reasoning(value["text"], value["signature"], value.get("item_id"), kind, value.get("data"))
    if kind == "function_call":
        return _call_from(value)
    if kind == "function_result":
        return FunctionResult(str(value["call_id"]), value["result"], bool(value["error"]), value.get("occurrence_id"))
    if kind == "approval_request":
        return ApprovalRequest(str(value["id"]), _call_from(value["function_call"]))
    if kind == "approval_response":
        standing = value.get("standing")
        if standing not in (None, "tool", "arguments"):
            raise InvalidSessionState(f"an approval's standing scope is {standing!r}")
        return ApprovalResponse(str(value["id"]), bool(value["approved"]), _call_from(value["function_call"]),
                                standing)
    if kind == "user_input_request":
        call = None if value["function_call"] is None else _call_from(value["function_call"])
        return UserInputRequest(str(value["id"]), call, value["payload"])
    if kind == "usage":
        return Usage(int(value["input_tokens"]), int(value["output_tokens"]))
    raise InvalidSessionState(f"unknown content kind {kind!r} in the saved session")


def _message_json(message: Message) -> dict[str, JSON]:
    return {"role": message.role, "contents": [_content_json(c) for c in message.contents]}


def _message_from(data: Mapping[str, Any]) -> Message:
    role = data["role"]
    if role not in ("system", "user", "assistant", "tool"):
        raise InvalidSessionState(f"unknown role {role!r} in the saved session")
    return Message(role, tuple(_content_from(c) for c in data["contents"]))


def tampered(text: str, changes: Mapping[str, JSON]) -> str:
    """The saved session with the named persisted counters replaced, as a corrupted store would hand it back.

    Names are the harness's neutral ones: ``consecutive_errors``, ``function_calls``.
    """
    data = cast(dict[str, Any], json.loads(text))
    outbox = data.get("outbox")
    if outbox is None:
        raise InvalidSessionState("the saved session holds no undelivered batch whose counters could be changed")
    keys = {"consecutive_errors": "errors_in_row", "function_calls": "function_calls"}
    for name, value in changes.items():
        outbox[keys[name]] = value
    return json.dumps(data, sort_keys=True)

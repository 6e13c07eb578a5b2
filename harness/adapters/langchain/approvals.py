"""Approvals through LangChain's human-in-the-loop middleware: its interrupts as neutral approval requests, and the
caller's decisions as the `Command(resume=...)` that continues the paused thread.

`HumanInTheLoopMiddleware` (its default, batched form) pauses after a model call whose calls include gated tools:
one LangGraph interrupt whose value lists an action request per gated call, in the order of the message's calls,
and whose answer is a list of decisions in that order. Each gated call becomes an `ApprovalRequest` with an id
made of the interrupt's id and the call's position, so a decision names exactly one call of exactly one pause.
A decision for anything else (a request of an earlier, answered pause; one the caller wrote itself) matches no
pending call and is left out: LangGraph resumes only the interrupt its thread holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from langchain_core.messages import AIMessage, BaseMessage

from harness.adapters.langchain.convert import ai_contents
from harness.contents import ApprovalRequest, ApprovalResponse, FunctionCall, Message

# The decisions the adapter allows per gated tool: the spec's approve and reject.
ALLOWED_DECISIONS = ["approve", "reject"]


def interrupt_on(gated: Sequence[str]) -> dict[str, Any]:
    """`HumanInTheLoopMiddleware`'s configuration for the scenario's tools that need approval."""
    return {name: {"allowed_decisions": list(ALLOWED_DECISIONS)} for name in gated}


@dataclass(frozen=True)
class Pause:
    """One human-in-the-loop interrupt the thread `config` holds: its gated calls, as requests, in order."""

    config: dict[str, Any]
    message_id: str | None
    requests: tuple[ApprovalRequest, ...]

    def resume(self, decisions: Sequence[ApprovalResponse]) -> dict[str, Any] | None:
        """The resume value carrying the caller's decisions on this pause's requests, in their order; None when
        the caller decided none of them. A caller that answers only some sends only those: the middleware takes
        one decision per gated call and refuses fewer, and the adapter never makes a decision up."""
        by_id = {d.id: d for d in decisions}
        answered = [by_id[r.id] for r in self.requests if r.id in by_id]
        if not answered:
            return None
        return {"decisions": [{"type": "approve" if d.approved else "reject"} for d in answered]}


def _hitl_value(value: object) -> list[dict[str, Any]] | None:
    if isinstance(value, dict) and "action_requests" in value:
        return cast(list[dict[str, Any]], cast(dict[str, Any], value)["action_requests"])
    return None


def pause_of(config: dict[str, Any], interrupts: Sequence[Any], messages: Sequence[BaseMessage],
             gated: set[str]) -> Pause | None:
    """The human-in-the-loop pause among a thread's pending `interrupts`, bound to the calls it gates."""
    for pending in interrupts:
        actions = _hitl_value(pending.value)
        if actions is None:
            continue
        last = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
        calls = [c for c in ai_contents(last) if isinstance(c, FunctionCall) and c.name in gated] if last else []
        interrupt_id = str(getattr(pending, "id", None) or getattr(pending, "interrupt_id", "hitl"))
        requests = tuple(ApprovalRequest(f"{interrupt_id}/{i}", call) for i, call in enumerate(calls[:len(actions)]))
        return Pause(config, last.id if last else None, requests)
    return None


def decisions_in(messages: Sequence[Message]) -> list[ApprovalResponse]:
    return [c for m in messages for c in m.contents if isinstance(c, ApprovalResponse)]


def with_requests(messages: tuple[Message, ...], pause: Pause) -> tuple[Message, ...]:
    """The response with the pause's requests after the calls, in the last assistant message."""
    index = max((i for i, m in enumerate(messages) if m.role == "assistant"), default=None)
    if index is None:
        return (*messages, Message("assistant", pause.requests))
    target = messages[index]
    return (*messages[:index], Message("assistant", target.contents + pause.requests), *messages[index + 1:])

"""A batch that needs both an approval and the caller's answer is paused with one kind of request for every call.

What it shows
    The model asks, in one response, for `deploy_release` (c1, needs approval) and `confirm_window` (c2,
    declaration-only: the caller answers it). Each call alone is paused as it should be (control): c1 with an
    approval request, c2 as a user-input request. Together, the whole batch takes the kind of its first paused call:
        c1 first: an approval request for c1 and one for c2, the declaration-only call the caller must answer itself;
        c2 first: c1 and c2 both flagged as user-input requests and no approval request at all, so the
                  approval-required deploy is handed to the caller to answer like a host question.
    A caller (or UI) that renders the pause asks the operator to approve the host question, or never asks for the
    approval the deploy needs; with a session, the caller's answer to the host question alone leaves the other call
    open in the history, and the next unrelated turn sends it to the model without a result.

Spec rows violated (spec 004)
    "Initial approval request | Assistant response contains the original call and approval request; tool does not
    execute." and "Declaration-only call | The call is surfaced as user input and is not executed".
    Harness scenarios `mixed.first-call-paused.declaration-only-then-gated`,
    `mixed.first-call-paused.gated-then-declaration-only` and (its turn after the caller answers c1 only)
    `correlation.pending-history.answered-sibling-reasoning`.

Affected releases
    agent-framework-core 1.10.0 ... 1.18.0 (exit 1 on each release of the range), fixed in 1.19.0, which pauses each
    call with its own kind of request (exit 0 on 1.19.0 ... 1.23.0).

Run
    <venv>/bin/python repro/agent_framework/mixed_batch_pause_one_request_kind.py
    Needs agent-framework-core only.
    Exit status 1: the defect is present. Exit status 0: in both orders each call is paused with its own kind of
    request, as when it is alone.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from typing import Any

from agent_framework import (
    BaseChatClient,
    ChatResponse,
    Content,
    FunctionInvocationLayer,
    FunctionTool,
    Message,
)

ran: list[str] = []


async def deploy(version: str) -> str:
    ran.append(version)
    return f"deployed {version}"


def tools() -> list[FunctionTool]:
    deploy_release = FunctionTool(
        name="deploy_release",
        description="Deploy a release.",
        approval_mode="always_require",
        func=deploy,
        input_model={"type": "object", "properties": {"version": {"type": "string"}}, "required": ["version"]},
    )
    # No body: the caller (the host) answers this call itself.
    confirm_window = FunctionTool(
        name="confirm_window",
        description="Ask the operator to confirm the change window.",
        func=None,
        input_model={"type": "object", "properties": {"window": {"type": "string"}}, "required": ["window"]},
    )
    return [deploy_release, confirm_window]


CALLS = {
    "c1": ("deploy_release", '{"version": "4.2"}'),
    "c2": ("confirm_window", '{"window": "tonight"}'),
}
EXPECTED = {"c1": "approval request", "c2": "user input"}


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that asks for the calls `call_ids`, in that order, in one response."""

    def __init__(self, call_ids: list[str]) -> None:
        super().__init__()
        self.call_ids = call_ids

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        reply = Message("assistant", [
            Content.from_function_call(call_id, CALLS[call_id][0], arguments=CALLS[call_id][1])
            for call_id in self.call_ids])

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[reply], response_id="reply-1")

        return complete()


def request_kinds(response: ChatResponse) -> dict[str, str]:
    """How the pause surfaces each call: an approval request for it, else a user-input flag on the call."""
    kinds: dict[str, str] = {}
    contents = [content for message in response.messages for content in message.contents]
    for content in contents:
        if content.type == "function_approval_request":
            kinds[content.function_call.call_id] = "approval request"
    for content in contents:
        if content.type == "function_call" and content.call_id not in kinds:
            kinds[content.call_id] = "user input" if content.user_input_request else "none"
    return kinds


async def pause(call_ids: list[str]) -> dict[str, str]:
    response = await ScriptedClient(call_ids).get_response(
        [Message("user", ["Deploy 4.2 once the change window is confirmed."])], options={"tools": tools()})
    return request_kinds(response)


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    alone = {call_id: (await pause([call_id]))[call_id] for call_id in CALLS}
    print(f"  control, each call alone: {alone}")
    if alone != EXPECTED or ran:
        print("UNEXPECTED: a call alone is not paused with its own kind of request; the reproduction needs updating")
        return 2
    defect = False
    for order in (["c1", "c2"], ["c2", "c1"]):
        kinds = await pause(order)
        print(f"  batch {order[0]}, {order[1]}: {kinds}")
        defect = defect or kinds != EXPECTED
    if ran:
        print(f"UNEXPECTED: the deploy ran without approval: {ran}")
        return 2
    if defect:
        print("DEFECT: in a mixed batch a call is paused with the other call's kind of request")
        return 1
    print("OK: in both orders each call is paused with its own kind of request")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

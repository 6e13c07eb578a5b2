"""A replayed, duplicated approval request restores a second function call: the model gets c1 twice, one result.

What it shows
    The caller keeps the conversation in its own store and replays it with the approval request r1 for call c1
    written twice: beside its function call, and once more alone in a later assistant message (as a store that
    re-saved the surfaced request does), then approves r1. No session is passed. The tool runs once, but the
    history sent to the model is
        [user, assistant call c1, assistant call c1, tool result c1]:
    the loop turns the duplicated wrapper back into a second function call c1, which has no result of its own
    (paired by position, the first call is followed by the second, not by a result). Chat Completions refuses such
    a request with HTTP 400 ("An assistant message with 'tool_calls' must be followed by tool messages ...").
    Both response modes.

Spec rows violated (spec 004)
    "Replayed approval wrapper | A duplicated wrapper does not restore another function call." Normative contract:
    "Model-bound history contains one function call/result pair per completed logical occurrence." and "Every
    actionable local `function_call` produces exactly one terminal `function_result`".

Affected releases
    agent-framework-core 1.10.0 ... 1.12.1 (checked: 1.10.0, 1.12.1 defect; 1.13.0, 1.16.0, 1.19.0 fixed). From
    1.15.0 a caller passing a session, and from 1.20.0 one passing none, has hand-written approvals dropped
    (handwritten_reused_id_approvals_ignored.py); this script passes no session and sets
    `disable_approval_response_binding` when nothing ran, to reach the same path.

Run
    <venv>/bin/python repro/agent_framework/replayed_wrapper_restores_second_call.py
    Exit status 1: the defect is present. Exit status 0: the model gets c1 once, with its one result.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import sys
from typing import Any

from agent_framework import (
    BaseChatClient,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    FunctionInvocationLayer,
    Message,
    tool,
)

ran: list[str] = []


@tool(name="restart_service", approval_mode="always_require")
def restart_service(service: str) -> str:
    ran.append(service)
    return "restarted"


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that answers every call with the same final text and records each history it receives."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.received: list[list[Any]] = []

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        self.received.append(list(messages))
        reply = Message("assistant", ["Billing is restarted."])
        if stream:
            async def updates() -> Any:
                yield ChatResponseUpdate(role="assistant", contents=reply.contents, message_id="reply")

            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[reply], response_id="reply")

        return complete()


def handwritten_history() -> list[Message]:
    """The call c1 with its approval request r1, the same request replayed alone, then the approval of r1."""
    call = Content.from_function_call("c1", "restart_service", arguments=json.dumps({"service": "billing"}))
    request = Content.from_function_approval_request(id="r1", function_call=call)
    duplicate = Content.from_function_approval_request(id="r1", function_call=call)
    return [
        Message("user", ["Restart billing."]),
        Message("assistant", [call, request]),
        Message("assistant", [duplicate]),
        Message("user", [request.to_function_approval_response(True)]),
    ]


def described(messages: Any) -> list[tuple[str, list[str]]]:
    def one(content: Any) -> str:
        if content.type == "function_call":
            return f"function_call {content.call_id} {content.arguments}"
        return f"{content.type} {content.call_id}" if content.call_id else str(content.type)

    return [(str(m.role), [one(c) for c in m.contents]) for m in messages if not isinstance(m, str)]


def calls_sent(messages: Any) -> int:
    return sum(1 for m in messages if not isinstance(m, str) for c in m.contents if c.type == "function_call")


async def run(stream: bool, *, unbound: bool = False) -> bool | None:
    """True: one call c1 reaches the model; False: more than one; None: the approval did not run."""
    ran.clear()
    client = ScriptedClient(function_invocation_configuration={"disable_approval_response_binding": True}) \
        if unbound else ScriptedClient()
    kwargs: Any = {"options": {"tools": [restart_service]}}
    if stream:
        response_stream = client.get_response(handwritten_history(), stream=True, **kwargs)
        async for _ in response_stream:
            pass
        await response_stream.get_final_response()
    else:
        await client.get_response(handwritten_history(), **kwargs)
    label = f"{'streaming' if stream else 'non-streaming'}" + (", binding disabled" if unbound else "")
    print(f"  no session, {label}: ran {ran}")
    if ran != ["billing"] or not client.received:
        print("      the approval was not carried out")
        return None
    print(f"      history sent to the model: {described(client.received[-1])}")
    count = calls_sent(client.received[-1])
    if count != 1:
        print(f"      <- call c1 reaches the model {count} times, with one result")
    return count == 1


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    outcomes: list[bool] = []
    for stream in (False, True):
        outcome = await run(stream)
        if outcome is None:
            outcome = await run(stream, unbound=True)
        if outcome is None:
            print("NOT RUN: the approval is not carried out on this release")
            return 2
        outcomes.append(outcome)
    if all(outcomes):
        print("FIXED: the duplicated request restores no second call; the model gets c1 once with its result")
        return 0
    print("DEFECT: the duplicated approval request is restored as a second call c1 without a result")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

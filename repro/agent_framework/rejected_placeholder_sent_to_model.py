"""A rejected call's pending placeholder reaches the model next to the rejection: two results for one call.

What it shows
    Turn 1: the model calls an approval-required tool (transfer_funds as c1); the loop pauses with an approval
    request. The caller's transport stores a pending placeholder result for the paused call ("[APPROVAL_PENDING]"),
    as the spec's approval-correlation flow describes.
    Turn 2: the caller replays its history — the turn-1 response, the tool message with the placeholder — and
    rejects the call. The rejection must replace the placeholder: the model receives exactly one result for c1, the
    rejection, and never the placeholder. On 1.10.0 ... 1.12.1 the model receives the placeholder *and*, in a second
    tool message, the rejection — two function_results for one call, the first of them the placeholder text. (An
    approval of the same transcript does replace the placeholder in place on those releases; only the rejection
    path appends. The same releases also leave the rejection out of the resumed response, see
    approval_rejection_missing_from_response.py.) Fixed in 1.13.0.

Spec rows violated (spec 004)
    Approval correlation and replay: "Rejected placeholder | Rejection replaces the pending placeholder instead of
    adding a second result.", the normalizer flow "function_result with APPROVAL_PENDING: attach placeholder to open
    occurrence ... Rejected -> Create synthetic rejection result -> occurrence has placeholder? -> Replace
    placeholder and remove response wrapper", and "Model-bound history contains one function call/result pair per
    completed logical occurrence".

Affected releases
    agent-framework-core 1.10.0 ... 1.12.1 (fixed in 1.13.0). Both modes.

Run
    <venv>/bin/python repro/agent_framework/rejected_placeholder_sent_to_model.py
    Exit status 1: the defect is present. Exit status 0: the model gets exactly one result for c1, the rejection.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import logging
import sys
from typing import Any

from agent_framework import (
    AgentSession,
    BaseChatClient,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    FunctionInvocationLayer,
    Message,
    tool,
)

PLACEHOLDER = "[APPROVAL_PENDING]"
executions: list[str] = []


@tool(name="transfer_funds", approval_mode="always_require")
def transfer_funds(amount: int, to: str) -> str:
    executions.append(f"transfer_funds({amount}, {to})")
    return "transferred"


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that answers each call with the next scripted assistant message and records what it received."""

    def __init__(self, script: list[Message], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.script = list(script)
        self.received: list[list[Any]] = []

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        self.received.append(list(messages))
        reply = self.script.pop(0)
        message_id = f"reply-{len(self.received)}"
        if stream:
            async def updates() -> Any:
                for content in reply.contents:
                    yield ChatResponseUpdate(role="assistant", contents=[content], message_id=message_id)

            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[reply], response_id=message_id)

        return complete()


def script() -> list[Message]:
    return [
        Message("assistant", [
            Content.from_function_call("c1", "transfer_funds", arguments='{"amount": 500, "to": "Bob"}'),
        ]),
        Message("assistant", [Content.from_text("The transfer was not made.")]),
    ]


def results(messages: list[Any]) -> list[str]:
    return [str(c.result) for m in messages if not isinstance(m, str) for c in m.contents
            if c.type == "function_result" and c.call_id == "c1"]


async def ask(client: ScriptedClient, messages: list[Message], session: AgentSession, stream: bool) -> Any:
    options: Any = {"tools": [transfer_funds]}
    if stream:
        response_stream = client.get_response(messages, stream=True, options=options,
                                              client_kwargs={"session": session})
        async for _ in response_stream:
            pass
        return await response_stream.get_final_response()
    return await client.get_response(messages, options=options, client_kwargs={"session": session})


async def run(stream: bool) -> bool:
    label = "streaming" if stream else "non-streaming"
    executions.clear()
    client = ScriptedClient(script())
    session = AgentSession()  # carried along so that releases binding approvals to a session accept the reply
    user = Message("user", ["Send 500 to Bob."])
    first = await ask(client, [user], session, stream)
    request = next(c for m in first.messages for c in m.contents if c.type == "function_approval_request")
    placeholder = Message("tool", [Content.from_function_result("c1", result=PLACEHOLDER)])
    decision = Message("user", [request.to_function_approval_response(False)])
    await ask(client, [user, *first.messages, placeholder, decision], session, stream)

    to_model = results(client.received[-1])
    ok = len(to_model) == 1 and PLACEHOLDER not in to_model[0] and "reject" in to_model[0].lower()
    print(f"  {label}: c1 results sent to the model {to_model}" + ("" if ok else "   <- wrong"))
    print(f"  {label}: executions {executions}" + ("" if not executions else "   <- the rejected tool ran"))
    return ok and not executions


async def main() -> int:
    logging.getLogger("agent_framework").setLevel(logging.ERROR)
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    print("  expected everywhere: one c1 result sent to the model, the rejection (no placeholder)")
    outcomes = [await run(stream) for stream in (False, True)]
    if all(outcomes):
        print("FIXED: the rejection replaces the pending placeholder")
        return 0
    print("DEFECT: the model receives the pending placeholder as well as (or instead of) the rejection")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

"""A completed approval, replayed from the caller's history on a later turn, executes the tool again.

What it shows
    A stateless caller replays its stored history, approval controls included, on every turn. The history holds
    one completed approval round: the user's request, the assistant's function_call (send_invoice, call id c1)
    with its approval request, the caller's approval in a user message of its own, the tool's terminal
    function_result for c1 and the model's answer. The caller now asks an unrelated question. On affected
    releases the loop treats the replayed approval as a new decision and sends the invoice a second time, then
    shows the model two results for the one call.

Spec rows violated (spec 004)
    Approval correlation and replay: "Later stateless turn | A prior terminal approval response cannot execute
    again." and "Historical resolved response plus new round | The old response is removed from normalized input
    and is not converted into a rejection result." Normative contract: "An approved tool executes exactly once."
    and "A completed function call/result pair is inert on later turns."

Affected releases
    agent-framework-core 1.10.0 ... 1.12.1; fixed in 1.13.0.

Run
    <venv>/bin/python repro/agent_framework/resolved_approval_reexecuted.py
    Exit status 1: the defect is present. Exit status 0: the replayed approval did not run the tool again.
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

executions: list[str] = []


@tool(name="send_invoice", approval_mode="always_require")
def send_invoice(customer: str) -> str:
    executions.append(customer)
    return "invoice sent"


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
    return [Message("assistant", [Content.from_text("Thirty days.")])]


def shape(messages: list[Any]) -> list[tuple[str, list[str]]]:
    return [(str(m.role), [str(c.type) for c in m.contents]) for m in messages if not isinstance(m, str)]


async def ask(client: ScriptedClient, messages: list[Message], session: AgentSession, stream: bool) -> Any:
    options: Any = {"tools": [send_invoice]}
    if stream:
        response_stream = client.get_response(messages, stream=True, options=options,
                                              client_kwargs={"session": session})
        async for _ in response_stream:
            pass
        return await response_stream.get_final_response()
    return await client.get_response(messages, options=options, client_kwargs={"session": session})


def stored_history() -> list[Message]:
    """A completed approval round as the caller's store kept it, then a new, unrelated question."""
    call = Content.from_function_call("c1", "send_invoice", arguments='{"customer": "ACME"}')
    request = Content.from_function_approval_request(id="approval-c1", function_call=call)
    return [
        Message("user", ["Send ACME its invoice."]),
        Message("assistant", [call, request]),
        Message("user", [request.to_function_approval_response(True)]),
        Message("tool", [Content.from_function_result("c1", result="invoice sent")]),
        Message("assistant", [Content.from_text("The invoice is sent.")]),
        Message("user", ["Thanks. What is the usual payment term?"]),
    ]


async def run(stream: bool) -> bool:
    label = "streaming" if stream else "non-streaming"
    executions.clear()
    client = ScriptedClient(script())
    session = AgentSession()  # carried along as on every turn of a caller whose approvals bind to a session
    answer = await ask(client, stored_history(), session, stream)
    print(f"  {label}: sent to the model {shape(client.received[-1])}")
    print(f"  {label}: answer {answer.text!r}; executions {executions}"
          + ("   <- the completed approval ran again" if executions else ""))
    return not executions


async def main() -> int:
    logging.getLogger("agent_framework").setLevel(logging.ERROR)  # releases log each ignored replayed response
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    results = [await run(stream) for stream in (False, True)]
    if all(results):
        print("FIXED: the replayed, completed approval did not execute again")
        return 0
    print("DEFECT: a completed approval replayed on a later turn executed the tool again")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

"""On a later turn without a new decision, approval wrappers replayed from the caller's history reach the model.

What it shows
    A caller that keeps its own history persists every message it sends and receives (as dicts, the way a
    message store does) and rebuilds the history from that store on every turn.
    Turn 1: the model calls an approval-required tool (send_invoice, call id c1); the loop pauses with an approval
    request. Turn 2: the caller replays its history and approves; the tool runs once and the model answers.
    Turn 3: an unrelated question, with the whole history replayed — once exactly as stored, and once the way the
    spec asks manual-history callers to replay it, without the approval response it already submitted.
    The approval round is complete: its function_call has its terminal function_result. On affected releases the
    loop forwards the completed round's approval request to the model inside the assistant message of turn 1
    (1.13.0 and 1.14.0 also the replayed approval response, in a user message of its own): wrappers are removed
    only on turns that carry a new decision.

Spec rows violated (spec 004)
    Approval correlation and replay: "Later stateless turn | A prior terminal approval response cannot execute
    again." together with the normative rules "`function_approval_request` and `function_approval_response` are
    control-plane contents, not durable model transcript items." (Approval control content) and "Append-only
    history must not replay stale approval request/response wrappers to the model." (History and continuation).

Affected releases
    agent-framework-core 1.10.0 ... 1.23.0 (still present in the latest release). 1.13.0 and 1.14.0 forward the
    request and the replayed response; 1.15.0 and later drop the replayed response but forward the request. On
    1.10.0 ... 1.12.1 the history replayed as stored makes the approval execute again instead (a separate defect,
    see resolved_approval_reexecuted.py), and the history without the submitted response forwards the request.

Run
    <venv>/bin/python repro/agent_framework/stale_approval_wrappers_to_model.py
    Exit status 1: the defect is present. Exit status 0: no approval wrapper reaches the model on turn 3.
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
WRAPPERS = ("function_approval_request", "function_approval_response")


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
    return [
        Message("assistant", [Content.from_function_call("c1", "send_invoice", arguments='{"customer": "ACME"}')]),
        Message("assistant", [Content.from_text("The invoice is sent.")]),
        Message("assistant", [Content.from_text("Thirty days.")]),
    ]


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


def rebuild(store: list[dict[str, Any]], *, without_submitted_responses: bool = False) -> list[Message]:
    """The caller's history as fresh messages rebuilt from its store."""
    messages = [Message.from_dict(entry) for entry in store]
    if without_submitted_responses:
        for message in messages:
            message.contents = [c for c in message.contents if c.type != "function_approval_response"]
        messages = [m for m in messages if m.contents]
    return messages


async def run(stream: bool, omit_response: bool) -> bool:
    label = f"{'streaming' if stream else 'non-streaming'}, " \
            f"{'approval response omitted' if omit_response else 'history replayed as stored'}"
    executions.clear()
    client = ScriptedClient(script())
    session = AgentSession()  # carried along so that releases binding approvals to a session accept the reply
    store: list[dict[str, Any]] = []

    user = Message("user", ["Send ACME its invoice."])
    store.append(user.to_dict())
    first = await ask(client, rebuild(store), session, stream)
    store.extend(m.to_dict() for m in first.messages)
    request = next(c for m in first.messages for c in m.contents if c.type == "function_approval_request")
    store.append(Message("user", [request.to_function_approval_response(True)]).to_dict())
    second = await ask(client, rebuild(store), session, stream)
    store.extend(m.to_dict() for m in second.messages)

    store.append(Message("user", ["Thanks. What is the usual payment term?"]).to_dict())
    third = await ask(client, rebuild(store, without_submitted_responses=omit_response), session, stream)

    to_model = client.received[-1]
    leaked = [c.type for m in to_model if not isinstance(m, str) for c in m.contents if c.type in WRAPPERS]
    print(f"  {label}: turn 3 sent to the model {shape(to_model)}" + (f"   <- {leaked}" if leaked else ""))
    print(f"  {label}: turn 3 answer {third.text!r}; executions over all turns {executions}")
    return not leaked


async def main() -> int:
    logging.getLogger("agent_framework").setLevel(logging.ERROR)  # releases log each ignored replayed response
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    results = [await run(stream, omit) for omit in (False, True) for stream in (False, True)]
    if all(results):
        print("FIXED: a completed approval round reaches the model as its call and result only")
        return 0
    print("DEFECT: the model receives approval wrappers of a completed round on a later turn")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

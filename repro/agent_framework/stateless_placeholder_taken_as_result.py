"""Without a session, a pending placeholder result is taken as the call's result and the caller's decision is lost.

What it shows
    The caller keeps the conversation itself and passes no AgentSession. Turn 1: the model calls an
    approval-required tool (transfer_funds, c1); the loop pauses with the call and its approval request. The
    caller's transport stores a pending placeholder result for the paused call ("[APPROVAL_PENDING]"), as the
    spec's approval-correlation flow describes. Turn 2: the caller replays the turn-1 response, the tool message
    with the placeholder, and its decision (an approval, then, in a second conversation, a rejection), in both
    response modes.
    On affected releases the placeholder stands as c1's terminal result: the approved tool never runs, no
    rejection result is made, and the model receives the placeholder as c1's result together with the approval
    request still inside the assistant message. On 1.20.0 ... 1.22.0 the decision itself is dropped with a logged
    warning (as in stateless_approval_ignored_without_session.py); on 1.23.0 it is kept as settled history and
    forwarded to the model as well. Nothing reaches the caller but the model's answer. The same transcript with an
    AgentSession passed on both turns runs the approved call and replaces the placeholder.

Spec rows violated (spec 004)
    Approval correlation and replay: "Reused-id placeholders | Placeholder results consume approved results by
    occurrence.", "Rejected placeholder | Rejection replaces the pending placeholder instead of adding a second
    result.", "Results reordered with placeholders", and History and provider serialization: "Pending placeholder
    history | An approval response remains replayable while its only result is `[APPROVAL_PENDING]`."; with the
    normative rules "An approved tool executes exactly once", "`function_approval_request` and
    `function_approval_response` are control-plane contents, not durable model transcript items" and "Model-bound
    history contains one function call/result pair per completed logical occurrence".

Affected releases
    agent-framework-core 1.20.0 ... 1.23.0 (still present in the latest release). 1.10.0 ... 1.19.0 replace the
    placeholder with the approved result; they replace it with the rejection from 1.13.0 (on 1.10.0 ... 1.12.1
    the rejection is appended next to the placeholder, see rejected_placeholder_sent_to_model.py).

Run
    <venv>/bin/python repro/agent_framework/stateless_placeholder_taken_as_result.py
    Exit status 1: the defect is present. Exit status 0: the approval replaces the placeholder with the tool's
    result and the model never sees the placeholder.
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
WRAPPERS = ("function_approval_request", "function_approval_response")
executions: list[str] = []


@tool(name="transfer_funds", approval_mode="always_require")
def transfer_funds(amount: int, to: str) -> str:
    executions.append(f"{amount} to {to}")
    return "transferred"


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that first calls transfer_funds, then answers in text, and records the history of every call."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.replies = [
            Message("assistant", [Content.from_function_call("c1", "transfer_funds",
                                                             arguments='{"amount": 500, "to": "Bob"}')]),
            Message("assistant", [Content.from_text("Done.")]),
        ]
        self.received: list[list[Any]] = []

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        self.received.append(list(messages))
        reply = self.replies[min(len(self.received), len(self.replies)) - 1]
        message_id = f"reply-{len(self.received)}"
        if stream:
            async def updates() -> Any:
                for content in reply.contents:
                    yield ChatResponseUpdate(role="assistant", contents=[content], message_id=message_id)

            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[reply], response_id=message_id)

        return complete()


def described(messages: Any) -> list[tuple[str, list[str]]]:
    def one(content: Any) -> str:
        if content.type == "function_result":
            return f"function_result {content.call_id}={content.result!r}"
        return f"{content.type} {content.call_id}" if content.call_id else str(content.type)

    return [(str(m.role), [one(c) for c in m.contents]) for m in messages if not isinstance(m, str)]


async def ask(client: ScriptedClient, messages: list[Message], stream: bool, session: AgentSession | None) -> Any:
    kwargs: Any = {"options": {"tools": [transfer_funds]}}
    if session is not None:
        kwargs["client_kwargs"] = {"session": session}
    if not stream:
        return await client.get_response(messages, **kwargs)
    response_stream = client.get_response(messages, stream=True, **kwargs)
    async for _ in response_stream:
        pass
    return await response_stream.get_final_response()


async def run(approve: bool, stream: bool, *, with_session: bool = False) -> bool:
    executions.clear()
    client = ScriptedClient()
    session = AgentSession() if with_session else None
    user = Message("user", ["Send 500 to Bob."])
    first = await ask(client, [user], stream, session)
    request = next(c for m in first.messages for c in m.contents if c.type == "function_approval_request")
    placeholder = Message("tool", [Content.from_function_result("c1", result=PLACEHOLDER)])
    decision = Message("user", [request.to_function_approval_response(approve)])
    second = await ask(client, [user, *first.messages, placeholder, decision], stream, session)

    to_model = described(client.received[-1]) if len(client.received) > 1 else []
    results = [kind for _, kinds in to_model for kind in kinds if kind.startswith("function_result c1")]
    wrappers = [kind for _, kinds in to_model for kind in kinds if kind.startswith(WRAPPERS)]
    placeholder_sent = any(PLACEHOLDER in kind for kind in results)
    ran = executions == ["500 to Bob"] if approve else not executions
    honoured = ran and len(results) == 1 and not placeholder_sent
    carried_out = ran and any(PLACEHOLDER not in kind for kind in results)
    label = f"{'approve' if approve else 'reject'}, {'streaming' if stream else 'non-streaming'}, " \
            f"{'with an AgentSession' if with_session else 'no session'}"
    print(f"  {label}: executions {executions}" + ("" if carried_out else "   <- the decision was not carried out"))
    print(f"      history sent to the model: {to_model}"
          + ("   <- the placeholder stands as the result" if placeholder_sent else "")
          + (f"   <- {wrappers}" if wrappers else ""))
    print(f"      response: {described(second.messages)}")
    return honoured


async def main() -> int:
    logging.getLogger("agent_framework").setLevel(logging.ERROR)  # some releases log each ignored decision
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    approvals = [await run(True, stream) for stream in (False, True)]
    print("  a rejection of the same transcript (not counted in the exit status):")
    for stream in (False, True):
        await run(False, stream)
    print("  the same approval with an AgentSession passed on both turns, for comparison:")
    await run(True, False, with_session=True)
    if all(approvals):
        print("FIXED: without a session, the approval replaces the pending placeholder with the tool's result")
        return 0
    print("DEFECT: without a session the placeholder stands as the call's result and the approval is lost")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

"""Without a session, the approved call whose result a paused resume dropped runs again on the next decision.

What it shows
    The caller keeps the conversation itself, passes no AgentSession, and replays exactly what it was given.
    Turn 1: the model calls an approval-required tool (c1, delete /tmp/a.txt); the loop pauses.
    Turn 2: the caller approves c1. The tool runs once and the model, seeing the result, calls the tool again
    (c2, delete /tmp/b.txt), so the resumed turn pauses for approval again. The non-streaming response of that
    turn lacks c1's terminal result (approval_resume_pause_drops_result.py), so the caller's history now holds
    c1's approval without a result.
    Turn 3: the caller replays that history and rejects c2. On affected releases the replayed approval of c1 is
    taken as still pending and the tool deletes /tmp/a.txt a second time. A caller that passes a session does not
    see this from 1.15.0: its approvals are bound to the requests the session recorded and consumed once, so the
    replayed approval is ignored (the model then gets c1 without a result instead). A caller without a session
    has no such record, so the second execution stays until the dropped result itself is fixed in 1.19.0.

Spec rows violated (spec 004)
    "Approved non-streaming resume | Result precedes final text; tool executes once; inputs remain unchanged.", the
    normative rule "An approved tool executes exactly once", the contract that "The resumed response contains the
    newly resolved approved and rejected terminal results before any final assistant message", and the review rule
    "approved tools cannot execute twice".

Affected releases
    agent-framework-core 1.13.0 ... 1.18.0 for a caller without a session (fixed in 1.19.0); with a session, 1.13.0
    and 1.14.0 only. Non-streaming only: the streamed response keeps c1's result, so its replay runs nothing twice.
    On 1.10.0 ... 1.12.1 the resume rewrites the caller's own messages (approval_resume_mutates_input.py) and the
    replay runs c1 once. From 1.20.0 no approval of a caller without a session runs at all
    (stateless_approval_ignored_without_session.py).

Run
    <venv>/bin/python repro/agent_framework/stateless_resume_pause_reruns_approved.py
    Exit status 1: the defect is present. Exit status 0: /tmp/a.txt is deleted at most once over the three turns.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import logging
import sys
from typing import Any

from agent_framework import (
    BaseChatClient,
    ChatResponse,
    Content,
    FunctionInvocationLayer,
    Message,
    tool,
)

executions: list[str] = []


@tool(name="delete_file", approval_mode="always_require")
def delete_file(path: str) -> str:
    executions.append(path)
    return "deleted"


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A non-streaming model that answers each call with the next scripted message and records what it received."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.script = [
            Message("assistant", [Content.from_function_call("c1", "delete_file",
                                                             arguments='{"path": "/tmp/a.txt"}')]),
            Message("assistant", [Content.from_text("Now /tmp/b.txt."),
                                  Content.from_function_call("c2", "delete_file",
                                                             arguments='{"path": "/tmp/b.txt"}')]),
            Message("assistant", [Content.from_text("I deleted /tmp/a.txt and kept /tmp/b.txt.")]),
        ]
        self.received: list[list[Any]] = []

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        self.received.append(list(messages))
        reply = self.script.pop(0) if self.script else Message("assistant", [Content.from_text("(unscripted)")])

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[reply], response_id=f"reply-{len(self.received)}")

        return complete()


def shape(messages: Any) -> list[tuple[str, list[str]]]:
    return [(str(m.role), [f"{c.type} {c.call_id}" if c.call_id else str(c.type) for c in m.contents])
            for m in messages if not isinstance(m, str)]


def request_for(response: Any, call_id: str) -> Any:
    return next(c for m in response.messages for c in m.contents
                if c.type == "function_approval_request" and c.function_call.call_id == call_id)


async def main() -> int:
    logging.getLogger("agent_framework").setLevel(logging.ERROR)  # later releases log each ignored decision
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    client = ScriptedClient()
    options: Any = {"tools": [delete_file]}

    history: list[Any] = [Message("user", ["Delete /tmp/a.txt, then /tmp/b.txt"])]
    first = await client.get_response(list(history), options=options)
    history += first.messages
    approve = Message("user", [request_for(first, "c1").to_function_approval_response(True)])
    second = await client.get_response([*history, approve], options=options)
    history += [approve, *second.messages]
    print(f"  turn 2 (approve c1; the model asks for c2): response {shape(second.messages)}")
    print(f"  turn 2: executions {executions}")

    if not any(c.type == "function_approval_request" for m in second.messages for c in m.contents):
        print("  turn 2 did not pause again; the third turn does not apply")
    else:
        reject = Message("user", [request_for(second, "c2").to_function_approval_response(False)])
        await client.get_response([*history, reject], options=options)
        print(f"  turn 3 (replay, reject c2): history sent to the model {shape(client.received[-1])}")
    twice = executions.count("/tmp/a.txt") > 1
    print(f"  executions over all turns {executions}" + ("   <- /tmp/a.txt deleted twice" if twice else ""))
    if twice:
        print("DEFECT: without a session, a replayed approval whose result the paused resume dropped runs again")
        return 1
    print("FIXED: /tmp/a.txt was not deleted twice")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

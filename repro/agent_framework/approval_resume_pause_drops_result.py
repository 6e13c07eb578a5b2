"""A non-streaming resume that pauses for another approval drops the result it produced; a replay then re-runs it.

What it shows
    Turn 1: the model calls an approval-required tool (c1, delete /tmp/a.txt); the loop pauses.
    Turn 2: the caller replays the conversation and approves c1. The tool runs once, and the model, seeing the
    result, calls the tool again (c2, delete /tmp/b.txt), so the resumed turn pauses for approval again. On affected
    releases the non-streaming response of turn 2 holds only the model's message (text, c2 and its approval
    request): c1's terminal result is missing, although the model received it and the streamed run of the same
    turn shows it. A caller that keeps history from what it is given then holds c1's approval without a result.
    Turn 3: the caller replays that history and rejects c2. On 1.13.0 and 1.14.0 the replayed approval of c1 is
    taken as still pending and the tool deletes /tmp/a.txt a second time; on 1.15.0 ... 1.18.0 it is ignored, and
    the model is sent c1's call without any result.

Spec rows violated (spec 004, Approval pause and resume)
    "Approved non-streaming resume | Result precedes final text; tool executes once; inputs remain unchanged." and
    "Initial approval request", with the contract that "The resumed response contains the newly resolved approved
    and rejected terminal results before any final assistant message", that streaming yields the same logical result
    content as non-streaming output, and the review rules "approved tools cannot execute twice" and "no call or
    result becomes orphaned". The same mechanism as approval_pause_drops_earlier_rounds.py, where the dropped round
    is a call the model made earlier in the turn; here it is the approval's own terminal result.

Affected releases
    agent-framework-core 1.10.0 ... 1.18.0; fixed in 1.19.0. Non-streaming only: the streaming response keeps the
    result. On 1.10.0 ... 1.12.1 every resumed response lacks its results anyway (approval_resume_mutates_input.py),
    and those releases resolve the replay in the caller's messages, so neither consequence of turn 3 shows there;
    the second execution shows on 1.13.0 and 1.14.0, the call sent without a result on 1.15.0 ... 1.18.0.

Run
    <venv>/bin/python repro/agent_framework/approval_resume_pause_drops_result.py
    Exit status 1: the defect is present. Exit status 0: the resumed response keeps c1's result before the new pause.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from typing import Any

from agent_framework import (
    AgentSession,
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
        reply = self.script.pop(0)

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[reply], response_id=f"reply-{len(self.received)}")

        return complete()


def shape(messages: Any) -> list[tuple[str, list[str]]]:
    return [(str(m.role), [f"{c.type} {c.call_id}" if c.call_id else c.type for c in m.contents])
            for m in messages if not isinstance(m, str)]


def request_for(response: Any, call_id: str) -> Any:
    return next(c for m in response.messages for c in m.contents
                if c.type == "function_approval_request" and c.function_call.call_id == call_id)


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    client = ScriptedClient()
    session = AgentSession()  # carried along so that releases binding approvals to a session accept the replies
    options: Any = {"tools": [delete_file]}

    async def ask(messages: list[Any]) -> Any:
        return await client.get_response(messages, options=options, client_kwargs={"session": session})

    history: list[Any] = [Message("user", ["Delete /tmp/a.txt, then /tmp/b.txt"])]
    first = await ask(history)
    history += first.messages
    approve = Message("user", [request_for(first, "c1").to_function_approval_response(True)])
    second = await ask([*history, approve])
    history += [approve, *second.messages]
    kept_result = [kinds for _, kinds in shape(second.messages)][:1] == [["function_result c1"]]
    print(f"  turn 2 (resume, pauses again): response {shape(second.messages)}"
          + ("" if kept_result else "   <- c1's result is missing"))
    print(f"  turn 2: executions so far {executions}")

    reject = Message("user", [request_for(second, "c2").to_function_approval_response(False)])
    await ask([*history, reject])
    print(f"  turn 3 (replay, reject c2): executions {executions}"
          + ("" if executions == ["/tmp/a.txt"] else "   <- /tmp/a.txt deleted again"))
    sent = shape(client.received[-1])
    calls = [k.split()[1] for _, kinds in sent for k in kinds if k.startswith("function_call ")]
    results = [k.split()[1] for _, kinds in sent for k in kinds if k.startswith("function_result ")]
    print(f"  turn 3: history sent to the model {sent}"
          + ("" if sorted(calls) == sorted(results) else "   <- a call without its result"))
    if kept_result:
        print("FIXED: the non-streaming resume keeps the resolved result before the new pause")
        return 0
    print("DEFECT: the non-streaming resume that pauses again drops the result it just produced")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

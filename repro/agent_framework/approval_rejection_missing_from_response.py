"""Resuming a rejected call leaves the rejection result out of the resumed response and rewrites the caller's input.

What it shows
    Turn 1: the model calls an approval-required tool; the response carries the call and an approval request.
    Turn 2: the caller rejects it — replaying the conversation it holds (the very objects it got back) plus the
    rejection, or, with an Agent keeping the history in its session, sending only the rejection. The tool does not
    run and the model receives the synthetic rejection result, but on affected releases the resumed response (and
    its stream) holds only the model's final text: the rejection result the caller must see before it is missing,
    and the layer has resolved the rejection inside the caller's own objects (the approval request disappears from
    turn 1's response, the caller's rejection message turns into a tool message holding the result). It is the
    rejected twin of approval_resume_mutates_input.py.

Spec rows violated (spec 004, Approval pause and resume)
    "Rejected non-streaming resume | Rejection result precedes final text; tool executes zero times; inputs remain
    unchanged."
    "Rejected streaming resume | Rejection result update precedes final text and tool executes zero times."
    Normative contract: "A rejected tool executes zero times and produces one synthetic rejection `function_result`
    using the original function `call_id`.", "The resumed response contains the newly resolved approved and rejected
    terminal results before any final assistant message." and "It must not mutate the caller's approval `Message`,
    approval `Content`, or an earlier returned response."

Affected releases
    agent-framework-core 1.10.0 ... 1.12.1; fixed in 1.13.0.

Run
    <venv>/bin/python repro/agent_framework/approval_rejection_missing_from_response.py
    Exit status 1: the defect is present. Exit status 0: the rejection result precedes the text, inputs unchanged.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from typing import Any

from agent_framework import (
    Agent,
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


@tool(name="delete_file", approval_mode="always_require")
def delete_file(path: str) -> str:
    executions.append(path)
    return "deleted"


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that answers each call with the next scripted assistant message and records what it received."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.script = [
            Message("assistant", [Content.from_function_call("c1", "delete_file",
                                                             arguments='{"path": "/tmp/report.txt"}')]),
            Message("assistant", [Content.from_text("I left /tmp/report.txt in place.")]),
        ]
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


def shape(messages: Any) -> list[tuple[str, list[str]]]:
    return [(str(m.role), [c.type for c in m.contents]) for m in messages if not isinstance(m, str)]


async def turn(send: Any, messages: list[Message], stream: bool) -> tuple[Any, list[str]]:
    if not stream:
        return await send(messages, False), []
    response_stream = send(messages, True)
    streamed = [c.type async for update in response_stream for c in update.contents]
    return await response_stream.get_final_response(), streamed


async def run(session_history: bool, stream: bool) -> bool:
    label = f"{'session-kept' if session_history else 'caller-kept'} history, " \
            f"{'streaming' if stream else 'non-streaming'}"
    executions.clear()
    client = ScriptedClient()
    if session_history:
        agent = Agent(client, tools=[delete_file])
        session = agent.create_session()

        def send(messages: list[Message], streaming: bool) -> Any:
            return agent.run(messages, stream=streaming, session=session)
    else:
        session = AgentSession()  # carried along so that releases binding approvals to a session accept the reply

        def send(messages: list[Message], streaming: bool) -> Any:
            return client.get_response(messages, stream=streaming, options={"tools": [delete_file]},
                                       client_kwargs={"session": session})

    user = Message("user", ["Delete /tmp/report.txt"])
    first, _ = await turn(send, [user], stream)
    request = next(c for m in first.messages for c in m.contents if c.type == "function_approval_request")
    rejection = Message("user", [request.to_function_approval_response(False)])
    resume = [rejection] if session_history else [user, *first.messages, rejection]
    input_before, first_before = shape(resume), shape(first.messages)
    second, streamed = await turn(send, resume, stream)

    kinds = [kind for _, kinds in shape(second.messages) for kind in kinds]
    results = [c for m in second.messages for c in m.contents if c.type == "function_result"]
    rejection_first = kinds[:2] == ["function_result", "text"] and [str(r.call_id) for r in results] == ["c1"]
    streamed_first = not stream or [k for k in streamed if k in ("function_result", "text")][:2] == [
        "function_result", "text"]
    input_kept, first_kept = shape(resume) == input_before, shape(first.messages) == first_before
    sent = [(str(c.call_id), str(c.result)) for m in client.received[-1] if not isinstance(m, str)
            for c in m.contents if c.type == "function_result"]
    print(f"  {label}: resumed response {shape(second.messages)}"
          + ("" if rejection_first else "   <- no rejection result before the text")
          + (f"; streamed {streamed}" if stream else "") + ("" if streamed_first else "   <- no result update first"))
    mutated = f"   <- mutated (was {input_before})"
    print(f"  {label}: caller input after {shape(resume)}{'' if input_kept else mutated}")
    print(f"  {label}: turn-1 response after {shape(first.messages)}{'' if first_kept else '   <- mutated'}")
    print(f"  {label}: results the model received {sent}; executions {executions}")
    return rejection_first and streamed_first and input_kept and first_kept and not executions


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    results = [await run(session_history, stream) for session_history in (False, True) for stream in (False, True)]
    if all(results):
        print("FIXED: the rejection result precedes the final text and the caller's messages are unchanged")
        return 0
    print("DEFECT: the rejection result is missing from the resumed response and the caller's messages were rewritten")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

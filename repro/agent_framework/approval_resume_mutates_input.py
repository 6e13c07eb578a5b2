"""Resuming an approved call rewrites the caller's messages and leaves the result out of the resumed response.

What it shows
    Turn 1: the model calls an approval-required tool; the response carries the call and an approval request.
    Turn 2: the caller replays the conversation it holds (its user message and turn 1's response messages, the
    very objects it got back) and appends the approval response made from the request. The tool runs once and
    the model answers. On affected releases the layer resolves the approval in the caller's own objects: the
    approval request disappears from turn 1's response, the caller's approval message turns into a tool message
    holding the `function_result`, and the resumed response contains only the final text, without the result.
    The same happens when an `Agent` keeps the history in its session and the caller's second turn holds only
    the approval response (scenario approval.approved-resume.session-history), so both ways are shown.

Spec rows violated (spec 004, Approval pause and resume)
    "Approved non-streaming resume | Result precedes final text; tool executes once; inputs remain unchanged."
    "Approved streaming resume | Result update precedes final text and final response matches non-streaming
    shape."
    Normative contract: "The function invocation layer normalizes a private copy of caller messages. It must not
    mutate the caller's approval `Message`, approval `Content`, or an earlier returned response." and "The resumed
    response contains the newly resolved approved and rejected terminal results before any final assistant
    message."

Affected releases
    agent-framework-core 1.10.0 ... 1.12.1; fixed in 1.13.0.

Run
    <venv>/bin/python repro/agent_framework/approval_resume_mutates_input.py
    Exit status 1: the defect is present. Exit status 0: inputs unchanged and the result precedes the final text.
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
    """A model that answers each call with the next scripted assistant message."""

    def __init__(self, script: list[Message], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.script = list(script)
        self.calls = 0

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        self.calls += 1
        reply = self.script.pop(0)
        message_id = f"reply-{self.calls}"
        if stream:
            async def updates() -> Any:
                for content in reply.contents:
                    yield ChatResponseUpdate(role="assistant", contents=[content], message_id=message_id)

            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[reply], response_id=message_id)

        return complete()


def shape(messages: list[Message]) -> list[tuple[str, list[str]]]:
    return [(str(m.role), [c.type for c in m.contents]) for m in messages]


async def ask(client: ScriptedClient, messages: list[Message], session: AgentSession, stream: bool) -> ChatResponse:
    options: Any = {"tools": [delete_file]}
    if stream:
        response_stream = client.get_response(messages, stream=True, options=options,
                                              client_kwargs={"session": session})
        async for _ in response_stream:
            pass
        return await response_stream.get_final_response()
    return await client.get_response(messages, options=options, client_kwargs={"session": session})


async def ask_agent(agent: Agent, messages: list[Message], session: AgentSession, stream: bool) -> Any:
    if stream:
        response_stream = agent.run(messages, stream=True, session=session)
        async for _ in response_stream:
            pass
        return await response_stream.get_final_response()
    return await agent.run(messages, session=session)


def script() -> list[Message]:
    return [
        Message("assistant", [Content.from_function_call("c1", "delete_file",
                                                         arguments='{"path": "/tmp/report.txt"}')]),
        Message("assistant", [Content.from_text("The file is deleted.")]),
    ]


async def run(session_history: bool, stream: bool) -> bool:
    history = "session-kept" if session_history else "caller-kept"
    label = f"{history} history, {'streaming' if stream else 'non-streaming'}"
    executions.clear()
    client = ScriptedClient(script())
    user = Message("user", ["Delete /tmp/report.txt"])
    if session_history:
        agent = Agent(client, tools=[delete_file])
        session = agent.create_session()
        first = await ask_agent(agent, [user], session, stream)
    else:
        session = AgentSession()  # carried along so that releases binding approvals to a session accept the reply
        first = await ask(client, [user], session, stream)
    request = next(c for m in first.messages for c in m.contents if c.type == "function_approval_request")
    decision = Message("user", [request.to_function_approval_response(True)])
    # The caller replays what it holds; with session-kept history it sends only the decision.
    resume_input = [decision] if session_history else [user, *first.messages, decision]
    input_before, first_before = shape(resume_input), shape(first.messages)
    if session_history:
        second = await ask_agent(agent, resume_input, session, stream)
    else:
        second = await ask(client, resume_input, session, stream)

    input_kept = shape(resume_input) == input_before
    first_kept = shape(first.messages) == first_before
    resumed = shape(second.messages)
    result_first = [kind for _, kinds in resumed for kind in kinds][:2] == ["function_result", "text"]
    print(f"  {label}: caller input before {input_before}")
    print(f"  {label}: caller input after  {shape(resume_input)}{'' if input_kept else '   <- mutated'}")
    print(f"  {label}: turn-1 response after {shape(first.messages)}{'' if first_kept else '   <- mutated'}")
    print(f"  {label}: resumed response {resumed}{'' if result_first else '   <- no result before the text'}")
    print(f"  {label}: executions {executions}")
    return input_kept and first_kept and result_first and executions == ["/tmp/report.txt"]


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    results = [await run(session_history, stream) for session_history in (False, True) for stream in (False, True)]
    if all(results):
        print("FIXED: the caller's messages are unchanged and the resumed response starts with the result")
        return 0
    print("DEFECT: the approval was resolved in the caller's own messages and the result is missing from the response")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

"""Middleware that ends the loop during an approved execution does not end the turn: the model is called anyway.

What it shows
    Turn 1: the model calls an approval-required tool; the loop pauses with an approval request.
    Turn 2: the caller replays the conversation and approves. The approved call runs, and a function middleware
    ends the loop after it (raises MiddlewareTermination with the call's result), as it does successfully for
    calls the model has just made. On affected releases the resume carries on regardless: the loop calls the
    model again (the scripted model here has no second answer and counts the extra call) instead of returning
    the terminal result. The same happens with an Agent keeping the history in its session.

Spec rows violated (spec 004, Approval pause and resume)
    "Approval-time middleware termination | Terminal result returns with no extra model call in either response
    mode."
    Normative contract: "Approval-time `UserInputRequiredException` and `MiddlewareTermination` return immediately
    without another model call."

Affected releases
    agent-framework-core 1.10.0 ... 1.12.1; fixed in 1.13.0. (The same releases also rewrite the caller's messages
    on resume, see approval_resume_mutates_input.py; this reproduction checks only the model calls.)

Run
    <venv>/bin/python repro/agent_framework/approval_time_termination_calls_model.py
    Exit status 1: the defect is present. Exit status 0: the resume returns without calling the model.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from agent_framework import (
    Agent,
    AgentSession,
    BaseChatClient,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    FunctionInvocationContext,
    FunctionInvocationLayer,
    FunctionMiddleware,
    Message,
    MiddlewareTermination,
    tool,
)

executions: list[str] = []


@tool(name="delete_file", approval_mode="always_require")
def delete_file(path: str) -> str:
    executions.append(path)
    return "deleted"


class EndLoopAfterTool(FunctionMiddleware):
    """Ends the function-calling loop after every tool invocation, handing back the tool's result."""

    async def process(self, context: FunctionInvocationContext, call_next: Callable[[], Awaitable[None]]) -> None:
        await call_next()
        raise MiddlewareTermination("stop after this tool", result=context.result)


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that answers with the first scripted message and counts every call it gets."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(middleware=[EndLoopAfterTool()], **kwargs)
        self.calls = 0

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        self.calls += 1
        if self.calls == 1:
            reply = Message("assistant", [Content.from_function_call("c1", "delete_file",
                                                                     arguments='{"path": "/tmp/report.txt"}')])
        else:
            reply = Message("assistant", [Content.from_text("(an answer the loop should not have asked for)")])
        message_id = f"reply-{self.calls}"
        if stream:
            async def updates() -> Any:
                for content in reply.contents:
                    yield ChatResponseUpdate(role="assistant", contents=[content], message_id=message_id)

            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[reply], response_id=message_id)

        return complete()


async def turn(send: Any, messages: list[Message], stream: bool) -> Any:
    if not stream:
        return await send(messages, False)
    response_stream = send(messages, True)
    async for _ in response_stream:
        pass
    return await response_stream.get_final_response()


def shape(messages: Any) -> list[tuple[str, list[str]]]:
    return [(str(m.role), [c.type for c in m.contents]) for m in messages]


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
    first = await turn(send, [user], stream)
    request = next(c for m in first.messages for c in m.contents if c.type == "function_approval_request")
    decision = Message("user", [request.to_function_approval_response(True)])
    calls_before = client.calls
    second = await turn(send, [decision] if session_history else [user, *first.messages, decision], stream)
    extra_calls = client.calls - calls_before
    print(f"  {label}: model calls during the resume {extra_calls}{'' if extra_calls == 0 else '   <- expected 0'}")
    print(f"  {label}: resumed response {shape(second.messages)}; executions {executions}")
    return extra_calls == 0 and executions == ["/tmp/report.txt"]


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    results = [await run(session_history, stream) for session_history in (False, True) for stream in (False, True)]
    if all(results):
        print("FIXED: approval-time middleware termination ends the turn without another model call")
        return 0
    print("DEFECT: the loop calls the model after middleware ended it during an approved execution")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

"""An approved tool that asks the caller for more input does not pause the turn: the model is called anyway.

What it shows
    Turn 1: the model calls an approval-required tool; the loop pauses with an approval request.
    Turn 2: the caller replays the conversation and approves. The approved tool runs and raises
    UserInputRequiredException with two user-input requests (OAuth consent requests), as a tool does when it
    needs the caller before it can finish. On affected releases the resume logs the exception as a function
    failure, returns neither request to the caller, and calls the model again with the approved call left without
    a result in the history it sends. The same happens with an Agent keeping the history in its session.

Spec rows violated (spec 004, Approval pause and resume)
    "Approval-time user input | Every user-input request from one approved execution returns in order with
    assistant role and no extra model call; the execution consumes one call-budget unit."
    Normative contract: "Approval-time `UserInputRequiredException` and `MiddlewareTermination` return immediately
    without another model call." and "Every actionable local `function_call` produces exactly one terminal
    `function_result`, unless execution pauses for a new user-input request."

Affected releases
    agent-framework-core 1.10.0 ... 1.12.1; fixed in 1.13.0. (The same releases also rewrite the caller's messages
    on resume, see approval_resume_mutates_input.py; this reproduction checks the model calls and the requests.)

Run
    <venv>/bin/python repro/agent_framework/approval_time_user_input_calls_model.py
    Exit status 1: the defect is present. Exit status 0: both requests return, in order, without a model call.
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
    UserInputRequiredException,
    tool,
)

LINKS = ["https://example.com/consent-1", "https://example.com/consent-2"]
executions: list[str] = []


@tool(name="deploy_service", approval_mode="always_require")
def deploy_service(service: str) -> str:
    executions.append(service)
    raise UserInputRequiredException([Content.from_oauth_consent_request(link) for link in LINKS])


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that answers with the first scripted message and records every call it gets."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.received: list[list[Any]] = []

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        self.received.append(list(messages))
        if len(self.received) == 1:
            reply = Message("assistant", [Content.from_function_call("c1", "deploy_service",
                                                                     arguments='{"service": "billing"}')])
        else:
            reply = Message("assistant", [Content.from_text("(an answer the loop should not have asked for)")])
        message_id = f"reply-{len(self.received)}"
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
    return [(str(m.role), [c.type for c in m.contents]) for m in messages if not isinstance(m, str)]


async def run(session_history: bool, stream: bool) -> bool:
    label = f"{'session-kept' if session_history else 'caller-kept'} history, " \
            f"{'streaming' if stream else 'non-streaming'}"
    executions.clear()
    client = ScriptedClient()
    if session_history:
        agent = Agent(client, tools=[deploy_service])
        session = agent.create_session()

        def send(messages: list[Message], streaming: bool) -> Any:
            return agent.run(messages, stream=streaming, session=session)
    else:
        session = AgentSession()  # carried along so that releases binding approvals to a session accept the reply

        def send(messages: list[Message], streaming: bool) -> Any:
            return client.get_response(messages, stream=streaming, options={"tools": [deploy_service]},
                                       client_kwargs={"session": session})

    user = Message("user", ["Deploy the billing service."])
    first = await turn(send, [user], stream)
    request = next(c for m in first.messages for c in m.contents if c.type == "function_approval_request")
    decision = Message("user", [request.to_function_approval_response(True)])
    calls_before = len(client.received)
    second = await turn(send, [decision] if session_history else [user, *first.messages, decision], stream)
    extra_calls = len(client.received) - calls_before
    links = [str(c.consent_link) for m in second.messages for c in m.contents if c.type == "oauth_consent_request"]
    roles = {str(m.role) for m in second.messages for c in m.contents if c.type == "oauth_consent_request"}
    print(f"  {label}: model calls during the resume {extra_calls}{'' if extra_calls == 0 else '   <- expected 0'}")
    if extra_calls:
        print(f"  {label}: history sent to the model {shape(client.received[-1])}")
    print(f"  {label}: consent requests returned {links} with roles {sorted(roles)}"
          + ("" if links == LINKS else "   <- expected both, in order"))
    print(f"  {label}: resumed response {shape(second.messages)}; executions {executions}")
    return extra_calls == 0 and links == LINKS and roles == {"assistant"} and executions == ["billing"]


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    results = [await run(session_history, stream) for session_history in (False, True) for stream in (False, True)]
    if all(results):
        print("FIXED: an approved execution that needs user input returns its requests without another model call")
        return 0
    print("DEFECT: the loop drops the user-input requests of an approved execution and calls the model anyway")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

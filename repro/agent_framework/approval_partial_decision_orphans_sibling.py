"""A decision on part of an approval batch runs it and sends the model the undecided sibling call without a result.

What it shows
    Turn 1: the model asks for two approval-required calls in one response (rotate_key as c1, restart_service as
    c2); the loop pauses with two approval requests. Turn 2: the caller approves c1 only — replaying the
    conversation it holds, or, with an Agent keeping the history in its session, sending only its decision.
    On affected releases the loop executes c1 and calls the model at once, with the assistant message of turn 1
    holding both calls but a result for c1 only: c2, still awaiting its decision, reaches the provider as a tool
    call without a result, which providers that require every tool call to be answered reject. (Since 1.19.0 the
    loop keeps the partly decided batch pending and surfaces c2's request again without calling the model; a loop
    may also run c1 at once, provided c2 stays out of the model's input.)

Spec rows violated (spec 004)
    Approval correlation and replay: "Pending history turn | An unresolved approval batch is omitted atomically
    from unrelated model input while a later decision can still resume it once." Normative contract: "Every
    actionable local `function_call` produces exactly one terminal `function_result`, unless execution pauses for
    a new user-input request." and "Model-bound history contains one function call/result pair per completed
    logical occurrence."

Affected releases
    agent-framework-core 1.10.0 ... 1.18.0; fixed in 1.19.0.

Run
    <venv>/bin/python repro/agent_framework/approval_partial_decision_orphans_sibling.py
    Exit status 1: the defect is present. Exit status 0: no model call receives a call without its result.
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


@tool(name="rotate_key", approval_mode="always_require")
def rotate_key(service: str) -> str:
    executions.append(f"rotate_key({service})")
    return "key rotated"


@tool(name="restart_service", approval_mode="always_require")
def restart_service(service: str) -> str:
    executions.append(f"restart_service({service})")
    return "restarted"


TOOLS = [rotate_key, restart_service]


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
            Content.from_function_call("c1", "rotate_key", arguments='{"service": "billing"}'),
            Content.from_function_call("c2", "restart_service", arguments='{"service": "billing"}'),
        ]),
        Message("assistant", [Content.from_text("Waiting for your decision on the restart.")]),
    ]


def unanswered(messages: list[Any]) -> list[str]:
    """Call ids of function calls the messages leave without a function_result after them."""
    open_calls: list[str] = []
    for message in messages:
        for content in [] if isinstance(message, str) else message.contents:
            if content.type == "function_call":
                open_calls.append(str(content.call_id))
            elif content.type == "function_result" and str(content.call_id) in open_calls:
                open_calls.remove(str(content.call_id))
    return open_calls


def shape(messages: list[Any]) -> list[tuple[str, list[str]]]:
    return [(str(m.role), [str(c.type) for c in m.contents]) for m in messages if not isinstance(m, str)]


async def turn(send: Any, messages: list[Message], stream: bool) -> Any:
    if not stream:
        return await send(messages, False)
    response_stream = send(messages, True)
    async for _ in response_stream:
        pass
    return await response_stream.get_final_response()


async def run(session_history: bool, stream: bool) -> bool:
    label = f"{'session-kept' if session_history else 'caller-kept'} history, " \
            f"{'streaming' if stream else 'non-streaming'}"
    executions.clear()
    client = ScriptedClient(script())
    if session_history:
        agent = Agent(client, tools=TOOLS)
        session = agent.create_session()

        def send(messages: list[Message], streaming: bool) -> Any:
            return agent.run(messages, stream=streaming, session=session)
    else:
        session = AgentSession()  # carried along so that releases binding approvals to a session accept replies

        def send(messages: list[Message], streaming: bool) -> Any:
            return client.get_response(messages, stream=streaming, options={"tools": TOOLS},
                                       client_kwargs={"session": session})

    user = Message("user", ["Rotate the API key of billing and restart it."])
    first = await turn(send, [user], stream)
    calls_before = len(client.received)
    requests = {c.function_call.call_id: c for m in first.messages for c in m.contents
                if c.type == "function_approval_request"}
    decision = Message("user", [requests["c1"].to_function_approval_response(True)])
    second_input = [decision] if session_history else [user, *first.messages, decision]
    second = await turn(send, second_input, stream)

    ok = True
    for received in client.received[calls_before:]:
        orphaned = unanswered(received)
        ok = ok and not orphaned
        print(f"  {label}: turn 2 sent to the model {shape(received)}"
              + (f"   <- calls without a result: {orphaned}" if orphaned else ""))
    if len(client.received) == calls_before:
        print(f"  {label}: turn 2 made no model call")
    print(f"  {label}: turn 2 response {shape(list(second.messages))}; executions {executions}")
    return ok


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    results = [await run(session_history, stream) for session_history in (False, True) for stream in (False, True)]
    if all(results):
        print("FIXED: the undecided call never reaches the model without its result")
        return 0
    print("DEFECT: after a partial decision the model received the undecided call without a result")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

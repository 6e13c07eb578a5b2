"""An unanswered approval batch reaches the model on an unrelated turn: calls without results, and the wrappers.

What it shows
    Turn 1: the model asks for two approval-required calls in one response (delete_file as c1, move_file as c2);
    the loop pauses with two approval requests. Turn 2: the caller does not decide yet; it asks something
    unrelated — replaying the conversation it holds, or, with an Agent keeping the history in its session,
    sending only the new question. The batch is still pending, so the model must not see it. On affected releases
    the model receives the assistant message of turn 1 as it is: both function calls, which have no result (an
    invalid history for providers that require every tool call to be answered), and both approval requests.

Spec rows violated (spec 004)
    Approval correlation and replay: "Pending history turn | An unresolved approval batch is omitted atomically
    from unrelated model input while a later decision can still resume it once."
    Normative contract: "`function_approval_request` and `function_approval_response` are control-plane contents,
    not durable model transcript items."

Affected releases
    agent-framework-core 1.10.0 ... 1.12.1; fixed in 1.13.0.

Run
    <venv>/bin/python repro/agent_framework/pending_approval_batch_sent_to_model.py
    Exit status 1: the defect is present. Exit status 0: the model sees only the two user messages on turn 2.
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
    executions.append(f"delete_file({path})")
    return "deleted"


@tool(name="move_file", approval_mode="always_require")
def move_file(path: str) -> str:
    executions.append(f"move_file({path})")
    return "moved"


TOOLS = [delete_file, move_file]
BATCH_CONTENTS = ("function_call", "function_approval_request", "function_approval_response")


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
            Content.from_function_call("c1", "delete_file", arguments='{"path": "/tmp/a.txt"}'),
            Content.from_function_call("c2", "move_file", arguments='{"path": "/tmp/b.txt"}'),
        ]),
        Message("assistant", [Content.from_text("About 12 GB.")]),
    ]


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

    user = Message("user", ["Tidy up /tmp."])
    first = await turn(send, [user], stream)
    question = Message("user", ["Before that: how much space is free?"])
    second_input = [question] if session_history else [user, *first.messages, question]
    second = await turn(send, second_input, stream)

    to_model = client.received[-1]
    leaked = [c.type for m in to_model if not isinstance(m, str) for c in m.contents if c.type in BATCH_CONTENTS]
    print(f"  {label}: turn 2 sent to the model {shape(to_model)}" + (f"   <- {leaked}" if leaked else ""))
    print(f"  {label}: turn 2 answer {second.text!r}; executions {executions}")
    return not leaked and not executions


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    results = [await run(session_history, stream) for session_history in (False, True) for stream in (False, True)]
    if all(results):
        print("FIXED: the pending batch stays out of the model's input on the unrelated turn")
        return 0
    print("DEFECT: the model received the pending batch's calls (without results) and approval requests")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

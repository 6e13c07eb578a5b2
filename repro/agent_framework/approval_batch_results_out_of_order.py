"""Resolving a batch of approval decisions returns the results in the caller's decision order, not the model's.

What it shows
    Turn 1: the model calls three approval-required tools in one response — delete_file(/tmp/a.txt) as c1,
    delete_file(/tmp/b.txt) as c2, rotate_logs(billing) as c3 — and the loop pauses with three approval requests.
    Turn 2: the caller replays the conversation and sends its three decisions in one message, listed c3 (approve),
    c2 (reject), c1 (approve). Every call gets its own correctly correlated result, but on affected releases the
    results are ordered as the decisions were listed: the tool message the model receives (and, where the resumed
    response carries the results, the response and its stream) holds c3, c2, c1 instead of the model's c1, c2, c3.
    Run with caller-kept history and with an Agent keeping the history in its session, in both response modes.

Spec rows violated (spec 004)
    "Mixed approved/rejected batch | Every call gets one correctly correlated terminal result." together with the
    normative contract "Parallel calls retain model order in the returned transcript." (Function calls and
    results) and "Streaming yields the same logical result content and ordering as non-streaming output".

Affected releases
    agent-framework-core 1.10.0 ... 1.18.0; fixed in 1.19.0. (On 1.10.0 ... 1.12.1 the resumed response carries
    no result at all — a separate defect, see approval_resume_mutates_input.py — so the order shows in what the
    model receives.)

Run
    <venv>/bin/python repro/agent_framework/approval_batch_results_out_of_order.py
    Exit status 1: the defect is present. Exit status 0: results follow the model's call order everywhere.
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


@tool(name="rotate_logs", approval_mode="always_require")
def rotate_logs(service: str) -> str:
    executions.append(f"rotate_logs({service})")
    return "rotated"


TOOLS = [delete_file, rotate_logs]
MODEL_ORDER = ["c1", "c2", "c3"]


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
            Content.from_function_call("c2", "delete_file", arguments='{"path": "/tmp/b.txt"}'),
            Content.from_function_call("c3", "rotate_logs", arguments='{"service": "billing"}'),
        ]),
        Message("assistant", [Content.from_text("I deleted /tmp/a.txt, kept /tmp/b.txt and rotated the logs.")]),
    ]


def result_order(messages: list[Any]) -> list[str]:
    return [str(c.call_id) for m in messages if not isinstance(m, str) for c in m.contents
            if c.type == "function_result"]


async def turn(send: Any, messages: list[Message], stream: bool) -> tuple[Any, list[str]]:
    """One turn; returns the final response and the result order of the streamed updates."""
    if not stream:
        return await send(messages, False), []
    response_stream = send(messages, True)
    streamed = [str(c.call_id) async for update in response_stream for c in update.contents
                if c.type == "function_result"]
    return await response_stream.get_final_response(), streamed


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
        session = AgentSession()  # carried along so that releases binding approvals to a session accept the reply

        def send(messages: list[Message], streaming: bool) -> Any:
            return client.get_response(messages, stream=streaming, options={"tools": TOOLS},
                                       client_kwargs={"session": session})

    user = Message("user", ["Delete /tmp/a.txt and /tmp/b.txt, then rotate the billing logs"])
    first, _ = await turn(send, [user], stream)
    requests = {c.function_call.call_id: c for m in first.messages for c in m.contents
                if c.type == "function_approval_request"}
    decisions = Message("user", [requests["c3"].to_function_approval_response(True),
                                 requests["c2"].to_function_approval_response(False),
                                 requests["c1"].to_function_approval_response(True)])
    resume = [decisions] if session_history else [user, *first.messages, decisions]
    second, streamed = await turn(send, resume, stream)

    to_model = result_order(client.received[-1])
    in_response = result_order(list(second.messages))
    ok = to_model == MODEL_ORDER and in_response in ([], MODEL_ORDER) and streamed in ([], MODEL_ORDER)
    print(f"  {label}: results sent to the model {to_model}, in the resumed response {in_response}"
          + (f", streamed {streamed}" if stream else "") + ("" if ok else "   <- not the model's order c1, c2, c3"))
    print(f"  {label}: executions {executions}")
    return ok and sorted(executions) == ["delete_file(/tmp/a.txt)", "rotate_logs(billing)"]


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    results = [await run(session_history, stream) for session_history in (False, True) for stream in (False, True)]
    if all(results):
        print("FIXED: the results of the decided batch follow the model's call order")
        return 0
    print("DEFECT: the results of the decided batch follow the caller's decision order, not the model's")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

"""Approval-required calls in two assistant messages of one response: on resume the model gets a call twice.

What it shows
    An Agent keeps the conversation in its session. Turn 1: the model's response holds two assistant messages,
    each with one call of an approval-required tool (c1 in the first, c2 in the second); the turn pauses with an
    approval request for each. Turn 2: the caller approves both. Required: both calls run once and the model
    receives each call once, followed by its result. Observed (non-streaming): the paused response carries both
    approval requests inside the first message, before the second message's call; on resume both calls run, but
    the model receives c2 twice (the second message's call and a copy restored from its approval request) with
    one result: a call without a result, which providers requiring an answer to every call reject. Streaming
    delivers the paused response in another order (both calls, then both requests) and resumes correctly, so the
    two modes disagree. Found by loop-conformance fuzz and shrunk from a generated conversation.

Spec rows violated (spec 004)
    Normal function invocation: "Calls across response messages". Approval correlation and replay: "Duplicate
    function-call prevention" (approval normalization does not create a second call for one round). Approval
    pause and resume: "Approved streaming resume" (the final response matches the non-streaming shape).

Affected releases
    agent-framework-core 1.23.0 (the release installed when it was found; older ones not checked).

Run
    <venv>/bin/python repro/agent_framework/approval_calls_across_messages_lose_result.py
    Exit status 1: the defect is present. Exit status 0: in both modes the model receives each call once with its
    result, and the caller's transcript pairs every call with its result.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import logging
import sys
from typing import Any

from agent_framework import (
    Agent,
    BaseChatClient,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    FunctionInvocationLayer,
    Message,
    tool,
)

executions: list[str] = []


@tool(name="archive_ticket", approval_mode="always_require")
def archive_ticket(ticket: str) -> str:
    executions.append(ticket)
    return "archived"


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that answers each call with the next scripted response and records what it received."""

    def __init__(self, script: list[list[Message]], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.script = list(script)
        self.received: list[list[Any]] = []

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        self.received.append(list(messages))
        reply = self.script.pop(0) if self.script else [Message("assistant", ["(an extra model call)"])]
        number = len(self.received)
        if stream:
            async def updates() -> Any:
                for position, message in enumerate(reply):
                    for content in message.contents:
                        yield ChatResponseUpdate(role="assistant", contents=[content],
                                                 message_id=f"reply-{number}-{position}")

            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=reply, response_id=f"reply-{number}")

        return complete()


def script() -> list[list[Message]]:
    return [
        [Message("assistant", [Content.from_function_call("c1", "archive_ticket", arguments='{"ticket": "7"}')]),
         Message("assistant", [Content.from_function_call("c2", "archive_ticket", arguments='{"ticket": "9"}')])],
        [Message("assistant", [Content.from_text("Both tickets are archived.")])],
    ]


def pairs(messages: list[Any]) -> list[str]:
    """The calls and results among `messages`, in order."""
    return [f"{c.type.split('_')[1]} {c.call_id}" for m in messages for c in m.contents
            if c.type in ("function_call", "function_result")]


def balanced(items: list[str]) -> bool:
    """Every call id has as many results as calls."""
    return all(items.count(f"call {i}") == items.count(f"result {i}") for i in ("c1", "c2"))


async def run(stream: bool) -> bool:
    label = "streaming" if stream else "non-streaming"
    executions.clear()
    client = ScriptedClient(script())
    agent = Agent(client, tools=[archive_ticket])
    session = agent.create_session()

    async def send(messages: list[Message]) -> Any:
        if not stream:
            return await agent.run(messages, session=session)
        response_stream = agent.run(messages, stream=True, session=session)
        async for _ in response_stream:
            pass
        return await response_stream.get_final_response()

    paused = await send([Message("user", ["Archive tickets 7 and 9."])])
    requests = [c for m in paused.messages for c in m.contents if c.type == "function_approval_request"]
    order = [f"{c.type} {getattr(c, 'call_id', None) or c.function_call.call_id}"
             for m in paused.messages for c in m.contents]
    resumed = await send([Message("user", [r.to_function_approval_response(True) for r in requests])])
    shown = pairs([*paused.messages, *resumed.messages])
    sent = pairs(client.received[-1])
    print(f"  {label}: paused response {order}")
    print(f"      ran {executions}")
    print(f"      the caller's transcript holds {shown}")
    print(f"      the model received {sent}")
    ok = sorted(executions) == ["7", "9"] and balanced(shown) and balanced(sent)
    if not ok:
        print("      <- a call without its result: c2 appears twice, with one result")
    return ok


async def main() -> int:
    logging.getLogger("agent_framework").setLevel(logging.CRITICAL)
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    outcomes = [await run(stream) for stream in (False, True)]
    if all(outcomes):
        print("FIXED: both calls of the two-message response have their result after the approval")
        return 0
    print("DEFECT: resuming approvals of calls across two messages loses a call's result")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

"""A local call held beside the caller's own call never runs on the answer; the model gets it without a result.

What it shows
    On an `AgentSession`, one model response calls the caller's own pick_date (declaration-only: no function body,
    the caller answers it, c1) beside a local get_weather (c2). The turn pauses on pick_date and get_weather is held
    with its batch, not run. The caller sends the history and pick_date's result. Expected: the held get_weather runs
    now, once, and the next model call receives both results. On the affected releases get_weather never runs, and
    the model call on resume receives call c2 with no function_result: a real provider refuses such a request
    (OpenAI: every tool call needs its tool message; Gemini: "the number of function response parts is equal to the
    number of function call parts"). Control: the same turn with no local call beside pick_date resumes normally.
    Checked in both response modes.

Spec rows violated (spec 004)
    "Declaration-only call" with "Safe and approval-required calls in one batch", and the contract sentences "Every
    actionable local `function_call` produces exactly one terminal `function_result`" and "Model-bound history
    contains one function call/result pair per completed logical occurrence". Harness scenarios
    `limits.caller-pause.function-call-budget` and `limits.caller-pause.iteration-budget` (no-orphans; over the wire
    providers provider-accepts, script, expect.error, expect.model-calls).

Affected releases
    agent-framework-core 1.10.0 ... 1.20.0 (fixed in 1.21.0).

Run
    <venv>/bin/python repro/agent_framework/caller_pause_held_call_orphaned.py
    Exit status 1: the defect is present (either mode). Exit status 0: the held call runs once and the model gets
    its result.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import logging
import sys
from typing import Any

from agent_framework import (
    AgentSession,
    BaseChatClient,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    FunctionInvocationLayer,
    FunctionTool,
    Message,
    tool,
)

executions: list[str] = []


@tool(name="get_weather")
def get_weather(city: str) -> str:
    executions.append(city)
    return "sunny"


# Declared to the model, implemented by the caller: no function body.
pick_date = FunctionTool(
    name="pick_date",
    description="The caller's own date picker; the caller answers the call.",
    func=None,
    input_model={"type": "object", "properties": {"purpose": {"type": "string"}}, "required": ["purpose"]},
)


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


async def ask(client: ScriptedClient, messages: list[Message], session: AgentSession, stream: bool) -> Any:
    options: Any = {"tools": [get_weather, pick_date]}
    extra: Any = {"client_kwargs": {"session": session}}
    if stream:
        response_stream = client.get_response(messages, stream=True, options=options, **extra)
        async for _ in response_stream:
            pass
        return await response_stream.get_final_response()
    return await client.get_response(messages, options=options, **extra)


def unanswered_calls(messages: list[Any]) -> list[str]:
    """The call ids the model received without a function_result."""
    contents = [c for m in messages for c in m.contents]
    answered = {c.call_id for c in contents if c.type == "function_result"}
    return [c.call_id for c in contents if c.type == "function_call" and c.call_id not in answered]


async def caller_answers(stream: bool, with_local_call: bool) -> bool:
    label = (f"{'held local call beside pick_date' if with_local_call else 'control, pick_date alone'}, "
             f"{'streaming' if stream else 'non-streaming'}")
    executions.clear()
    calls = [Content.from_function_call("c1", "pick_date", arguments='{"purpose": "trip"}')]
    if with_local_call:
        calls.append(Content.from_function_call("c2", "get_weather", arguments='{"city": "Rome"}'))
    client = ScriptedClient([
        Message("assistant", calls),
        Message("assistant", [Content.from_text("Rome is sunny; you travel on May 1st.")]),
    ])
    session = AgentSession()
    history = [Message("user", ["Check the weather in Rome, then pick a travel date."])]
    first = await ask(client, list(history), session, stream)
    ran_at_pause = list(executions)
    history.extend(first.messages)
    history.append(Message("tool", [Content.from_function_result("c1", result="2026-05-01")]))
    await ask(client, list(history), session, stream)
    if len(client.received) < 2:
        print(f"  {label}: the model was not called on resume")
        return False
    orphans = unanswered_calls(client.received[1])
    expected_runs = ["Rome"] if with_local_call else []
    print(f"  {label}: executions at the pause {ran_at_pause}, in all {executions}; "
          f"calls the model received on resume without a result: {orphans}")
    return not orphans and executions == expected_runs


async def main() -> int:
    logging.getLogger("agent_framework").setLevel(logging.ERROR)
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    controls = [await caller_answers(stream, with_local_call=False) for stream in (False, True)]
    if not all(controls):
        print("UNEXPECTED: the control (pick_date alone) does not resume normally")
        return 2
    results = [await caller_answers(stream, with_local_call=True) for stream in (False, True)]
    if all(results):
        print("FIXED: the held local call runs once when the caller answers, and the model gets its result")
        return 0
    print("DEFECT: the held local call never runs and the model receives it without a result")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

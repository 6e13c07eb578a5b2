"""Compacting to the latest groups keeps a tool result but drops its call when an assistant message separates them.

What it shows
    The caller replays a history in which the call `c2` (made after a reasoning message) and its result are
    separated by an assistant message ("Checking Rome now."), then asks a new question. The client compacts with
    `SlidingWindowStrategy(keep_last_groups=5)`. The model call receives the result of `c2` without the call it
    answers: compaction grouped the call with the message right after it only, so the window cut between the call
    and its result. A provider refuses such a request (a tool output with no call). Adjacent pairs, a hosted call
    answered in its own message and a reused call id are kept whole.

Spec row violated (spec 004, History and provider serialization)
    "Compaction pair integrity | Adjacent and non-adjacent pairs, including assistant-embedded results and completed
    reused-id occurrences, remain atomic without pairing ambiguous or out-of-order ids."

Affected releases
    agent-framework-core 1.10.0 ... 1.12.1; fixed in 1.13.0 (results pair with their calls by id).

Run
    <venv>/bin/python repro/agent_framework/compaction_splits_separated_pair.py
    Exit status 1: the defect is present. Exit status 0: every result the model received follows its call.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from typing import Any

from agent_framework import (
    BaseChatClient,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    FunctionInvocationLayer,
    Message,
    SlidingWindowStrategy,
    tool,
)


@tool(name="get_weather", approval_mode="never_require")
def get_weather(city: str) -> str:
    return "mild"


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that answers with one text and records what it was sent."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.received: list[list[Any]] = []

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        self.received.append(list(messages))
        reply = Message("assistant", [Content.from_text("Paris went from sunny to cloudy; Rome is rainy.")])
        if stream:
            async def updates() -> Any:
                yield ChatResponseUpdate(role="assistant", contents=reply.contents, message_id="reply")

            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[reply], response_id="reply")

        return complete()


def call(call_id: str, city: str) -> Content:
    return Content.from_function_call(call_id, "get_weather", arguments=f'{{"city": "{city}"}}')


def history() -> list[Message]:
    return [
        Message("user", ["What is the weather in Paris?"]),
        Message("assistant", [call("c1", "Paris")]),
        Message("tool", [Content.from_function_result("c1", result="sunny")]),
        Message("assistant", ["It is sunny in Paris."]),
        Message("user", ["And in Rome? Take your time."]),
        Message("assistant", [Content.from_text_reasoning(text="Rome needs a fresh lookup.")]),
        Message("assistant", [call("c2", "Rome")]),
        Message("assistant", ["Checking Rome now."]),
        Message("tool", [Content.from_function_result("c2", result="rainy")]),
        Message("user", ["And Paris again?"]),
        Message("assistant", [call("c1", "Paris")]),
        Message("tool", [Content.from_function_result("c1", result="cloudy")]),
        Message("user", ["Summarise."]),
    ]


def orphans(messages: list[Any]) -> list[str]:
    """Results whose call the model was not sent before them."""
    open_calls: list[str] = []
    found: list[str] = []
    for message in messages:
        for content in message.contents:
            if content.type == "function_call":
                open_calls.append(content.call_id)
            elif content.type == "function_result":
                if content.call_id in open_calls:
                    open_calls.remove(content.call_id)
                else:
                    found.append(content.call_id)
    return found


async def run(stream: bool) -> bool:
    client = ScriptedClient()
    options: Any = {"tools": [get_weather]}
    strategy = SlidingWindowStrategy(keep_last_groups=5)
    if stream:
        response_stream = client.get_response(history(), stream=True, options=options, compaction_strategy=strategy)
        async for _ in response_stream:
            pass
        await response_stream.get_final_response()
    else:
        await client.get_response(history(), options=options, compaction_strategy=strategy)
    mode = "streaming" if stream else "non-streaming"
    sent = client.received[0]
    print(f"  {mode}: the model received {[(m.role, [c.type for c in m.contents]) for m in sent]}")
    lost = orphans(sent)
    if lost:
        print(f"  {mode}: results without their call: {lost}")
    return not lost


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    results = [await run(stream) for stream in (False, True)]
    if all(results):
        print("FIXED: every result the model received follows its call")
        return 0
    print("DEFECT: compaction kept a tool result and dropped the call it answers")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

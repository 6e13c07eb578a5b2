"""Two calls under one call id in one (non-streaming) model response are taken as one call.

What it shows
    A chat client (the function invocation layer over `BaseChatClient`) answers "Weather in Paris and in Rome?" with
    one assistant message holding two calls of `get_weather` under the same call id c1, as a provider that numbers
    call ids per message returns them. Without streaming, the layer runs only the first (Paris) and the model gets
    one result for c1: the Rome call is left without a result. With the tool approval-required, the pause holds one
    approval request for the two c1 occurrences, so the caller cannot decide the second one. For control, the same two
    calls with different ids (c1, c2) both run, and both get an approval request.

Spec rows violated (spec 004)
    Function calls and results: "Reused `call_id` values are correlated by logical occurrence, not one global value
    per id." and "Every actionable local `function_call` produces exactly one terminal `function_result`". Harness
    scenarios `normal.streaming.reused-id-calls` and `correlation.reused-id.one-paused-batch`, non-streaming runs.
    (Streamed, the same two calls are merged into one call with concatenated arguments on every release:
    streamed_reused_id_calls_merged.py.)

Affected releases
    agent-framework-core 1.10.0 ... 1.16.0 (exit 1 on each release of the range), fixed in 1.17.0, which runs both
    occurrences and pauses each (exit 0 on 1.17.0 ... 1.23.0).

Run
    <venv>/bin/python repro/agent_framework/reused_id_calls_in_one_response_deduplicated.py
    Needs agent-framework-core only.
    Exit status 1: the defect is present. Exit status 0: both occurrences ran once (and got an approval request each
    when the tool needs approval), as with distinct ids.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import logging
import sys
from collections.abc import Awaitable, Mapping, Sequence
from typing import Any

from agent_framework import BaseChatClient, ChatResponse, Content, FunctionInvocationLayer, Message, tool

ran: list[str] = []


@tool(name="get_weather", approval_mode="never_require")
def get_weather(city: str) -> str:
    ran.append(city)
    return f"sunny in {city}"


@tool(name="get_weather", approval_mode="always_require")
def get_weather_gated(city: str) -> str:
    ran.append(city)
    return f"sunny in {city}"


class TwoCallsClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """First response: two calls of get_weather in one message, under `call_ids`; then a text answer."""

    def __init__(self, call_ids: tuple[str, str]) -> None:
        super().__init__()
        self.call_ids = call_ids
        self.calls = 0

    def _inner_get_response(
        self, *, messages: Sequence[Message], stream: bool, options: Mapping[str, Any], **kwargs: Any,
    ) -> Awaitable[ChatResponse]:
        self.calls += 1
        if self.calls == 1:
            contents = [Content.from_function_call(call_id=call_id, name="get_weather",
                                                   arguments=f'{{"city": "{city}"}}')
                        for call_id, city in zip(self.call_ids, ("Paris", "Rome"), strict=True)]
        else:
            contents = [Content.from_text("Done.")]

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[Message(role="assistant", contents=contents)])

        return complete()


async def run(call_ids: tuple[str, str]) -> list[str]:
    ran.clear()
    await TwoCallsClient(call_ids).get_response("Weather in Paris and in Rome?", options={"tools": [get_weather]})
    return sorted(ran)


async def approval_requests(call_ids: tuple[str, str]) -> int:
    response = await TwoCallsClient(call_ids).get_response("Weather in Paris and in Rome?",
                                                           options={"tools": [get_weather_gated]})
    return sum(content.type == "function_approval_request" for message in response.messages
               for content in message.contents)


async def main() -> int:
    logging.disable(logging.WARNING)
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    control, control_requests = await run(("c1", "c2")), await approval_requests(("c1", "c2"))
    reused, reused_requests = await run(("c1", "c1")), await approval_requests(("c1", "c1"))
    print(f"  control, ids c1 and c2: ran {control}; approval-required: {control_requests} approval requests\n"
          f"  ids c1 and c1:          ran {reused}; approval-required: {reused_requests} approval requests")
    if control != ["Paris", "Rome"] or control_requests != 2:
        print("UNEXPECTED: the control case did not run (or pause) both calls; the reproduction needs updating")
        return 2
    if reused != ["Paris", "Rome"] or reused_requests != 2:
        print("DEFECT: the two calls sharing c1 were taken as one call")
        return 1
    print("OK: both calls sharing c1 ran once each and were paused one by one")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

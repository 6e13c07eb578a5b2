"""Two complete streamed calls that share a call id are merged into one call: neither runs as asked.

What it shows
    A chat client (the function invocation layer over `BaseChatClient`, as the framework's own clients are built)
    answers "Weather in Paris and in Rome?" with two calls of `get_weather` under the same call id c1, each arriving
    whole in its own update (call id, name and complete arguments), as a provider that numbers call ids per message
    streams them. Without streaming both calls run, once each, with their own arguments. Streaming, the update fold
    (`_merge_function_call_content`, used by `ChatResponse.from_updates` and the layer's streaming loop) matches a
    chunk with a call id against the calls already in the message by that id alone and appends the second call's
    arguments to the first: the response holds one c1 whose arguments are `{"city": "Paris"}{"city": "Rome"}`,
    which parses to nothing, so the tool is never called for either city and the model gets an error result for one
    call. For control, the same two calls with different ids (c1, c2) stream as two calls and both run. (The
    non-streaming run is printed for comparison only: on 1.10.0 ... 1.16.0 it runs one of the two calls,
    reused_id_calls_in_one_response_deduplicated.py.)

Spec rows violated (spec 004)
    Function calls and results: "Reused `call_id` values are correlated by logical occurrence, not one global value
    per id." and "Every actionable local `function_call` produces exactly one terminal `function_result`";
    Approval request and resume: "Streaming yields the same logical result content and ordering as non-streaming
    output". Harness scenarios `normal.streaming.reused-id-calls` and `correlation.reused-id.one-paused-batch`
    fail in streaming mode over the neutral, openai-responses and openai-chat providers.

Affected releases
    agent-framework-core 1.10.0 ... 1.23.0, still present (exit 1 on each release of the range).

Run
    <venv>/bin/python repro/agent_framework/streamed_reused_id_calls_merged.py
    Needs agent-framework-core only.
    Exit status 1: the defect is present. Exit status 0: streaming, each of the two calls ran once with its own
    arguments, as without streaming.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import logging
import sys
from collections.abc import AsyncIterator, Awaitable, Mapping, Sequence
from typing import Any

from agent_framework import (
    BaseChatClient,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    FunctionInvocationLayer,
    Message,
    ResponseStream,
    tool,
)

ran: list[str] = []


@tool(name="get_weather", approval_mode="never_require")
def get_weather(city: str) -> str:
    ran.append(city)
    return f"sunny in {city}"


class TwoCallsClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """First response: two complete calls of get_weather, under `call_ids`; then a text answer."""

    def __init__(self, call_ids: tuple[str, str]) -> None:
        super().__init__()
        self.call_ids = call_ids
        self.calls = 0

    def _inner_get_response(
        self, *, messages: Sequence[Message], stream: bool, options: Mapping[str, Any], **kwargs: Any,
    ) -> Awaitable[ChatResponse] | ResponseStream[ChatResponseUpdate, ChatResponse]:
        self.calls += 1
        if self.calls == 1:
            contents = [Content.from_function_call(call_id=call_id, name="get_weather",
                                                    arguments=f'{{"city": "{city}"}}')
                        for call_id, city in zip(self.call_ids, ("Paris", "Rome"), strict=True)]
        else:
            contents = [Content.from_text("Done.")]

        if stream:
            async def updates() -> AsyncIterator[ChatResponseUpdate]:
                for content in contents:  # each call whole, in its own update
                    yield ChatResponseUpdate(contents=[content], role="assistant", message_id=f"m{self.calls}")

            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[Message(role="assistant", contents=contents)])

        return complete()


async def run(call_ids: tuple[str, str], stream: bool) -> list[str]:
    ran.clear()
    client = TwoCallsClient(call_ids)
    if stream:
        await client.get_response("Weather in Paris and in Rome?", stream=True, options={"tools": [get_weather]}
                                  ).get_final_response()
    else:
        await client.get_response("Weather in Paris and in Rome?", options={"tools": [get_weather]})
    return sorted(ran)


async def main() -> int:
    logging.disable(logging.WARNING)
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    control = await run(("c1", "c2"), stream=True)
    plain = await run(("c1", "c1"), stream=False)
    streamed = await run(("c1", "c1"), stream=True)
    print(f"control, ids c1 and c2, streaming: ran {control}\nids c1 and c1, non-streaming: ran {plain}\n"
          f"ids c1 and c1, streaming: ran {streamed}")
    if control != ["Paris", "Rome"]:
        print("UNEXPECTED: the control case did not run both calls; the reproduction needs updating")
        return 2
    if plain != ["Paris", "Rome"]:  # a defect of its own: reused_id_calls_in_one_response_deduplicated.py
        print("(without streaming this release runs one of the two calls sharing c1: another defect)")
    if streamed != ["Paris", "Rome"]:
        print("DEFECT: streamed, the two complete calls sharing c1 did not each run once")
        return 1
    print("OK: streamed, each call ran once with its own arguments")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

"""A streamed call whose name arrives on a later delta than its id is split in two: a nameless call fails.

What it shows
    A chat client (the function invocation layer over `BaseChatClient`, as the framework's own clients are built)
    streams one call of `get_weather` the way some providers do: a first delta with the call id c1 alone (no name,
    no arguments), a second with c1 and the function's name, then the argument text on deltas with c1. The streamed
    response holds two calls with call id c1 instead of one: a nameless one, answered with the error result
    "Requested function "" not found", and get_weather, which runs; the caller and the next model request get two
    results for the one call the model made. For control, the same deltas with the name on the first one stream as
    one call, which runs once; without streaming the whole call runs once.

Spec rows violated (spec 004)
    "Streaming call" (streamed fragments assemble into the call a non-streaming response holds); Function calls and
    results: "Every actionable local `function_call` produces exactly one terminal `function_result`"; Approval
    request and resume: "Streaming yields the same logical result content and ordering as non-streaming output".
    Harness scenario `normal.streaming-call.name-after-id` fails in streaming mode over the neutral provider and the
    Chat Completions and Gemini clients.

Affected releases
    Checked with agent-framework-core 1.23.0; other releases not checked.

Run
    <venv>/bin/python repro/agent_framework/streamed_call_name_after_id_split.py
    Needs agent-framework-core only.
    Exit status 1: the defect is present. Exit status 0: streamed with its name on a later delta, the call is one
    call and runs once.
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
    return "sunny"


class NameLaterClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """First response: one call of get_weather over several deltas; `name_first` puts the name on the first."""

    def __init__(self, name_first: bool) -> None:
        super().__init__()
        self.name_first = name_first
        self.calls = 0
        self.results_seen: list[str] = []

    def _inner_get_response(
        self, *, messages: Sequence[Message], stream: bool, options: Mapping[str, Any], **kwargs: Any,
    ) -> Awaitable[ChatResponse] | ResponseStream[ChatResponseUpdate, ChatResponse]:
        self.calls += 1
        self.results_seen = [str(c.call_id) for m in messages for c in m.contents if c.type == "function_result"]
        if self.calls == 1:
            first = "get_weather" if self.name_first else ""
            deltas = [Content.from_function_call(call_id="c1", name=first, arguments=""),
                      Content.from_function_call(call_id="c1", name="" if self.name_first else "get_weather",
                                                 arguments=""),
                      Content.from_function_call(call_id="c1", name="", arguments='{"city": '),
                      Content.from_function_call(call_id="c1", name="", arguments='"Paris"}')]
        else:
            deltas = [Content.from_text("Sunny.")]

        async def updates() -> AsyncIterator[ChatResponseUpdate]:
            for delta in deltas:
                yield ChatResponseUpdate(contents=[delta], role="assistant", message_id=f"m{self.calls}")

        return self._build_response_stream(updates())


async def run(name_first: bool) -> tuple[list[str], list[str]]:
    """The cities the tool ran for, and the call ids of the results the second model call received."""
    ran.clear()
    client = NameLaterClient(name_first)
    await client.get_response("Weather in Paris?", stream=True, options={"tools": [get_weather]}).get_final_response()
    return list(ran), client.results_seen


async def main() -> int:
    logging.disable(logging.WARNING)
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    control = await run(name_first=True)
    later = await run(name_first=False)
    print(f"control, name on the first delta: ran {control[0]}, results sent back {control[1]}\n"
          f"name on the second delta: ran {later[0]}, results sent back {later[1]}")
    if control != (["Paris"], ["c1"]):
        print("UNEXPECTED: the control did not run the call once; the reproduction needs updating")
        return 2
    if later != (["Paris"], ["c1"]):
        print("DEFECT: the call whose name came after its id was not one call with one result")
        return 1
    print("OK: the call whose name came after its id is one call, run once")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

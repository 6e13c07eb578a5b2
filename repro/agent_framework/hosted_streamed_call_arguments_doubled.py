"""Behind the Responses hosting server, a streamed call's arguments are sent twice: in the output and on replay.

What it shows
    An agent is hosted by agent-framework-foundry-hosting's `ResponsesHostServer` (driven here over an in-process
    ASGI transport, no socket). Its chat client streams a function call the way the framework's own OpenAI
    Responses client (`agent_framework_openai.OpenAIChatClient`) turns the service's events into updates: one
    `function_call` content per `response.function_call_arguments.delta` event (merge_mode "append") and then one
    with the complete arguments for `response.function_call_arguments.done` (merge_mode "replace"). The
    framework's own streaming fold honours "replace"; the hosting server's output tracker appends every fragment
    whatever its merge mode, so the caller's `function_call` output item carries `{"city":"Seattle"}{"city":
    "Seattle"}`, and so does the transcript the server stores: the next request continuing that response sends
    the model the doubled, unparseable arguments. Same whether the caller streams or not (the server always runs
    the agent streaming).

Spec rows violated (spec 004)
    "Hosted per-service-call persistence" (the host-managed transcript remains available throughout the loop; it
    must be the transcript, not a corrupted copy) and "Streaming call" (streamed fragments assemble into the same
    call a non-streaming response holds). Harness scenario `history.hosted.per-service-call-persistence` fails
    over the openai-responses wire only (`expect.response`, `expect.requests`); the neutral provider and the Chat
    Completions and Gemini clients stream no "replace" fragment.

Affected releases
    Checked with agent-framework-core 1.23.0, agent-framework-foundry-hosting 1.0.0b261022 and
    agent-framework-openai 1.17.0; other releases not checked.

Run
    <venv>/bin/python repro/agent_framework/hosted_streamed_call_arguments_doubled.py
    Needs agent-framework-core, agent-framework-foundry-hosting and httpx.
    Exit status 1: the defect is present. Exit status 0: the arguments arrive once, in the output and on replay.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import logging
import sys
from collections.abc import AsyncIterator, Awaitable, Mapping, Sequence
from typing import Any

import httpx
from agent_framework import (
    Agent,
    BaseChatClient,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    FunctionInvocationLayer,
    Message,
    ResponseStream,
    tool,
)
from agent_framework_foundry_hosting import ResponsesHostServer
from azure.ai.agentserver.responses import InMemoryResponseProvider

ARGUMENTS = '{"city":"Seattle"}'
received: list[list[Message]] = []


@tool(name="get_weather", approval_mode="never_require")
def get_weather(city: str) -> str:
    return "sunny"


class StreamingClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """Streams what the OpenAI Responses client streams for one call: argument deltas, then the whole arguments."""

    def _inner_get_response(
        self, *, messages: Sequence[Message], stream: bool, options: Mapping[str, Any], **kwargs: Any,
    ) -> Awaitable[ChatResponse] | ResponseStream[ChatResponseUpdate, ChatResponse]:
        received.append(list(messages))
        number = len(received)

        def contents() -> list[list[Content]]:
            if number == 1:
                return [
                    [Content.from_function_call(call_id="c1", name="get_weather", arguments=ARGUMENTS[:9],
                                                merge_mode="append")],
                    [Content.from_function_call(call_id="c1", name="get_weather", arguments=ARGUMENTS[9:],
                                                merge_mode="append")],
                    [Content.from_function_call(call_id="c1", name="get_weather", arguments=ARGUMENTS,
                                                merge_mode="replace")],
                ]
            return [[Content.from_text(f"answer {number}")]]

        if stream:
            async def updates() -> AsyncIterator[ChatResponseUpdate]:
                for part in contents():
                    yield ChatResponseUpdate(contents=part, role="assistant", message_id=f"m{number}")

            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[Message(role="assistant", contents=[c for p in contents() for c in p])])

        return complete()


async def main() -> int:
    logging.disable(logging.WARNING)
    agent = Agent(StreamingClient(), tools=[get_weather])
    server = ResponsesHostServer(agent, response_store=InMemoryResponseProvider(), configure_observability=None)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=server), base_url="http://host.invalid") as http:
        first = (await http.post("/responses", json={"model": "m", "input": "Weather in Seattle?"})).json()
        await http.post("/responses", json={"model": "m", "input": "Thanks.", "previous_response_id": first["id"]})
    output_arguments = [item["arguments"] for item in first["output"] if item["type"] == "function_call"]
    replayed = [c.arguments for m in received[-1] for c in m.contents if c.type == "function_call"]
    versions = ", ".join(f"{p} {importlib.metadata.version(p)}"
                         for p in ("agent-framework-core", "agent-framework-foundry-hosting"))
    print(f"{versions}\ncaller's function_call output item arguments: {json.dumps(output_arguments)}\n"
          f"arguments the next request replays to the model: {json.dumps(replayed)}")
    if output_arguments != [ARGUMENTS] or replayed != [ARGUMENTS]:
        print(f"DEFECT: the streamed call's arguments are not {ARGUMENTS} once")
        return 1
    print("OK: the arguments arrive once")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

"""Over the Chat Completions client, a streamed call whose name comes after its id loses the name: no tool runs.

What it shows
    An `Agent` on the framework's `OpenAIChatCompletionClient` with the tool get_weather is asked for the weather,
    streaming. The service streams one call of get_weather the way some Chat Completions providers do: a first
    `tool_calls` delta with the call's index and id c1 and no function name, a later delta for the same index with
    the name get_weather, then the argument text `{"city": "Paris"}` on deltas that carry the index alone. The
    streamed updates are folded into one call that keeps the name "": it is answered with the error result
    "Requested function "" not found" (the result the model gets next), get_weather never runs, and the caller's
    response holds a call without a name. For control, the same stream with the name on the first delta runs
    get_weather once.

Spec rows violated (spec 004)
    "Streaming call" (streamed fragments assemble into the call a non-streaming response holds) and Approval
    request and resume: "Streaming yields the same logical result content and ordering as non-streaming output".
    Harness scenario `normal.streaming-call.name-after-id` fails in streaming mode over the Chat Completions client.

Affected releases
    Run in each version-sweep environment: exit 1 with agent-framework-core 1.10.0 and 1.11.0 (with
    agent-framework-openai 1.10.0 and 1.10.1), exit 0 with core 1.12.0 ... 1.23.0 (agent-framework-openai 1.10.2
    ... 1.17.0), which keep the later name.

Run
    <venv>/bin/python repro/agent_framework/wire_chat_streamed_name_after_id_dropped.py
    Needs agent-framework-core, agent-framework-openai and openai (its own HTTP library, httpx2 from openai 3.0 on,
    httpx before, comes with it).
    Exit status 1: the defect is present. Exit status 0: with its name on a later delta, the call keeps its name
    and get_weather runs once. Exit status 2: the control (name on the first delta) did not run get_weather once,
    so the reproduction needs updating.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.metadata
import json
import logging
import sys
from typing import Any

from agent_framework import Agent, tool
from agent_framework_openai import OpenAIChatCompletionClient
from openai import AsyncOpenAI

# The openai SDK takes a client of the HTTP library it is built on: httpx2 from 3.0, httpx before.
_OPENAI_MAJOR = int(importlib.metadata.version("openai").split(".")[0])
http: Any = importlib.import_module("httpx2" if _OPENAI_MAJOR >= 3 else "httpx")

ran: list[str] = []


@tool(name="get_weather", approval_mode="never_require")
def get_weather(city: str) -> str:
    ran.append(city)
    return "sunny"


def call_deltas(name_first: bool) -> list[dict[str, Any]]:
    """The one call's `tool_calls` deltas: id and index first, the name first or on the next delta, then arguments."""
    opening: dict[str, Any] = {"index": 0, "id": "c1", "type": "function",
                               "function": {"name": "get_weather" if name_first else "", "arguments": ""}}
    naming: list[dict[str, Any]] = [] if name_first else [
        {"index": 0, "function": {"name": "get_weather", "arguments": ""}}]
    arguments = [{"index": 0, "function": {"arguments": piece}} for piece in ('{"city": ', '"Paris"}')]
    return [opening, *naming, *arguments]


def chunks(number: int, name_first: bool) -> list[dict[str, Any]]:
    """Response `number` as `chat.completion.chunk` events: first the call, then the final text."""

    def chunk(delta: dict[str, Any], reason: str | None = None) -> dict[str, Any]:
        return {"id": f"chatcmpl-{number}", "object": "chat.completion.chunk", "created": 0, "model": "m",
                "choices": [{"index": 0, "delta": delta, "finish_reason": reason}]}

    if number == 1:
        out = [chunk({"role": "assistant", "content": None})]
        out += [chunk({"tool_calls": [delta]}) for delta in call_deltas(name_first)]
        return [*out, chunk({}, "tool_calls")]
    return [chunk({"role": "assistant", "content": "It is sunny in Paris."}), chunk({}, "stop")]


class Service:
    """The Chat Completions endpoint, in-process: streams from the script and keeps every request body."""

    def __init__(self, name_first: bool) -> None:
        self.name_first = name_first
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: Any) -> Any:
        self.requests.append(json.loads(request.content))
        events = chunks(len(self.requests), self.name_first)
        data = "".join(f"data: {json.dumps(event)}\n\n" for event in events) + "data: [DONE]\n\n"
        return http.Response(200, content=data.encode(), headers={"content-type": "text/event-stream"})


def tool_results(service: Service) -> list[str]:
    """The tool messages the model received on the follow-up request, as `call id: content`."""
    if len(service.requests) < 2:
        return []
    return [f"{message.get('tool_call_id')}: {message.get('content')}"
            for message in service.requests[1]["messages"] if message.get("role") == "tool"]


async def run(name_first: bool) -> tuple[list[str], list[str], list[str]]:
    """The cities get_weather ran for, the calls in the caller's response (`id name`) and the results sent back."""
    ran.clear()
    service = Service(name_first)
    client_http = http.AsyncClient(transport=http.MockTransport(service), base_url="http://scripted.invalid/v1")
    sdk = AsyncOpenAI(api_key="scripted", base_url="http://scripted.invalid/v1", http_client=client_http,
                      max_retries=0)
    agent = Agent(OpenAIChatCompletionClient(model="m", async_client=sdk), tools=[get_weather])
    response_stream = agent.run("What is the weather in Paris?", stream=True)
    async for _ in response_stream:
        pass
    response = await response_stream.get_final_response()
    calls = [f"{content.call_id} {content.name!r}" for message in response.messages for content in message.contents
             if content.type == "function_call"]
    label = "control, name on the first delta" if name_first else "name on the delta after the id"
    print(f"  {label}:\n    get_weather ran for {ran}\n    calls in the response {calls}\n"
          f"    results sent back to the model {tool_results(service)}")
    return list(ran), calls, tool_results(service)


async def main() -> int:
    logging.disable(logging.WARNING)
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}, "
          f"agent-framework-openai {importlib.metadata.version('agent-framework-openai')}, "
          f"openai {importlib.metadata.version('openai')}")
    control = await run(name_first=True)
    later = await run(name_first=False)
    expected = (["Paris"], ["c1 'get_weather'"], ["c1: sunny"])
    if control != expected:
        print("UNEXPECTED: the control did not run get_weather once; the reproduction needs updating")
        return 2
    if later != expected:
        print("DEFECT: the call whose name came on a later delta than its id was not run as get_weather once")
        return 1
    print("OK: the call whose name came on a later delta than its id keeps its name and runs once")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

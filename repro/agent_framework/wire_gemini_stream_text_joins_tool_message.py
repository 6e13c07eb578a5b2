"""Over Gemini, a streamed final answer after a tool call ends up inside the tool message of the final response.

What it shows
    The model calls get_weather (call id c1) and, after the function invocation layer has run it, answers "It is
    sunny in Paris." Both model calls are streamed (`streamGenerateContent?alt=sse`). The framework's
    `GeminiChatClient` streams its updates without a role, so when the layer folds the stream into the final
    response, the answer's text joins the message before it, the tool message holding the function result:
    [assistant: function_call c1] [tool: function_result c1, text "It is sunny in Paris."]. The same exchange
    without streaming gives [assistant: call] [tool: result] [assistant: text]. The streamed updates the caller
    saw and the final response disagree, and a caller that replays the response sends the model its own answer as
    part of a tool result.

Spec rows violated (spec 004)
    "Streaming call" (call chunks, one result update, and final text are emitted in order) and the streaming
    contract that the final response matches the non-streaming shape; the harness's `stream-agreement` and
    `expect.response` fail over the Gemini wire on every scenario that streams a final text after a tool call.

Affected releases
    agent-framework-gemini 1.0.0a260630 ... 1.0.0b261015 (paired with agent-framework-core 1.10.0 ... 1.22.0;
    checked: a260630, b260721, b260813, b260827, b261008, b261015); 1.0.0b261022 (core 1.23.0) gives its streamed
    updates the assistant role and passes.

Run
    <venv>/bin/python repro/agent_framework/wire_gemini_stream_text_joins_tool_message.py
    Needs agent-framework-core, agent-framework-gemini and google-genai (with httpx, its HTTP library).
    Exit status 1: the defect is present. Exit status 0: the final text is an assistant message of its own.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import sys
from typing import Any

import httpx
from agent_framework import Message, tool
from agent_framework_gemini import GeminiChatClient
from google import genai
from google.genai import types

BASE_URL = "http://scripted.invalid"


@tool(name="get_weather")
def get_weather(city: str) -> str:
    return "sunny"


def answer(number: int) -> dict[str, Any]:
    """One streamed chunk per model call: the function call, then the final text."""
    if number == 1:
        part: dict[str, Any] = {"functionCall": {"id": "c1", "name": "get_weather", "args": {"city": "Paris"}}}
    else:
        part = {"text": "It is sunny in Paris."}
    return {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
            "modelVersion": "scripted-model", "responseId": f"resp_{number}"}


class Service:
    """The Gemini endpoint, in-process: answers each streamed request from the script."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(json.loads(request.content))
        data = f"data: {json.dumps(answer(len(self.requests)))}\r\n\r\n"
        return httpx.Response(200, content=data.encode(), headers={"content-type": "text/event-stream"})


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}, "
          f"agent-framework-gemini {importlib.metadata.version('agent-framework-gemini')}, "
          f"google-genai {importlib.metadata.version('google-genai')}")
    http = httpx.AsyncClient(transport=httpx.MockTransport(Service()), base_url=BASE_URL)
    sdk = genai.Client(api_key="scripted", http_options=types.HttpOptions(base_url=BASE_URL, httpx_async_client=http))
    client = GeminiChatClient(model="scripted-model", client=sdk)
    options: Any = {"tools": [get_weather]}
    stream = client.get_response([Message("user", ["What is the weather in Paris?"])], stream=True, options=options)
    async for _ in stream:
        pass
    final = await stream.get_final_response()
    shapes = [f"{m.role}: {', '.join(c.type for c in m.contents)}" for m in final.messages]
    print(f"  final response: {shapes}")
    last = final.messages[-1]
    if last.role == "assistant" and [c.type for c in last.contents] == ["text"]:
        print("FIXED: the streamed final text is an assistant message of its own")
        return 0
    print("DEFECT: the streamed final text is folded into the message before it (the tool message)")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

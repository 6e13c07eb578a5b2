"""Over Gemini, a call the model streams after a tool result ends up inside the tool message of the final response.

What it shows
    Three streamed model calls (`streamGenerateContent?alt=sse`): the model calls get_weather for Paris (call id
    c1); after the function invocation layer has run it, the model calls get_weather for Rome (c2) in a new round;
    after that result it answers with text. The framework's `GeminiChatClient` streams its updates without a role,
    so when the layer folds the stream into the final response, everything the model streamed after a tool result
    joins the tool message before it: the final response is [assistant: call c1] [tool: result c1, call c2,
    result c2, text], the second round's call and the answer inside the first tool message. The same exchange
    without streaming gives
    [assistant: call c1] [tool: result c1] [assistant: call c2] [tool: result c2] [assistant: text].
    The client sends only the function results of a tool message to the model, so a caller that replays this
    response sends neither the second call nor the answer: the replayed history loses the model's turns.
    This is the defect of wire_gemini_stream_text_joins_tool_message.py, shown for a call rather than for text.

Spec rows violated (spec 004)
    "Multiple sequential rounds" (each round retains one call/result pair, in order), "Streaming call" (call
    chunks, one result update, and final text are emitted in order) and the streaming contract that the final
    response matches the non-streaming shape; the harness's `stream-agreement` and `expect.response` fail over the
    Gemini wire on every scenario whose model streams a call after a tool result.

Affected releases
    agent-framework-gemini 1.0.0a260630 ... 1.0.0b261015 (paired with agent-framework-core 1.10.0 ... 1.22.0);
    1.0.0b261022 (core 1.23.0) gives its streamed updates the assistant role and passes.

Run
    <venv>/bin/python repro/agent_framework/wire_gemini_stream_call_joins_tool_message.py
    Needs agent-framework-core, agent-framework-gemini and google-genai (with httpx, its HTTP library).
    Exit status 1: the defect is present. Exit status 0: every call and text the model streamed is in an
    assistant message.
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
    return {"Paris": "sunny", "Rome": "rainy"}.get(city, "unknown")


def answer(number: int) -> dict[str, Any]:
    """One streamed chunk per model call: a call for Paris, a call for Rome, then the final text."""
    if number == 1:
        part: dict[str, Any] = {"functionCall": {"id": "c1", "name": "get_weather", "args": {"city": "Paris"}}}
    elif number == 2:
        part = {"functionCall": {"id": "c2", "name": "get_weather", "args": {"city": "Rome"}}}
    else:
        part = {"text": "Sunny in Paris, rainy in Rome."}
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
    service = Service()
    http = httpx.AsyncClient(transport=httpx.MockTransport(service), base_url=BASE_URL)
    sdk = genai.Client(api_key="scripted", http_options=types.HttpOptions(base_url=BASE_URL, httpx_async_client=http))
    client = GeminiChatClient(model="scripted-model", client=sdk)
    options: Any = {"tools": [get_weather]}
    stream = client.get_response([Message("user", ["Weather in Paris, then Rome?"])], stream=True, options=options)
    async for _ in stream:
        pass
    final = await stream.get_final_response()
    shapes = [f"{m.role}: {', '.join(c.type for c in m.contents)}" for m in final.messages]
    print(f"  model calls: {len(service.requests)}; final response: {shapes}")
    if len(service.requests) != 3:
        print("UNEXPECTED: the loop did not make the three scripted model calls")
        return 2
    misplaced = [(m.role, c.type) for m in final.messages for c in m.contents
                 if c.type in ("function_call", "text") and m.role != "assistant"]
    if not misplaced:
        print("FIXED: every call and text the model streamed is in an assistant message")
        return 0
    print(f"DEFECT: model output folded into non-assistant messages: {misplaced}")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

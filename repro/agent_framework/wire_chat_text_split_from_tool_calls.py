"""The OpenAI Chat Completions client replays one assistant turn as two messages: its text, then its tool calls.

What it shows
    The model answers with one assistant message that holds both a text ("Let me check the forecast.") and a tool
    call (get_weather, call id c1), as Chat Completions returns them: one choice, `content` and `tool_calls` side
    by side. The function invocation layer runs the tool and calls the model again with the history. The
    framework's `OpenAIChatCompletionClient` serialises that assistant message as two consecutive assistant
    messages, the first with the text only and the second with the tool_calls only, so the follow-up request is
    [user, assistant "Let me check the forecast.", assistant tool_calls c1, tool c1] instead of
    [user, assistant "Let me check the forecast." + tool_calls c1, tool c1]. Every call still has its result and
    the request is well formed, but the model is asked to continue a history that is not the one it produced.
    The same in both response modes.

Spec rows violated (spec 004)
    Scope "provider and transport serialization of function calls and results": the model receives each earlier
    round as it produced it. The harness scenarios `approval.approved-resume.pauses-again` and
    `correlation.duplicate-call.one-call-per-round` expect the assistant round with its text and its call in one
    message and fail over the Chat Completions wire only (`expect.requests`).

Affected releases
    Checked with agent-framework-core 1.10.0, 1.12.1, 1.13.0 and 1.16.0 with their agent-framework-openai releases
    (1.10.0, 1.11.0, 1.12.0, 1.14.1: defect) and 1.19.0 / agent-framework-openai 1.14.4 (fixed: one assistant
    message with content and tool_calls). The results files show the same failing check with every release paired
    with core 1.10.0 ... 1.18.0.

Run
    <venv>/bin/python repro/agent_framework/wire_chat_text_split_from_tool_calls.py
    Needs agent-framework-core, agent-framework-openai and openai (its own HTTP library, httpx2 from openai 3.0 on,
    httpx before, comes with it).
    Exit status 1: the defect is present. Exit status 0: the follow-up request keeps the text and the tool call in
    one assistant message.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.metadata
import json
import sys
from typing import Any

from agent_framework import Message, tool
from agent_framework_openai import OpenAIChatCompletionClient
from openai import AsyncOpenAI

# The openai SDK takes a client of the HTTP library it is built on: httpx2 from 3.0, httpx before.
_OPENAI_MAJOR = int(importlib.metadata.version("openai").split(".")[0])
http: Any = importlib.import_module("httpx2" if _OPENAI_MAJOR >= 3 else "httpx")

NARRATION = "Let me check the forecast."
CALL = {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}}


@tool(name="get_weather")
def get_weather(city: str) -> str:
    return "sunny"


def answer(number: int) -> tuple[dict[str, Any], str]:
    """The model's message and finish reason: text and a call first, then the final text."""
    if number == 1:
        return {"role": "assistant", "content": NARRATION, "tool_calls": [CALL]}, "tool_calls"
    return {"role": "assistant", "content": "It is sunny in Paris."}, "stop"


def chunks(number: int) -> list[dict[str, Any]]:
    """The same answer as `chat.completion.chunk` events: the text, then the call, then the finish reason."""
    message, finish = answer(number)

    def chunk(delta: dict[str, Any], reason: str | None = None) -> dict[str, Any]:
        return {"id": f"chatcmpl-{number}", "object": "chat.completion.chunk", "created": 0, "model": "m",
                "choices": [{"index": 0, "delta": delta, "finish_reason": reason}]}

    out = [chunk({"role": "assistant", "content": message["content"]})]
    calls = message.get("tool_calls", [])
    out += [chunk({"tool_calls": [{"index": index, **call}]}) for index, call in enumerate(calls)]
    out.append(chunk({}, finish))
    return out


class Service:
    """The Chat Completions endpoint, in-process: answers from the script and keeps every request body."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: Any) -> Any:
        sent = json.loads(request.content)
        self.requests.append(sent)
        number = len(self.requests)
        if sent.get("stream"):
            data = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks(number)) + "data: [DONE]\n\n"
            return http.Response(200, content=data.encode(), headers={"content-type": "text/event-stream"})
        message, finish = answer(number)
        return http.Response(200, json={
            "id": f"chatcmpl-{number}", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})


def shape(message: dict[str, Any]) -> str:
    parts = [message["role"]]
    if message.get("content"):
        parts.append(repr(message["content"]))
    parts += [f"tool_call {call['id']}" for call in message.get("tool_calls") or []]
    if message.get("tool_call_id"):
        parts.append(f"result {message['tool_call_id']}")
    return " ".join(parts)


async def run(stream: bool) -> bool:
    service = Service()
    client_http = http.AsyncClient(transport=http.MockTransport(service), base_url="http://scripted.invalid/v1")
    sdk = AsyncOpenAI(api_key="scripted", base_url="http://scripted.invalid/v1", http_client=client_http,
                      max_retries=0)
    client = OpenAIChatCompletionClient(model="m", async_client=sdk)
    options: Any = {"tools": [get_weather]}
    question = [Message("user", ["What is the weather in Paris?"])]
    if stream:
        response_stream = client.get_response(question, stream=True, options=options)
        async for _ in response_stream:
            pass
        await response_stream.get_final_response()
    else:
        await client.get_response(question, options=options)
    label = "streaming" if stream else "non-streaming"
    if len(service.requests) < 2:
        print(f"  {label}: no follow-up request was made")
        return False
    replayed = [shape(message) for message in service.requests[1]["messages"]]
    print(f"  {label}: the model answered  [assistant {NARRATION!r} tool_call c1]")
    print(f"  {label}: follow-up request  {replayed}")
    return any(NARRATION in entry and "tool_call c1" in entry for entry in replayed)


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}, "
          f"agent-framework-openai {importlib.metadata.version('agent-framework-openai')}, "
          f"openai {importlib.metadata.version('openai')}")
    results = [await run(stream) for stream in (False, True)]
    if all(results):
        print("FIXED: the follow-up request replays the model's text and tool call in one assistant message")
        return 0
    print("DEFECT: the follow-up request splits the model's assistant message into a text message and a "
          "tool_calls message")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

"""The OpenAI Responses client replays the model's narration after the function call it preceded.

What it shows
    The model answers with a text ("Let me check the forecast.") and then a function call (get_weather, call id
    c1), in that order: two output items, a message and a function_call. The function invocation layer runs the
    tool and calls the model again with the history. The framework's `OpenAIChatClient` (Responses API) serialises
    an assistant message by appending each function_call item as it meets it and the message item holding the
    message's text at the end, so the follow-up request carries
    [user message, function_call c1, assistant message "Let me check the forecast.", function_call_output c1]:
    the model's narration now sits after the call it announced, between the call and its output. The same happens
    in both response modes, and on every later request that replays the round (for instance the resumed request
    after an approval, where the turn's text and call came back in one assistant message).
    Every call still has its output, so the request is well formed; but the model is asked to continue a history
    that is not the one it produced. (Whether the real service accepts a message between a call and its output was
    not checked; the harness's Responses fake pairs outputs with calls by call id and accepts it.)

Spec rows violated (spec 004)
    Scope "provider and transport serialization of function calls and results" and "reasoning content remains
    ordered immediately before or alongside the function call it explains" (the same holds for the model's own
    text in the tool-call group); the harness scenarios `approval.approved-resume.pauses-again` and
    `correlation.duplicate-call.one-call-per-round` expect the model to receive each round as it produced it, text
    before call, and fail over the Responses wire only (`expect.requests`). Chat Completions carries a message's
    text and its tool_calls in separate fields, so it has no order to lose.

Affected releases
    Checked with agent-framework-core 1.23.0 and agent-framework-openai 1.17.0 (openai 3.57.0); other releases
    not checked.

Run
    <venv>/bin/python repro/agent_framework/wire_responses_narration_after_call.py
    Needs agent-framework-core, agent-framework-openai, openai and httpx2 (the openai SDK's HTTP library).
    Exit status 1: the defect is present. Exit status 0: the follow-up request keeps the text before the call.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import sys
from typing import Any

import httpx2
from agent_framework import Message, tool
from agent_framework_openai import OpenAIChatClient
from openai import AsyncOpenAI

NARRATION = "Let me check the forecast."


@tool(name="get_weather")
def get_weather(city: str) -> str:
    return "sunny"


def _text(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


def answer(number: int) -> list[dict[str, Any]]:
    """The model's output items: narration and a call, then the final text."""
    if number == 1:
        return [{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                 "content": [_text(NARRATION)]},
                {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "get_weather",
                 "arguments": '{"city":"Paris"}', "status": "completed"}]
    return [{"type": "message", "id": f"msg_{number}", "role": "assistant", "status": "completed",
             "content": [_text("It is sunny in Paris.")]}]


def body(number: int, output: list[dict[str, Any]], status: str) -> dict[str, Any]:
    return {"id": f"resp_{number}", "object": "response", "created_at": 0, "status": status, "model": "m",
            "output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}


def events(number: int) -> list[dict[str, Any]]:
    """The same answer as server-sent events, in the order the service sends them."""
    out: list[dict[str, Any]] = [{"type": "response.created", "response": body(number, [], "in_progress")}]
    for index, item in enumerate(answer(number)):
        if item["type"] == "message":
            text = item["content"][0]["text"]
            out += [{"type": "response.output_item.added", "output_index": index,
                     "item": {**item, "content": [], "status": "in_progress"}},
                    {"type": "response.content_part.added", "item_id": item["id"], "output_index": index,
                     "content_index": 0, "part": _text("")},
                    {"type": "response.output_text.delta", "item_id": item["id"], "output_index": index,
                     "content_index": 0, "delta": text, "logprobs": []},
                    {"type": "response.output_text.done", "item_id": item["id"], "output_index": index,
                     "content_index": 0, "text": text, "logprobs": []}]
        else:
            out += [{"type": "response.output_item.added", "output_index": index,
                     "item": {**item, "arguments": "", "status": "in_progress"}},
                    {"type": "response.function_call_arguments.delta", "item_id": item["id"],
                     "output_index": index, "delta": item["arguments"]},
                    {"type": "response.function_call_arguments.done", "item_id": item["id"],
                     "output_index": index, "arguments": item["arguments"]}]
        out.append({"type": "response.output_item.done", "output_index": index, "item": item})
    out.append({"type": "response.completed", "response": body(number, answer(number), "completed")})
    return [{**event, "sequence_number": n} for n, event in enumerate(out)]


class Service:
    """The Responses endpoint, in-process: answers from the script and keeps every request body."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        sent = json.loads(request.content)
        self.requests.append(sent)
        number = len(self.requests)
        if sent.get("stream"):
            data = "".join(f"data: {json.dumps(e)}\n\n" for e in events(number))
            return httpx2.Response(200, content=data.encode(), headers={"content-type": "text/event-stream"})
        return httpx2.Response(200, json=body(number, answer(number), "completed"))


def shape(item: dict[str, Any]) -> str:
    if item.get("type", "message") == "message":
        parts = item["content"] if isinstance(item["content"], list) else [{"text": item["content"]}]
        return f"{item['role']} message {' '.join(repr(p.get('text')) for p in parts)}"
    return f"{item['type']} {item.get('call_id')}"


async def run(stream: bool) -> bool:
    service = Service()
    http = httpx2.AsyncClient(transport=httpx2.MockTransport(service), base_url="http://scripted.invalid/v1")
    sdk = AsyncOpenAI(api_key="scripted", base_url="http://scripted.invalid/v1", http_client=http, max_retries=0)
    client = OpenAIChatClient(model="m", async_client=sdk)
    options: Any = {"tools": [get_weather], "store": False}
    question = [Message("user", ["What is the weather in Paris?"])]
    if stream:
        response_stream = client.get_response(question, stream=True, options=options)
        async for _ in response_stream:
            pass
        await response_stream.get_final_response()
    else:
        await client.get_response(question, options=options)
    replayed = [shape(item) for item in service.requests[1]["input"]]
    label = "streaming" if stream else "non-streaming"
    print(f"  {label}: the model answered  [assistant message {NARRATION!r}, function_call c1]")
    print(f"  {label}: follow-up request  {replayed}")
    narration = next(i for i, s in enumerate(replayed) if NARRATION in s)
    call = next(i for i, s in enumerate(replayed) if s == "function_call c1")
    return narration < call


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}, "
          f"agent-framework-openai {importlib.metadata.version('agent-framework-openai')}")
    results = [await run(stream) for stream in (False, True)]
    if all(results):
        print("FIXED: the follow-up request keeps the model's text before the call it announced")
        return 0
    print("DEFECT: the follow-up request moves the model's text after its function call")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

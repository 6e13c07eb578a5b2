"""The OpenAI Responses client leaves the model's reasoning item out of the stateless follow-up request.

What it shows
    With service-side storage off (`store: False`), every request replays the whole conversation, and the Responses
    API binds a function call the model produced after reasoning to that reasoning item: a follow-up that replays
    the function_call without the reasoning item it came with is refused with HTTP 400 ("Item 'fc_…' of type
    'function_call' was provided without its required 'reasoning' item: 'rs_…'"). The model answers with a
    reasoning item (with its encrypted_content, as the service returns it) and a function call (search, call id
    c1). The function invocation layer runs the tool and calls the model again; the framework's `OpenAIChatClient`
    (Responses API) serialises the history as [user message, function_call c1, function_call_output c1]: the
    reasoning item is gone, in both response modes. The caller gets the provider's refusal instead of an answer.

Spec rows violated (spec 004)
    "Reasoning-bound call" and "Stateless reasoning replay": reasoning content remains ordered immediately before
    or alongside the function call it explains, and a stateless follow-up replays it (with its opaque payload).
    The harness scenarios normal.reasoning-bound-call and normal.reasoning-bound-call.several-items fail over the
    Responses wire (`provider-accepts`, `expect.error`, `expect.requests`, ...).

Affected releases
    agent-framework-openai 1.10.0 and 1.10.2 (paired with agent-framework-core 1.10.0 and 1.12.0) show it; 1.11.0
    (core 1.12.1) and later replay the reasoning item (checked: 1.11.0, 1.13.0, 1.14.0, 1.14.1, 1.16.0, 1.17.0).

Run
    <venv>/bin/python repro/agent_framework/wire_responses_reasoning_dropped_on_replay.py
    Needs agent-framework-core, agent-framework-openai and openai (its own HTTP library, httpx2 from openai 3.0 on,
    httpx before, comes with it).
    Exit status 1: the defect is present. Exit status 0: the follow-up request replays the reasoning item.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.metadata
import json
import sys
from typing import Any

from agent_framework import Message, tool
from agent_framework_openai import OpenAIChatClient
from openai import AsyncOpenAI

# The openai SDK takes a client of the HTTP library it is built on: httpx2 from 3.0, httpx before.
_OPENAI_MAJOR = int(importlib.metadata.version("openai").split(".")[0])
http: Any = importlib.import_module("httpx2" if _OPENAI_MAJOR >= 3 else "httpx")


@tool(name="search")
def search(query: str) -> str:
    return f"Found results for {query}"


REASONING = {"type": "reasoning", "id": "rs_1", "summary": [],
             "content": [{"type": "reasoning_text", "text": "Let me search for that."}],
             "encrypted_content": "opaque-reasoning-payload"}
CALL = {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "search", "arguments": '{"query":"test"}',
        "status": "completed"}


def answer(number: int) -> list[dict[str, Any]]:
    if number == 1:
        return [REASONING, CALL]
    return [{"type": "message", "id": f"msg_{number}", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": "Here are the results.", "annotations": []}]}]


def body(number: int, output: list[dict[str, Any]], status: str) -> dict[str, Any]:
    return {"id": f"resp_{number}", "object": "response", "created_at": 0, "status": status, "model": "m",
            "output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}


def events(number: int) -> list[dict[str, Any]]:
    """The same answer as server-sent events: each output item added and done, then the completed response."""
    out: list[dict[str, Any]] = [{"type": "response.created", "response": body(number, [], "in_progress")}]
    for index, item in enumerate(answer(number)):
        if item["type"] == "function_call":
            out += [{"type": "response.output_item.added", "output_index": index,
                     "item": {**item, "arguments": "", "status": "in_progress"}},
                    {"type": "response.function_call_arguments.delta", "item_id": item["id"],
                     "output_index": index, "delta": item["arguments"]},
                    {"type": "response.function_call_arguments.done", "item_id": item["id"],
                     "output_index": index, "arguments": item["arguments"]}]
        elif item["type"] == "message":
            text = item["content"][0]["text"]
            out += [{"type": "response.output_item.added", "output_index": index,
                     "item": {**item, "content": [], "status": "in_progress"}},
                    {"type": "response.output_text.delta", "item_id": item["id"], "output_index": index,
                     "content_index": 0, "delta": text, "logprobs": []}]
        else:
            out.append({"type": "response.output_item.added", "output_index": index, "item": item})
        out.append({"type": "response.output_item.done", "output_index": index, "item": item})
    out.append({"type": "response.completed", "response": body(number, answer(number), "completed")})
    return [{**event, "sequence_number": n} for n, event in enumerate(out)]


class Service:
    """The Responses endpoint, in-process: answers from the script and keeps every request body."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: Any) -> Any:
        sent = json.loads(request.content)
        self.requests.append(sent)
        number = len(self.requests)
        if sent.get("stream"):
            data = "".join(f"data: {json.dumps(e)}\n\n" for e in events(number))
            return http.Response(200, content=data.encode(), headers={"content-type": "text/event-stream"})
        return http.Response(200, json=body(number, answer(number), "completed"))


async def run(stream: bool) -> bool:
    service = Service()
    client_http = http.AsyncClient(transport=http.MockTransport(service), base_url="http://scripted.invalid/v1")
    sdk = AsyncOpenAI(api_key="scripted", base_url="http://scripted.invalid/v1", http_client=client_http,
                      max_retries=0)
    client = OpenAIChatClient(model="m", async_client=sdk)
    options: Any = {"tools": [search], "store": False}
    question = [Message("user", ["Search for test."])]
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
    replayed = [f"{item.get('type', 'message')} {item.get('call_id') or item.get('id') or ''}".strip()
                for item in service.requests[1]["input"]]
    print(f"  {label}: the model answered  [reasoning rs_1, function_call c1]")
    print(f"  {label}: follow-up request  {replayed}")
    kinds = [entry.split()[0] for entry in replayed]
    return "reasoning" in kinds and kinds.index("reasoning") < kinds.index("function_call")


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}, "
          f"agent-framework-openai {importlib.metadata.version('agent-framework-openai')}, "
          f"openai {importlib.metadata.version('openai')}")
    results = [await run(stream) for stream in (False, True)]
    if all(results):
        print("FIXED: the stateless follow-up replays the reasoning item before its function call")
        return 0
    print("DEFECT: the stateless follow-up request leaves out the reasoning item its function call is bound to")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

"""Behind the Responses hosting server, the model gets the earlier turns twice: once by continuation, once replayed.

What it shows
    An agent is hosted by agent-framework-foundry-hosting's `ResponsesHostServer` (driven over an in-process ASGI
    transport, no socket), with `require_per_service_call_history_persistence=True`, and talks to the model through
    the framework's OpenAI Responses client (`agent_framework_openai.OpenAIChatClient`) over an in-process mock of
    the Responses endpoint. The caller asks one question (the model calls get_weather, then answers), then sends a
    second request continuing the first response by `previous_response_id`. The server hands the agent its stored
    transcript of the first turn; the agent's chat client keeps its own service-side chain as well. On the second
    turn's model request, the client both continues its own earlier response (`previous_response_id`: the first
    turn is in it) and replays the host's transcript in `input` (the first question, the tool output, the answer):
    the model sees the first turn twice, and the replayed copy holds the function_call_output without its
    function_call. Every later model call of that turn carries the duplicate too.

Spec rows violated (spec 004)
    "Hosted per-service-call persistence": with the host managing the transcript, each model call of the loop gets
    that transcript once (no earlier message persisted into a second store and replayed from it), and no result
    without its call. Harness scenario `history.hosted.per-service-call-persistence` fails over the
    openai-responses wire (`no-orphans`, `expect.requests`); the neutral provider keeps no service-side chain and
    passes.

Affected releases
    agent-framework-core 1.14.0, 1.15.0 and 1.16.0 with the hosting and OpenAI releases built for them
    (foundry-hosting 1.0.0b260813 ... 1.0.0b260827, agent-framework-openai 1.13.0 ... 1.14.1). From core 1.17.0
    (foundry-hosting 1.0.0b260903, agent-framework-openai 1.14.2) the agent's requests are sent with `store: false`
    and replay the host's transcript alone. Core 1.10.0 ... 1.13.0 have no per-service-call persistence.

Run
    <venv>/bin/python repro/agent_framework/hosted_transcript_sent_twice.py
    Needs agent-framework-core, agent-framework-foundry-hosting, agent-framework-openai, openai and httpx.
    Exit status 1: the defect is present. Exit status 0: the second turn's model request holds the first turn once.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.metadata
import inspect
import json
import logging
import os
import sys
import tempfile
from typing import Any

# The server's default session store is a file under the home folder: keep it out of the caller's home.
os.environ["HOME"] = tempfile.mkdtemp(prefix="hosted-transcript-")

import httpx  # noqa: E402  (after HOME is set)
from agent_framework import Agent, tool  # noqa: E402
from agent_framework_foundry_hosting import ResponsesHostServer  # noqa: E402
from agent_framework_openai import OpenAIChatClient  # noqa: E402
from azure.ai.agentserver.responses import InMemoryResponseProvider  # noqa: E402
from openai import AsyncOpenAI  # noqa: E402

# The openai SDK takes a client of the HTTP library it is built on: httpx2 from 3.0, httpx before.
_OPENAI_MAJOR = int(importlib.metadata.version("openai").split(".")[0])
model_http: Any = importlib.import_module("httpx2" if _OPENAI_MAJOR >= 3 else "httpx")

FIRST_QUESTION = "What is the weather in Seattle?"


@tool(name="get_weather", approval_mode="never_require")
def get_weather(city: str) -> str:
    return "sunny"


def answer(number: int) -> dict[str, Any]:
    """The model's output item for request `number`: first a call, then plain answers."""
    if number == 1:
        return {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "get_weather",
                "arguments": '{"city":"Seattle"}', "status": "completed"}
    return {"type": "message", "id": f"msg_{number}", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": f"answer {number}", "annotations": []}]}


def body(number: int, output: list[dict[str, Any]], status: str) -> dict[str, Any]:
    return {"id": f"resp_{number}", "object": "response", "created_at": 0, "status": status, "model": "m",
            "output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}


def events(number: int) -> list[dict[str, Any]]:
    item = answer(number)
    out: list[dict[str, Any]] = [{"type": "response.created", "response": body(number, [], "in_progress")}]
    if item["type"] == "function_call":
        out += [{"type": "response.output_item.added", "output_index": 0,
                 "item": {**item, "arguments": "", "status": "in_progress"}},
                {"type": "response.function_call_arguments.delta", "item_id": item["id"], "output_index": 0,
                 "delta": item["arguments"]},
                {"type": "response.function_call_arguments.done", "item_id": item["id"], "output_index": 0,
                 "arguments": item["arguments"]}]
    else:
        text = item["content"][0]["text"]
        out += [{"type": "response.output_item.added", "output_index": 0,
                 "item": {**item, "content": [], "status": "in_progress"}},
                {"type": "response.output_text.delta", "item_id": item["id"], "output_index": 0,
                 "content_index": 0, "delta": text, "logprobs": []}]
    out += [{"type": "response.output_item.done", "output_index": 0, "item": item},
            {"type": "response.completed", "response": body(number, [item], "completed")}]
    return [{**event, "sequence_number": n} for n, event in enumerate(out)]


class ModelService:
    """The model's Responses endpoint, in-process: answers from the script and keeps every request body."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: Any) -> Any:
        sent = json.loads(request.content)
        self.requests.append(sent)
        number = len(self.requests)
        if sent.get("stream"):
            data = "".join(f"data: {json.dumps(e)}\n\n" for e in events(number))
            return model_http.Response(200, content=data.encode(), headers={"content-type": "text/event-stream"})
        return model_http.Response(200, json=body(number, [answer(number)], "completed"))


def hosting_server(agent: Agent[Any]) -> ResponsesHostServer:
    # The server's keyword for its response store was `store` in the releases before `response_store`.
    keyword = ("response_store" if "response_store" in inspect.signature(ResponsesHostServer.__init__).parameters
               else "store")
    return ResponsesHostServer(agent, configure_observability=None, **{keyword: InMemoryResponseProvider()})


def describe(item: dict[str, Any]) -> str:
    if item.get("type") in ("function_call", "function_call_output"):
        return f"{item['type']} {item['call_id']}"
    content = item.get("content")
    text = content[0].get("text") if isinstance(content, list) and content else content
    return f"{item.get('role', item.get('type'))}: {text!r}"


async def main() -> int:
    logging.disable(logging.WARNING)
    versions = ", ".join(f"{p} {importlib.metadata.version(p)}" for p in
                         ("agent-framework-core", "agent-framework-foundry-hosting", "agent-framework-openai"))
    print(versions)
    settings: dict[str, Any] = {}
    if "require_per_service_call_history_persistence" not in inspect.signature(Agent.__init__).parameters:
        print("this core release has no per-service-call history persistence: nothing to show")
        return 0
    settings["require_per_service_call_history_persistence"] = True
    service = ModelService()
    sdk = AsyncOpenAI(api_key="scripted", base_url="http://model.invalid/v1", max_retries=0,
                      http_client=model_http.AsyncClient(transport=model_http.MockTransport(service),
                                                         base_url="http://model.invalid/v1"))
    agent = Agent(OpenAIChatClient(model="m", async_client=sdk), tools=[get_weather], **settings)
    server = hosting_server(agent)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=server), base_url="http://host.invalid") as caller:
        first = (await caller.post("/responses", json={"model": "m", "input": FIRST_QUESTION})).json()
        turn_one_requests = len(service.requests)
        await caller.post("/responses", json={"model": "m", "input": "And in Paris?",
                                              "previous_response_id": first["id"]})
    if len(service.requests) <= turn_one_requests:
        print("the second turn made no model request")
        return 1
    request = service.requests[turn_one_requests]
    items = [describe(item) for item in request.get("input", [])]
    print(f"second turn, first model request: previous_response_id={request.get('previous_response_id')!r}, "
          f"store={request.get('store', '(not sent)')!r}")
    for entry in items:
        print(f"  input  {entry}")
    continues = request.get("previous_response_id") is not None
    replays_first_turn = any(FIRST_QUESTION in entry for entry in items)
    calls = {e.split()[1] for e in items if e.startswith("function_call ")}
    orphan_outputs = [e for e in items if e.startswith("function_call_output") and e.split()[1] not in calls]
    if continues and replays_first_turn:
        print("DEFECT: the request continues the agent's earlier response (which holds the first turn) and replays "
              f"the host's transcript of the first turn as well; outputs replayed without their call: {orphan_outputs}")
        return 1
    print("OK: the first turn reaches the model once")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

"""Over Chat Completions, a paused call's result is sent after a later turn, and the service refuses the request.

What it shows
    An agent with a session (history kept by the framework) talks to the framework's `OpenAIChatCompletionClient`.
    Turn 1: the model calls an approval-required tool (restart_service, call id a1); the run pauses with an
    approval request. Turn 2: before deciding, the user asks something else; the pending call is kept out of that
    request, as it must be, and the model answers. Turn 3: the user approves; the tool runs once and the model is
    called with the history
    [user, assistant tool_calls a1, user "Before that ...", assistant "It is 14:05.", tool a1]:
    the tool message comes after the later turn instead of right after the assistant message whose call it
    answers. Chat Completions requires the tool messages answering an assistant message's tool_calls to follow it
    directly; the service answers HTTP 400 "An assistant message with 'tool_calls' must be followed by tool
    messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: a1"
    (and, for the late tool message, "messages with role 'tool' must be a response to a preceeding message with
    'tool_calls'"), so the approved turn fails for the user after the tool has already run. The transport here
    applies that rule and answers as the service does. Same in both response modes.

Spec rows violated (spec 004)
    "Pending history turn" (an unresolved approval batch is omitted from unrelated model input while a later
    decision can still resume it once) and "Unrelated turn before approval", with the scope "provider and transport
    serialization of function calls and results": the resume must give the provider a history it accepts. Harness
    scenario `mixed.held-calls.unrelated-turn` fails over the Chat Completions wire only (`script`,
    `expect.model-calls`, `expect.requests`, `expect.error`; rules `calls-answered`, `tool-answers-call`); the same
    request shape reaches the neutral provider and the Responses API, which pair results with calls by id.

Affected releases
    Checked with agent-framework-core 1.23.0 and agent-framework-openai 1.17.0 (openai 3.57.0); other releases
    not checked.

Run
    <venv>/bin/python repro/agent_framework/wire_chat_held_results_after_later_turn.py
    Needs agent-framework-core, agent-framework-openai, openai and httpx2 (the openai SDK's HTTP library).
    Exit status 1: the defect is present. Exit status 0: every tool message follows the call it answers.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import logging
import sys
from typing import Any

import httpx2
from agent_framework import Agent, Message, tool
from agent_framework_openai import OpenAIChatCompletionClient
from openai import AsyncOpenAI

executions: list[str] = []


@tool(name="restart_service", approval_mode="always_require")
def restart_service(service: str) -> str:
    executions.append(service)
    return "restarted"


def script() -> list[dict[str, Any]]:
    """The model's three answers: the call, the unrelated answer, the final answer."""
    call = {"name": "restart_service", "arguments": '{"service":"api"}'}
    return [{"role": "assistant", "content": None, "tool_calls": [{"id": "a1", "type": "function", "function": call}]},
            {"role": "assistant", "content": "It is 14:05."},
            {"role": "assistant", "content": "The api service has been restarted."}]


def unanswered(messages: list[dict[str, Any]]) -> str | None:
    """The Chat Completions rule: tool messages answering an assistant message's tool_calls follow it directly."""
    open_calls: list[str] = []
    for message in messages:
        if message["role"] == "tool":
            if message.get("tool_call_id") not in open_calls:
                return "messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."
            open_calls.remove(message["tool_call_id"])
            continue
        if open_calls:
            return ("An assistant message with 'tool_calls' must be followed by tool messages responding to each "
                    f"'tool_call_id'. The following tool_call_ids did not have response messages: "
                    f"{', '.join(open_calls)}")
        open_calls = [call["id"] for call in message.get("tool_calls") or []]
    return None


class Service:
    """The Chat Completions endpoint, in-process: answers from the script, refuses what the service refuses."""

    def __init__(self) -> None:
        self.script = script()
        self.requests: list[dict[str, Any]] = []
        self.refused: list[str] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        sent = json.loads(request.content)
        self.requests.append(sent)
        if (problem := unanswered(sent["messages"])) is not None:
            self.refused.append(problem)
            return httpx2.Response(400, json={"error": {"message": problem, "type": "invalid_request_error",
                                                        "param": "messages", "code": None}})
        message = self.script.pop(0)
        finish = "tool_calls" if message.get("tool_calls") else "stop"
        if not sent.get("stream"):
            return httpx2.Response(200, json={"id": "chatcmpl-1", "object": "chat.completion", "created": 0,
                                              "model": "m", "choices": [{"index": 0, "message": message,
                                                                         "finish_reason": finish}]})
        calls = [{"index": i, **c} for i, c in enumerate(message.get("tool_calls") or [])]
        chunks = [{"index": 0, "delta": {**message, "tool_calls": calls}, "finish_reason": None},
                  {"index": 0, "delta": {}, "finish_reason": finish}]
        data = "".join("data: " + json.dumps({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0,
                                               "model": "m", "choices": [chunk]}) + "\n\n" for chunk in chunks)
        return httpx2.Response(200, content=(data + "data: [DONE]\n\n").encode(),
                               headers={"content-type": "text/event-stream"})


def shape(messages: list[dict[str, Any]]) -> list[str]:
    return [f"tool {m['tool_call_id']}" if m["role"] == "tool" else
            f"{m['role']} tool_calls {[c['id'] for c in m['tool_calls']]}" if m.get("tool_calls") else
            f"{m['role']} {m.get('content')!r}" for m in messages]


async def ask(agent: Agent, session: Any, message: Message, stream: bool) -> Any:
    if stream:
        response_stream = agent.run([message], stream=True, session=session)
        async for _ in response_stream:
            pass
        return await response_stream.get_final_response()
    return await agent.run([message], session=session)


async def run(stream: bool) -> bool:
    executions.clear()
    service = Service()
    http = httpx2.AsyncClient(transport=httpx2.MockTransport(service), base_url="http://scripted.invalid/v1")
    sdk = AsyncOpenAI(api_key="scripted", base_url="http://scripted.invalid/v1", http_client=http, max_retries=0)
    agent = Agent(OpenAIChatCompletionClient(model="m", async_client=sdk), tools=[restart_service])
    session = agent.create_session()
    label = "streaming" if stream else "non-streaming"

    paused = await ask(agent, session, Message("user", ["Restart the api service."]), stream)
    request = next(c for m in paused.messages for c in m.contents if c.type == "function_approval_request")
    await ask(agent, session, Message("user", ["Before that, what time is it?"]), stream)
    error = None
    try:
        await ask(agent, session, Message("user", [request.to_function_approval_response(True)]), stream)
    except Exception as raised:  # noqa: BLE001 - what the caller gets is the evidence
        error = f"{type(raised).__name__}"
    print(f"  {label}: turn 3 request {shape(service.requests[-1]['messages'])}")
    print(f"  {label}: tool ran {executions}; service refused: {service.refused or 'nothing'}; caller got "
          f"{error or 'a response'}")
    return not service.refused


async def main() -> int:
    logging.getLogger("agent_framework").setLevel(logging.CRITICAL)  # the refused request is logged as an error
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}, "
          f"agent-framework-openai {importlib.metadata.version('agent-framework-openai')}")
    results = [await run(stream) for stream in (False, True)]
    if all(results):
        print("FIXED: the approved call's tool message follows the assistant message that made the call")
        return 0
    print("DEFECT: the approved call's tool message is sent after a later turn; Chat Completions refuses it")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

"""Chat Completions: a tool's follow-up input requests are sent between its call and its result, and refused.

What it shows
    An Agent keeps the history in its session and talks to Chat Completions. The model calls deploy (call id c1),
    which needs approval; the caller approves; the tool then asks the caller for more input twice in one execution
    (UserInputRequiredException with two consent requests), and the turn's response holds both requests. The
    caller answers with the call's result and a new user message. The history the loop hands the client for that
    turn keeps the two requests in assistant messages of their own between the call and its result, and the
    framework's `OpenAIChatCompletionClient` of core 1.13.0 ... 1.16.0 serialises them as two assistant messages
    whose content is the raw request objects, so the request reads
    [user, assistant tool_calls c1, assistant <request>, assistant <request>, tool c1, user]: the call is not
    followed by its tool message. Chat Completions refuses such a request with HTTP 400 ("An assistant message with
    'tool_calls' must be followed by tool messages responding to each 'tool_call_id'" and "messages with role
    'tool' must be a response to a preceeding message with 'tool_calls'"). Later clients leave the requests out
    (checked: core 1.19.0, agent-framework-openai 1.14.4: [user, assistant tool_calls c1, tool c1, user]).

Spec rows violated (spec 004)
    "Follow-up request closes one occurrence" (the follow-up requests stay with their own occurrence and the run
    continues), scope "provider and transport serialization of function calls and results", and "Model-bound
    history contains one function call/result pair per completed logical occurrence": caller-facing input
    requests are not model input.

Affected releases
    Checked: agent-framework-core 1.13.0 (agent-framework-openai 1.12.0) and 1.16.0 (1.14.1) defect, 1.19.0 (1.14.4)
    fixed. The results files show the same refusal with every release paired with core 1.13.0 ... 1.16.0 and none
    from 1.17.0.

Run
    <venv>/bin/python repro/agent_framework/wire_chat_input_requests_between_call_and_result.py
    Needs agent-framework-core, agent-framework-openai and openai (its own HTTP library, httpx2 from openai 3.0 on,
    httpx before, comes with it).
    Exit status 1: the defect is present. Exit status 0: the call's tool message follows it directly.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.metadata
import json
import sys
from typing import Any

from agent_framework import Agent, Content, Message, UserInputRequiredException, tool
from agent_framework_openai import OpenAIChatCompletionClient
from openai import AsyncOpenAI

# The openai SDK takes a client of the HTTP library it is built on: httpx2 from 3.0, httpx before.
_OPENAI_MAJOR = int(importlib.metadata.version("openai").split(".")[0])
http: Any = importlib.import_module("httpx2" if _OPENAI_MAJOR >= 3 else "httpx")


@tool(name="deploy", approval_mode="always_require")
def deploy(env: str) -> str:
    raise UserInputRequiredException([Content.from_oauth_consent_request("staging-consent"),
                                      Content.from_oauth_consent_request("staging-ticket")])


class Service:
    """The Chat Completions endpoint, in-process: a call to deploy first, then plain answers."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: Any) -> Any:
        self.requests.append(json.loads(request.content))
        number = len(self.requests)
        if number == 1:
            message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "deploy", "arguments": '{"env":"staging"}'}}]}
            finish = "tool_calls"
        else:
            message, finish = {"role": "assistant", "content": "Going on."}, "stop"
        return http.Response(200, json={
            "id": f"chatcmpl-{number}", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})


def shape(message: dict[str, Any]) -> str:
    if message.get("tool_calls"):
        return "assistant tool_calls " + " ".join(call["id"] for call in message["tool_calls"])
    if message["role"] == "tool":
        return f"tool {message['tool_call_id']}"
    content = message.get("content")
    return f"{message['role']} " + (repr(content) if isinstance(content, str) else "<request object>")


def call_answered_directly(messages: list[dict[str, Any]]) -> bool:
    for index, message in enumerate(messages):
        if message.get("tool_calls"):
            following = messages[index + 1] if index + 1 < len(messages) else {}
            if following.get("role") != "tool":
                return False
    return True


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}, "
          f"agent-framework-openai {importlib.metadata.version('agent-framework-openai')}, "
          f"openai {importlib.metadata.version('openai')}")
    service = Service()
    client_http = http.AsyncClient(transport=http.MockTransport(service), base_url="http://scripted.invalid/v1")
    sdk = AsyncOpenAI(api_key="scripted", base_url="http://scripted.invalid/v1", http_client=client_http,
                      max_retries=0)
    agent = Agent(client=OpenAIChatCompletionClient(model="m", async_client=sdk), tools=[deploy])
    session = agent.create_session()
    first = await agent.run("Deploy to staging.", session=session)
    approval = next(c for m in first.messages for c in m.contents if c.type == "function_approval_request")
    second = await agent.run([Message("user", [approval.to_function_approval_response(True)])], session=session)
    print(f"  turn 2 response: {[(str(m.role), [c.type for c in m.contents]) for m in second.messages]}")
    await agent.run([Message("tool", [Content.from_function_result(call_id="c1", result="consent given")]),
                     Message("user", ["Go on."])], session=session)
    sent = service.requests[-1]["messages"]
    print(f"  turn 3 request: {[shape(m) for m in sent]}")
    if call_answered_directly(sent):
        print("FIXED: the call's tool message follows it directly; the input requests are not sent")
        return 0
    print("DEFECT: the tool's input requests are sent between its call and its result")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

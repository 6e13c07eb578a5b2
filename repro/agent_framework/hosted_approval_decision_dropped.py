"""A caller's decision on a hosted (service-run) approval request never reaches the Responses service.

What it shows
    An Agent with a session talks to the Responses API, which stores the conversation. The service's first answer
    asks for approval of a hosted MCP call (an `mcp_approval_request` item, id mcpr_1, server "docs"); the caller
    gets it as a function_approval_request and answers on the next turn with the approval, passing the same
    session (which carries the stored response's id). The next request must continue the stored response and carry
    the decision as an `mcp_approval_response` item: the service runs the hosted call itself. On affected releases
    the function invocation layer takes the hosted approval response out of the input as if it were a local one,
    so nothing is left to send: the client raises "Messages are required for chat completions" before any
    request, and the caller gets that error instead of the service's answer. Non-streaming.

Spec rows violated (spec 004)
    "OpenAI end-to-end hosted approval" (a hosted approval request parses, its decision is sent on the stored
    conversation, and the run completes) and "Service-side approval decision" (under storage, the current hosted
    decision is sent without the stored request). Normative contract: hosted approval requests remain visible to
    the caller and are resolved by the service, not by the local loop.

Affected releases
    agent-framework-core 1.10.0 ... 1.12.1 with their agent-framework-openai releases (checked: 1.10.0, 1.12.1);
    fixed in 1.13.0 (checked: 1.13.0, 1.16.0, 1.19.0: the request carries the mcp_approval_response).

Run
    <venv>/bin/python repro/agent_framework/hosted_approval_decision_dropped.py
    Needs agent-framework-core, agent-framework-openai and openai (its own HTTP library, httpx2 from openai 3.0 on,
    httpx before, comes with it).
    Exit status 1: the defect is present. Exit status 0: the decision reaches the service as mcp_approval_response.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.metadata
import json
import sys
from typing import Any

from agent_framework import Agent, Message
from agent_framework_openai import OpenAIChatClient
from openai import AsyncOpenAI

# The openai SDK takes a client of the HTTP library it is built on: httpx2 from 3.0, httpx before.
_OPENAI_MAJOR = int(importlib.metadata.version("openai").split(".")[0])
http: Any = importlib.import_module("httpx2" if _OPENAI_MAJOR >= 3 else "httpx")

REQUEST = {"type": "mcp_approval_request", "id": "mcpr_1", "name": "search_docs",
           "arguments": '{"query":"approvals"}', "server_label": "docs"}
ANSWER = [{"type": "mcp_call", "id": "mcpr_1", "name": "search_docs", "arguments": '{"query":"approvals"}',
           "server_label": "docs", "output": "Chapter 4: approvals", "status": "completed"},
          {"type": "message", "id": "msg_2", "role": "assistant", "status": "completed",
           "content": [{"type": "output_text", "text": "The docs describe approvals in chapter 4.",
                        "annotations": []}]}]


class Service:
    """The Responses endpoint, in-process: the approval request first, then the hosted call's answer."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: Any) -> Any:
        self.requests.append(json.loads(request.content))
        number = len(self.requests)
        return http.Response(200, json={
            "id": f"resp_{number}", "object": "response", "created_at": 0, "status": "completed", "model": "m",
            "output": [REQUEST] if number == 1 else ANSWER, "parallel_tool_calls": True, "tool_choice": "auto",
            "tools": []})


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}, "
          f"agent-framework-openai {importlib.metadata.version('agent-framework-openai')}, "
          f"openai {importlib.metadata.version('openai')}")
    service = Service()
    client_http = http.AsyncClient(transport=http.MockTransport(service), base_url="http://scripted.invalid/v1")
    sdk = AsyncOpenAI(api_key="scripted", base_url="http://scripted.invalid/v1", http_client=client_http,
                      max_retries=0)
    agent = Agent(client=OpenAIChatClient(model="m", async_client=sdk))
    session = agent.create_session()
    first = await agent.run("Search the docs for approvals.", session=session)
    requests = [c for m in first.messages for c in m.contents if c.type == "function_approval_request"]
    print(f"  turn 1: {[(str(m.role), [c.type for c in m.contents]) for m in first.messages]}")
    if not requests:
        print("NOT RUN: the hosted approval request did not reach the caller")
        return 2
    error = ""
    try:
        second = await agent.run([Message("user", [requests[0].to_function_approval_response(True)])],
                                 session=session)
        print(f"  turn 2: {[(str(m.role), [c.type for c in m.contents]) for m in second.messages]}")
    except Exception as raised:  # noqa: BLE001 - the refusal is the outcome worth printing
        error = f"{type(raised).__name__}: {raised}"
        print(f"  turn 2 raised {error}")
    sent = service.requests[1]["input"] if len(service.requests) > 1 else None
    print(f"  requests made: {len(service.requests)}; second request input: {json.dumps(sent)}")
    decided = any(item.get("type") == "mcp_approval_response" and item.get("approve") for item in sent or [])
    if decided and not error:
        print("FIXED: the hosted decision reaches the service as an mcp_approval_response on the stored response")
        return 0
    print("DEFECT: the caller's decision on the hosted approval request never reaches the service")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

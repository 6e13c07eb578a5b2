"""Over the Gemini client, a call's thought signature does not survive a saved and restored session.

What it shows
    An agent on the framework's `GeminiChatClient` (over an in-process Gemini endpoint) is asked to delete a file;
    the model answers with a call of the approval-required `delete_file` that carries a thought signature, and the
    turn pauses for approval. The caller approves on the next turn. With the session kept in memory (control), the
    resume request sends the call back with its `thoughtSignature`. With the session saved to JSON and loaded again
    (`AgentSession.to_dict()` / `AgentSession.from_dict()`), as a caller resuming in another process does, the
    resume request sends the call without it: the Gemini API refuses such a request (HTTP 400, "Function call is
    missing a thought_signature in functionCall parts").

Spec rows violated (spec 004)
    "Opaque reasoning signature replay" and "Approval resume with reasoning" (framework-managed replay includes the
    service-required reasoning representation), with "Restored approval state". Harness scenario
    `history.gemini.approval-signature-restored` (gemini runs).

Affected releases
    agent-framework-core 1.10.0 ... 1.12.0 with the agent-framework-gemini paired with each (1.0.0a260630 ...
    1.0.0b260721); exits 0 with core 1.12.1 and agent-framework-gemini 1.0.0b260722.

Run
    <venv>/bin/python repro/agent_framework/wire_gemini_restored_session_drops_thought_signature.py
    Needs agent-framework-core, agent-framework-gemini and google-genai.
    Exit status 1: the defect is present. Exit status 0: the restored session's resume sends the signature.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import logging
import sys
from typing import Any

import httpx
from agent_framework import Agent, AgentSession, Message, tool
from agent_framework_gemini import GeminiChatClient
from google import genai
from google.genai import types

BASE_URL = "http://scripted.invalid"
SIGNATURE = "c2lnbmF0dXJlLTE="


@tool(name="delete_file", approval_mode="always_require")
def delete_file(path: str) -> str:
    return "deleted"


class Service:
    """The Gemini endpoint, in-process: a signed call of delete_file, then a text answer; records the requests."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(json.loads(request.content))
        if len(self.requests) == 1:
            part: dict[str, Any] = {"functionCall": {"id": "c1", "name": "delete_file", "args": {"path": "/tmp/a.txt"}},
                                    "thoughtSignature": SIGNATURE}
        else:
            part = {"text": "Deleted."}
        body = {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
                "modelVersion": "scripted-model", "responseId": f"resp_{len(self.requests)}"}
        return httpx.Response(200, json=body)


async def resume_signatures(restore: bool) -> list[str | None]:
    """The thought signatures of the function-call parts the resume request sends."""
    service = Service()
    http = httpx.AsyncClient(transport=httpx.MockTransport(service), base_url=BASE_URL)
    sdk = genai.Client(api_key="scripted", http_options=types.HttpOptions(base_url=BASE_URL, httpx_async_client=http))
    agent = Agent(GeminiChatClient(model="scripted-model", client=sdk), tools=[delete_file])
    session = agent.create_session()
    paused = await agent.run("Delete /tmp/a.txt", session=session)
    request = next(c for m in paused.messages for c in m.contents if c.type == "function_approval_request")
    if restore:
        session = AgentSession.from_dict(json.loads(json.dumps(session.to_dict())))
    await agent.run(Message("user", [request.to_function_approval_response(True)]), session=session)
    resume = service.requests[1]
    return [part.get("thoughtSignature") for content in resume["contents"] for part in content.get("parts", [])
            if "functionCall" in part]


async def main() -> int:
    logging.disable(logging.WARNING)
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}, "
          f"agent-framework-gemini {importlib.metadata.version('agent-framework-gemini')}")
    kept = await resume_signatures(restore=False)
    restored = await resume_signatures(restore=True)
    print(f"  control, session kept in memory: resume sends signatures {kept}\n"
          f"  session saved and restored:      resume sends signatures {restored}")
    if kept != [SIGNATURE]:
        print("UNEXPECTED: the kept session's resume does not send the signature; the reproduction needs updating")
        return 2
    if restored != [SIGNATURE]:
        print("DEFECT: after the session is restored, the resumed call is sent without its thought signature")
        return 1
    print("OK: the restored session's resume sends the call with its thought signature")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

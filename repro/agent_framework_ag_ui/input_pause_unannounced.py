"""AG-UI endpoint: a run that pauses an approved call for more input sends no snapshot and announces no interrupt.

Spec row "AG-UI approval-time follow-up" (the full grouped user-input pause remains in message history and emits no
synthetic `TOOL_CALL_RESULT`).

A model asks for one approval-required call; the client approves it. The tool, when the endpoint runs it, needs two
more inputs (`UserInputRequiredException` with two consent requests, as the framework documents). The resumed run
sends both requests as custom events and no result event, as it should, but it then finishes with neither a
MESSAGES_SNAPSHOT nor an interrupt in RUN_FINISHED: the pause is in no message history the client keeps. Yet the
endpoint holds the approval pending, and the thread's next run, sent as the client now has every reason to send it,
fails with APPROVAL_RESUME_REQUIRED.

Needs only agent-framework-core and agent-framework-ag-ui (no network, no sockets: httpx's ASGI transport):

    pip install 'agent-framework-ag-ui==1.7.0'
    python repro/agent_framework_ag_ui/input_pause_unannounced.py; echo "exit $?"

Exits 1 while the defect is present, 0 once the pausing run's snapshot or RUN_FINISHED tells the client of the pause.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import sys
from collections.abc import AsyncIterator, Sequence
from typing import Any

import httpx
from agent_framework import (
    Agent,
    BaseChatClient,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    FunctionInvocationLayer,
    FunctionTool,
    Message,
)
from agent_framework.exceptions import UserInputRequiredException
from agent_framework_ag_ui import add_agent_framework_fastapi_endpoint
from fastapi import FastAPI

SEEN: list[list[Message]] = []  # what the chat client received, call by call


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """Answers with one call, then with text; records every conversation it is sent."""

    def _inner_get_response(self, *, messages: Sequence[Message], stream: bool, options: Any, **kwargs: Any) -> Any:
        SEEN.append(list(messages))
        if len(SEEN) == 1:
            contents = [Content.from_function_call("c1", "deploy_service", arguments='{"service": "billing"}')]
        else:
            contents = [Content.from_text("Done.")]

        async def updates() -> AsyncIterator[ChatResponseUpdate]:
            yield ChatResponseUpdate(role="assistant", contents=contents, message_id=f"m{len(SEEN)}")

        if stream:
            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[Message("assistant", contents)])

        return complete()



def interrupts_of(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The interrupts the run finished with, each with its id and toolCallId. 1.0.0rc7 predates the protocol's
    interrupt outcome: it lists them in an `interrupt` field of RUN_FINISHED, naming the call in each value."""
    finished = next(e for e in events if e["type"] == "RUN_FINISHED")
    if "outcome" in finished or "interrupt" not in finished:
        return (finished.get("outcome") or {}).get("interrupts") or []
    return [{"id": i["id"], "toolCallId": i["value"]["function_call"]["call_id"], "legacy": True}
            for i in finished["interrupt"]]


def resume_of(decisions: list[tuple[dict[str, Any], bool]]) -> Any:
    """The resume answering each interrupt; 1.0.0rc7 reads a decision only in its own form, its confirmation
    dialog's answer ({"accepted": ...}) as the interrupt's value."""
    if any(interrupt.get("legacy") for interrupt, _ in decisions):
        return {"interrupts": [{"id": i["id"], "value": {"accepted": approved}} for i, approved in decisions]}
    return [{"interruptId": i["id"], "status": "resolved", "payload": {"approved": approved}}
            for i, approved in decisions]

async def run(http: httpx.AsyncClient, body: dict[str, Any]) -> list[dict[str, Any]]:
    response = await http.post("/", json=body)
    return [json.loads(line[5:]) for line in response.text.splitlines() if line.startswith("data:")]


async def deploy_service(service: str) -> str:
    raise UserInputRequiredException([
        Content.from_oauth_consent_request("https://example.com/consent-1"),
        Content.from_oauth_consent_request("https://example.com/consent-2"),
    ])


def body(run_id: str, messages: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"threadId": "t", "runId": run_id, "tools": [], "context": [], "forwardedProps": {}, "messages": messages,
            **extra}


async def main() -> int:
    tool = FunctionTool(name="deploy_service", description="Deploy a service", func=deploy_service,
                        approval_mode="always_require")
    app = FastAPI()
    options = {"single_user": True, "keepalive_seconds": None}
    accepted = inspect.signature(add_agent_framework_fastapi_endpoint).parameters
    add_agent_framework_fastapi_endpoint(app, Agent(ScriptedClient(), tools=[tool]), "/",
                                         **{k: v for k, v in options.items() if k in accepted})
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://ag-ui.invalid") as http:
        first = await run(http, body("r1", [{"id": "u1", "role": "user", "content": "Deploy billing"}]))
        snapshot = next(e for e in first if e["type"] == "MESSAGES_SNAPSHOT")["messages"]
        interrupts = interrupts_of(first)
        resume = resume_of([(i, True) for i in interrupts])
        second = await run(http, body("r2", snapshot, resume=resume))
        consents = [e["value"]["consent_link"] for e in second
                    if e["type"] == "CUSTOM" and e.get("name") == "oauth_consent_request"]
        snapshots = [e for e in second if e["type"] == "MESSAGES_SNAPSHOT"]
        finished = next((e for e in second if e["type"] == "RUN_FINISHED"), {})
        announced = (finished.get("outcome") or {}).get("interrupts") or []
        held = snapshots[-1]["messages"] if snapshots else snapshot
        third = await run(http, body("r3", [*held, {"id": "u2", "role": "user", "content": "What now?"}]))
    print("events of the pausing run:", [e["type"] for e in second], "consent requests:", consents)
    errors = [e.get("code") for e in third if e["type"] == "RUN_ERROR"]
    print("the thread's next run:", [e["type"] for e in third], errors)
    if len(consents) == 2 and not snapshots and not announced and "APPROVAL_RESUME_REQUIRED" in errors:
        print("DEFECT: the pause is in no snapshot and RUN_FINISHED names no interrupt, yet the endpoint holds it "
              "pending and refuses the next run without a resume entry")
        return 1
    print("fixed: the pausing run tells the client of the pause (snapshot or interrupt), or holds nothing pending")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

"""The AG-UI endpoint names an approved call's result one way in its TOOL_CALL_RESULT event, another in its snapshot.

What it shows
    An approval-required tool is called; the endpoint finishes the run on an interrupt. The client resumes it as the
    AG-UI protocol defines (a `resume` entry resolving the interrupt with `{"approved": true}`, the conversation it
    holds as `messages`). The resumed run streams the tool's result as a TOOL_CALL_RESULT event with one
    `messageId`, then sends a MESSAGES_SNAPSHOT in which the same result is a tool message with another id
    (`approval-response-<interrupt id>`). The snapshot is meant to be what the events built; a client reconciles the
    two by message id, so it sees the streamed result vanish and a new one appear. The official JavaScript client
    (`@ag-ui/client`) keeps its own messages in its own order and appends the ones it did not have: its conversation
    then ends "call, answer, result" instead of "call, result, answer" (tests/test_agui_interop.py shows it), and
    sending that conversation on the next run, the model gets the call without any result.

Spec row concerned (spec 004, History and provider serialization)
    "AG-UI approval result event | Approved result emits once with content and persists in snapshot." The result
    does persist in the snapshot, but as another message: AG-UI clients identify messages by id across events and
    snapshots, so the snapshot is not what the events built (the event-level check "the snapshot equals what the
    events fold to" of issue 13), and the conversation a UI holds, and sends with its next run, loses the
    call/result order.

Affected releases
    agent-framework-ag-ui 1.7.0 with agent-framework-core 1.23.0 (the release checked).

Run
    <venv>/bin/python repro/agent_framework_ag_ui/approval_result_renamed_in_snapshot.py
    Exit status 1: the defect is present. Exit status 0: the snapshot names the result as its event did.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import inspect
import json
import sys
from typing import Any

import httpx
from agent_framework import (
    Agent,
    BaseChatClient,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    FunctionInvocationLayer,
    Message,
    tool,
)
from agent_framework_ag_ui import add_agent_framework_fastapi_endpoint
from fastapi import FastAPI


@tool(name="wire_money", approval_mode="always_require")
def wire_money(amount: int, to: str) -> str:
    return "sent, reference TX-1"


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that answers each call with the next scripted assistant message."""

    def __init__(self, script: list[Message], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.script = list(script)
        self.calls = 0

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        self.calls += 1
        reply = self.script.pop(0)
        message_id = f"reply-{self.calls}"
        if stream:
            async def updates() -> Any:
                for content in reply.contents:
                    yield ChatResponseUpdate(role="assistant", contents=[content], message_id=message_id)

            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[reply], response_id=message_id)

        return complete()


def endpoint() -> FastAPI:
    client = ScriptedClient([
        Message("assistant", [Content.from_function_call("c1", "wire_money",
                                                         arguments='{"amount": 100, "to": "Bob"}')]),
        Message("assistant", [Content.from_text("Sent, reference TX-1.")]),
    ])
    app = FastAPI()
    # Releases before these options served one anonymous principal and sent no keepalives: the same endpoint.
    options = {"single_user": True, "keepalive_seconds": None}
    accepted = inspect.signature(add_agent_framework_fastapi_endpoint).parameters
    add_agent_framework_fastapi_endpoint(app, Agent(client, tools=[wire_money]), "/",
                                         **{k: v for k, v in options.items() if k in accepted})
    return app



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
    response = await http.post("/", json={"threadId": "thread-1", "tools": [], "context": [], "forwardedProps": {},
                                          **body})
    return [json.loads(line[len("data:"):]) for line in response.text.splitlines() if line.startswith("data:")]


def last_snapshot(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [event for event in events if event["type"] == "MESSAGES_SNAPSHOT"][-1]["messages"]


async def main() -> int:
    print("agent-framework-core", importlib.metadata.version("agent-framework-core"),
          "/ agent-framework-ag-ui", importlib.metadata.version("agent-framework-ag-ui"))
    transport = httpx.ASGITransport(app=endpoint())
    async with httpx.AsyncClient(transport=transport, base_url="http://endpoint") as http:
        first = await run(http, {"runId": "run-1", "messages": [
            {"id": "user-1", "role": "user", "content": "Send 100 to Bob"}]})
        interrupts = interrupts_of(first)
        print("first run ends on", first[-1]["type"], "with interrupts for", [i.get("toolCallId") for i in interrupts])
        resume = resume_of([(i, True) for i in interrupts])
        second = await run(http, {"runId": "run-2", "messages": last_snapshot(first), "resume": resume})
    results = [event for event in second if event["type"] == "TOOL_CALL_RESULT" and event["toolCallId"] == "c1"]
    in_snapshot = [m for m in last_snapshot(second) if m.get("role") == "tool" and m.get("toolCallId") == "c1"]
    print("resumed run's events:", [event["type"] for event in second])
    print("TOOL_CALL_RESULT messageIds for c1:", [event["messageId"] for event in results])
    print("snapshot tool message ids for c1:  ", [message["id"] for message in in_snapshot])
    if len(results) != 1 or len(in_snapshot) != 1:
        print("UNEXPECTED: not one result event and one snapshot result for c1; the reproduction needs revisiting")
        return 1
    if results[0]["messageId"] != in_snapshot[0]["id"]:
        print("DEFECT: the snapshot names the approved result differently from the event that delivered it")
        return 1
    print("OK: the snapshot names the approved result as its event did")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

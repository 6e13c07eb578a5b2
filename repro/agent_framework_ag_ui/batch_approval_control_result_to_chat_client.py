"""AG-UI endpoint: approving two paused calls at once sends the chat client a result for a `confirm_changes` control.

Spec rows "AG-UI provider boundary" (completed local approval controls from the AG-UI request and snapshot replay
never reach the chat client) and "AG-UI approval result event" (the approved result persists in the snapshot).

A model asks for two approval-required calls in one response. The endpoint pauses with two interrupts and, for a
UI, adds a `confirm_changes` tool call per paused call to the assistant message. The client resumes approving both,
sending the snapshot back as its messages, as AG-UI clients do. Both tools run, but the endpoint also answers the
second `confirm_changes` call with a synthetic tool result ("Tool execution skipped - user provided follow-up
message"), keeps it in the messages snapshot (no event announces it), and sends it to the chat client: the model
receives a tool result whose call it never made. Over a real provider that is an orphan tool output, which the
service rejects; the next run replays it again from the snapshot.

Needs only agent-framework-core and agent-framework-ag-ui (no network, no sockets: httpx's ASGI transport):

    pip install 'agent-framework-ag-ui==1.7.0'
    python repro/agent_framework_ag_ui/batch_approval_control_result_to_chat_client.py; echo "exit $?"
    python repro/agent_framework_ag_ui/batch_approval_control_result_to_chat_client.py --reject; echo "exit $?"

With `--reject` the client rejects both calls instead: the control gets the same synthetic result.

Exits 1 while the defect is present, 0 once the chat client sees only the two calls' own results.
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
from agent_framework_ag_ui import add_agent_framework_fastapi_endpoint
from fastapi import FastAPI

SEEN: list[list[Message]] = []  # what the chat client received, call by call


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """Answers with two calls, then with text; records every conversation it is sent."""

    def _inner_get_response(self, *, messages: Sequence[Message], stream: bool, options: Any, **kwargs: Any) -> Any:
        SEEN.append(list(messages))
        if len(SEEN) == 1:
            contents = [Content.from_function_call("c1", "delete_file", arguments='{"path": "/tmp/a.txt"}'),
                        Content.from_function_call("c2", "delete_file", arguments='{"path": "/tmp/b.txt"}')]
        else:
            contents = [Content.from_text("Both files are deleted.")]

        async def updates() -> AsyncIterator[ChatResponseUpdate]:
            yield ChatResponseUpdate(role="assistant", contents=contents, message_id=f"m{len(SEEN)}")

        if stream:
            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[Message("assistant", contents)])

        return complete()


async def delete_file(path: str) -> str:
    return "deleted"



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


async def main() -> int:
    tool = FunctionTool(name="delete_file", description="Delete a file", func=delete_file,
                        approval_mode="always_require")
    app = FastAPI()
    # Releases before these options served one anonymous principal and sent no keepalives: the same endpoint.
    options = {"single_user": True, "keepalive_seconds": None}
    accepted = inspect.signature(add_agent_framework_fastapi_endpoint).parameters
    add_agent_framework_fastapi_endpoint(app, Agent(ScriptedClient(), tools=[tool]), "/",
                                         **{k: v for k, v in options.items() if k in accepted})
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://ag-ui.invalid") as http:
        first = await run(http, {"threadId": "t", "runId": "r1", "tools": [], "context": [], "forwardedProps": {},
                                 "messages": [{"id": "u1", "role": "user", "content": "Delete both files"}]})
        snapshot = next(e for e in first if e["type"] == "MESSAGES_SNAPSHOT")["messages"]
        interrupts = interrupts_of(first)
        print("interrupts:", [(i["id"], i["toolCallId"]) for i in interrupts])
        resume = resume_of([(i, "--reject" not in sys.argv[1:]) for i in interrupts])
        second = await run(http, {"threadId": "t", "runId": "r2", "tools": [], "context": [], "forwardedProps": {},
                                  "messages": snapshot, "resume": resume})
    results = [e["toolCallId"] for e in second if e["type"] == "TOOL_CALL_RESULT"]
    print("TOOL_CALL_RESULT events for:", results)
    sent = [(c.call_id, c.result) for m in SEEN[-1] for c in m.contents if c.type == "function_result"]
    print("function results the chat client received on resume:", sent)
    foreign = [(call_id, result) for call_id, result in sent if call_id not in ("c1", "c2")]
    if foreign:
        print(f"DEFECT: the chat client received results for calls the model never made: {foreign}")
        return 1
    print("fixed: the chat client received only the two calls' results")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

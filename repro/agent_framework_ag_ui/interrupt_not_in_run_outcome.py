"""A run paused for approval finishes without the protocol's interrupt outcome: a protocol client sees success.

What it shows
    The agent behind the AG-UI endpoint has one approval-required tool, delete_file. The model calls it; the run
    pauses for the client's decision. The ag-ui-protocol package installed with the endpoint defines how a paused
    run ends: RUN_FINISHED with outcome {type: interrupt, interrupts: [...]}, each interrupt naming its call
    (toolCallId). The endpoint's RUN_FINISHED has no outcome; it lists the pause in an `interrupt` field of its own,
    which the protocol's RunFinishedEvent model does not define (it keeps it only as an unknown extra field). Read
    with the protocol's own model, the run finished with no outcome, which the protocol defines as success: a client
    built on the protocol is never told that the run waits for a decision, nor which call it is for.

Spec rows violated (spec 004)
    "AG-UI approval result event" and "Initial approval request" (the caller is shown the approval request it must
    answer), through the AG-UI protocol the endpoint ships with.

Affected releases
    agent-framework-ag-ui 1.0.0rc7 (core 1.10.0) with ag-ui-protocol 0.1.22, the newest release it accepts (it
    accepts >=0.1.16,<0.2); from 1.0.0rc8 the endpoint finishes a paused run with the protocol's interrupt outcome.

Run
    <venv with agent-framework-ag-ui>/bin/python repro/agent_framework_ag_ui/interrupt_not_in_run_outcome.py
    Exit status 1: the defect is present. Exit status 0: the run finishes with an interrupt outcome naming the call.
    Exit status 2: the installed ag-ui-protocol has no RUN_FINISHED outcome, so there is nothing to judge.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import sys
from collections.abc import AsyncIterator, Sequence
from typing import Any

import httpx
from ag_ui.core import RunFinishedEvent
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


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """Answers with one call to delete_file."""

    def _inner_get_response(self, *, messages: Sequence[Message], stream: bool, options: Any, **kwargs: Any) -> Any:
        contents = [Content.from_function_call("c1", "delete_file", arguments='{"path": "/tmp/a.txt"}')]

        async def updates() -> AsyncIterator[ChatResponseUpdate]:
            yield ChatResponseUpdate(role="assistant", contents=contents, message_id="m1")

        if stream:
            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[Message("assistant", contents)])

        return complete()


async def delete_file(path: str) -> str:
    return "deleted"


async def run(http: httpx.AsyncClient, body: dict[str, Any]) -> list[dict[str, Any]]:
    response = await http.post("/", json=body)
    return [json.loads(line[5:]) for line in response.text.splitlines() if line.startswith("data:")]


async def main() -> int:
    if "outcome" not in RunFinishedEvent.model_fields:
        print("the installed ag-ui-protocol defines no RUN_FINISHED outcome: nothing to judge")
        return 2
    tool = FunctionTool(name="delete_file", description="Delete a file", func=delete_file,
                        approval_mode="always_require")
    app = FastAPI()
    # Releases before these options served one anonymous principal and sent no keepalives: the same endpoint.
    options = {"single_user": True, "keepalive_seconds": None}
    accepted = inspect.signature(add_agent_framework_fastapi_endpoint).parameters
    add_agent_framework_fastapi_endpoint(app, Agent(ScriptedClient(), tools=[tool]), "/",
                                         **{k: v for k, v in options.items() if k in accepted})
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://ag-ui.invalid") as http:
        events = await run(http, {"threadId": "t", "runId": "r1", "tools": [], "context": [], "forwardedProps": {},
                                  "messages": [{"id": "u1", "role": "user", "content": "Delete a.txt"}]})
    raw = next(e for e in events if e["type"] == "RUN_FINISHED")
    finished = RunFinishedEvent.model_validate(raw)
    print("RUN_FINISHED as sent:", json.dumps(raw))
    outcome = finished.outcome.model_dump(by_alias=True, exclude_none=True) if finished.outcome else None
    print("its outcome, read with the protocol's model:", outcome)
    calls = [i.get("toolCallId") for i in (outcome or {}).get("interrupts") or []]
    if not outcome or outcome.get("type") != "interrupt" or calls != ["c1"]:
        print("DEFECT: the paused run finished without an interrupt outcome for c1 (a protocol client reads success)")
        return 1
    print("fixed: the paused run finished with an interrupt outcome for c1")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

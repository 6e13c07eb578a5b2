"""AG-UI endpoint: an approved call that fails on the resume does not count toward the consecutive-error cap.

Spec row "Consecutive error cap" (once max_consecutive_errors_per_request consecutive failed executions are reached,
the next model call is made with tools off), with "Approved tool exception" (a failed approved execution is an
error result of the loop's request like any other).

The chat client's function invocation allows one consecutive error (max_consecutive_errors_per_request=1). A model
asks for one approval-required call; the client approves it on the resume, and the tool raises. The loop answers
the call with an error result and calls the model once more: with the cap reached, that call must have tools off
(tool_choice "none"). On the affected releases the endpoint carries out the approval itself, before the agent's
loop starts, so the loop does not count the failure: the model is called with tools still on (tool_choice "auto"),
free to call the failing tool again.

Needs only agent-framework-core and agent-framework-ag-ui (no network, no sockets: httpx's ASGI transport):

    pip install 'agent-framework-ag-ui==1.3.0'
    python repro/agent_framework_ag_ui/approved_failure_not_counted_for_error_cap.py; echo "exit $?"

Exits 1 while the defect is present, 0 once the model call after the failed approved call has tools off.
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

CHOICES: list[Any] = []  # the tool_choice of every model call
SEEN: list[list[Message]] = []


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """Answers with one call, then with text; records every conversation and tool choice it is sent."""

    def _inner_get_response(self, *, messages: Sequence[Message], stream: bool, options: Any, **kwargs: Any) -> Any:
        SEEN.append(list(messages))
        choice = (options or {}).get("tool_choice")
        CHOICES.append(choice.get("mode") if isinstance(choice, dict) else choice)
        if len(SEEN) == 1:
            contents = [Content.from_function_call("c1", "fetch_page", arguments='{"url": "https://status.example"}')]
        else:
            contents = [Content.from_text("The status page cannot be reached.")]

        async def updates() -> AsyncIterator[ChatResponseUpdate]:
            yield ChatResponseUpdate(role="assistant", contents=contents, message_id=f"m{len(SEEN)}")

        if stream:
            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[Message("assistant", contents)])

        return complete()


async def fetch_page(url: str) -> str:
    raise ConnectionError("connection reset")



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


def body(run_id: str, messages: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"threadId": "t", "runId": run_id, "tools": [], "context": [], "forwardedProps": {}, "messages": messages,
            **extra}


async def main() -> int:
    tool = FunctionTool(name="fetch_page", description="Fetch a page", func=fetch_page, approval_mode="always_require")
    client = ScriptedClient(function_invocation_configuration={"max_consecutive_errors_per_request": 1})
    app = FastAPI()
    # Releases before these options served one anonymous principal and sent no keepalives: the same endpoint.
    options = {"single_user": True, "keepalive_seconds": None}
    accepted = inspect.signature(add_agent_framework_fastapi_endpoint).parameters
    add_agent_framework_fastapi_endpoint(app, Agent(client, tools=[tool]), "/",
                                         **{k: v for k, v in options.items() if k in accepted})
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://ag-ui.invalid") as http:
        first = await run(http, body("r1", [{"id": "u1", "role": "user", "content": "Fetch the status page"}]))
        snapshot = next(e for e in first if e["type"] == "MESSAGES_SNAPSHOT")["messages"]
        interrupts = interrupts_of(first)
        resume = resume_of([(i, True) for i in interrupts])
        await run(http, body("r2", snapshot, resume=resume))
    results = [c.result for m in (SEEN[-1] if len(SEEN) > 1 else []) for c in m.contents
               if c.type == "function_result" and c.call_id == "c1"]
    print("model calls:", len(SEEN), "tool_choice of each:", CHOICES, "c1's result on the resume:", results)
    if len(SEEN) != 2 or not results:
        print("cannot judge: the resume did not call the model once with c1's error result")
        return 2
    if CHOICES[-1] != "none":
        print("DEFECT: after the approved call failed (the cap of one reached), the model is called with tools on")
        return 1
    print("fixed: the model call after the failed approved call has tools off")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

"""AG-UI endpoint: when middleware ends the loop after an approved call, the run sends no messages snapshot.

Spec rows "AG-UI approval result event" (the approved result emits once with content and persists in the
snapshot) and "Approval-time termination" (approval-time `MiddlewareTermination` returns immediately without
another model call).

A model asks for one approval-required call; the client approves it. A function middleware ends the loop after the
tool ran (`MiddlewareTermination`), as the framework documents. The resumed run emits the TOOL_CALL_RESULT event and
finishes, but sends no MESSAGES_SNAPSHOT: a client that keeps its thread from snapshots (as AG-UI clients do) still
holds the paused call without a result, and its next run sends the model a call with no result, which a real
provider rejects.

Needs only agent-framework-core and agent-framework-ag-ui (no network, no sockets: httpx's ASGI transport):

    pip install 'agent-framework-ag-ui==1.7.0'
    python repro/agent_framework_ag_ui/termination_after_approval_no_snapshot.py; echo "exit $?"

Exits 1 while the defect is present, 0 once the resumed run's snapshot holds the approved call's result.

With --blank there is no middleware: the model answers the resumed run with a blank text. The run adds nothing but
the approved result either, and sends no snapshot the same way; this form shows the defect on the releases before
1.4.0 too (1.0.0rc7 on), where the middleware form meets "Approval-time termination" first (another model call,
repro/agent_framework_ag_ui/approval_time_pause_calls_model.py). With --reject the client rejects the call and the
model answers blank: the rejection's result, which AG-UI carries in the snapshot only, is then lost altogether.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

import httpx
from agent_framework import (
    Agent,
    BaseChatClient,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    FunctionInvocationContext,
    FunctionInvocationLayer,
    FunctionMiddleware,
    FunctionTool,
    Message,
    MiddlewareTermination,
)
from agent_framework_ag_ui import add_agent_framework_fastapi_endpoint
from fastapi import FastAPI

SEEN: list[list[Message]] = []  # what the chat client received, call by call


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """Answers with one call, then with text; records every conversation it is sent."""

    def _inner_get_response(self, *, messages: Sequence[Message], stream: bool, options: Any, **kwargs: Any) -> Any:
        SEEN.append(list(messages))
        if len(SEEN) == 1:
            contents = [Content.from_function_call("c1", "delete_file", arguments='{"path": "/tmp/a.txt"}')]
        else:
            contents = [Content.from_text("" if BLANK or REJECT else "Done.")]

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


class StopAfterTool(FunctionMiddleware):
    async def process(self, context: FunctionInvocationContext, call_next: Callable[[], Awaitable[None]]) -> None:
        await call_next()
        raise MiddlewareTermination("stop after the tool", result=context.result)


async def delete_file(path: str) -> str:
    return "deleted"


async def main() -> int:
    tool = FunctionTool(name="delete_file", description="Delete a file", func=delete_file,
                        approval_mode="always_require")
    app = FastAPI()
    agent = Agent(ScriptedClient() if BLANK or REJECT else ScriptedClient(middleware=[StopAfterTool()]), tools=[tool])
    # Releases before these options served one anonymous principal and sent no keepalives: the same endpoint.
    options = {"single_user": True, "keepalive_seconds": None}
    accepted = inspect.signature(add_agent_framework_fastapi_endpoint).parameters
    add_agent_framework_fastapi_endpoint(app, agent, "/",
                                         **{k: v for k, v in options.items() if k in accepted})
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://ag-ui.invalid") as http:
        first = await run(http, {"threadId": "t", "runId": "r1", "tools": [], "context": [], "forwardedProps": {},
                                 "messages": [{"id": "u1", "role": "user", "content": "Delete the file"}]})
        snapshot = next(e for e in first if e["type"] == "MESSAGES_SNAPSHOT")["messages"]
        interrupts = interrupts_of(first)
        resume = resume_of([(i, not REJECT) for i in interrupts])
        second = await run(http, {"threadId": "t", "runId": "r2", "tools": [], "context": [], "forwardedProps": {},
                                  "messages": snapshot, "resume": resume})
    print("events of the resumed run:", [e["type"] for e in second])
    snapshots = [e for e in second if e["type"] == "MESSAGES_SNAPSHOT"]
    kept = [m for s in snapshots for m in s["messages"] if m.get("role") == "tool" and m.get("toolCallId") == "c1"]
    if not kept:
        print("DEFECT: the resumed run sends no snapshot holding the call's result")
        return 1
    print("fixed: the snapshot holds the approved call's result:", kept)
    return 0


BLANK = "--blank" in sys.argv[1:]
REJECT = "--reject" in sys.argv[1:]

if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

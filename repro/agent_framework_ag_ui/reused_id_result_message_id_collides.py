"""AG-UI endpoint: with a reused call id, a later decision's result takes the message id of the earlier one's.

Spec rows "Multiple reused-id rounds" and "Reused id after completion" (each round of a reused call id keeps its own
call and exactly one terminal result; AG-UI pairs reused call ids by occurrence), with "AG-UI approval result
event" (a resolved result persists in the snapshot).

The model calls the approval-required deploy as c1; the client approves it and it runs. The model then calls deploy
again, reusing the id c1 (the earlier call completed); the client rejects this one. The endpoint names the message
holding a resolved approval's result after the interrupt's id, and on the affected releases an interrupt's id is the
call id: both resolutions are filed as `approval-response-c1`. The run that rejects the second occurrence adds no
message with its rejection (by id, as AG-UI clients merge snapshots, it replaces the earlier approved result): the
caller's view of that run holds no result for the rejected call, and a client merging by id loses one of the two.

Needs only agent-framework-core and agent-framework-ag-ui (no network, no sockets: httpx's ASGI transport):

    pip install 'agent-framework-ag-ui==1.1.0'
    python repro/agent_framework_ag_ui/reused_id_result_message_id_collides.py; echo "exit $?"

Exits 1 while the defect is present (the rejecting run's snapshot holds the rejection only under a message id that
the client already holds), 0 once the rejection comes in a message of its own.
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
    """Calls deploy as c1 twice (staging, then production), then answers; records every conversation."""

    def _inner_get_response(self, *, messages: Sequence[Message], stream: bool, options: Any, **kwargs: Any) -> Any:
        SEEN.append(list(messages))
        if len(SEEN) <= 2:
            env = "staging" if len(SEEN) == 1 else "production"
            contents = [Content.from_function_call("c1", "deploy", arguments=json.dumps({"env": env}))]
        else:
            contents = [Content.from_text("Deployed to staging only.")]

        async def updates() -> AsyncIterator[ChatResponseUpdate]:
            yield ChatResponseUpdate(role="assistant", contents=contents, message_id=f"m{len(SEEN)}")

        if stream:
            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[Message("assistant", contents)])

        return complete()


async def deploy(env: str) -> str:
    return "deployed"



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


def decide(events: list[dict[str, Any]], approved: bool) -> Any:
    return resume_of([(i, approved) for i in interrupts_of(events)])


def snapshot(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return next((e for e in events if e["type"] == "MESSAGES_SNAPSHOT"), {}).get("messages", [])


async def main() -> int:
    tool = FunctionTool(name="deploy", description="Deploy", func=deploy, approval_mode="always_require")
    app = FastAPI()
    # Releases before these options served one anonymous principal and sent no keepalives: the same endpoint.
    options = {"single_user": True, "keepalive_seconds": None}
    accepted = inspect.signature(add_agent_framework_fastapi_endpoint).parameters
    add_agent_framework_fastapi_endpoint(app, Agent(ScriptedClient(), tools=[tool]), "/",
                                         **{k: v for k, v in options.items() if k in accepted})
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://ag-ui.invalid") as http:
        first = await run(http, body("r1", [{"id": "u1", "role": "user", "content": "Deploy to staging, then prod"}]))
        thread = snapshot(first)
        second = await run(http, body("r2", thread, resume=decide(first, True)))
        thread = snapshot(second)
        third = await run(http, body("r3", thread, resume=decide(second, False)))
    held = {m["id"] for m in thread}
    results = [(m["id"], m.get("content"), "new" if m["id"] not in held else "already held")
               for m in snapshot(third) if m.get("role") == "tool" and m.get("toolCallId") == "c1"]
    print("results for c1 in the rejecting run's snapshot (id, content, id known to the client):")
    for result in results:
        print("   ", result)
    rejections = [r for r in results if "rejected" in str(r[1]).lower()]
    if not rejections:
        print("cannot judge: the rejecting run's snapshot holds no rejection for c1")
        return 2
    if all(status == "already held" for _, _, status in rejections):
        print("DEFECT: the rejection is filed under a message id the client already holds for the earlier result")
        return 1
    print("fixed: the rejection comes in a message of its own")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

"""AG-UI endpoint: an approved call that ends the loop or asks for more input is followed by another model call.

Spec rows "Approval-time termination" and "Approval-time user input" (approval-time `MiddlewareTermination` and
`UserInputRequiredException` return immediately without another model call), and "AG-UI approval-time follow-up"
(the grouped user-input pause remains in message history).

A model asks for one approval-required call; the client approves it on the resume. Two cases, each on a fresh
endpoint: (a) a function middleware ends the loop after the tool ran (`MiddlewareTermination`); (b) the tool needs
more input and raises `UserInputRequiredException` with two consent requests. In both the resumed run must stop at
the approved call: no model call. On the affected releases the endpoint carries out the approval itself, before the
agent's loop, and then starts the agent's run as for any other request: the chat client is called again, with the
paused call in its history (after the termination, with its result; after the input request, with no result at
all), and the pause the tool asked for is lost.

Needs only agent-framework-core and agent-framework-ag-ui (no network, no sockets: httpx's ASGI transport):

    pip install 'agent-framework-ag-ui==1.3.0'
    python repro/agent_framework_ag_ui/approval_time_pause_calls_model.py; echo "exit $?"

Exits 1 while the defect is present (the chat client is called on the resume in either case), 0 once neither resume
calls the model.
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
from agent_framework.exceptions import UserInputRequiredException
from agent_framework_ag_ui import add_agent_framework_fastapi_endpoint
from fastapi import FastAPI


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """Answers with one call, then with text; records every conversation it is sent."""

    def __init__(self, tool_name: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.tool_name = tool_name
        self.seen: list[list[Message]] = []

    def _inner_get_response(self, *, messages: Sequence[Message], stream: bool, options: Any, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        if len(self.seen) == 1:
            contents = [Content.from_function_call("c1", self.tool_name, arguments='{"service": "billing"}')]
        else:
            contents = [Content.from_text("Done.")]

        async def updates() -> AsyncIterator[ChatResponseUpdate]:
            yield ChatResponseUpdate(role="assistant", contents=contents, message_id=f"m{len(self.seen)}")

        if stream:
            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[Message("assistant", contents)])

        return complete()


class StopAfterTool(FunctionMiddleware):
    async def process(self, context: FunctionInvocationContext, call_next: Callable[[], Awaitable[None]]) -> None:
        await call_next()
        raise MiddlewareTermination("stop after the tool", result=context.result)


async def restart_service(service: str) -> str:
    return "restarted"


async def deploy_service(service: str) -> str:
    raise UserInputRequiredException([
        Content.from_oauth_consent_request("https://example.com/consent-1"),
        Content.from_oauth_consent_request("https://example.com/consent-2"),
    ])



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


async def resume_approved(client: ScriptedClient, tool: FunctionTool) -> list[dict[str, Any]]:
    """Pauses on the approval, approves it, and returns the resumed run's events."""
    app = FastAPI()
    # Releases before these options served one anonymous principal and sent no keepalives: the same endpoint.
    options = {"single_user": True, "keepalive_seconds": None}
    accepted = inspect.signature(add_agent_framework_fastapi_endpoint).parameters
    add_agent_framework_fastapi_endpoint(app, Agent(client, tools=[tool]), "/",
                                         **{k: v for k, v in options.items() if k in accepted})
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://ag-ui.invalid") as http:
        first = await run(http, body("r1", [{"id": "u1", "role": "user", "content": "Do it"}]))
        snapshot = next(e for e in first if e["type"] == "MESSAGES_SNAPSHOT")["messages"]
        interrupts = interrupts_of(first)
        resume = resume_of([(i, True) for i in interrupts])
        return await run(http, body("r2", snapshot, resume=resume))


def history(messages: Sequence[Message]) -> list[str]:
    return [f"{m.role}: " + ", ".join(f"{c.type} {c.call_id}" if c.call_id else c.type for c in m.contents)
            for m in messages]


async def main() -> int:
    defects: list[str] = []
    terminating = ScriptedClient("restart_service", middleware=[StopAfterTool()])
    events = await resume_approved(terminating, FunctionTool(
        name="restart_service", description="Restart a service", func=restart_service, approval_mode="always_require"))
    print("(a) termination: resumed run", [e["type"] for e in events], "model calls:", len(terminating.seen))
    if len(terminating.seen) > 1:
        print("    the model was called again, with:", history(terminating.seen[-1]))
        defects.append("after the approved call's middleware ended the loop")
    asking = ScriptedClient("deploy_service")
    events = await resume_approved(asking, FunctionTool(
        name="deploy_service", description="Deploy a service", func=deploy_service, approval_mode="always_require"))
    print("(b) input request: resumed run", [e["type"] for e in events], "model calls:", len(asking.seen))
    if len(asking.seen) > 1:
        print("    the model was called again, with:", history(asking.seen[-1]))
        defects.append("after the approved call asked for more input")
    if defects:
        print("DEFECT: the resume calls the model", " and ".join(defects))
        return 1
    print("fixed: neither resume calls the model after the approved call paused or ended the loop")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

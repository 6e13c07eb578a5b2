"""A hosted service's approval request beside the loop's own pause is counted as one of the batch's pauses.

What it shows
    One model response holds a hosted approval request (an MCP server the service runs, `server_name="docs"`,
    request mcpr_1) and a local call that pauses the loop. The caller answers the local pause and leaves the
    service's request for later (the service waits for it). Two shapes, each in both response modes:
    1. With an `AgentSession`: the local call (delete_file, c1) needs approval; the caller approves it. The tool
       runs, but instead of calling the model with its result the loop returns the service's request to the caller
       again and ends the turn.
    2. Without a session: the local call (pick_color, c1) is declaration-only; the caller answers it with its
       result. The run raises RuntimeError "A mixed function-call batch requires responses for every approval and
       Host-owned request." (the stateless mixed-batch check counts the hosted request as an approval pause).
    In both the service's request is handled as a pause of the loop's own batch, although the loop has nothing to
    decide about it and the caller may answer it on a later turn.

Spec rows violated (spec 004)
    "Hosted approval pass-through" (hosted requests and responses are not processed as local calls), with
    "Approved non-streaming resume" / "Approved streaming resume" (shape 1) and "Declaration-only call" (shape 2).
    Harness scenarios `approval.hosted-pass-through.local-decision-only` (agent_framework) and
    `normal.declaration-only.beside-hosted-approval` (agent_framework_stateless).

Affected releases
    agent-framework-core 1.23.0 (found by `loop-conformance fuzz`); other releases not checked.

Run
    <venv>/bin/python repro/agent_framework/hosted_request_counted_as_local_pause.py
    Exit status 1: the defect is present (either shape). Exit status 0: both resumes call the model.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import inspect
import logging
import sys
from typing import Any

from agent_framework import (
    AgentSession,
    BaseChatClient,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    FunctionInvocationLayer,
    FunctionTool,
    Message,
    tool,
)

executions: list[str] = []

# A hosted call: flagged, with its server, from 1.22.0; before that a call is hosted by the server label in its
# additional properties.
HOSTED: dict[str, Any] = (
    {"hosted": True, "server_name": "docs"} if "hosted" in inspect.signature(Content.from_function_call).parameters
    else {"additional_properties": {"server_label": "docs"}})


@tool(name="delete_file", approval_mode="always_require")
def delete_file(path: str) -> str:
    executions.append(path)
    return "deleted"


# Declared to the model, implemented by the caller: no function body.
pick_color = FunctionTool(
    name="pick_color",
    description="Implemented by the caller, not by the loop.",
    func=None,
    input_model={"type": "object", "properties": {"palette": {"type": "string"}}, "required": ["palette"]},
)


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that answers each call with the next scripted assistant message and records what it received."""

    def __init__(self, script: list[Message], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.script = list(script)
        self.received: list[list[Any]] = []

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        self.received.append(list(messages))
        reply = self.script.pop(0)
        message_id = f"reply-{len(self.received)}"
        if stream:
            async def updates() -> Any:
                for content in reply.contents:
                    yield ChatResponseUpdate(role="assistant", contents=[content], message_id=message_id)

            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[reply], response_id=message_id)

        return complete()


def hosted_request() -> Content:
    return Content.from_function_approval_request("mcpr_1", Content.from_function_call(
        "mcpr_1", "search_docs", arguments='{"query": "approvals"}', **HOSTED))


async def ask(client: ScriptedClient, messages: list[Message], session: AgentSession | None, stream: bool,
              tools: list[Any]) -> Any:
    options: Any = {"tools": tools}
    extra: Any = {"client_kwargs": {"session": session}} if session is not None else {}
    if stream:
        response_stream = client.get_response(messages, stream=True, options=options, **extra)
        async for _ in response_stream:
            pass
        return await response_stream.get_final_response()
    return await client.get_response(messages, options=options, **extra)


def shape(messages: list[Any]) -> list[str]:
    """Each content by its type and the id a caller reads it by: the call id, or an approval request's own id."""
    return [f"{c.type} {c.id if 'approval' in c.type else c.call_id}" for m in messages for c in m.contents]


async def approved_local_call(stream: bool) -> bool:
    label = f"1. session, approved local call, {'streaming' if stream else 'non-streaming'}"
    executions.clear()
    client = ScriptedClient([
        Message("assistant", [hosted_request(), Content.from_function_call(
            "c1", "delete_file", arguments='{"path": "/tmp/report.txt"}')]),
        Message("assistant", [Content.from_text("Deleted; the docs search awaits your approval.")]),
    ])
    session = AgentSession()
    history = [Message("user", ["Delete /tmp/report.txt and search the docs for approvals."])]
    first = await ask(client, list(history), session, stream, [delete_file])
    history.extend(first.messages)
    local = next(c for m in first.messages for c in m.contents
                 if c.type == "function_approval_request" and c.id != "mcpr_1")
    history.append(Message("user", [local.to_function_approval_response(True)]))
    second = await ask(client, list(history), session, stream, [delete_file])
    called = len(client.received) == 2
    print(f"  {label}: resumed response {shape(second.messages)}; executions {executions}; "
          f"model called on resume: {called}")
    return called


async def answered_declaration_only_call(stream: bool) -> bool:
    label = f"2. no session, declaration-only call answered, {'streaming' if stream else 'non-streaming'}"
    client = ScriptedClient([
        Message("assistant", [hosted_request(), Content.from_function_call(
            "c1", "pick_color", arguments='{"palette": "warm"}')]),
        Message("assistant", [Content.from_text("You picked orange.")]),
    ])
    history = [Message("user", ["Pick a warm color and search the docs for palettes."])]
    first = await ask(client, list(history), None, stream, [pick_color])
    history.extend(first.messages)
    history.append(Message("tool", [Content.from_function_result("c1", result="orange")]))
    try:
        second = await ask(client, list(history), None, stream, [pick_color])
    except RuntimeError as error:
        print(f"  {label}: first response {shape(first.messages)}; the resume raises RuntimeError: {error}")
        return False
    called = len(client.received) == 2
    print(f"  {label}: resumed response {shape(second.messages)}; model called on resume: {called}")
    return called


async def main() -> int:
    logging.getLogger("agent_framework").setLevel(logging.ERROR)
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    results = [await approved_local_call(stream) for stream in (False, True)]
    results += [await answered_declaration_only_call(stream) for stream in (False, True)]
    if all(results):
        print("FIXED: answering the loop's own pause resumes the batch; the service's request waits")
        return 0
    print("DEFECT: the service's approval request is handled as a pause of the loop's own batch")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

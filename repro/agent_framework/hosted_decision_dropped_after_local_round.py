"""A hosted approval request that came beside a local call is forgotten: the caller's decision never reaches the model.

What it shows
    A hosted service (an MCP server it runs, `server_name="docs"`) asks the caller to approve a call of its own
    tool (hosted approval request mcpr_1 for call h1) in the same model response as a local call that needs no
    approval (lookup_order, call id c1). The loop runs c1, calls the model again and returns the final answer; the
    caller sees the hosted request. On the next turn the caller answers it: it replays its history and adds its
    decision (an approval response for mcpr_1, approve and reject tried). The loop is run with an `AgentSession`,
    as the framework asks of callers since approvals became session-bound. The model's request on that turn holds
    neither the hosted request nor the decision: the framework binds every approval response, hosted ones
    included, to the approval requests it recorded as pending in the session, and it records a hosted request only
    when a run ends on it, not when the run went on to run a local call of the same response; the decision is
    ignored with the warning "did not match the active approval occurrence identity" and the request is dropped
    with it. For contrast the same conversation without the local call (the hosted request alone in its response)
    is run too: there the decision reaches the model.

Spec rows violated (spec 004)
    "Hosted approval pass-through" (hosted requests and responses are not processed as local calls) and the
    normative rule "A current hosted approval response must be sent once on the immediate resume request."
    (Approval control content). Harness scenario `approval.hosted-pass-through.after-local-round`.

Affected releases
    agent-framework-core 1.23.0 (found by `loop-conformance fuzz`); other releases not checked. Without an
    `AgentSession` (the harness's agent_framework_stateless) the decision is forwarded.

Run
    <venv>/bin/python repro/agent_framework/hosted_decision_dropped_after_local_round.py
    Exit status 1: the defect is present. Exit status 0: the decision reaches the model in every run.
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
    Message,
    tool,
)

executions: list[str] = []

# A hosted call: flagged, with its server, from 1.22.0; before that a call is hosted by the server label in its
# additional properties.
HOSTED: dict[str, Any] = (
    {"hosted": True, "server_name": "docs"} if "hosted" in inspect.signature(Content.from_function_call).parameters
    else {"additional_properties": {"server_label": "docs"}})


@tool(name="lookup_order", approval_mode="never_require")
def lookup_order(order: str) -> str:
    executions.append(order)
    return "shipped"


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


def hosted_call() -> Content:
    return Content.from_function_call("h1", "search_docs", arguments='{"query": "returns"}',
                                      **HOSTED)


def script(with_local_call: bool) -> list[Message]:
    hosted_request = Content.from_function_approval_request("mcpr_1", hosted_call())
    first: list[Message] = [
        Message("assistant", [hosted_request, Content.from_function_call("c1", "lookup_order",
                                                                           arguments='{"order": "A-7"}')]),
        Message("assistant", [Content.from_text("Order A-7 has shipped; the docs server needs your approval.")]),
    ] if with_local_call else [
        Message("assistant", [hosted_request, Content.from_text("The docs server needs your approval.")]),
    ]
    return [*first, Message("assistant", [Content.from_text("Noted.")])]


async def ask(client: ScriptedClient, messages: list[Message], session: AgentSession, stream: bool) -> Any:
    options: Any = {"tools": [lookup_order]}
    if stream:
        response_stream = client.get_response(messages, stream=True, options=options,
                                              client_kwargs={"session": session})
        async for _ in response_stream:
            pass
        return await response_stream.get_final_response()
    return await client.get_response(messages, options=options, client_kwargs={"session": session})


def hosted_wrappers(messages: list[Any]) -> list[str]:
    return [f"{c.type} {c.id}" for m in messages if not isinstance(m, str) for c in m.contents
            if c.type in ("function_approval_request", "function_approval_response")]


async def run(stream: bool, approved: bool, with_local_call: bool) -> bool:
    label = (f"{'streaming' if stream else 'non-streaming'}, {'approved' if approved else 'rejected'}, "
             f"{'beside a local call' if with_local_call else 'hosted request alone'}")
    executions.clear()
    client = ScriptedClient(script(with_local_call))
    session = AgentSession()
    history: list[Message] = [Message("user", ["Has order A-7 shipped? And search the docs for returns."])]
    first = await ask(client, list(history), session, stream)
    history.extend(first.messages)
    shown = hosted_wrappers(first.messages)
    decision = Content.from_function_approval_response(approved, "mcpr_1", hosted_call())
    history.append(Message("user", [decision]))
    await ask(client, list(history), session, stream)
    sent = hosted_wrappers(client.received[-1])
    print(f"  {label}: the caller saw {shown}; the model receives {sent} on the resume request; "
          f"local executions over both turns {executions}")
    return "function_approval_response mcpr_1" in sent


async def main() -> int:
    logging.getLogger("agent_framework").setLevel(logging.ERROR)  # the framework logs each ignored response
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    control = [await run(stream, True, with_local_call=False) for stream in (False, True)]
    results = [await run(stream, approved, with_local_call=True) for approved in (True, False)
               for stream in (False, True)]
    if not all(control):
        print("UNEXPECTED: the decision is lost even without the local call; the reproduction does not apply")
        return 2
    if all(results):
        print("FIXED: the caller's hosted decision reaches the model on the resume request")
        return 0
    print("DEFECT: a hosted request returned beside a local call loses the caller's decision on the next turn")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

"""Approved reused-id occurrences: both results reach the model after the last occurrence's call.

What it shows
    The caller keeps the conversation in its own store and sends it back written by hand: the model asked twice,
    in two rounds, with the same call id c1 (deploy_service for "api", then for "web"), each round with its
    approval request, then one user message approving both requests. No session is passed, so the loop carries
    the approvals out (a caller passing a session has them dropped from 1.15.0 on:
    handwritten_reused_id_approvals_ignored.py). Both occurrences run once, with their own arguments, but the
    history sent to the model is
        [user, assistant call c1 (api), user, assistant call c1 (web), tool [result c1 (api), result c1 (web)]]:
    the api occurrence's result is not placed after its own call but after the web call, together with the web
    result. Paired by position, as Chat Completions pairs tool messages with the assistant message they follow,
    the api call has no result and the web call has two; the Chat Completions service refuses such a request
    (HTTP 400 "An assistant message with 'tool_calls' must be followed by tool messages responding to each
    'tool_call_id'" and "messages with role 'tool' must be a response to a preceeding message with 'tool_calls'"),
    so the turn ends in the provider's error after both deploys ran. Both response modes.

Spec rows violated (spec 004)
    Approval correlation and replay: "Multiple reused-id rounds | Approved and rejected rounds retain separate
    call/result occurrences." and "Multi-content result with reused id" (every content produced by one execution
    stays with that approval occurrence). Normative contract: "Reused `call_id` values are correlated by logical
    occurrence, not one global value per id." and "Model-bound history contains one function call/result pair per
    completed logical occurrence."

Affected releases
    Checked on agent-framework-core 1.10.0, 1.12.1, 1.13.0, 1.16.0 and 1.19.0 (defect on all of them; 1.10.0 ...
    1.12.1 also rewrite the caller's messages, approval_resume_mutates_input.py). From 1.20.0 a caller without a
    session has its approvals dropped (stateless_approval_ignored_without_session.py), so this script sets
    `disable_approval_response_binding` when nothing ran, to reach the same path; see the printed lines.

Run
    <venv>/bin/python repro/agent_framework/reused_id_results_after_last_occurrence.py
    Exit status 1: the defect is present. Exit status 0: each occurrence's result follows its own call.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import sys
from typing import Any

from agent_framework import (
    BaseChatClient,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    FunctionInvocationLayer,
    Message,
    tool,
)

deployed: list[str] = []


@tool(name="deploy_service", approval_mode="always_require")
def deploy_service(service: str) -> str:
    deployed.append(service)
    return "deployed"


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that answers every call with the same final text and records each history it receives."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.received: list[list[Any]] = []

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        self.received.append(list(messages))
        reply = Message("assistant", ["Both are deployed."])
        if stream:
            async def updates() -> Any:
                yield ChatResponseUpdate(role="assistant", contents=reply.contents, message_id="reply")

            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[reply], response_id="reply")

        return complete()


def handwritten_history() -> list[Message]:
    """Two rounds reusing call id c1, each with the approval request the caller stored, then both approvals."""
    api = Content.from_function_call("c1", "deploy_service", arguments=json.dumps({"service": "api"}))
    web = Content.from_function_call("c1", "deploy_service", arguments=json.dumps({"service": "web"}))
    r1 = Content.from_function_approval_request(id="r1", function_call=api)
    r2 = Content.from_function_approval_request(id="r2", function_call=web)
    return [
        Message("user", ["Deploy the api."]),
        Message("assistant", [api, r1]),
        Message("user", ["And the web frontend too."]),
        Message("assistant", [web, r2]),
        Message("user", [r1.to_function_approval_response(True), r2.to_function_approval_response(True)]),
    ]


def described(messages: Any) -> list[tuple[str, list[str]]]:
    def one(content: Any) -> str:
        if content.type == "function_call":
            return f"function_call {content.call_id} {content.arguments}"
        return f"{content.type} {content.call_id}" if content.call_id else str(content.type)

    return [(str(m.role), [one(c) for c in m.contents]) for m in messages if not isinstance(m, str)]


def paired_by_position(messages: Any) -> bool:
    """Every assistant message's calls are answered by the tool message(s) right after it, one result each."""
    history = [m for m in messages if not isinstance(m, str)]
    for index, message in enumerate(history):
        calls = [c.call_id for c in message.contents if c.type == "function_call"]
        if not calls:
            continue
        answered: list[str] = []
        for later in history[index + 1:]:
            if str(later.role) != "tool":
                break
            answered += [c.call_id for c in later.contents if c.type == "function_result"]
        if sorted(answered) != sorted(calls):
            return False
    return True


async def run(stream: bool, *, unbound: bool = False) -> bool | None:
    """True: results placed after their own calls; False: misplaced; None: the approvals did not run."""
    deployed.clear()
    client = ScriptedClient(function_invocation_configuration={"disable_approval_response_binding": True}) \
        if unbound else ScriptedClient()
    kwargs: Any = {"options": {"tools": [deploy_service]}}
    if stream:
        response_stream = client.get_response(handwritten_history(), stream=True, **kwargs)
        async for _ in response_stream:
            pass
        await response_stream.get_final_response()
    else:
        await client.get_response(handwritten_history(), **kwargs)
    label = f"{'streaming' if stream else 'non-streaming'}" + (", binding disabled" if unbound else "")
    print(f"  no session, {label}: deployed {deployed}")
    if sorted(deployed) != ["api", "web"] or not client.received:
        print("      the approvals were not carried out")
        return None
    print(f"      history sent to the model: {described(client.received[-1])}")
    placed = paired_by_position(client.received[-1])
    if not placed:
        print("      <- the api call's result is not right after the api call")
    return placed


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    outcomes: list[bool] = []
    for stream in (False, True):
        outcome = await run(stream)
        if outcome is None:
            outcome = await run(stream, unbound=True)
        if outcome is None:
            print("NOT RUN: the approvals are not carried out on this release")
            return 2
        outcomes.append(outcome)
    if all(outcomes):
        print("FIXED: each approved occurrence's result follows its own call in the history sent to the model")
        return 0
    print("DEFECT: both occurrences' results are sent after the last occurrence's call")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

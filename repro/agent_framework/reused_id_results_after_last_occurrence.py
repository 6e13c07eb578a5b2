"""Two approved occurrences of one call id: both results reach the model after the second call.

What it shows
    The caller keeps the conversation in its own store and sends it back written by hand: the model asked twice,
    in two rounds, with the same call id c1 (deploy_service for "api", then for "web"), each round with its
    approval request, then one user message approving both. This runs with a fresh AgentSession passed and
    without a session, in both response modes. Where the loop carries out both approvals, each occurrence runs
    once, but the history it sends to the model holds both results in one tool message after the second call:
    [user, assistant: call c1 (api), user, assistant: call c1 (web), tool: result c1, result c1]. The first call
    is left without a result right after it, and the second call's turn is answered by two results (on 1.10.0 ...
    1.12.1 both results even carry the first occurrence's output, "api deployed"). A provider that pairs results
    with calls by id alone (the harness's neutral provider) accepts this; the Gemini API refuses it (HTTP 400,
    "Please ensure that the number of function response parts is equal to the number of function call parts of
    the function call turn."), and Chat Completions as well ("An assistant message with 'tool_calls' must be
    followed by tool messages responding to each 'tool_call_id'"). The tools have run when the request is
    refused.

Spec rows violated (spec 004)
    "Multiple reused-id rounds" (approved and rejected rounds retain separate call/result occurrences), "Multi-
    content result with reused id" (every content produced by one execution stays with that approval occurrence),
    and "Reused call_id values are correlated by logical occurrence": each occurrence's result belongs after its own
    call, so that the history the model receives holds one valid call/result pair per occurrence.

Affected releases
    agent-framework-core 1.10.0 ... 1.14.0 with a session and 1.10.0 ... 1.19.0 without one. From 1.15.0 with a
    session and from 1.20.0 without one the loop drops such hand-written approvals altogether, so nothing runs and
    no result is sent (handwritten_reused_id_approvals_ignored.py); where no variant carries the approvals out, this
    script cannot show the placement and exits 2.

Run
    <venv>/bin/python repro/agent_framework/reused_id_results_after_last_occurrence.py
    Exit status 1: the defect is present. Exit status 0: wherever both approvals run, each result follows its own
    call. Exit status 2: no variant ran the approvals, so the placement could not be observed.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
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

deployed: list[str] = []


@tool(name="deploy_service", approval_mode="always_require")
def deploy_service(service: str) -> str:
    deployed.append(service)
    return f"{service} deployed"


class RecordingClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that answers with a final text and records each history it receives."""

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


def shape(messages: Any) -> list[str]:
    def one(content: Any) -> str:
        if content.type == "function_call":
            return f"call {content.call_id} {content.arguments}"
        if content.type == "function_result":
            return f"result {content.call_id} {content.result!r}"
        return str(content.type)

    return [f"{m.role}: {', '.join(one(c) for c in m.contents)}" for m in messages if not isinstance(m, str)]


def misplaced(messages: Any) -> list[str]:
    """Where the history breaks the rule that a model turn's calls are answered by the tool messages right after
    it, one result per call, and that tool results answer nothing else."""
    problems: list[str] = []
    items = [m for m in messages if not isinstance(m, str)]
    index = 0
    while index < len(items):
        message = items[index]
        index += 1
        calls = [c for c in message.contents if c.type == "function_call"]
        if message.role == "tool":
            problems.append(f"results {[c.call_id for c in message.contents]} follow no model turn with calls")
            continue
        if message.role != "assistant" or not calls:
            continue
        results: list[Any] = []
        while index < len(items) and items[index].role == "tool":
            results += [c for c in items[index].contents if c.type == "function_result"]
            index += 1
        if len(results) != len(calls):
            problems.append(f"model turn with calls {[c.call_id for c in calls]} ({calls[0].arguments}) is followed "
                            f"by {len(results)} result(s)")
    return problems


async def run(stream: bool, with_session: bool) -> str:
    """'ran' (both approvals carried out, results placed right), 'misplaced', or 'dropped'."""
    deployed.clear()
    client = RecordingClient()
    kwargs: Any = {"options": {"tools": [deploy_service]}}
    if with_session:
        kwargs["client_kwargs"] = {"session": AgentSession()}
    if stream:
        response_stream = client.get_response(handwritten_history(), stream=True, **kwargs)
        async for _ in response_stream:
            pass
        await response_stream.get_final_response()
    else:
        await client.get_response(handwritten_history(), **kwargs)
    label = f"{'with an AgentSession' if with_session else 'no session'}, {'streaming' if stream else 'non-streaming'}"
    sent = client.received[-1] if client.received else []
    print(f"  {label}: deployed {deployed}")
    print(f"      history sent to the model: {shape(sent)}")
    if sorted(deployed) != ["api", "web"]:
        print("      the approvals were not carried out: the placement cannot be observed here")
        return "dropped"
    problems = misplaced(sent)
    for problem in problems:
        print(f"      {problem}")
    return "misplaced" if problems else "ran"


async def main() -> int:
    logging.getLogger("agent_framework").setLevel(logging.ERROR)
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    outcomes = [await run(stream, with_session) for with_session in (True, False) for stream in (False, True)]
    if "misplaced" in outcomes:
        print("DEFECT: an earlier occurrence's result reaches the model after a later call, not after its own")
        return 1
    if "ran" in outcomes:
        print("FIXED: wherever both approvals run, each result follows its own call")
        return 0
    print("NOT SHOWN: no variant carried out the approvals (handwritten_reused_id_approvals_ignored.py)")
    return 2


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

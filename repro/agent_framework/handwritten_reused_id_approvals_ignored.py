"""Approvals in a caller's hand-written history are dropped without a word: nothing runs, no result, no error.

What it shows
    The caller keeps the conversation in its own store and sends it back written by hand: the model asked twice,
    in two rounds, with the same call id c1 (deploy_service for "api", then for "web"), each round with its
    approval request (ids r1 and r2, as the caller stored them), then one user message approving both requests.
    This runs once with a fresh AgentSession passed and once without a session, in both response modes.
    On affected releases the loop takes approval authority only from a request it recorded itself in a session.
    r1 and r2 are not recorded there, so both approvals are removed before the loop looks at them, with a logged
    warning: neither deploy runs, no result or error reaches the caller, and the model is called with the two
    user messages alone (both calls left out) and its answer ("Both are deployed.") comes back as the turn's
    response. A session passed along does not help: it holds no record of r1 or r2. For comparison, the same
    history without a session and with `disable_approval_response_binding` set runs each occurrence once with its
    own arguments (that option is not consulted when a session is passed).

Spec rows violated (spec 004)
    Approval correlation and replay: "Multiple reused-id rounds | Approved and rejected rounds retain separate
    call/result occurrences."; Approval request and resume: "An approved tool executes exactly once."; Function
    calls and results: "Every actionable local `function_call` produces exactly one terminal `function_result`" and
    "Reused `call_id` values are correlated by logical occurrence". The spec's normalizer flow binds a request in
    the history to its call occurrence (or restores its embedded call) and carries out the decision on it; it asks
    for no proof that the framework issued the request. Binding approvals to framework-issued requests is the
    spec's follow-up "#7383", not yet part of the contract, and even under it a refused decision must be visible
    to the caller; a decision dropped with a log line leaves two approved calls without any result.

Affected releases
    agent-framework-core 1.15.0 ... 1.23.0 for a caller passing a session (still present in the latest release),
    1.20.0 ... 1.23.0 for a caller passing none. No release runs only one occurrence or raises: 1.10.0 ... 1.14.0,
    and 1.15.0 ... 1.19.0 without a session, run each occurrence once with its own arguments (1.10.0 ... 1.12.1
    leave the results out of the response and rewrite the caller's messages: approval_resume_mutates_input.py).

Run
    <venv>/bin/python repro/agent_framework/handwritten_reused_id_approvals_ignored.py
    Exit status 1: the defect is present. Exit status 0: with and without a session, both approved occurrences
    run once each.
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


class WarningCounter(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


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


async def run(stream: bool, with_session: bool, *, unbound: bool = False) -> bool:
    deployed.clear()
    config: Any = {"disable_approval_response_binding": True} if unbound else None
    client = ScriptedClient(function_invocation_configuration=config) if unbound else ScriptedClient()
    kwargs: Any = {"options": {"tools": [deploy_service]}}
    if with_session:
        kwargs["client_kwargs"] = {"session": AgentSession()}
    warnings = WarningCounter()
    logging.getLogger("agent_framework").addHandler(warnings)
    error = ""
    response: Any = None
    try:
        if stream:
            response_stream = client.get_response(handwritten_history(), stream=True, **kwargs)
            async for _ in response_stream:
                pass
            response = await response_stream.get_final_response()
        else:
            response = await client.get_response(handwritten_history(), **kwargs)
    except Exception as raised:  # noqa: BLE001 - a visible refusal is an outcome worth printing
        error = f"{type(raised).__name__}: {raised}"
    finally:
        logging.getLogger("agent_framework").removeHandler(warnings)
    label = f"{'with a fresh AgentSession' if with_session else 'no session'}, " \
            f"{'streaming' if stream else 'non-streaming'}" + (", binding disabled" if unbound else "")
    honoured = sorted(deployed) == ["api", "web"] and len(deployed) == 2
    print(f"  {label}: deployed {deployed}" + ("" if honoured else "   <- the approvals were not carried out"))
    print(f"      raised: {error or 'nothing'}; warnings logged: {warnings.count}")
    if client.received:
        print(f"      history sent to the model: {described(client.received[-1])}")
    if response is not None:
        print(f"      response: {described(response.messages)}")
    return honoured


async def main() -> int:
    logging.getLogger("agent_framework").setLevel(logging.WARNING)
    logging.getLogger("agent_framework").propagate = False  # counted, not printed
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    outcomes = [await run(stream, with_session) for with_session in (True, False) for stream in (False, True)]
    print("  for comparison (not counted in the exit status):")
    await run(False, False, unbound=True)
    if all(outcomes):
        print("FIXED: each approved occurrence of c1 runs once, with and without a session")
        return 0
    print("DEFECT: the hand-written approvals are dropped: nothing runs and the caller is told nothing")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

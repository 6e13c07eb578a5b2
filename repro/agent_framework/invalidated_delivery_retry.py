"""Retrying a mixed batch whose result delivery failed runs the approved tool again, or loses its result.

What it shows
    An Agent keeps the conversation in its session. Turn 1: the model asks, in one response, for `deploy_release`
    (c1, needs approval) and `confirm_window` (c2, declaration-only: the caller answers it). Turn 2: the caller
    approves c1 and answers c2 with "window confirmed"; the deploy runs; the model call that carries both results
    then fails — from 1.19.0 with `ResponseInvalidatedException` (the provider invalidated the request), before
    that with a plain `ChatClientException`. Turn 3: the caller retries the same input, in the same session with
    the very same message objects, and again after saving the session to JSON and loading it into a new one,
    rebuilding the input from the saved approval request (what a caller resuming in another process does).
    Required: the deploy does not run again, and the retried model call receives c1's result and c2's result
    exactly once each. Observed:
      * 1.10.0 ... 1.14.0: the retry's approval is taken as a new decision and the deploy runs a second time. (On
        1.10.0 ... 1.12.1 the same-object retry escapes this only because turn 2 rewrote the caller's approval
        message into a tool message holding c1's result, see approval_resume_mutates_input.py; the rebuilt input
        of the restored session deploys twice.)
      * 1.15.0 ... 1.23.0: turn 2 consumed the session's pending approval request before the failed call, and
        nothing of the executed batch survives it, so the retry's approval matches nothing and is dropped with a
        warning; c1's call is then hidden from the model as an unanswered approval, so the model receives c2's
        result alone and never learns that the deploy ran (neither does the caller: turn 2 raised). 1.15.0 ...
        1.18.0 also send the model the approval request they issued for c2.
    And from 1.19.0, where a provider can invalidate a request: with max_function_calls 1 (and, separately,
    max_consecutive_errors_per_request 1 with a deploy that fails) the delivery on turn 2 correctly has
    tool_choice "none", but the retry has tools enabled again — the invalidation clean-up drops the spent budget.
    Releases before 1.19.0 know no invalidation and count budgets per request: a retry is a new request with fresh
    budgets. That is a disagreement with the pull request's invariant rather than a regression, and is reported
    as such there too.

Invariants violated
    From spec 004 (normative contract): "An approved tool executes exactly once." and "Every actionable local
    `function_call` produces exactly one terminal `function_result` [...]"; "Model-bound history contains one
    function call/result pair per completed logical occurrence."
    From the framework pull request "Python: preserve mixed-pause recovery invariants" (fixes #8436; these are that
    PR's invariants, not rows of the spec's scenario-to-test matrix): "Approved local tool results are replayed
    after provider invalidation without re-running the tool.", "Replay stored Host and local results without
    re-authorizing or re-executing approved tools." and "Preserve charged invocation budgets across invalidation
    and session serialization".

Affected releases
    agent-framework-core 1.10.0 ... 1.23.0 (still present): the second deploy on 1.10.0 ... 1.14.0, the lost c1
    result on 1.15.0 ... 1.23.0, the re-enabled tools on 1.19.0 ... 1.23.0. Both response modes behave the same
    (the scenarios recovery.invalidated-delivery.* and recovery.spent-budgets.* run both); this script runs the
    non-streaming one.

Run
    <venv>/bin/python repro/agent_framework/invalidated_delivery_retry.py
    Exit status 1: the defect is present. Exit status 0: the retry replays both results once, runs nothing and,
    from 1.19.0, keeps the spent budgets.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import logging
import sys
from collections.abc import Mapping
from typing import Any

from agent_framework import (
    Agent,
    AgentSession,
    BaseChatClient,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    FunctionInvocationLayer,
    FunctionTool,
    Message,
)
from agent_framework.exceptions import ChatClientException

try:  # from 1.19.0 a provider can invalidate a request it had accepted
    from agent_framework.exceptions import ResponseInvalidatedException as DeliveryFailure

    KNOWS_INVALIDATION = True
except ImportError:
    DeliveryFailure = ChatClientException  # type: ignore[assignment,misc]
    KNOWS_INVALIDATION = False

executions: list[str] = []
deploy_fails = False


async def deploy(version: str) -> str:
    executions.append(version)
    if deploy_fails:
        raise RuntimeError("deployment pipeline is locked")
    return f"deployed {version}"


def tools() -> list[FunctionTool]:
    deploy_release = FunctionTool(
        name="deploy_release",
        description="Deploy a release.",
        approval_mode="always_require",
        func=deploy,
        input_model={"type": "object", "properties": {"version": {"type": "string"}}, "required": ["version"]},
    )
    # No body: the caller (the host) answers this call itself.
    confirm_window = FunctionTool(
        name="confirm_window",
        description="Ask the operator to confirm the change window.",
        func=None,
        input_model={"type": "object", "properties": {"window": {"type": "string"}}, "required": ["window"]},
    )
    return [deploy_release, confirm_window]


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that answers from a script (an exception entry is raised) and records every call it receives."""

    def __init__(self, script: list[Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.script = list(script)
        self.received: list[tuple[list[Any], Any]] = []

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        choice = options.get("tool_choice")
        if isinstance(choice, Mapping):
            choice = choice.get("mode")
        self.received.append((list(messages), choice))
        reply = self.script.pop(0) if self.script else Message("assistant", ["(an extra model call)"])
        message_id = f"reply-{len(self.received)}"
        if stream:
            async def updates() -> Any:
                if isinstance(reply, Exception):
                    raise reply
                for content in reply.contents:
                    yield ChatResponseUpdate(role="assistant", contents=[content], message_id=message_id)

            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            if isinstance(reply, Exception):
                raise reply
            return ChatResponse(messages=[reply], response_id=message_id)

        return complete()


def script() -> list[Any]:
    return [
        Message("assistant", [
            Content.from_function_call("c1", "deploy_release", arguments='{"version": "4.2"}'),
            Content.from_function_call("c2", "confirm_window", arguments='{"window": "tonight"}'),
        ]),
        DeliveryFailure("the provider invalidated this response"),
        Message("assistant", ["Release 4.2 is deployed in tonight's window."]),
    ]


def seen(messages: list[Any]) -> list[str]:
    """What the model received of c1 and c2: calls, results and approval wrappers, in order."""
    out: list[str] = []
    for message in messages:
        for content in message.contents:
            if content.type in ("function_call", "function_result"):
                out.append(f"{content.type.split('_')[1]} {content.call_id}")
            elif content.type == "function_approval_request":
                out.append(f"approval_request {content.function_call.call_id}")
            elif content.type == "function_approval_response":
                out.append(f"approval_response {content.function_call.call_id}")
    return out


def retry_input(request: Content) -> list[Message]:
    return [
        Message("user", [request.to_function_approval_response(True)]),
        Message("tool", [Content.from_function_result("c2", result="window confirmed")]),
    ]


async def run_to_retry(config: dict[str, Any], restore: bool) -> ScriptedClient:
    """Turns 1 to 3; returns the client, whose last recorded call is the retry's."""
    executions.clear()
    client = ScriptedClient(script(), function_invocation_configuration=config)
    agent = Agent(client, tools=tools())
    session = agent.create_session()
    first = await agent.run([Message("user", ["Deploy 4.2 once the change window is confirmed."])], session=session)
    request = next(c for m in first.messages for c in m.contents if c.type == "function_approval_request")
    saved_request = json.dumps(request.to_dict())
    second_input = retry_input(request)
    try:
        await agent.run(second_input, session=session)
        raise AssertionError("the scripted delivery failure did not reach the caller")
    except DeliveryFailure:
        pass
    if restore:
        session = AgentSession.from_dict(json.loads(json.dumps(session.to_dict())))
        third_input = retry_input(Content.from_dict(json.loads(saved_request)))
    else:
        third_input = second_input  # the same list, the same objects
    await agent.run(third_input, session=session)
    return client


async def check_retry(restore: bool) -> bool:
    label = "restored session, rebuilt input" if restore else "same session, same input objects"
    client = await run_to_retry({}, restore)
    got = seen(client.received[-1][0])
    once = got.count("result c1") == 1 and got.count("result c2") == 1 and got.count("call c1") == 1
    wrappers = [item for item in got if item.startswith("approval_")]
    ok = executions == ["4.2"] and once and not wrappers
    notes = []
    if len(executions) > 1:
        notes.append("the approved deploy ran again")
    if got.count("result c1") == 0:
        notes.append("c1's result never reaches the model")
    if wrappers:
        notes.append(f"approval wrappers reach the model: {wrappers}")
    print(f"  {label}: deploy executions {executions}; the retried model call received {got}")
    print(f"      {'ok' if ok else '<- ' + '; '.join(notes or ['not each result exactly once'])}")
    return ok


async def check_budget(label: str, config: dict[str, Any], failing: bool) -> bool:
    global deploy_fails
    deploy_fails = failing
    try:
        client = await run_to_retry(config, restore=False)
    finally:
        deploy_fails = False
    delivery, retry = client.received[1][1], client.received[-1][1]
    kept = retry == "none"
    why = "" if KNOWS_INVALIDATION else " (this release knows no invalidation and counts budgets per request)"
    print(f"  {label}: tool_choice of the failed delivery {delivery!r}, of the retried delivery {retry!r}"
          + ("" if kept else f"   <- the spent budget was reset, tools are offered again{why}"))
    return kept


async def main() -> int:
    logging.getLogger("agent_framework").setLevel(logging.CRITICAL)  # the dropped approval is logged, not raised
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}"
          f" (delivery failure raised as {DeliveryFailure.__name__})")
    results = [await check_retry(restore) for restore in (False, True)]
    results.append(await check_budget("max_function_calls 1", {"max_function_calls": 1}, failing=False))
    results.append(await check_budget("max_consecutive_errors_per_request 1, failing deploy",
                                      {"max_consecutive_errors_per_request": 1}, failing=True))
    if all(results):
        print("FIXED: the retry replays each stored result once, runs nothing again and keeps the spent budgets")
        return 0
    print("DEFECT: retrying the failed delivery of a mixed batch re-runs the approved tool, loses its result or "
          "resets the spent budgets")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

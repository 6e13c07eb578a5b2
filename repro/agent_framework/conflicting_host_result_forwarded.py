"""After a failed result delivery, a retry that answers the host-owned call differently is sent to the model.

What it shows
    An Agent keeps the conversation in its session. Turn 1: the model asks, in one response, for `deploy_release`
    (c1, needs approval) and `confirm_window` (c2, declaration-only: the caller, the host, answers it). Turn 2: the
    caller approves c1 and answers c2 with "window confirmed"; the deploy runs under that answer; the model call
    carrying both results then fails — from 1.19.0 the provider invalidates it (`ResponseInvalidatedException`);
    earlier releases know no invalidation, so the same failure reaches them as a plain provider error
    (`ChatClientException`). Turn 3: the caller retries, sending its approval message of turn 2 again but now
    answering c2 with "window cancelled". The batch whose delivery failed already holds an answer to c2, and the
    deploy already ran on it, so the loop must refuse the contradictory retry with an error before any model call
    and run nothing. No release does; the caller gets no error and the model is called with "window cancelled":
      * 1.19.0 ... 1.23.0: the loop keeps nothing of the undelivered batch to compare with: it drops the retried
        approval of c1 (its pending request was consumed on turn 2) and calls the model with "window cancelled" as
        c2's only result — and without c1, so the model is told the window was cancelled and never that 4.2 was
        deployed.
      * 1.15.0 ... 1.18.0: the same, and the model also receives the approval request these releases issued for c2.
      * 1.13.0 ... 1.14.0: the retried approval is taken as a new decision: the deploy runs a second time and the
        model receives its result next to "window cancelled".
      * 1.10.0 ... 1.12.1: turn 2 rewrote the caller's approval message into a tool message holding c1's result
        (approval_resume_mutates_input.py), so the retry resends that result: nothing runs again, and the model
        receives "deployed 4.2" next to "window cancelled".

Invariant violated
    From the framework pull request "Python: preserve mixed-pause recovery invariants" (fixes #8436), not from the
    spec's scenario-to-test matrix: "Deduplicate equivalent extra Host replays only when they can be attributed to
    active Host occurrences, and reject conflicting extra responses before provider delivery." together with "Keep
    a serializable provider outbox until result delivery succeeds". (Spec 004 itself promises "Every actionable
    local `function_call` produces exactly one terminal `function_result`", which the lost c1 of 1.15.0 and later
    also breaks, and "An approved tool executes exactly once", which the second deploy of 1.13.0 and 1.14.0
    breaks; see invalidated_delivery_retry.py.) The PR builds on invalidation support (1.19.0); releases before it
    predate that concept, and the refusal is required of them as well: the caller retrying after the failed
    delivery observes the same contradiction reaching the model.

Affected releases
    agent-framework-core 1.10.0 ... 1.23.0 (still present), both response modes (scenario
    recovery.host-results.conflicting-retry runs both; this script runs the non-streaming one). The output names
    the exception the failed delivery raised.

Run
    <venv>/bin/python repro/agent_framework/conflicting_host_result_forwarded.py
    Exit status 1: the defect is present. Exit status 0: the conflicting retry is refused before any model call
    and nothing runs again.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import logging
import sys
from typing import Any

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
from agent_framework.exceptions import ChatClientException

try:  # from 1.19.0 a provider can invalidate a request it had accepted
    from agent_framework.exceptions import ResponseInvalidatedException as DeliveryFailure

    KNOWS_INVALIDATION = True
except ImportError:
    DeliveryFailure = ChatClientException  # type: ignore[assignment,misc]
    KNOWS_INVALIDATION = False

executions: list[str] = []


async def deploy(version: str) -> str:
    executions.append(version)
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
        self.received: list[list[Any]] = []

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        self.received.append(list(messages))
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


def host_answer(window: str) -> Message:
    return Message("tool", [Content.from_function_result("c2", result=window)])


def results(messages: list[Any]) -> list[str]:
    """The results the model received, and any approval wrapper that reached it."""
    out: list[str] = []
    for message in messages:
        for content in message.contents:
            if content.type == "function_result":
                out.append(f"{content.call_id}: {content.result}")
            elif content.type in ("function_approval_request", "function_approval_response"):
                out.append(f"approval_{content.type.split('_')[-1]} for {content.function_call.call_id}")
    return out


async def main() -> int:
    logging.getLogger("agent_framework").setLevel(logging.CRITICAL)  # the dropped approval is logged, not raised
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}"
          f" (delivery failure raised as {DeliveryFailure.__name__})")
    client = ScriptedClient([
        Message("assistant", [
            Content.from_function_call("c1", "deploy_release", arguments='{"version": "4.2"}'),
            Content.from_function_call("c2", "confirm_window", arguments='{"window": "tonight"}'),
        ]),
        DeliveryFailure("the provider invalidated this response"),
        Message("assistant", ["Release 4.2 is not deployed."]),
    ])
    agent = Agent(client, tools=tools())
    session = agent.create_session()
    first = await agent.run([Message("user", ["Deploy 4.2 once the change window is confirmed."])], session=session)
    request = next(c for m in first.messages for c in m.contents if c.type == "function_approval_request")
    approval = Message("user", [request.to_function_approval_response(True)])
    try:
        await agent.run([approval, host_answer("window confirmed")], session=session)
        raise AssertionError("the scripted delivery failure did not reach the caller")
    except DeliveryFailure:
        pass
    print(f"  turn 2: deploy executions {executions}; the failed delivery carried {results(client.received[-1])}")

    calls_before, executions_before = len(client.received), len(executions)
    refused: Exception | None = None
    try:
        await agent.run([approval, host_answer("window cancelled")], session=session)  # the same approval message
    except Exception as error:  # noqa: BLE001 - a refusal is what is required
        refused = error
    model_calls = client.received[calls_before:]
    ran_again = executions[executions_before:]
    print(f"  turn 3 (retry answering c2 with 'window cancelled'): error {type(refused).__name__ if refused else None}"
          f"; model calls {len(model_calls)}; executions {ran_again}")
    for messages in model_calls:
        print(f"      the model received {results(messages)}")

    ok = refused is not None and not model_calls and not ran_again
    if ok:
        print("FIXED: the conflicting retry was refused before any model call")
        return 0
    if ran_again:
        print("  <- the approved deploy ran a second time")
    if not KNOWS_INVALIDATION:
        print("DEFECT: after the failed delivery (a plain provider error: this release predates invalidation, "
              "1.19.0), the retry's contradictory answer to the host-owned call went to the model instead of being "
              "refused")
        return 1
    print("DEFECT: the retry's contradictory answer to the host-owned call went to the model instead of being "
          "refused")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

"""Approving a later paused batch sends the calls of an earlier, still undecided batch to the model without results.

What it shows
    An Agent keeps the conversation in its session. Turn 1: the model asks, in one response, for safe_a (ca1, needs
    no approval) and risky_a (ca2, approval required); the turn pauses with an approval request for ca2 and holds
    ca1 back. Turn 2: the caller does not decide; it asks for something else, and the model answers with a second
    mixed batch, safe_b (cb1) and risky_b (cb2); the turn pauses again. Turn 3: the caller approves cb2. Required:
    only safe_b and risky_b run (every release tested does this: nothing of the abandoned batch runs), and batch
    A, still undecided, stays out of what the model receives, as it did on turn 2. Observed: the model call of
    turn 3 carries batch A's assistant message with ca1 and ca2 and no result for either, before batch B and its
    results — a history that providers requiring an answer to every tool call reject. It is not specific to mixed
    batches: a pending batch of approval-required calls alone is sent the same way once the decision on another
    batch is processed. (On 1.10.0 ... 1.12.1 batch A, with its approval request, reaches the model already on the
    unrelated turn 2, see pending_approval_batch_sent_to_model.py.) Both response modes.

Spec rows violated (spec 004)
    Approval correlation and replay: "Pending history turn | An unresolved approval batch is omitted atomically
    from unrelated model input while a later decision can still resume it once." Normative contract: "Every
    actionable local `function_call` produces exactly one terminal `function_result`, unless execution pauses for
    a new user-input request." What the row "Multiple abandoned batches | Hidden calls replay only for the matching
    batch." itself promises holds: safe_a does not run.

Affected releases
    agent-framework-core 1.10.0 ... 1.23.0 (still present).

Run
    <venv>/bin/python repro/agent_framework/abandoned_batch_calls_sent_to_model.py
    Exit status 1: the defect is present. Exit status 0: the model never receives ca1 or ca2 on turn 3 and only
    batch B runs.
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
    Message,
    tool,
)

executions: list[str] = []


@tool(name="safe_a")
def safe_a() -> str:
    executions.append("safe_a")
    return "safe-a"


@tool(name="risky_a", approval_mode="always_require")
def risky_a() -> str:
    executions.append("risky_a")
    return "risky-a"


@tool(name="safe_b")
def safe_b() -> str:
    executions.append("safe_b")
    return "safe-b"


@tool(name="risky_b", approval_mode="always_require")
def risky_b() -> str:
    executions.append("risky_b")
    return "risky-b"


TOOLS = [safe_a, risky_a, safe_b, risky_b]


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that answers each call with the next scripted assistant message and records what it received."""

    def __init__(self, script: list[Message], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.script = list(script)
        self.received: list[list[Any]] = []

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        self.received.append(list(messages))
        reply = self.script.pop(0) if self.script else Message("assistant", ["(an extra model call)"])
        message_id = f"reply-{len(self.received)}"
        if stream:
            async def updates() -> Any:
                for content in reply.contents:
                    yield ChatResponseUpdate(role="assistant", contents=[content], message_id=message_id)

            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[reply], response_id=message_id)

        return complete()


def script() -> list[Message]:
    return [
        Message("assistant", [
            Content.from_function_call("ca1", "safe_a", arguments="{}"),
            Content.from_function_call("ca2", "risky_a", arguments="{}"),
        ]),
        Message("assistant", [
            Content.from_function_call("cb1", "safe_b", arguments="{}"),
            Content.from_function_call("cb2", "risky_b", arguments="{}"),
        ]),
        Message("assistant", [Content.from_text("Batch B is done.")]),
    ]


def seen(messages: list[Any]) -> list[str]:
    """What the model received of the calls: calls, results and approval wrappers, in order."""
    out: list[str] = []
    for message in messages:
        for content in message.contents:
            if content.type in ("function_call", "function_result"):
                out.append(f"{content.type.split('_')[1]} {content.call_id}")
            elif content.type in ("function_approval_request", "function_approval_response"):
                out.append(f"{content.type.split('_')[-1]} {content.function_call.call_id}")
    return out


async def run(stream: bool) -> bool:
    label = "streaming" if stream else "non-streaming"
    executions.clear()
    client = ScriptedClient(script())
    agent = Agent(client, tools=TOOLS)
    session = agent.create_session()

    async def send(messages: list[Message]) -> Any:
        if not stream:
            return await agent.run(messages, session=session)
        response_stream = agent.run(messages, stream=True, session=session)
        async for _ in response_stream:
            pass
        return await response_stream.get_final_response()

    await send([Message("user", ["Batch A, please."])])
    second = await send([Message("user", ["Forget that; batch B instead."])])
    request = next(c for m in second.messages for c in m.contents
                   if c.type == "function_approval_request" and c.function_call.call_id == "cb2")
    ran_before = list(executions)
    calls_before = len(client.received)
    await send([Message("user", [request.to_function_approval_response(True)])])

    third = [seen(messages) for messages in client.received[calls_before:]]
    abandoned = sorted({item for got in third for item in got if item.endswith(("ca1", "ca2"))})
    runs_ok = not ran_before and sorted(executions) == ["risky_b", "safe_b"]
    print(f"  {label}: ran before the approval {ran_before}, with it {executions}")
    for got in third:
        print(f"      turn 3 model call received {got}")
    if abandoned:
        print(f"      <- the undecided batch A reaches the model without results: {abandoned}")
    if not runs_ok:
        print("      <- not exactly safe_b and risky_b ran, once each, after the approval")
    return runs_ok and not abandoned


async def main() -> int:
    # 1.19.0 logs a warning about the approval while still running batch B; the output here is what the model gets.
    logging.getLogger("agent_framework").setLevel(logging.CRITICAL)
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    results = [await run(stream) for stream in (False, True)]
    if all(results):
        print("FIXED: approving batch B runs only batch B and keeps the undecided batch A out of the model's input")
        return 0
    print("DEFECT: approving batch B sends the calls of the undecided batch A to the model without results")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

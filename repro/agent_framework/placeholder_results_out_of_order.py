"""With pending placeholders in the history, approved results come back in the caller's decision order again.

What it shows
    Turn 1: the model calls two approval-required tools in one response (read_config as c1, read_secret as c2);
    the loop pauses with two approval requests. The caller's transport stores a pending placeholder result for
    each paused call ("[APPROVAL_PENDING] ..."), as the spec's approval-correlation flow describes.
    Turn 2: the caller replays its history — the turn-1 response, the tool message with the two placeholders —
    and approves both, listing c2 first. Each call must get exactly one result, its own, in the model's order
    (c1, c2), in place of its placeholder. From 1.20.0 the loop no longer knows placeholders: it drops the
    caller-authored results of the pending occurrences and appends the approved results in the caller's decision
    order (c2, c1), in the resumed response and in what the model receives. 1.19.0 handles the same transcript
    correctly. 1.13.0 ... 1.18.0 replace the placeholders in place for the model but order the resumed response
    by the decisions (see approval_batch_results_out_of_order.py); 1.10.0 ... 1.12.1 leave the results out of the
    resumed response (see approval_resume_mutates_input.py).

Spec rows violated (spec 004)
    Approval correlation and replay: "Results reordered with placeholders | Results still match the correct call
    ids." and "Reused-id placeholders | Placeholder results consume approved results by occurrence.", the
    normalizer flow "function_result with APPROVAL_PENDING: attach placeholder to open occurrence ... Replace
    placeholder and remove response wrapper", and "Parallel calls retain model order in the returned transcript."

Affected releases
    agent-framework-core 1.10.0 ... 1.18.0 and 1.20.0 ... 1.23.0 (still present); correct in 1.19.0 only.
    Baselined for correlation.placeholder.reordered-decisions (baselines/known-failures.yaml).

Run
    <venv>/bin/python repro/agent_framework/placeholder_results_out_of_order.py
    Exit status 1: the defect is present. Exit status 0: one result per call, in the model's order, everywhere.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
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
MODEL_ORDER = [("c1", "retries: 3"), ("c2", "s3cr3t")]


@tool(name="read_config", approval_mode="always_require")
def read_config(path: str) -> str:
    executions.append(f"read_config({path})")
    return "retries: 3"


@tool(name="read_secret", approval_mode="always_require")
def read_secret(name: str) -> str:
    executions.append(f"read_secret({name})")
    return "s3cr3t"


TOOLS = [read_config, read_secret]


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


def script() -> list[Message]:
    return [
        Message("assistant", [
            Content.from_function_call("c1", "read_config", arguments='{"path": "/etc/app.yaml"}'),
            Content.from_function_call("c2", "read_secret", arguments='{"name": "deploy-token"}'),
        ]),
        Message("assistant", [Content.from_text("Retries are set to 3 and the token is s3cr3t.")]),
    ]


def results(messages: list[Any]) -> list[tuple[str, str]]:
    return [(str(c.call_id), str(c.result)) for m in messages if not isinstance(m, str) for c in m.contents
            if c.type == "function_result"]


async def ask(client: ScriptedClient, messages: list[Message], session: AgentSession, stream: bool) -> Any:
    options: Any = {"tools": TOOLS}
    if stream:
        response_stream = client.get_response(messages, stream=True, options=options,
                                              client_kwargs={"session": session})
        async for _ in response_stream:
            pass
        return await response_stream.get_final_response()
    return await client.get_response(messages, options=options, client_kwargs={"session": session})


async def run(stream: bool) -> bool:
    label = "streaming" if stream else "non-streaming"
    executions.clear()
    client = ScriptedClient(script())
    session = AgentSession()  # carried along so that releases binding approvals to a session accept the reply
    user = Message("user", ["Show the retry setting and the deploy token."])
    first = await ask(client, [user], session, stream)
    requests = {c.function_call.call_id: c for m in first.messages for c in m.contents
                if c.type == "function_approval_request"}
    placeholders = Message("tool", [
        Content.from_function_result("c1", result="[APPROVAL_PENDING] read_config"),
        Content.from_function_result("c2", result="[APPROVAL_PENDING] read_secret"),
    ])
    decisions = Message("user", [requests["c2"].to_function_approval_response(True),
                                 requests["c1"].to_function_approval_response(True)])
    second = await ask(client, [user, *first.messages, placeholders, decisions], session, stream)

    to_model = results(client.received[-1])
    in_response = results(list(second.messages))
    ok = to_model == MODEL_ORDER and in_response == MODEL_ORDER
    print(f"  {label}: results sent to the model {to_model}" + ("" if to_model == MODEL_ORDER else "   <- wrong"))
    print(f"  {label}: results in the resumed response {in_response}"
          + ("" if in_response == MODEL_ORDER else "   <- wrong"))
    print(f"  {label}: executions {executions}")
    return ok and sorted(executions) == ["read_config(/etc/app.yaml)", "read_secret(deploy-token)"]


async def main() -> int:
    logging.getLogger("agent_framework").setLevel(logging.ERROR)
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    print(f"  expected everywhere: {MODEL_ORDER}")
    results_ok = [await run(stream) for stream in (False, True)]
    if all(results_ok):
        print("FIXED: each placeholder is replaced by its own call's result, in the model's order")
        return 0
    print("DEFECT: with pending placeholders the approved results are not one per call in the model's order")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

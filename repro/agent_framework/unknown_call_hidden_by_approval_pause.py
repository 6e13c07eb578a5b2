"""With `terminate_on_unknown_calls` on, an unknown call beside an approval-required call pauses instead of raising.

What it shows
    The client is configured with `terminate_on_unknown_calls=True`. The model asks, in one response, for
    `delete_files` (c1, needs approval) and `archive_files` (c2), a tool that is not offered. Alone, the unknown call
    ends the turn with the unknown-tool error (control), and so does the batch when the unknown call comes first.
    When the approval-required call comes first, the loop pauses the whole batch for approval and returns normally:
    the caller gets an approval request for the delete and one for the unknown call, and no error, so it is asked to
    approve a batch the loop should have refused (and a call to a tool that does not exist), and the invalid call is
    only met after the approval.

Spec row violated (spec 004)
    "Unknown call handling | Configured false returns an error result; configured true raises." (and "Initial
    approval request": the pause may not stand in for the error). Harness scenario
    `errors.unknown-call.beside-approval`.

Affected releases
    agent-framework-core 1.10.0 ... 1.18.0 (exit 1 on each release of the range), fixed in 1.19.0, which raises in
    both orders (exit 0 on 1.19.0 ... 1.23.0).

Run
    <venv>/bin/python repro/agent_framework/unknown_call_hidden_by_approval_pause.py
    Needs agent-framework-core only.
    Exit status 1: the defect is present. Exit status 0: in both orders the turn ends with the unknown-tool
    error.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import logging
import sys
from typing import Any

from agent_framework import (
    BaseChatClient,
    ChatResponse,
    Content,
    FunctionInvocationLayer,
    FunctionTool,
    Message,
)

ran: list[str] = []


async def delete(pattern: str) -> str:
    ran.append(pattern)
    return "deleted"


def tools() -> list[FunctionTool]:
    return [FunctionTool(
        name="delete_files",
        description="Delete files.",
        approval_mode="always_require",
        func=delete,
        input_model={"type": "object", "properties": {"pattern": {"type": "string"}}, "required": ["pattern"]},
    )]


CALLS = {"c1": "delete_files", "c2": "archive_files"}  # archive_files is not offered


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that asks for the calls `call_ids`, in that order, in one response, then answers with text."""

    def __init__(self, call_ids: list[str]) -> None:
        super().__init__(function_invocation_configuration={"terminate_on_unknown_calls": True})
        self.call_ids = call_ids
        self.model_calls = 0

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        self.model_calls += 1
        if self.model_calls == 1:
            contents = [Content.from_function_call(call_id, CALLS[call_id], arguments='{"pattern": "*.log"}')
                        for call_id in self.call_ids]
        else:
            contents = [Content.from_text("Done.")]

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[Message("assistant", contents)])

        return complete()


async def outcome(call_ids: list[str]) -> str:
    """'error: ...' when the turn raised, else what the returned response holds."""
    client = ScriptedClient(call_ids)
    try:
        response = await client.get_response([Message("user", ["Delete the logs and archive them."])],
                                             options={"tools": tools()})
    except Exception as error:  # the error type differs across releases; its message names the tool
        return f"error: {type(error).__name__}: {error}"
    kinds = [content.type for message in response.messages for content in message.contents]
    return f"no error; response contents {kinds}; model calls {client.model_calls}"


async def main() -> int:
    logging.disable(logging.WARNING)
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    alone = await outcome(["c2"])
    print(f"  control, the unknown call alone: {alone}")
    if not alone.startswith("error") or "archive_files" not in alone:
        print("UNEXPECTED: the unknown call alone did not raise; the reproduction needs updating")
        return 2
    defect = False
    for order in (["c1", "c2"], ["c2", "c1"]):
        result = await outcome(order)
        print(f"  batch {order[0]}, {order[1]}: {result}")
        defect = defect or not result.startswith("error")
    if ran:
        print(f"UNEXPECTED: the approval-required tool ran without approval: {ran}")
        return 2
    if defect:
        print("DEFECT: beside an approval-required call, the unknown call did not end the turn with an error")
        return 1
    print("OK: in both orders the unknown call ends the turn with the unknown-tool error")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

"""A non-streaming response that pauses for approval drops the rounds that already ran in the same turn.

What it shows
    Round 1: the model calls `load_secure`, which runs and returns a result. Round 2: the model calls
    `secure_tool`, which requires approval, so the loop pauses. The streamed run returns all of it — call c1, its
    result, then call c2 with its approval request. The non-streaming run of the same script returns only the
    last message (call c2 + approval request): the executed call c1 and its result are gone from the caller's
    transcript although the tool ran. A caller that keeps history from the response resumes without them, and
    the two response modes disagree.

    It is shown twice: with `secure_tool` added at run time by `load_secure` through its invocation context (the
    spec's "Runtime tool changes" row, as scenario normal.runtime-tool-changes.added-tool-keeps-approval has it)
    and with both tools offered from the start — the same loss, so it is the approval pause, not the run-time
    tool, that drops the earlier round.

Spec invariants violated (spec 004)
    "Runtime tool changes | Added tools become available on the next iteration and retain approval behavior." —
    the approval is retained, but the response around it is not the loop's transcript:
    "Multiple sequential rounds | Each round retains one call/result pair." and, for the approval pause,
    "Streaming yields the same logical result content and ordering as non-streaming output and
    `ResponseStream.get_final_response()`." (review checklist: "streaming updates and final response agree with
    non-streaming output").

Affected releases
    agent-framework-core 1.10.0 ... 1.18.0, non-streaming (streaming is correct, so streaming runs disagree with
    non-streaming ones); fixed in 1.19.0.

Run
    <venv>/bin/python repro/agent_framework/approval_pause_drops_earlier_rounds.py
    Exit status 1: the defect is present. Exit status 0: both modes return round 1 before the approval request.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
import warnings
from typing import Any

from agent_framework import (
    BaseChatClient,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    FunctionInvocationContext,
    FunctionInvocationLayer,
    Message,
    tool,
)

EXPECTED = [
    ("assistant", [("function_call", "c1")]),
    ("tool", [("function_result", "c1")]),
    ("assistant", [("function_call", "c2"), ("function_approval_request", "c2")]),
]


@tool(name="secure_tool", approval_mode="always_require")
def secure_tool(value: str) -> str:
    return f"secure: {value}"


@tool(name="load_secure", approval_mode="never_require")
def load_secure_adding(ctx: FunctionInvocationContext) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # progressive tool exposure is flagged experimental
        ctx.add_tools([secure_tool])
    return "secure tools loaded"


@tool(name="load_secure", approval_mode="never_require")
def load_secure_plain() -> str:
    return "secure tools loaded"


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that answers each call with the next scripted assistant message."""

    def __init__(self, script: list[Message], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.script = list(script)
        self.calls = 0

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        self.calls += 1
        reply = self.script.pop(0)
        message_id = f"reply-{self.calls}"
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
        Message("assistant", [Content.from_function_call("c1", "load_secure", arguments="{}")]),
        Message("assistant", [Content.from_function_call("c2", "secure_tool", arguments='{"value": "x"}')]),
    ]


def shape(response: ChatResponse) -> list[tuple[str, list[tuple[str, str]]]]:
    """Roles and contents; an approval request is named by the call it asks about (its own id is generated)."""
    def name(content: Any) -> tuple[str, str]:
        call = content.function_call if content.type == "function_approval_request" else content
        return content.type, str(call.call_id)

    return [(str(m.role), [name(c) for c in m.contents]) for m in response.messages]


async def run(tools: list[Any], stream: bool) -> list[tuple[str, list[tuple[str, str]]]]:
    client = ScriptedClient(script())
    messages = [Message("user", ["Store x securely."])]
    if stream:
        response_stream = client.get_response(messages, stream=True, options={"tools": tools})
        async for _ in response_stream:
            pass
        return shape(await response_stream.get_final_response())
    return shape(await client.get_response(messages, options={"tools": tools}))


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    good = True
    variants = {
        "secure_tool added at run time": [load_secure_adding],
        "both tools offered from the start": [load_secure_plain, secure_tool],
    }
    for label, tools in variants.items():
        for stream in (False, True):
            got = await run(list(tools), stream)
            ok = got == EXPECTED
            good = good and ok
            mode = "streaming" if stream else "non-streaming"
            print(f"  {label}, {mode}: {got}{'' if ok else '   <- round 1 (c1 call + result) missing'}")
    if good:
        print("FIXED: both modes return round 1 before the approval request")
        return 0
    print("DEFECT: the non-streaming response that pauses for approval dropped the round that already ran")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

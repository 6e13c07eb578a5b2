"""A pause for one approval and one host answer orders its requests differently when streamed.

What it shows
    The model asks, in one response, for `deploy_release` (c1, needs approval) and `confirm_window` (c2,
    declaration-only: the caller answers it). The loop pauses the turn with an approval request for c1 and marks c2
    as a user-input request. The non-streaming response puts c1's approval request right after c1's call:
        c1 call, c1 approval request, c2 call (user input)
    The streamed run yields the model's two calls as they arrive, then c1's approval request, then a metadata-only
    update that marks c2 as a user-input request, and its get_final_response() folds that marking back into c2's
    call, so the approval request comes last:
        c1 call, c2 call (user input), c1 approval request
    Same contents, different order: a caller (or UI transport) that renders the pause from one mode shows the
    approval after the host question, from the other before it; and the streamed updates announce c1's approval
    before c2 is marked as needing the caller's answer while the final response has it the other way round.

Spec invariant violated (spec 004, approval request and resume)
    "Streaming yields the same logical result content and ordering as non-streaming output and
    `ResponseStream.get_final_response()`." (review checklist: "streaming updates and final response agree with
    non-streaming output"). (The batch is the one the framework pull request "Python: preserve mixed-pause recovery
    invariants" recovers; this turn, the pause itself, is judged by the spec's ordering rule alone.)

Affected releases
    agent-framework-core 1.19.0 ... 1.23.0 (still present). Releases 1.10.0 ... 1.18.0 pause the same batch with two
    approval requests (c1 call, c2 call, c1 approval request, c2 approval request) in the same order in both modes,
    so the script passes there.

Run
    <venv>/bin/python repro/agent_framework/mixed_pause_stream_order.py
    Exit status 1: the defect is present. Exit status 0: both modes return the pause in the same order.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from typing import Any

from agent_framework import (
    BaseChatClient,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    FunctionInvocationLayer,
    FunctionTool,
    Message,
)


async def deploy(version: str) -> str:
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
    """A model that asks for both calls in one response, one content per streamed update."""

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        reply = Message("assistant", [
            Content.from_function_call("c1", "deploy_release", arguments='{"version": "4.2"}'),
            Content.from_function_call("c2", "confirm_window", arguments='{"window": "tonight"}'),
        ])
        if stream:
            async def updates() -> Any:
                for content in reply.contents:
                    yield ChatResponseUpdate(role="assistant", contents=[content], message_id="reply-1")

            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[reply], response_id="reply-1")

        return complete()


def name(content: Any) -> str:
    if content.type == "function_approval_request":
        return f"{content.function_call.call_id} approval request"
    if content.type == "function_call":
        flags = " (user input)" if content.user_input_request else ""
        flags += " [metadata only]" if content.arguments is None else ""
        return f"{content.call_id} call{flags}"
    return str(content.type)


def shape(response: ChatResponse) -> list[tuple[str, list[str]]]:
    return [(str(m.role), [name(c) for c in m.contents]) for m in response.messages]


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    messages = [Message("user", ["Deploy 4.2 once the change window is confirmed."])]

    non_streaming = shape(await ScriptedClient().get_response(messages, options={"tools": tools()}))
    response_stream = ScriptedClient().get_response(messages, stream=True, options={"tools": tools()})
    updates = [name(content) async for update in response_stream for content in update.contents]
    final = shape(await response_stream.get_final_response())

    print(f"  non-streaming response:        {non_streaming}")
    print(f"  streamed updates:              {updates}")
    print(f"  stream's get_final_response(): {final}")
    if final == non_streaming:
        print("FIXED: the streamed pause has the same order as the non-streaming one")
        return 0
    print("DEFECT: the streamed pause orders c1's approval request and c2's user-input request differently from the "
          "non-streaming response")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

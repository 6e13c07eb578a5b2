"""Two streamed calls to a declaration-only tool: the final response holds each user-input request twice.

What it shows
    The model streams one response with two calls to a declaration-only tool (no local implementation). The loop
    must hand both to the caller as user-input requests, not execute them, and the stream's final response must
    hold what the stream delivered. On affected releases the updates deliver the two calls and then the two
    flagged requests, but `get_final_response()` holds the flagged calls twice: after the complete copies come
    second copies without their arguments, so the final response disagrees with the folded stream and with the
    non-streaming response (which holds each call once). A single call is not affected. Found by loop-conformance
    fuzz.

Spec rows violated (spec 004)
    "Declaration-only call | The call is surfaced as user input and is not executed; streaming arguments appear
    once while finalized request metadata remains available." Approval pause and resume: "Streaming yields the same
    logical result content and ordering as non-streaming output and `ResponseStream.get_final_response()`."

Affected releases
    agent-framework-core 1.13.0 ... 1.16.0, streaming only; fixed in 1.17.0. (1.10.0 ... 1.12.1 have the
    single-call defect of declaration_only_streaming_arguments.py instead.)

Run
    <venv>/bin/python repro/agent_framework/declaration_only_parallel_requests_repeated.py
    Exit status 1: the defect is present. Exit status 0: the final response holds each call once, with its
    arguments.
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

CALLS = [("call_1", '{"location": "Seattle"}'), ("call_2", '{"location": "Paris"}')]

# Declared to the model, implemented by the caller: no function body.
get_weather = FunctionTool(
    name="get_weather",
    description="Implemented by the caller, not by the loop.",
    func=None,
    input_model={"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]},
)


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that streams two calls to get_weather, one update each."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.calls = 0

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        self.calls += 1
        calls = [Content.from_function_call(call_id, "get_weather", arguments=arguments)
                 for call_id, arguments in CALLS]
        if stream:
            async def updates() -> Any:
                for call in calls:
                    yield ChatResponseUpdate(role="assistant", contents=[call], message_id="reply-1")

            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[Message("assistant", calls)], response_id="reply-1")

        return complete()


def describe(contents: list[Any]) -> list[str]:
    return [f"{c.call_id} arguments={c.arguments!r} user_input_request={bool(getattr(c, 'user_input_request', False))}"
            for c in contents if c.type == "function_call"]


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    client = ScriptedClient()
    response_stream = client.get_response([Message("user", ["Weather in Seattle and in Paris?"])], stream=True,
                                          options={"tools": [get_weather]})
    async for _ in response_stream:
        pass
    final = await response_stream.get_final_response()
    calls = [c for m in final.messages for c in m.contents if c.type == "function_call"]
    for line in describe(calls):
        print(f"  final: {line}")
    ids = [c.call_id for c in calls]
    complete = all(c.arguments not in (None, "", {}) for c in calls)
    if ids == ["call_1", "call_2"] and complete and client.calls == 1:
        print("FIXED: the final response holds each call once, with its arguments")
        return 0
    print("DEFECT: the streamed final response repeats the declaration-only calls (copies without arguments)")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

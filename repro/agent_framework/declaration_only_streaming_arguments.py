"""Streaming a call to a declaration-only tool doubles its arguments and loses the user-input request.

What it shows
    The model streams one call to a declaration-only tool (no local implementation), its arguments split over two
    updates. The loop must hand the call to the caller as a user-input request without executing it. On affected
    releases the streaming loop emits a second, complete copy of the call (now flagged `user_input_request`)
    after the model's chunks, so the streamed argument text for the one call is `{"location":"Seattle"}` twice;
    folding the updates, `get_final_response()` holds a single call whose arguments are the invalid JSON
    `{"location":"Seattle"}{"location":"Seattle"}` and which is no longer marked as a user-input request — a
    caller sees an actionable call without a result. The non-streaming response of the same script is correct.

Spec row violated (spec 004, Normal function invocation)
    "Declaration-only call | The call is surfaced as user input and is not executed; streaming arguments appear
    once while finalized request metadata remains available."

Affected releases
    agent-framework-core 1.10.0 ... 1.12.1, streaming only; fixed in 1.13.0.

Run
    <venv>/bin/python repro/agent_framework/declaration_only_streaming_arguments.py
    Exit status 1: the defect is present. Exit status 0: arguments streamed once and the final response holds the
    complete call as a user-input request.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
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

ARGUMENTS = '{"location":"Seattle"}'
CHUNKS = ['{"location":', '"Seattle"}']

# Declared to the model, implemented by the caller: no function body.
get_weather = FunctionTool(
    name="get_weather",
    description="Implemented by the caller, not by the loop.",
    func=None,
    input_model={"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]},
)


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that streams one call to get_weather in two argument chunks."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.calls = 0

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        self.calls += 1
        if stream:
            async def updates() -> Any:
                for index, chunk in enumerate(CHUNKS):
                    call = Content.from_function_call("call_weather", "get_weather" if index == 0 else "",
                                                      arguments=chunk)
                    yield ChatResponseUpdate(role="assistant", contents=[call], message_id="reply-1")

            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            call = Content.from_function_call("call_weather", "get_weather", arguments=ARGUMENTS)
            return ChatResponse(messages=[Message("assistant", [call])], response_id="reply-1")

        return complete()


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    client = ScriptedClient()
    response_stream = client.get_response([Message("user", ["What's the weather in Seattle?"])], stream=True,
                                          options={"tools": [get_weather]})
    streamed = ""
    async for update in response_stream:
        for content in update.contents:
            if content.type == "function_call":
                print(f"  update: function_call arguments={content.arguments!r} "
                      f"user_input_request={getattr(content, 'user_input_request', None)}")
                if content.arguments:  # a metadata-only update carries no argument text
                    streamed += (content.arguments if isinstance(content.arguments, str)
                                 else json.dumps(content.arguments))
    final = await response_stream.get_final_response()
    calls = [c for m in final.messages for c in m.contents if c.type == "function_call"]
    for call in calls:
        print(f"  final:  function_call arguments={call.arguments!r} "
              f"user_input_request={getattr(call, 'user_input_request', None)}")
    print(f"  streamed argument text for call_weather: {streamed!r}; model calls: {client.calls}")

    streamed_once = streamed == ARGUMENTS
    final_ok = (len(calls) == 1 and isinstance(calls[0].arguments, str) and calls[0].arguments == ARGUMENTS
                and bool(getattr(calls[0], "user_input_request", False)))
    if streamed_once and final_ok and client.calls == 1:
        print("FIXED: the arguments were streamed once and the final response holds the user-input request")
        return 0
    print("DEFECT: the streamed arguments are duplicated and/or the final response lost the complete "
          "user-input request")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

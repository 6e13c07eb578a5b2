"""A streamed call whose first delta carries its id but not its name is never announced with TOOL_CALL_START.

What it shows
    The model streams one call of `get_weather` over four deltas: the call id c1 alone, then c1 with the name, then
    the argument text in two pieces (as Chat Completions and Gemini stream a call when the name comes after the id).
    Behind the AG-UI endpoint (`add_agent_framework_fastapi_endpoint`), the run's events for c1 are
    TOOL_CALL_ARGS, TOOL_CALL_ARGS, TOOL_CALL_END (and the result) with no TOOL_CALL_START before them: the client
    never learns that the call exists, and its transcript and the endpoint's messages snapshot hold a result for a
    call it was never shown. For control, the same call with its name on the first delta is announced with
    TOOL_CALL_START before its arguments.

Spec rows violated (spec 004)
    "Streaming call" (call chunks, one result update, and final text are emitted in order) and "Every actionable
    local function_call produces exactly one terminal function_result" as the caller sees it; the AG-UI event
    lifecycle (a tool call's ARGS and END events follow its START). Harness scenario
    `normal.streaming-call.name-after-id` (agent_framework_ag_ui: events-well-formed, expect.response, no-orphans,
    snapshot-agrees). From core 1.17.0 the core's own fold also splits the call
    (repro/agent_framework/streamed_call_name_after_id_split.py).

Affected releases
    Every pairing run: agent-framework-ag-ui 1.0.0rc7 ... 1.7.0 with core 1.10.0, 1.11.0, 1.12.0, 1.12.1 and
    1.13.0 ... 1.23.0 (exit 1). Still present.

Run
    <venv>/bin/python repro/agent_framework_ag_ui/nameless_first_delta_no_tool_call_start.py
    Needs agent-framework-core, agent-framework-ag-ui, fastapi and httpx.
    Exit status 1: the defect is present. Exit status 0: the call is announced with TOOL_CALL_START before its
    arguments.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import inspect
import json
import logging
import sys
from collections.abc import AsyncIterator, Sequence
from typing import Any

import httpx
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
from agent_framework_ag_ui import add_agent_framework_fastapi_endpoint
from fastapi import FastAPI


async def weather(city: str) -> str:
    return "sunny"


class NameLaterClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """First response: one call of get_weather over four deltas; `name_first` puts the name on the first."""

    def __init__(self, name_first: bool) -> None:
        super().__init__()
        self.name_first = name_first
        self.calls = 0

    def _inner_get_response(self, *, messages: Sequence[Message], stream: bool, options: Any, **kwargs: Any) -> Any:
        self.calls += 1
        if self.calls == 1:
            deltas = [Content.from_function_call(call_id="c1", name="get_weather" if self.name_first else "",
                                                 arguments=""),
                      Content.from_function_call(call_id="c1", name="" if self.name_first else "get_weather",
                                                 arguments=""),
                      Content.from_function_call(call_id="c1", name="", arguments='{"city": '),
                      Content.from_function_call(call_id="c1", name="", arguments='"Paris"}')]
        else:
            deltas = [Content.from_text("It is sunny in Paris.")]

        async def updates() -> AsyncIterator[ChatResponseUpdate]:
            for delta in deltas:
                yield ChatResponseUpdate(contents=[delta], role="assistant", message_id=f"m{self.calls}")

        if stream:
            return self._build_response_stream(updates())

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[Message("assistant", deltas)])

        return complete()


async def tool_call_events(name_first: bool) -> list[str]:
    """The run's tool-call event types for c1, in order."""
    tool = FunctionTool(name="get_weather", description="Weather", func=weather,
                        input_model={"type": "object", "properties": {"city": {"type": "string"}},
                                     "required": ["city"]})
    app = FastAPI()
    # Releases before these options served one anonymous principal and sent no keepalives: the same endpoint.
    options = {"single_user": True, "keepalive_seconds": None}
    accepted = inspect.signature(add_agent_framework_fastapi_endpoint).parameters
    add_agent_framework_fastapi_endpoint(app, Agent(NameLaterClient(name_first), tools=[tool]), "/",
                                         **{k: v for k, v in options.items() if k in accepted})
    body = {"threadId": "t", "runId": "r1", "tools": [], "context": [], "forwardedProps": {},
            "messages": [{"id": "u1", "role": "user", "content": "Weather in Paris?"}]}
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://ag-ui.invalid") as http:
        response = await http.post("/", json=body)
    events = [json.loads(line[5:]) for line in response.text.splitlines() if line.startswith("data:")]
    return [e["type"] for e in events if e["type"].startswith("TOOL_CALL") and e.get("toolCallId") == "c1"]


def started_before_arguments(types: list[str]) -> bool:
    return "TOOL_CALL_START" in types and (
        "TOOL_CALL_ARGS" not in types or types.index("TOOL_CALL_START") < types.index("TOOL_CALL_ARGS"))


async def main() -> int:
    logging.disable(logging.WARNING)
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}, "
          f"agent-framework-ag-ui {importlib.metadata.version('agent-framework-ag-ui')}")
    control = await tool_call_events(name_first=True)
    later = await tool_call_events(name_first=False)
    print(f"  control, name on the first delta: {control}\n  name on the second delta:         {later}")
    if not started_before_arguments(control):
        print("UNEXPECTED: the control call is not announced before its arguments; the reproduction needs updating")
        return 2
    if not started_before_arguments(later):
        print("DEFECT: the call whose name came after its id has no TOOL_CALL_START before its arguments")
        return 1
    print("OK: the call is announced with TOOL_CALL_START before its arguments")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

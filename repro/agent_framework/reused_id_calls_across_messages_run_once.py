"""Two calls that share a call id, in two messages of one response: one runs, the other never gets a result.

What it shows
    One non-streaming model response holds two assistant messages, each with a get_weather call under call id c1
    (Paris in both; no service item id: the function-call content of the affected releases has no field for one,
    so nothing tells the loop the two are copies of one output item). Two calls that share only a call id are two
    calls: each runs and gets its result. On the affected releases the tool runs once and one result comes back:
    the second call stays without a result in the caller's transcript and in the history the next model call
    receives. Control: the same response with distinct call ids (c1, c2) runs both and answers both.

Spec rows violated (spec 004)
    "Calls across response messages" (every actionable call is executed once), with the contract sentences "Reused
    `call_id` values are correlated by logical occurrence, not one global value per id" and "Every actionable local
    `function_call` produces exactly one terminal `function_result`". Harness scenario
    `normal.calls-across-messages.repeated-call` (no-orphans): on these releases the scenario's item id fc_1 cannot
    reach the loop, which therefore sees exactly this response.

Affected releases
    agent-framework-core 1.10.0 ... 1.16.0 (fixed in 1.17.0, which runs both calls).

Run
    <venv>/bin/python repro/agent_framework/reused_id_calls_across_messages_run_once.py
    Exit status 1: the defect is present. Exit status 0: both calls run and each gets its result.
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
    Message,
    tool,
)

executions: list[str] = []


@tool(name="get_weather")
def get_weather(city: str) -> str:
    executions.append(city)
    return "sunny"


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that answers each call with the next scripted response and records what it received."""

    def __init__(self, script: list[list[Message]], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.script = list(script)
        self.received: list[list[Any]] = []

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        self.received.append(list(messages))
        reply = self.script.pop(0)

        async def complete() -> ChatResponse:
            return ChatResponse(messages=reply, response_id=f"reply-{len(self.received)}")

        return complete()


def unanswered(messages: list[Any]) -> int:
    """How many function calls have no function_result after them (each result answers one call of its id)."""
    open_calls: list[str] = []
    for content in (c for m in messages for c in m.contents):
        if content.type == "function_call":
            open_calls.append(str(content.call_id))
        elif content.type == "function_result" and str(content.call_id) in open_calls:
            open_calls.remove(str(content.call_id))
    return len(open_calls)


async def two_calls(call_ids: tuple[str, str]) -> bool:
    executions.clear()
    client = ScriptedClient([
        [Message("assistant", [Content.from_function_call(call_ids[0], "get_weather", arguments='{"city": "Paris"}')]),
         Message("assistant", [Content.from_function_call(call_ids[1], "get_weather", arguments='{"city": "Paris"}')])],
        [Message("assistant", [Content.from_text("It is sunny in Paris.")])],
    ])
    response = await client.get_response([Message("user", ["What is the weather in Paris?"])],
                                         options={"tools": [get_weather]})
    sent = client.received[1] if len(client.received) > 1 else []
    print(f"  call ids {call_ids}: executions {executions}; calls without a result: in the response "
          f"{unanswered(response.messages)}, in the next model request {unanswered(sent)}")
    return len(executions) == 2 and unanswered(response.messages) == 0 and unanswered(sent) == 0


async def main() -> int:
    logging.getLogger("agent_framework").setLevel(logging.ERROR)
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    if not await two_calls(("c1", "c2")):
        print("UNEXPECTED: the control (distinct call ids) does not run both calls")
        return 2
    if await two_calls(("c1", "c1")):
        print("FIXED: both calls that share call id c1 run, and each gets its result")
        return 0
    print("DEFECT: of two calls that share a call id, one runs and the other never gets a result")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

"""A tool declared as a Python function receives its parameter's default where the model passed an explicit null.

What it shows
    The user declares `forecast(city: str, days: int = 3, units: str | None = "metric")`, the way the framework's
    documentation declares tools. The model calls it with `{"city": "Rome", "days": 5, "units": null}`. The
    function invocation layer validates the arguments against the model it derived from the signature and then
    drops every None before calling the function, so the body runs with `units="metric"`: not the call the model
    made, and not the call the caller is shown in the response. Omitted optional parameters (the first call) keep
    their defaults on every release, as they should.

Spec requirement broken (spec 004, Normal function invocation)
    The loop runs the tools the model asks for ("model asks for tools, tools run, results go back"): the call and
    result the caller sees in order ("Single non-streaming call", "Multiple sequential rounds") must be the call that
    ran. Here the shown call carries `units: null` while the function ran with the default.

Affected releases
    agent-framework-core 1.10.0 ... 1.11.0; fixed in 1.12.0 (arguments the model set are kept, None included).

Run
    <venv>/bin/python repro/agent_framework/explicit_null_argument_replaced_by_default.py
    Exit status 1: the defect is present. Exit status 0: the function received None as the model asked.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from typing import Any

from agent_framework import BaseChatClient, ChatResponse, Content, FunctionInvocationLayer, Message, tool

received: list[dict[str, Any]] = []


@tool(name="forecast", approval_mode="never_require")
def forecast(city: str, days: int = 3, units: str | None = "metric") -> str:
    received.append({"city": city, "days": days, "units": units})
    return "mild"


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A model that answers each call with the next scripted assistant message."""

    def __init__(self, script: list[Message], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.script = list(script)

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        reply = self.script.pop(0)

        async def complete() -> ChatResponse:
            return ChatResponse(messages=[reply])

        return complete()


def script() -> list[Message]:
    return [
        Message("assistant", [Content.from_function_call("c1", "forecast", arguments='{"city": "Paris"}')]),
        Message("assistant", [Content.from_function_call(
            "c2", "forecast", arguments='{"city": "Rome", "days": 5, "units": null}')]),
        Message("assistant", [Content.from_text("Mild in both.")]),
    ]


async def main() -> int:
    print(f"agent-framework-core {importlib.metadata.version('agent-framework-core')}")
    client = ScriptedClient(script())
    await client.get_response([Message("user", ["Forecast for Paris and Rome."])], options={"tools": [forecast]})
    for number, arguments in enumerate(received, start=1):
        print(f"  call #{number}: the function received {arguments}")
    expected = [{"city": "Paris", "days": 3, "units": "metric"}, {"city": "Rome", "days": 5, "units": None}]
    if received == expected:
        print("FIXED: omitted parameters took their defaults and the explicit null arrived as None")
        return 0
    print("DEFECT: the model passed units=null, the function ran with its default instead")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

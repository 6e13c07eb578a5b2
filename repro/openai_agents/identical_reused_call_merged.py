"""A later turn's call identical to an earlier completed one (same id, name and arguments) is folded into it.

What it shows
    The caller keeps the history (`result.to_input_list()`). Turn 1: the model calls lookup (call id c1,
    {"city": "Paris"}), which runs, and answers. Turn 2: the model reasons, then calls lookup again with the same
    id and arguments, as a provider that numbers call ids per response does. The tool runs, but the request that
    delivers its result holds one call and one result instead of two pairs: the second call is dropped, one of
    the two results too, and turn 2's reasoning item is left between turn 1's call and the one result (observed
    order: call, reasoning, result). The model never sees the call it made bound to its reasoning. (With
    different arguments the runner refuses the reuse outright: reused_call_id_rejects_run.py.) Found by
    loop-conformance fuzz.

Spec rows violated (spec 004)
    "Reused id after completion | A later round with the same id creates a second valid pair."
    "Reasoning-bound call" and the replay rule that the service-required reasoning travels before its paired call.

Affected releases
    openai-agents 0.20.0 – 0.24.0, still present (scenario checked on 0.20.0, 0.21.1, 0.22.3, 0.23.1 and 0.24.0).

Run
    <venv with openai-agents>/bin/python repro/openai_agents/identical_reused_call_merged.py
    Exit status 1: the defect is present. Exit status 0: in both response modes the model's last request holds
    call, result, reasoning, call, result in that order.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from collections.abc import AsyncIterator
from typing import Any

from agents import Agent, FunctionTool, ModelResponse, Runner, Usage, set_tracing_disabled
from agents.models.interface import Model
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseReasoningItem,
)
from openai.types.responses.response_reasoning_item import Summary

executions: list[str] = []


class ScriptedModel(Model):
    """A model that answers with the scripted output items in order and records each request's input."""

    def __init__(self, script: list[list[Any]]) -> None:
        self.script = list(script)
        self.inputs: list[Any] = []

    def _next(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        self.inputs.append(kwargs.get("input", args[1] if len(args) > 1 else None))
        return self.script.pop(0) if self.script else [_text("(an extra model call)")]

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        return ModelResponse(output=self._next(args, kwargs), usage=Usage(requests=1), response_id=None)

    async def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        response = Response(id=f"resp-{len(self.inputs) + 1}", created_at=0, model="scripted", object="response",
                            output=self._next(args, kwargs), tool_choice="auto", tools=[],
                            parallel_tool_calls=True, status="completed")
        yield ResponseCompletedEvent(type="response.completed", response=response, sequence_number=0)


def _text(text: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(id="msg-1", type="message", role="assistant", status="completed",
                                 content=[ResponseOutputText(type="output_text", text=text, annotations=[])])


def _call(item_id: str) -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(id=item_id, type="function_call", call_id="c1", name="lookup",
                                    arguments='{"city": "Paris"}', status="completed")


def _reasoning() -> ResponseReasoningItem:
    return ResponseReasoningItem(id="rs-1", type="reasoning",
                                 summary=[Summary(type="summary_text", text="The weather may have changed.")])


async def lookup(context: Any, arguments: str) -> str:
    executions.append(arguments)
    return "sunny"


def _kinds(items: Any) -> list[str]:
    """The calls, results and reasoning among a request's input items, in order."""
    kinds: list[str] = []
    for item in items if isinstance(items, list) else []:
        kind = item.get("type") if isinstance(item, dict) else getattr(item, "type", None)
        if kind == "function_call":
            kinds.append("call")
        elif kind == "function_call_output":
            kinds.append("result")
        elif kind == "reasoning":
            kinds.append("reasoning")
    return kinds


async def send(agent: Agent[Any], given: Any, streaming: bool) -> Any:
    if not streaming:
        return await Runner.run(agent, given)
    result: Any = Runner.run_streamed(agent, given)
    async for _ in result.stream_events():
        pass
    return result


async def run(streaming: bool) -> bool:
    executions.clear()
    model = ScriptedModel([[_call("fc-1")], [_text("It is sunny in Paris.")],
                           [_reasoning(), _call("fc-2")], [_text("Still sunny.")]])
    tool = FunctionTool(name="lookup", description="weather", on_invoke_tool=lookup, strict_json_schema=False,
                        params_json_schema={"type": "object", "properties": {"city": {"type": "string"}}})
    agent = Agent(name="assistant", model=model, tools=[tool])
    first = await send(agent, "What's the weather in Paris?", streaming)
    await send(agent, [*first.to_input_list(), {"role": "user", "content": "And now?"}], streaming)
    label = "streaming" if streaming else "non-streaming"
    seen = _kinds(model.inputs[-1])
    print(f"  {label}: executions {len(executions)}; the last request holds {seen}")
    return len(executions) == 2 and seen == ["call", "result", "reasoning", "call", "result"]


async def main() -> int:
    set_tracing_disabled(True)
    print(f"openai-agents {importlib.metadata.version('openai-agents')}")
    results = [await run(streaming) for streaming in (False, True)]
    if all(results):
        print("FIXED: both turns' calls reach the model as two pairs, the reasoning before the second call")
        return 0
    print("DEFECT: the later identical call is folded into the earlier one: it and its reasoning are gone from "
          "the model's request")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

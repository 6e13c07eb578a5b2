"""A call id from the caller's history that the model reuses makes the runner rewrite the history it sends.

What it shows
    The caller's history holds a completed round: call `c1` to `backup_db`, its result "backup written", the model's
    answer and a new user request. The model reuses `c1` for a new call, to `run_migration`, which runs. On the next
    model call the runner deduplicates its input by call id ("preferring latest"): the new `run_migration` call takes
    the place of the old `backup_db` call at the start of the conversation, the old result "backup written" is
    dropped, and the new result comes last, after the user's request. The model receives a history in which the
    backup never happened and the migration was called before it was asked for. No call is left without a result,
    so nothing fails: the rewrite is silent. (Within one run the runner refuses a reused id instead: see
    reused_call_id_rejects_run.py.)

Spec rows violated (spec 004)
    "Reused id after completion | A later round with the same id creates a second valid pair."
    "Historical resolved response plus new round" and History and continuation: "Model-bound history contains one
    function call/result pair per completed logical occurrence."

Affected releases
    openai-agents 0.20.0 – 0.24.0, still present (checked on 0.20.0, 0.21.1, 0.22.3, 0.23.1 and 0.24.0).

Run
    <venv with openai-agents>/bin/python repro/openai_agents/reused_call_id_history_rewritten.py
    Exit status 1: the defect is present. Exit status 0: in both response modes the second model call received
    the caller's history unchanged, followed by the new call and its result.
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
)

HISTORY: list[Any] = [
    {"role": "user", "content": "Back up the database."},
    {"type": "function_call", "call_id": "c1", "name": "backup_db", "arguments": '{"target": "s3"}'},
    {"type": "function_call_output", "call_id": "c1", "output": "backup written"},
    {"role": "assistant", "content": "The backup is written."},
    {"role": "user", "content": "Now apply migration 002."},
]


class ScriptedModel(Model):
    """A model that answers with the scripted output items in order and records the input of every call."""

    def __init__(self, script: list[list[Any]]) -> None:
        self.script = list(script)
        self.inputs: list[list[dict[str, Any]]] = []

    def _next(self, items: Any) -> list[Any]:
        self.inputs.append([_as_dict(item) for item in items] if isinstance(items, list) else [])
        return self.script.pop(0) if self.script else [_text("(an extra model call)")]

    async def get_response(self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any) -> ModelResponse:  # noqa: A002
        return ModelResponse(output=self._next(input), usage=Usage(requests=1), response_id="resp")

    async def stream_response(self, system_instructions: Any, input: Any, *args: Any,  # noqa: A002
                              **kwargs: Any) -> AsyncIterator[Any]:
        response = Response(id="resp", created_at=0, model="scripted", object="response", output=self._next(input),
                            tool_choice="auto", tools=[], parallel_tool_calls=True, status="completed")
        yield ResponseCompletedEvent(type="response.completed", response=response, sequence_number=0)


def _as_dict(item: Any) -> dict[str, Any]:
    return dict(item) if isinstance(item, dict) else item.model_dump(exclude_none=True)


def _text(text: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(id="msg-1", type="message", role="assistant", status="completed",
                                 content=[ResponseOutputText(type="output_text", text=text, annotations=[])])


def tool(name: str, output: str) -> FunctionTool:
    async def invoke(context: Any, arguments: str) -> str:
        return output

    return FunctionTool(name=name, description=name, on_invoke_tool=invoke, strict_json_schema=False,
                        params_json_schema={"type": "object", "properties": {}})


def shape(items: list[dict[str, Any]]) -> list[str]:
    shown = []
    for item in items:
        kind = item.get("type") or "message"
        if kind == "function_call":
            shown.append(f"call {item['call_id']} {item['name']}")
        elif kind == "function_call_output":
            shown.append(f"result {item['call_id']} {item['output']!r}")
        else:
            shown.append(f"{item.get('role')} message")
    return shown


async def run(streaming: bool) -> bool:
    migration = ResponseFunctionToolCall(id="fc-2", type="function_call", call_id="c1", name="run_migration",
                                         arguments='{"name": "002"}', status="completed")
    model = ScriptedModel([[migration], [_text("Migration 002 is applied.")]])
    the_agent = Agent(name="assistant", model=model,
                      tools=[tool("backup_db", "backup written"), tool("run_migration", "migration applied")])
    if streaming:
        result = Runner.run_streamed(the_agent, list(HISTORY))
        async for _ in result.stream_events():
            pass
    else:
        await Runner.run(the_agent, list(HISTORY))
    expected = [*shape(list(HISTORY)), "call c1 run_migration", "result c1 'migration applied'"]
    received = shape(model.inputs[1])
    ok = received == expected
    print(f"  {'streaming' if streaming else 'non-streaming'}: the second model call received {received}"
          f"{'' if ok else '   <- rewritten'}")
    return ok


async def main() -> int:
    set_tracing_disabled(True)
    print(f"openai-agents {importlib.metadata.version('openai-agents')}")
    print(f"  expected: {[*shape(list(HISTORY)), 'call c1 run_migration', 'result c1 ' + repr('migration applied')]}")
    results = [await run(streaming) for streaming in (False, True)]
    if all(results):
        print("FIXED: the completed round stayed in place and the new round followed it")
        return 0
    print("DEFECT: a reused call id made the runner drop the completed round's result and move the new call into "
          "its place in the history sent to the model")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

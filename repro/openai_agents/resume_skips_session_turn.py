"""Resuming a paused run's state continues from the history the state captured, not from the session's.

What it shows
    With a `SQLiteSession`, the model asks for `delete_file` (needs approval) and the run pauses. Before deciding,
    the user asks something unrelated in the same session ("Before that: how much space is free?"), which the model
    answers. Then the user approves: ``state.approve(...)`` and ``Runner.run(agent, state, session=session)``. The
    approved call runs once and nothing is orphaned, but the model call that follows the approval receives only the
    original request, the call and its result: the unrelated turn, stored in the session, is missing from what the
    model sees.

Spec rows violated (spec 004)
    "Pending history turn | An unresolved approval batch is omitted atomically from unrelated model input while a
    later decision can still resume it once." (resumed within the conversation the caller had meanwhile)

Affected releases
    openai-agents 0.20.0 – 0.24.0, still present (checked on 0.20.0, 0.21.1, 0.22.3, 0.23.1 and 0.24.0).

Run
    <venv with openai-agents>/bin/python repro/openai_agents/resume_skips_session_turn.py
    Exit status 1: the defect is present. Exit status 0: in both response modes the model call after the approval
    saw the unrelated turn.
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

executions: list[str] = []


class ScriptedModel(Model):
    """A model that answers with the scripted output items in order and keeps the input of every call."""

    def __init__(self, script: list[list[Any]]) -> None:
        self.script = list(script)
        self.calls = 0
        self.inputs: list[Any] = []
        self.tool_choices: list[Any] = []

    def _next(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        self.calls += 1
        self.inputs.append(kwargs["input"] if "input" in kwargs else args[1])
        self.tool_choices.append((kwargs["model_settings"] if "model_settings" in kwargs else args[2]).tool_choice)
        return self.script.pop(0) if self.script else [_text("(an extra model call)")]

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        return ModelResponse(output=self._next(args, kwargs), usage=Usage(requests=1), response_id=f"resp-{self.calls}")

    async def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        response = Response(id=f"resp-{self.calls}", created_at=0, model="scripted", object="response",
                            output=self._next(args, kwargs), tool_choice="auto", tools=[], parallel_tool_calls=True,
                            status="completed")
        yield ResponseCompletedEvent(type="response.completed", response=response, sequence_number=0)


def _text(text: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(id="msg-1", type="message", role="assistant", status="completed",
                                 content=[ResponseOutputText(type="output_text", text=text, annotations=[])])


def _call(call_id: str, name: str, arguments: str) -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(id=f"fc-{call_id}", type="function_call", call_id=call_id, name=name,
                                    arguments=arguments, status="completed")


def _field(item: Any, name: str) -> Any:
    return item.get(name) if isinstance(item, dict) else getattr(item, name, None)


def outputs_sent(model: ScriptedModel, call: int) -> list[tuple[str, Any]]:
    """The (call id, output) pairs of every function_call_output item model call `call` received."""
    return [(_field(item, "call_id"), _field(item, "output")) for item in model.inputs[call - 1]
            if _field(item, "type") == "function_call_output"]


async def drive(agent: Agent[Any], run_input: Any, streaming: bool, **options: Any) -> Any:
    if not streaming:
        return await Runner.run(agent, run_input, **options)
    result = Runner.run_streamed(agent, run_input, **options)
    async for _ in result.stream_events():
        pass
    return result


QUESTION = "Before that: how much space is free?"


def tool() -> FunctionTool:
    async def invoke(context: Any, arguments: str) -> str:
        executions.append(arguments)
        return "deleted"

    return FunctionTool(name="delete_file", description="delete_file", on_invoke_tool=invoke, needs_approval=True,
                        strict_json_schema=False, params_json_schema={"type": "object", "properties": {}})


def texts(items: Any) -> list[str]:
    return [content for item in (items if isinstance(items, list) else [items])
            if isinstance(content := _field(item, "content"), str)]


async def run(streaming: bool) -> bool:
    from agents import SQLiteSession

    executions.clear()
    session = SQLiteSession(f"repro-{streaming}")
    model = ScriptedModel([[_call("c1", "delete_file", '{"path": "/tmp/report.txt"}')], [_text("12 GB are free.")],
                           [_text("The file is deleted.")]])
    agent = Agent(name="assistant", model=model, tools=[tool()])
    paused = await drive(agent, "Delete /tmp/report.txt", streaming, session=session)
    await drive(agent, QUESTION, streaming, session=session)
    state = paused.to_state()
    state.approve(paused.interruptions[0])
    await drive(agent, state, streaming, session=session)
    stored = texts(await session.get_items())
    seen = texts(model.inputs[-1])
    label = "streaming" if streaming else "non-streaming"
    print(f"  {label}: executed {executions}; the session holds the texts {stored}")
    print(f"  {label}: the model call after the approval saw the texts {seen}"
          + ("   <- the unrelated turn is missing" if QUESTION not in seen else ""))
    session.close()
    return QUESTION in seen


async def main() -> int:
    set_tracing_disabled(True)
    print(f"openai-agents {importlib.metadata.version('openai-agents')}")
    results = [await run(streaming) for streaming in (False, True)]
    if all(results):
        print("FIXED: the resumed run's model call saw the session's later turn")
        return 0
    print("DEFECT: the model call after the approval lost the turn the session had meanwhile")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

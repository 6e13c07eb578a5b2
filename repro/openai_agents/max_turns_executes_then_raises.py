"""When max_turns runs out, the runner executes the last round's calls and then raises MaxTurnsExceeded.

What it shows
    Two cases, in both response modes:

    * Plain loop. ``max_turns=2`` and the model asks for `search` in each of its two allowed calls. The runner
      executes the second call — its side effect happens — and then, instead of one last model call without tools,
      raises `MaxTurnsExceeded`.
    * Approval re-entry. ``max_turns=1``: the run's one model call asks for `delete_file`, which needs approval, so
      the run pauses. The caller approves on the run's state (``result.to_state()``, ``state.approve(...)``) and
      resumes with the same ``max_turns``. The runner executes the approved call — the file is deleted — and then
      raises `MaxTurnsExceeded`.

    Either way the caller gets an exception instead of a response holding the executed call's result (its output
    item survives only inside the exception's ``run_data``), and the model never learns the outcome. A caller that
    takes the exception for a failed run and retries it runs the side effect a second time.

Spec rows violated (spec 004)
    "Maximum iterations | No orphan calls; a final no-tool response or deterministic fallback is returned."
    "Approval re-entry after iteration budget | Pending approved calls resolve once even when prior model calls
    consumed `max_iterations`."

Affected releases
    openai-agents 0.20.0 – 0.24.0, still present (checked on 0.20.0, 0.21.1, 0.22.3, 0.23.1 and 0.24.0).

Run
    <venv with openai-agents>/bin/python repro/openai_agents/max_turns_executes_then_raises.py
    Exit status 1: the defect is present. Exit status 0: in every case each executed call's result came back in a
    normal result of the run.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from collections.abc import AsyncIterator
from typing import Any

from agents import Agent, FunctionTool, MaxTurnsExceeded, ModelResponse, Runner, Usage, set_tracing_disabled
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
    """A model that answers with the scripted output items in order and counts its calls."""

    def __init__(self, script: list[list[Any]]) -> None:
        self.script = list(script)
        self.calls = 0

    def _next(self) -> list[Any]:
        self.calls += 1
        return self.script.pop(0) if self.script else [_text("(an extra model call)")]

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        return ModelResponse(output=self._next(), usage=Usage(requests=1), response_id=f"resp-{self.calls}")

    async def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        response = Response(id=f"resp-{self.calls}", created_at=0, model="scripted", object="response",
                            output=self._next(), tool_choice="auto", tools=[], parallel_tool_calls=True,
                            status="completed")
        yield ResponseCompletedEvent(type="response.completed", response=response, sequence_number=0)


def _text(text: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(id="msg-1", type="message", role="assistant", status="completed",
                                 content=[ResponseOutputText(type="output_text", text=text, annotations=[])])


def _call(call_id: str, name: str, arguments: str) -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(id=f"fc-{call_id}", type="function_call", call_id=call_id, name=name,
                                    arguments=arguments, status="completed")


def tool(name: str, output: str, approval: bool) -> FunctionTool:
    async def invoke(context: Any, arguments: str) -> str:
        executions.append(f"{name} {arguments}")
        return output

    return FunctionTool(name=name, description=name, on_invoke_tool=invoke, strict_json_schema=False,
                        params_json_schema={"type": "object", "properties": {}}, needs_approval=approval)


async def drive(agent: Agent[Any], run_input: Any, max_turns: int, streaming: bool) -> Any:
    if not streaming:
        return await Runner.run(agent, run_input, max_turns=max_turns)
    result = Runner.run_streamed(agent, run_input, max_turns=max_turns)
    async for _ in result.stream_events():
        pass
    return result


async def plain(streaming: bool) -> Any:
    model = ScriptedModel([[_call("c1", "search", '{"query": "one"}')], [_call("c2", "search", '{"query": "two"}')],
                           [_text("Here is what I found.")]])
    agent = Agent(name="assistant", model=model, tools=[tool("search", "a result", approval=False)])
    return await drive(agent, "Research this", 2, streaming)


async def approval_reentry(streaming: bool) -> Any:
    model = ScriptedModel([[_call("c1", "delete_file", '{"path": "/tmp/report.txt"}')],
                           [_text("The file is deleted.")]])
    agent = Agent(name="assistant", model=model, tools=[tool("delete_file", "deleted", approval=True)])
    paused = await drive(agent, "Delete /tmp/report.txt", 1, streaming)
    state = paused.to_state()
    state.approve(paused.interruptions[0])
    return await drive(agent, state, 1, streaming)


async def case(name: str, scenario: Any, streaming: bool) -> bool:
    executions.clear()
    label = f"{name}, {'streaming' if streaming else 'non-streaming'}"
    try:
        result = await scenario(streaming)
    except MaxTurnsExceeded as raised:
        print(f"  {label}: executed {executions}, then the run raised {type(raised).__name__}: {raised}"
              "   <- no response, no result")
        return False
    outputs = [item.output for item in result.new_items if item.type == "tool_call_output_item"]
    print(f"  {label}: executed {executions}; the run returned outputs {outputs}")
    return len(outputs) >= len(executions)


async def main() -> int:
    set_tracing_disabled(True)
    print(f"openai-agents {importlib.metadata.version('openai-agents')}")
    results = [await case(name, scenario, streaming)
               for name, scenario in (("plain loop", plain), ("approval re-entry", approval_reentry))
               for streaming in (False, True)]
    if all(results):
        print("FIXED: every executed call's result came back in the run's result")
        return 0
    print("DEFECT: at the max_turns limit the runner executed a call and then raised MaxTurnsExceeded; the caller "
          "got no response holding its result and the model never saw it")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

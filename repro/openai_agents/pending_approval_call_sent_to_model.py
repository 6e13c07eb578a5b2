"""A call still waiting for approval reaches the model without a result when the caller goes on with its history.

What it shows
    The model asks for `delete_file`, which needs approval, so the run pauses with an interruption. Instead of
    deciding, the user asks something unrelated. A caller that keeps the conversation itself continues as the SDK
    documents, with ``result.to_input_list()`` plus the new user message. `to_input_list()` of the paused run holds
    the `function_call` but, the call being undecided, no `function_call_output`, and the runner sends that history
    to the model unchanged: the model receives a call without a result (the Responses API rejects such a request:
    "No tool output found for function call"). The same conversation kept in a `Session` is clean — the runner hides
    the pending call from the unrelated turn — so only the caller-kept path leaks it. The pending approval stays
    resumable from the paused run's state either way.

Spec rows violated (spec 004)
    "Pending history turn | An unresolved approval batch is omitted atomically from unrelated model input while a
    later decision can still resume it once."
    Function calls and results: "Every actionable local `function_call` produces exactly one terminal
    `function_result`, unless execution pauses for a new user-input request." (no orphaned call in model-bound
    history)

Affected releases
    openai-agents 0.20.0 – 0.24.0, still present (checked on 0.20.0, 0.21.1, 0.22.3, 0.23.1 and 0.24.0).

Run
    <venv with openai-agents>/bin/python repro/openai_agents/pending_approval_call_sent_to_model.py
    Exit status 1: the defect is present. Exit status 0: in both response modes the unrelated turn's model call
    held no call without a result.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from collections.abc import AsyncIterator
from typing import Any

from agents import Agent, FunctionTool, ModelResponse, Runner, SQLiteSession, Usage, set_tracing_disabled
from agents.models.interface import Model
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)


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


async def delete_file(context: Any, arguments: str) -> str:
    return "deleted"


def agent(model: ScriptedModel) -> Agent[Any]:
    tool = FunctionTool(name="delete_file", description="Delete a file.", on_invoke_tool=delete_file,
                        params_json_schema={"type": "object", "properties": {"path": {"type": "string"}},
                                            "required": ["path"], "additionalProperties": False},
                        needs_approval=True)
    return Agent(name="assistant", model=model, tools=[tool])


def orphans(items: list[dict[str, Any]]) -> list[str]:
    """Call ids of function calls in a model input that have no function_call_output."""
    answered = {item.get("call_id") for item in items if item.get("type") == "function_call_output"}
    return [str(item.get("call_id")) for item in items
            if item.get("type") == "function_call" and item.get("call_id") not in answered]


async def run(streaming: bool, session: SQLiteSession | None) -> list[str]:
    call = ResponseFunctionToolCall(id="fc-1", type="function_call", call_id="c1", name="delete_file",
                                    arguments='{"path": "/tmp/a.txt"}', status="completed")
    model = ScriptedModel([[call], [_text("About 12 GB.")]])
    the_agent = agent(model)

    async def drive(run_input: Any) -> Any:
        if not streaming:
            return await Runner.run(the_agent, run_input, session=session)
        result = Runner.run_streamed(the_agent, run_input, session=session)
        async for _ in result.stream_events():
            pass
        return result

    paused = await drive("Delete /tmp/a.txt")
    assert paused.interruptions, "the run should pause for approval"
    question = {"role": "user", "content": "Before that: how much space is free?"}
    await drive([question] if session is not None else [*paused.to_input_list(), question])
    found = orphans(model.inputs[-1])
    kept = "session-kept" if session is not None else "caller-kept (to_input_list)"
    print(f"  {'streaming' if streaming else 'non-streaming'}, {kept} history: the unrelated turn's model input "
          f"holds {[i.get('type') or i.get('role') for i in model.inputs[-1]]}"
          f"{f'   <- call(s) {found} without a result' if found else ''}")
    return found


async def main() -> int:
    set_tracing_disabled(True)
    print(f"openai-agents {importlib.metadata.version('openai-agents')}")
    leaked = []
    for streaming in (False, True):
        leaked += await run(streaming, None)
        await run(streaming, SQLiteSession(f"repro-{streaming}"))  # for contrast: the session path
    if not leaked:
        print("FIXED: no call without a result reached the model on the unrelated turn")
        return 0
    print("DEFECT: continuing a paused run's history with to_input_list() sends the model the pending call "
          "without a result")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

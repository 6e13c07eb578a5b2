"""A long-running tool's result sent in the same message as a tool confirmation never reaches the model.

What it shows
    One model response calls two tools: `deploy` (a `FunctionTool` with ``require_confirmation=True``) and
    `confirm_window` (a `LongRunningFunctionTool`, whose result the client sends later). The run pauses with an
    ``adk_request_confirmation`` call. The client answers both in its next message, as one `Content` holding two
    function responses: ``{"confirmed": true}`` for the confirmation request and the window's result for
    `confirm_window`. ADK runs `deploy` once and calls the model, but the model's history holds both calls and
    only `deploy`'s result: `confirm_window`'s call goes to the model without its result, and the result the
    client sent is gone. Control cases: the same long-running result sent alone (no confirmation in the message)
    reaches the model; the same confirmation sent alone (no long-running call) runs the tool and delivers its
    result.

Why
    Building the request, `_should_include_event_in_context` (`google.adk.flows.llm_flows.contents`; from the 2.x
    split on, `google.adk.flows.llm_flows.context._contents`) drops every event `_is_request_confirmation_event`
    matches, and that matches an event if any one of its parts is an
    ``adk_request_confirmation`` call or response. The client's message is such an event, so the function response
    beside the confirmation is dropped with it, while `drop_orphaned_function_calls` keeps the long-running call.

Spec rows violated (spec 004)
    "every function call sent to the model has exactly one result" (no orphan calls); the client's result is also
    never delivered.

Affected releases
    google-adk 1.14.1 ... 2.13.0, still present (checked on 1.14.1, 1.18.0, 1.19.0, 1.20.0, 1.39.1, 2.0.0, 2.6.3,
    2.10.0, 2.11.0, 2.12.0 and 2.13.0).

Run
    <venv with google-adk>/bin/python repro/google_adk/confirmation_drops_sibling_result.py
    Exit status 1: the defect is present. Exit status 0: in both response modes every call in the model's last
    request has its result.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from collections.abc import AsyncGenerator
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.agents.run_config import RunConfig, StreamingMode
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.adk.tools import FunctionTool, LongRunningFunctionTool
from google.genai import types

executions: list[str] = []


def _call(call_id: str, name: str, **args: Any) -> types.Part:
    return types.Part(function_call=types.FunctionCall(id=call_id, name=name, args=args))


def _response(call_id: str, name: str, response: dict[str, Any]) -> types.Part:
    return types.Part(function_response=types.FunctionResponse(id=call_id, name=name, response=response))


class ScriptedModel(BaseLlm):
    """Answers with the scripted contents in order and records every request's contents."""

    model: str = "scripted"
    script: list[list[types.Part]]
    requests: list[list[types.Content]] = []

    async def generate_content_async(self, llm_request: LlmRequest,
                                     stream: bool = False) -> AsyncGenerator[LlmResponse, None]:
        self.requests.append(list(llm_request.contents))
        parts = self.script.pop(0) if self.script else [types.Part(text="(an extra model call)")]
        content = types.Content(role="model", parts=parts)
        if stream:
            yield LlmResponse(content=content, partial=True)
        yield LlmResponse(content=content, partial=False)


def deploy(version: str) -> str:
    """Deploys a release."""
    executions.append(f"deploy {version}")
    return "deployed"


def confirm_window(window: str) -> None:
    """Starts confirming a change window; the client sends the result."""
    return None


def unanswered_calls(model: ScriptedModel) -> list[str]:
    """The calls in the model's last request without a result."""
    parts = [p for c in model.requests[-1] for p in c.parts or []]
    answered = {p.function_response.id for p in parts if p.function_response}
    return [p.function_call.name or "" for p in parts if p.function_call and p.function_call.id not in answered]


async def run(first: list[types.Part], answer: Any, streaming: bool) -> tuple[ScriptedModel, int]:
    """One session: the model's calls, then the client's answer (built from the confirmation request's id)."""
    executions.clear()
    model = ScriptedModel(script=[first, [types.Part(text="Done.")]])
    agent = LlmAgent(name="assistant", model=model, tools=[
        FunctionTool(deploy, require_confirmation=True), LongRunningFunctionTool(confirm_window)])
    sessions = InMemorySessionService()
    runner = Runner(app_name="repro", agent=agent, session_service=sessions)
    session = await sessions.create_session(app_name="repro", user_id="u")
    config = RunConfig(streaming_mode=StreamingMode.SSE if streaming else StreamingMode.NONE)
    confirmation = ""
    message = types.Content(role="user", parts=[types.Part(text="Deploy 4.2 in tonight's window.")])
    async for event in runner.run_async(user_id="u", session_id=session.id, new_message=message, run_config=config):
        confirmation = next((c.id or "" for c in event.get_function_calls()
                             if c.name == "adk_request_confirmation"), confirmation)
    message = types.Content(role="user", parts=answer(confirmation))
    async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=message, run_config=config):
        pass
    await runner.close()
    return model, len(executions)


def _both(confirmation: str) -> list[types.Part]:
    return [_response(confirmation, "adk_request_confirmation", {"confirmed": True}),
            _response("c2", "confirm_window", {"result": "window confirmed"})]


async def check(streaming: bool) -> bool:
    label = "streaming" if streaming else "non-streaming"
    # Control 1: the long-running result alone.
    model, _ = await run([_call("c2", "confirm_window", window="tonight")],
                         lambda _: [_response("c2", "confirm_window", {"result": "window confirmed"})], streaming)
    control_result = unanswered_calls(model)
    # Control 2: the confirmation alone.
    model, ran = await run([_call("c1", "deploy", version="4.2")],
                           lambda c: [_response(c, "adk_request_confirmation", {"confirmed": True})], streaming)
    control_confirmation = (unanswered_calls(model), ran)
    # The defect: both answers in one message.
    model, ran = await run([_call("c1", "deploy", version="4.2"), _call("c2", "confirm_window", window="tonight")],
                           _both, streaming)
    unanswered = unanswered_calls(model)
    print(f"  {label}: control (result alone): unanswered {control_result}; control (confirmation alone): "
          f"unanswered {control_confirmation[0]}, deploy ran {control_confirmation[1]}x; "
          f"both in one message: deploy ran {ran}x, unanswered in the model's request {unanswered}")
    if control_result or control_confirmation != ([], 1):
        print(f"  {label}: a control case failed; the reproduction proves nothing here")
        return False
    return ran == 1 and not unanswered


async def main() -> int:
    print(f"google-adk {importlib.metadata.version('google-adk')}")
    results = [await check(streaming) for streaming in (False, True)]
    if all(results):
        print("FIXED: the long-running result sent beside the confirmation reaches the model with its call")
        return 0
    print("DEFECT: the long-running tool's call reaches the model without the result the client sent beside the "
          "confirmation")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

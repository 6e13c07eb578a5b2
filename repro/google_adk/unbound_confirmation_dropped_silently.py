"""A confirmation whose request is not in the session is dropped silently, and the model gets the call unanswered.

What it shows
    The model calls `delete_file` (a `FunctionTool` with ``require_confirmation=True``) and the run pauses with an
    ``adk_request_confirmation`` call. The client persists the conversation's model transcript only (the user's
    message and the model's call, not ADK's confirmation request), restores it into a new session with
    `append_event`, and sends its confirmation (``{"confirmed": true}`` for the request's id) as the next run's new
    message. The run ends without an error, `delete_file` never runs, and the model is called with `delete_file`'s
    call and no result for it: the decision is neither honoured nor refused. Control case: the same confirmation
    sent into the session that holds the request runs `delete_file` once and the model gets its result.
    Fixed means the client learns of it: the tool runs, or the run refuses the confirmation with an error
    (2.0.0's `Runner` raises "Function call not found for function response ids").

Why
    The request-confirmation processor (`google.adk.flows.llm_flows.request_confirmation`) only acts on responses
    to ``adk_request_confirmation`` calls it finds in the session's events, so an answer to a request it cannot find
    does nothing; building the model's request, `_should_include_event_in_context`
    (`google.adk.flows.llm_flows.contents`) drops the client's event as a confirmation event
    (`_is_request_confirmation_event`), so nothing of the decision remains, while the restored call stays in the
    history without a result. 2.0.0's `Runner._resolve_invocation_id_from_fr` refuses a function response whose
    call is not in the session.

Spec rows violated (spec 004)
    "Persisted approval replay" (the caller's decision is honoured or refused visibly), and "every function call
    sent to the model has exactly one result" (no orphan calls).

Affected releases
    google-adk 1.18.0 ... 1.39.1; fixed in 2.0.0 (checked on 1.18.0, 1.19.0, 1.20.0, 1.39.1, 2.0.0, 2.10.0, 2.11.0,
    2.12.0 and 2.13.0).

Run
    <venv with google-adk>/bin/python repro/google_adk/unbound_confirmation_dropped_silently.py
    Exit status 1: the defect is present. Exit status 0: in both response modes the confirmation is honoured or
    refused with an error. Exit status 2: the control case failed, so the run proves nothing.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from collections.abc import AsyncGenerator

from google.adk.agents import LlmAgent
from google.adk.agents.run_config import RunConfig, StreamingMode
from google.adk.events.event import Event
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.adk.tools import FunctionTool
from google.genai import types

executions: list[str] = []
CALL = types.Part(function_call=types.FunctionCall(id="c1", name="delete_file", args={"path": "/tmp/report.txt"}))
ASK = types.Content(role="user", parts=[types.Part(text="Delete /tmp/report.txt")])


class ScriptedModel(BaseLlm):
    """Calls delete_file, then answers in text; records every request's contents."""

    model: str = "scripted"
    requests: list[list[types.Content]] = []

    async def generate_content_async(self, llm_request: LlmRequest,
                                     stream: bool = False) -> AsyncGenerator[LlmResponse, None]:
        self.requests.append(list(llm_request.contents))
        parts = [CALL] if len(self.requests) == 1 else [types.Part(text="The file is deleted.")]
        content = types.Content(role="model", parts=parts)
        if stream:
            yield LlmResponse(content=content, partial=True)
        yield LlmResponse(content=content, partial=False)


def delete_file(path: str) -> str:
    """Deletes a file."""
    executions.append(path)
    return "deleted"


def unanswered_calls(contents: list[types.Content]) -> list[str]:
    parts = [p for c in contents for p in c.parts or []]
    answered = {p.function_response.id for p in parts if p.function_response}
    return [p.function_call.name or "" for p in parts if p.function_call and p.function_call.id not in answered]


async def resume(restored: bool, streaming: bool) -> str:
    """Pause on the confirmation, then confirm: in the same session, or in a new one restored without the request."""
    executions.clear()
    model = ScriptedModel()
    agent = LlmAgent(name="assistant", model=model, tools=[FunctionTool(delete_file, require_confirmation=True)])
    sessions = InMemorySessionService()
    runner = Runner(app_name="repro", agent=agent, session_service=sessions)
    config = RunConfig(streaming_mode=StreamingMode.SSE if streaming else StreamingMode.NONE)
    session = await sessions.create_session(app_name="repro", user_id="u")
    request = ""
    async for event in runner.run_async(user_id="u", session_id=session.id, new_message=ASK, run_config=config):
        request = next((c.id or "" for c in event.get_function_calls() if c.name == "adk_request_confirmation"),
                       request)
    if restored:  # the client's store keeps the model transcript, not ADK's confirmation request
        session = await sessions.create_session(app_name="repro", user_id="u")
        for author, content in (("user", ASK), ("assistant", types.Content(role="model", parts=[CALL]))):
            await sessions.append_event(session, Event(invocation_id="restored", author=author, content=content))
    answer = types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
        id=request, name="adk_request_confirmation", response={"confirmed": True}))])
    calls_before = len(model.requests)
    try:
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=answer, run_config=config):
            pass
    except ValueError as error:
        return f"refused ({str(error).splitlines()[0]})"
    finally:
        await runner.close()
    if len(model.requests) == calls_before:
        return "no model call"
    unanswered = unanswered_calls(model.requests[-1])
    return f"delete_file ran {len(executions)}x; unanswered in the model's request {unanswered}"


async def main() -> int:
    print(f"google-adk {importlib.metadata.version('google-adk')}")
    silent = False
    for streaming in (False, True):
        label = "streaming" if streaming else "non-streaming"
        control = await resume(restored=False, streaming=streaming)
        outcome = await resume(restored=True, streaming=streaming)
        print(f"  {label}: control (same session): {control}; restored without the request: {outcome}")
        if control != "delete_file ran 1x; unanswered in the model's request []":
            print(f"  {label}: the control case failed; the reproduction proves nothing here")
            return 2
        silent = silent or outcome == "delete_file ran 0x; unanswered in the model's request ['delete_file']"
    if silent:
        print("DEFECT: the confirmation is dropped without a word and the model gets delete_file's call unanswered")
        return 1
    print("FIXED: the confirmation is honoured or refused with an error")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

"""A call id the model reuses in a later round: after a confirmation, the earlier call gets the later call's result.

What it shows
    One session. The model calls `list_files` with call id c1; it runs. In the next round the model calls
    `delete_files`, reusing the id c1 (providers that number call ids per response do); `delete_files` needs
    confirmation (``FunctionTool(..., require_confirmation=True)``) and the run pauses. The client confirms. ADK
    runs `delete_files` once, but the model's next request pairs the first call (`list_files`) with
    `delete_files`' result: the first pair loses its own result ("a.log, b.log"), and the second call is followed
    by the same result again. Control case: the same two rounds with distinct ids (c1, c2) reach the model as two
    pairs, each with its own result.

Why
    Building the request after the confirmed call ran, ADK rearranges the history in
    `google.adk.flows.llm_flows.contents` (`_rearrange_events_for_latest_function_response`,
    `_rearrange_events_for_async_function_responses_in_history`), which find the call a response answers by its id
    alone: the response to the later c1 is filed under the first call with that id, and the events between them
    are removed.

Spec rows violated (spec 004)
    "Reused id after completion": a later round with the same id creates a second valid pair.

Affected releases
    google-adk 1.14.1 ... 2.10.0 (checked on 1.14.1, 1.18.0, 1.19.0, 1.20.0, 1.39.1, 2.0.0, 2.6.3,
    2.10.0); fixed in 2.11.0 (checked
    on 2.11.0, 2.12.0, 2.13.0), whose rearrangement (`flows/llm_flows/tools/_rearranger.py`) pairs a response with
    the latest call of its id.

Run
    <venv with google-adk>/bin/python repro/google_adk/reused_call_id_result_swapped.py
    Exit status 1: the defect is present. Exit status 0: in both response modes the model's last request holds the
    two c1 pairs, each with its own result.
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
from google.adk.tools import FunctionTool
from google.genai import types

executions: list[str] = []


def _call(call_id: str, name: str, **args: Any) -> types.Part:
    return types.Part(function_call=types.FunctionCall(id=call_id, name=name, args=args))


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


def list_files(path: str) -> str:
    """Lists files."""
    executions.append("list_files")
    return "a.log, b.log"


def delete_files(pattern: str) -> str:
    """Deletes files."""
    executions.append("delete_files")
    return "2 files deleted"


def pairs(model: ScriptedModel) -> list[tuple[str, str]]:
    """The (call name, result) pairs of the model's last request, a result taken from the response after the call."""
    parts = [p for c in model.requests[-1] for p in c.parts or []]
    found: list[tuple[str, str]] = []
    for index, part in enumerate(parts):
        if part.function_call is None:
            continue
        result = next((p.function_response for p in parts[index + 1:] if p.function_response
                       and p.function_response.id == part.function_call.id), None)
        found.append((part.function_call.name or "", str((result.response or {}).get("result")) if result else "-"))
    return found


async def run(second_id: str, streaming: bool) -> tuple[list[tuple[str, str]], int]:
    executions.clear()
    model = ScriptedModel(script=[[_call("c1", "list_files", path="/tmp")],
                                  [_call(second_id, "delete_files", pattern="/tmp/*.log")],
                                  [types.Part(text="Deleted.")]])
    agent = LlmAgent(name="assistant", model=model,
                     tools=[list_files, FunctionTool(delete_files, require_confirmation=True)])
    sessions = InMemorySessionService()
    runner = Runner(app_name="repro", agent=agent, session_service=sessions)
    session = await sessions.create_session(app_name="repro", user_id="u")
    config = RunConfig(streaming_mode=StreamingMode.SSE if streaming else StreamingMode.NONE)
    confirmation = ""
    message = types.Content(role="user", parts=[types.Part(text="Clean up the logs in /tmp.")])
    async for event in runner.run_async(user_id="u", session_id=session.id, new_message=message, run_config=config):
        confirmation = next((c.id or "" for c in event.get_function_calls()
                             if c.name == "adk_request_confirmation"), confirmation)
    message = types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
        id=confirmation, name="adk_request_confirmation", response={"confirmed": True}))])
    async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=message, run_config=config):
        pass
    await runner.close()
    return pairs(model), executions.count("delete_files")


async def check(streaming: bool) -> bool:
    label = "streaming" if streaming else "non-streaming"
    expected = [("list_files", "a.log, b.log"), ("delete_files", "2 files deleted")]
    control, _ = await run("c2", streaming)
    reused, ran = await run("c1", streaming)
    print(f"  {label}: control (ids c1, c2): {control}; reused id c1: {reused}, delete_files ran {ran}x")
    if control != expected:
        print(f"  {label}: the control case failed; the reproduction proves nothing here")
        return False
    return reused == expected and ran == 1


async def main() -> int:
    print(f"google-adk {importlib.metadata.version('google-adk')}")
    results = [await check(streaming) for streaming in (False, True)]
    if all(results):
        print("FIXED: each occurrence of the reused id keeps its own result")
        return 0
    print("DEFECT: the earlier call with the reused id is paired with the later call's result")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

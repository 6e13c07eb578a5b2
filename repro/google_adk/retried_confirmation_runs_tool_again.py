"""A tool confirmation the client sends again after the model call failed runs the confirmed tool a second time.

What it shows
    One session. The model calls `deploy_release`, which needs confirmation (``FunctionTool(...,
    require_confirmation=True)``); the run pauses with an ``adk_request_confirmation`` call. The client confirms:
    ADK runs the tool, then the model call that would carry its result fails (the model raises). The client retries
    the turn, sending the same confirmation again, as a client does after an error. ADK runs `deploy_release` a
    second time: one confirmed call, two executions of its side effect. Control case: the same confirmation sent
    once, with a model that answers, runs the tool once.

Why
    On the retry ADK's request-confirmation processor (`google.adk.flows.llm_flows.request_confirmation`; from the
    2.x split on, `google.adk.flows.llm_flows.tools._confirmation`) reads the confirmation from the last user event
    and re-runs the confirmed call without checking whether the session already holds that call's result from the
    first confirmation.

Spec rows violated (spec 004)
    "Approved result replayed without re-execution": an approved call runs exactly once, and a retry after a failed
    model call delivers the stored result instead of running the tool again.

Affected releases
    google-adk 1.18.0 ... 2.11.0 (checked on 1.18.0, 1.19.0, 1.20.0, 2.0.0, 2.6.3, 2.10.0, 2.11.0); fixed in 2.12.0
    (checked on 2.12.0 and 2.13.0), whose processor drops a confirmation already consumed by an earlier resume.

Run
    <venv with google-adk>/bin/python repro/google_adk/retried_confirmation_runs_tool_again.py
    Exit status 1: the defect is present. Exit status 0: in both response modes the retry runs nothing.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from collections.abc import AsyncGenerator

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


class ScriptedModel(BaseLlm):
    """Answers with the scripted contents in order; `None` in the script makes that call fail."""

    model: str = "scripted"
    script: list[list[types.Part] | None]

    async def generate_content_async(self, llm_request: LlmRequest,
                                     stream: bool = False) -> AsyncGenerator[LlmResponse, None]:
        parts = self.script.pop(0) if self.script else [types.Part(text="(an extra model call)")]
        if parts is None:
            raise RuntimeError("the model call failed")
        content = types.Content(role="model", parts=parts)
        if stream:
            yield LlmResponse(content=content, partial=True)
        yield LlmResponse(content=content, partial=False)


def deploy_release(version: str) -> str:
    """Deploys a release."""
    executions.append(version)
    return "deployed"


async def run(fail_first_answer: bool, streaming: bool) -> int:
    """The confirmed call's executions; with a failing model call after it, the client retries once."""
    executions.clear()
    call = types.Part(function_call=types.FunctionCall(id="c1", name="deploy_release", args={"version": "4.2"}))
    answer = [types.Part(text="Deployed.")]
    model = ScriptedModel(script=[[call], None, answer] if fail_first_answer else [[call], answer])
    agent = LlmAgent(name="assistant", model=model, tools=[FunctionTool(deploy_release, require_confirmation=True)])
    sessions = InMemorySessionService()
    runner = Runner(app_name="repro", agent=agent, session_service=sessions)
    session = await sessions.create_session(app_name="repro", user_id="u")
    config = RunConfig(streaming_mode=StreamingMode.SSE if streaming else StreamingMode.NONE)
    confirmation = ""
    message = types.Content(role="user", parts=[types.Part(text="Deploy 4.2.")])
    async for event in runner.run_async(user_id="u", session_id=session.id, new_message=message, run_config=config):
        confirmation = next((c.id or "" for c in event.get_function_calls()
                             if c.name == "adk_request_confirmation"), confirmation)
    decision = types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
        id=confirmation, name="adk_request_confirmation", response={"confirmed": True}))])
    for _attempt in range(2 if fail_first_answer else 1):
        try:
            async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=decision,
                                            run_config=config):
                pass
        except Exception:  # noqa: BLE001 - whatever the run raised, the client retries
            continue  # the model call failed: the client sends the same decision again
    await runner.close()
    return len(executions)


async def check(streaming: bool) -> bool:
    label = "streaming" if streaming else "non-streaming"
    control = await run(False, streaming)
    retried = await run(True, streaming)
    print(f"  {label}: control (confirmed once): {control} execution(s); confirmed, model call failed, "
          f"confirmation sent again: {retried} execution(s)")
    if control != 1:
        print(f"  {label}: the control case failed; the reproduction proves nothing here")
        return False
    return retried == 1


async def main() -> int:
    print(f"google-adk {importlib.metadata.version('google-adk')}")
    results = [await check(streaming) for streaming in (False, True)]
    if all(results):
        print("FIXED: the retried confirmation does not run the confirmed tool again")
        return 0
    print("DEFECT: the retried confirmation runs the confirmed tool a second time")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

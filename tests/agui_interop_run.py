"""One approval scenario run through the framework's AG-UI endpoint by the official JavaScript AG-UI client.

The endpoint serves an `Agent` whose chat client is the harness's scripted provider, on a loopback port; the client
is `tests/agui_interop/drive_approval.mjs` in a node process. What the client received and what the fakes recorded
come back as an `InteropTranscript` for the test to judge.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fakes import ModelRequest, ScriptedProvider, ScriptedToolbox, ToolExecution
from harness.contents import FunctionCall, Text
from harness.scenario.loader import load_scenario
from harness.scenario.model import Scenario

ROOT = Path(__file__).resolve().parent.parent
DRIVER_DIR = Path(__file__).resolve().parent / "agui_interop"
DRIVER = DRIVER_DIR / "drive_approval.mjs"
CLIENT_PACKAGE = DRIVER_DIR / "node_modules" / "@ag-ui" / "client" / "package.json"
SCENARIO = ROOT / "scenarios" / "errors" / "approved-success.yaml"
# A bound against a wedged client or server, not a performance expectation: a healthy phase takes well under a second.
PHASE_TIMEOUT_SECONDS = 60.0

# Negative controls break the run on purpose: one wraps the endpoint's ASGI app, the other builds the chat client.
AppWrapper = Callable[[Any], Any]
ClientFactory = Callable[[ScriptedProvider], Any]


def node_executable() -> str | None:
    return shutil.which("node")


def pinned_client_version() -> str:
    """The exact @ag-ui/client release tests/agui_interop/package.json pins."""
    manifest = json.loads((DRIVER_DIR / "package.json").read_text(encoding="utf-8"))
    return str(manifest["dependencies"]["@ag-ui/client"])


def installed_client_version() -> str | None:
    if not CLIENT_PACKAGE.is_file():
        return None
    return str(json.loads(CLIENT_PACKAGE.read_text(encoding="utf-8"))["version"])


@dataclass(frozen=True)
class ApprovalScript:
    """What the scenario scripts: the user's request, the approval-required call, and the model's final text."""

    scenario: Scenario
    user_text: str
    call: FunctionCall
    final_text: str


def approval_script(path: Path = SCENARIO) -> ApprovalScript:
    """Read the approval scenario this interop run replays; a scenario of another shape is a clear error."""
    scenario = load_scenario(path)
    where = f"{path.relative_to(ROOT)}"
    if len(scenario.turns) != 2:
        raise ValueError(f"{where}: the interop run needs two turns (request, approval), not {len(scenario.turns)}")
    first, second = scenario.turns
    given = first.spec.input
    users = [given] if isinstance(given, str) else [item.user for item in given if item.user]
    calls = [c for m in first.steps[0].response.messages for c in m.contents if isinstance(c, FunctionCall)]
    texts = [c.text for m in second.steps[0].response.messages for c in m.contents if isinstance(c, Text)]
    if len(users) != 1 or len(calls) != 1 or len(texts) != 1:
        raise ValueError(f"{where}: the interop run needs one user message, one scripted call in turn 1 and one "
                         f"scripted text in turn 2 (found {len(users)}, {len(calls)}, {len(texts)})")
    return ApprovalScript(scenario, str(users[0]), calls[0], texts[0])


@dataclass(frozen=True)
class ClientPhase:
    """What the JavaScript client had after one run: every event it delivered, its open interrupts, its messages."""

    events: list[dict[str, Any]]
    interrupts: list[dict[str, Any]]
    messages: list[dict[str, Any]]


@dataclass(frozen=True)
class InteropTranscript:
    interrupted: ClientPhase
    finished: ClientPhase
    executions_before_decision: tuple[ToolExecution, ...]
    executions: tuple[ToolExecution, ...]
    requests: tuple[ModelRequest, ...]
    violations: tuple[str, ...]


def endpoint_app(provider: ScriptedProvider, toolbox: ScriptedToolbox, client: ClientFactory | None = None) -> Any:
    """The framework's FastAPI AG-UI endpoint around an `Agent` over the scripted provider and the scripted tools."""
    from agent_framework import Agent
    from agent_framework_ag_ui import add_agent_framework_fastapi_endpoint
    from fastapi import FastAPI

    from harness.adapters.agent_framework.client import ScriptedChatClient
    from harness.adapters.agent_framework.tools import build_tools

    catalogue = build_tools(toolbox.tools)
    chat_client = client(provider) if client is not None else ScriptedChatClient(provider)
    agent = Agent(chat_client, tools=[catalogue[tool.name] for tool in toolbox.offered()])
    app = FastAPI()
    # One client, so one authorization principal; no keepalive comments, which are transport traffic only.
    add_agent_framework_fastapi_endpoint(app, agent, "/", single_user=True, keepalive_seconds=None)
    return app


async def _read_phase(process: asyncio.subprocess.Process, stderr: asyncio.Task[bytes], expected: str) -> ClientPhase:
    assert process.stdout is not None
    try:
        line = await asyncio.wait_for(process.stdout.readline(), PHASE_TIMEOUT_SECONDS)
    except TimeoutError:
        raise AssertionError(f"the JavaScript client printed nothing for {PHASE_TIMEOUT_SECONDS:.0f}s "
                             f"while the test waited for its '{expected}' report") from None
    if not line:
        await process.wait()
        errors = (await stderr).decode(errors="replace")
        raise AssertionError(f"the JavaScript client exited ({process.returncode}) before its '{expected}' report; "
                             f"stderr:\n{errors}")
    report = json.loads(line)
    if report.get("phase") != expected:
        raise AssertionError(f"the JavaScript client reported {report.get('phase')!r}, not {expected!r}: "
                             f"{report.get('error', report)}")
    return ClientPhase(report["events"], report["interrupts"], report["messages"])


async def run_interop(script: ApprovalScript, *, approved: bool = True,
                      wrap: AppWrapper | None = None, client: ClientFactory | None = None) -> InteropTranscript:
    """Serve the endpoint, let the JavaScript client run, answer the interrupt and resume; always stops both."""
    from agui_loopback import LoopbackServer  # uvicorn comes with the ag-ui extra, which the test requires first

    node = node_executable()
    if node is None:
        raise RuntimeError("node is not on PATH")
    scenario = script.scenario
    toolbox = ScriptedToolbox(scenario.tools)
    provider = ScriptedProvider([turn.steps for turn in scenario.turns])
    app = endpoint_app(provider, toolbox, client)
    environment = {**os.environ, "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}
    with LoopbackServer(wrap(app) if wrap is not None else app) as url:
        process = await asyncio.create_subprocess_exec(
            node, str(DRIVER), f"{url}/", f"interop-{scenario.id}", script.user_text, cwd=DRIVER_DIR,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            env=environment, limit=16 * 1024 * 1024)
        assert process.stdin is not None
        assert process.stderr is not None
        stderr = asyncio.ensure_future(process.stderr.read())
        try:
            interrupted = await _read_phase(process, stderr, "interrupted")
            before = tuple(toolbox.executions)
            # The server is idle between the runs (the client has the whole first stream), so the fakes move to
            # the scenario's second turn before the client is told to resume.
            provider.begin_turn(1)
            toolbox.turn = 1
            process.stdin.write(json.dumps({"approved": approved}).encode() + b"\n")
            await process.stdin.drain()
            finished = await _read_phase(process, stderr, "finished")
            await asyncio.wait_for(process.wait(), PHASE_TIMEOUT_SECONDS)
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
            await stderr
    return InteropTranscript(interrupted, finished, before, tuple(toolbox.executions), tuple(provider.requests),
                             tuple(v.message for v in provider.violations))

"""Driving ADK's `Runner` as its callers do: one `LlmAgent` per conversation, ``Runner.run_async`` per turn.

History. With session-kept history (``session: true``) every turn runs in one `InMemorySessionService` session, and
the caller sends only its new input. A caller keeping its own history restores it into a fresh session each turn,
as ADK events (`history`), and sends its last message as the run's new message.

Approvals. ``approval: required`` is ADK's tool confirmation (`tools`): the run pauses with an
``adk_request_confirmation`` call, reported as an `ApprovalRequest`; the caller's decision is its function response
(``{"confirmed": ...}``) in the next run's new message, and ADK's request-confirmation processor runs or refuses the
call before the next model call.

Streaming is ``RunConfig(streaming_mode=StreamingMode.SSE)``: the model streams partial responses and the runner
yields them as partial events (`events`). Limits: see `limits`.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util

from google.adk.agents import LlmAgent
from google.adk.events.event import Event
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService, Session
from google.genai import types

from harness.adapters.google_adk.events import EventReader, response_of, streamed_updates
from harness.adapters.google_adk.history import ApprovalIds, InputBuilder
from harness.adapters.google_adk.limits import UNEXPRESSIBLE, run_config, unmapped_settings
from harness.adapters.google_adk.model import CHOICE_MODES, ScriptedLlm
from harness.adapters.google_adk.tools import build_tools
from harness.contents import Response
from harness.contract import (
    CallerView,
    Capability,
    ClaimedProfile,
    ConversationSetup,
    RaisedError,
    ScriptedProviderError,
    TurnInput,
)
from harness.log_capture import captured_logs

APP = "loop_conformance"
AGENT = "loop_conformance_agent"
USER = "caller"

CAPABILITIES: frozenset[Capability] = frozenset(
    # streamed-mapping-arguments: a Gemini call's arguments are a mapping (`types.FunctionCall.args`), and the
    # scripted model hands ADK each streamed call whole, as Gemini streams one.
    {"approval", "declaration-only", "sessions", "reasoning", "signature-tools", "streamed-mapping-arguments"})


def raised_error(error: BaseException) -> RaisedError:
    """An exception the runner raised, classified: the provider's fault, an unknown tool, or the loop's own."""
    chain: list[BaseException] = []
    cause: BaseException | None = error
    while cause is not None and cause not in chain:
        chain.append(cause)
        cause = cause.__cause__ or cause.__context__
    if any(isinstance(link, ScriptedProviderError) for link in chain):
        return RaisedError(type(error).__name__, str(error), "provider")
    if isinstance(error, ValueError) and str(error).startswith("Tool '") and "not found" in str(error):
        return RaisedError(type(error).__name__, str(error).split("\n", 1)[0], "unknown-tool")
    return RaisedError(type(error).__name__, str(error), "loop")


def build_agent(setup: ConversationSetup) -> LlmAgent:
    config = None
    if setup.tool_choice in CHOICE_MODES:
        config = types.GenerateContentConfig(tool_config=types.ToolConfig(
            function_calling_config=types.FunctionCallingConfig(mode=CHOICE_MODES[setup.tool_choice])))
    return LlmAgent(name=AGENT, model=ScriptedLlm(provider=setup.provider, agent_name=AGENT),
                    tools=list(build_tools(list(setup.toolbox.offered()))), generate_content_config=config)


class GoogleAdkConversation:
    def __init__(self, setup: ConversationSetup) -> None:
        self.setup = setup
        self.sessions = InMemorySessionService()
        self.runner = Runner(app_name=APP, agent=build_agent(setup), session_service=self.sessions)
        self.ids = ApprovalIds()
        self.names: dict[str, str] = {}
        self.reader = EventReader(self.ids, self.names)
        self._session: Session | None = None
        self._returned: list[list[Event]] = []

    async def _session_for_turn(self) -> Session:
        if self.setup.use_session and self._session is not None:
            return self._session
        session = await self.sessions.create_session(app_name=APP, user_id=USER)
        if self.setup.use_session:
            self._session = session
        return session

    async def run_turn(self, turn: TurnInput) -> CallerView:
        log = unmapped_settings(self.setup.config)
        earlier = tuple(response_of(self.reader, events) for events in self._returned)
        events: list[Event] = []
        error: RaisedError | None = None
        with captured_logs("google_adk", lines=log):
            try:
                await self._run(turn, events)
            except Exception as raised:  # noqa: BLE001 - whatever the caller gets is an observation
                error = raised_error(raised)
        updates = streamed_updates(self.reader, events) if self.setup.mode == "streaming" else []
        response: Response | None = None
        if error is None:
            response = response_of(self.reader, events)
            self._returned.append(events)
        return CallerView(tuple(updates), response, error, turn.messages, earlier, tuple(log))

    async def _run(self, turn: TurnInput, events: list[Event]) -> None:
        session = await self._session_for_turn()
        caller = InputBuilder(AGENT, self.ids, self.names).build(turn.messages)
        for event in caller.events:
            await self.sessions.append_event(session, event)
        config = run_config(self.setup.config, self.setup.mode)
        async for event in self.runner.run_async(user_id=USER, session_id=session.id,
                                                 new_message=caller.new_message, run_config=config):
            events.append(event)

    async def close(self) -> None:
        await self.runner.close()


_FLOWS = "google.adk.flows.llm_flows"
# The modules holding ADK's loop: the flow that calls the model, runs the calls and resumes confirmations, and the
# history it builds for the model. 2.x split them into packages (the old modules remain as re-exporting shims).
_SPLIT_LOOP = ("core._resume", "core._function_call_postprocessor", "tools._confirmation", "tools._caller",
               "tools._batch_executor", "tools._rearranger", "context._contents")
_LEGACY_LOOP = ("functions", "contents", "request_confirmation")


def loop_modules() -> tuple[str, ...]:
    """The loop's modules in the installed release."""
    split = [f"{_FLOWS}.{name}" for name in _SPLIT_LOOP]
    present = [name for name in split if _exists(name)]
    chosen = present or [f"{_FLOWS}.{name}" for name in _LEGACY_LOOP if _exists(f"{_FLOWS}.{name}")]
    return (f"{_FLOWS}.base_llm_flow", *chosen)


def _exists(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


class GoogleAdkAdapter:
    """The `Runner` of the installed google-adk release, over a `BaseLlm` that answers from the script."""

    name = "google_adk"
    capabilities = CAPABILITIES
    profiles: frozenset[ClaimedProfile] = frozenset({"safety"})
    unexpressible = UNEXPRESSIBLE

    def __init__(self) -> None:
        self.version = importlib.metadata.version("google-adk")
        self.loop_modules = loop_modules()

    def open(self, setup: ConversationSetup) -> GoogleAdkConversation:
        return GoogleAdkConversation(setup)

"""Adapter for the reference loop, the harness's embedded default implementation."""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from harness.adapters.reference.approvals import without_settled_hosted_controls
from harness.adapters.reference.loop import (
    LoopMessage,
    LoopTool,
    ReferenceLoop,
    ToolReturn,
    UnknownToolError,
    UserInputRequired,
)
from harness.adapters.reference.session import InvalidSessionState, LoopSession, tampered
from harness.contents import JSON, Message, Response, Text, Update
from harness.contract import (
    SESSION_CAPABILITIES,
    SETTINGS,
    CallerView,
    Capability,
    ConversationSetup,
    RaisedError,
    ScriptedProviderError,
    ScriptedToolError,
    Tool,
    TurnInput,
)
from harness.signatures import bind

LoopFactory = Callable[[ConversationSetup, Mapping[str, LoopTool]], ReferenceLoop]

REFERENCE_CAPABILITIES: frozenset[Capability] = frozenset[Capability](
    {"approval", "declaration-only", "user-input", "middleware-termination", "runtime-tool-changes",
     "invocation-kwargs", "hosted-tools", "reasoning", "informational-only", "sessions", "occurrence-identity",
     "service-continuation", "session-serialization", "persisted-budgets", "approval-policy", "signature-tools",
     "context-providers", "history-providers", "compaction", "budget-counts", "caller-options",
     "streamed-mapping-arguments", "call-item-ids"}
) | SETTINGS

REFERENCE_LOOP_MODULES: tuple[str, ...] = tuple(
    f"harness.adapters.reference.{name}"
    for name in ("loop", "approvals", "policy", "session", "compaction", "occurrences"))


def _default_factory(setup: ConversationSetup, catalog: Mapping[str, LoopTool]) -> ReferenceLoop:
    return ReferenceLoop(setup.provider, setup.config, catalog, setup.approval_policy)


def wrap_tool(tool: Tool) -> LoopTool:
    """Present a scripted tool as the reference loop's tool type."""
    if tool.spec.declaration_only:
        return LoopTool(tool.name, None, tool.spec.approval_required, tool.spec.parameters)

    signature = tool.spec.signature

    async def run(arguments: Mapping[str, JSON], call_id: str) -> ToolReturn:
        if signature is not None:
            # A user's Python function: the call binds its arguments, defaults included, before the body runs.
            arguments = bind(signature, arguments)
        outcome = await tool.run(arguments, call_id)
        if outcome.input_requests:
            raise UserInputRequired(outcome.input_requests)
        value: JSON = list[JSON](outcome.parts) if outcome.parts else outcome.value
        return ToolReturn(value, outcome.terminate, outcome.add_tools)

    return LoopTool(tool.name, run, tool.spec.approval_required, tool.spec.parameters)


@dataclass
class ReferenceConversation:
    setup: ConversationSetup
    loop: ReferenceLoop
    offered: list[LoopTool]

    def __post_init__(self) -> None:
        self._returned: list[Response] = []
        # What a session keeps between turns, when the scenario has one. Its history is a verbatim store of every
        # message, approval controls included, so a caller's audit store (`history_store`) behaves the same: the
        # loop filters what is control whenever it reads history back.
        self.session = LoopSession()

    async def run_turn(self, turn: TurnInput) -> CallerView:
        caller_input: str | list[LoopMessage] = (
            turn.messages if isinstance(turn.messages, str)
            else [LoopMessage(m.role, list(m.contents)) for m in turn.messages]
        )
        if turn.restore_session:
            try:
                self.session = self._restored(turn)
            except InvalidSessionState as refused:
                error = RaisedError(type(refused).__name__, str(refused), "loop")
                return CallerView(error=error, inputs_after=self._frozen(caller_input),
                                  earlier_responses_after=tuple(self._returned))
        loop_input = caller_input
        new: list[Message] = []
        # A session over a service that stores the conversation keeps only its id: the service holds the rest.
        if self.setup.use_session and not (self.setup.service_stores_history and self.session.conversation_id):
            new = [Message("user", (Text(caller_input),))] if isinstance(caller_input, str) else [
                m.frozen() for m in caller_input]
            # The caller's own message objects go to the loop as they are, after copies of the stored history, as
            # without a session: a loop that wrote into them must be seen by `inputs-unmutated` here too.
            fresh = [LoopMessage("user", [Text(caller_input)])] if isinstance(caller_input, str) else caller_input
            # Replayed history keeps no settled hosted approval: its decision went to the service on the turn it
            # was made, once.
            stored = without_settled_hosted_controls(self.session.history)
            loop_input = [*(LoopMessage(m.role, list(m.contents)) for m in stored), *fresh]
        context = self._context()
        if context:
            # The providers' context leads what the model sees on every call of this run; it is not conversation,
            # so neither the caller's response nor the session keeps it.
            base = [LoopMessage("user", [Text(loop_input)])] if isinstance(loop_input, str) else list(loop_input)
            loop_input = [*context, *base]
        view = await self._drive(loop_input, turn, caller_input)
        if view.response is not None:
            self._returned.append(view.response)
            # A turn that failed is not part of the conversation: a retry sends its input again.
            self.session.history.extend([*new, *view.response.messages])
            if self.setup.use_session and view.response.conversation_id is not None:
                self.session.conversation_id = view.response.conversation_id
        return view

    def _context(self) -> list[LoopMessage]:
        instructions = [LoopMessage("system", [Text(s.instructions)]) for s in self.setup.context if s.instructions]
        added = [LoopMessage(m.role, list(m.contents)) for s in self.setup.context for m in s.messages]
        return [*instructions, *added]

    def _restored(self, turn: TurnInput) -> LoopSession:
        """The session saved to JSON and loaded back, as a caller resuming in another process does."""
        saved = self.loop.save_session(self.session)
        if turn.session_changes:
            saved = tampered(saved, turn.session_changes)
        return self.loop.load_session(saved)

    @staticmethod
    def _frozen(caller_input: str | list[LoopMessage]) -> str | tuple[Message, ...]:
        return caller_input if isinstance(caller_input, str) else tuple(m.frozen() for m in caller_input)

    async def _drive(self, loop_input: str | list[LoopMessage], turn: TurnInput,
                     caller_input: str | list[LoopMessage]) -> CallerView:
        earlier = tuple(self._returned)
        updates: list[Update] = []
        response: Response | None = None
        error: RaisedError | None = None
        tool_choice = turn.tool_choice or self.setup.tool_choice  # the caller's option for this run, if it gives one
        try:
            if self.setup.mode == "streaming":
                stream = self.loop.stream(loop_input, self.offered, tool_choice=tool_choice,
                                          kwargs=turn.kwargs, conversation_id=self.session.conversation_id,
                                          session=self._loop_session())
                async for update in stream:
                    updates.append(update)
                response = await stream.final_response()
            else:
                response = await self.loop.respond(loop_input, self.offered, tool_choice=tool_choice,
                                                   kwargs=turn.kwargs, conversation_id=self.session.conversation_id,
                                                   session=self._loop_session())
        except UnknownToolError as raised:
            error = RaisedError(type(raised).__name__, str(raised), "unknown-tool")
        except ScriptedToolError as raised:
            error = RaisedError(type(raised).__name__, str(raised), "loop")
        except Exception as raised:  # noqa: BLE001 - every exception the caller gets is an observation
            kind = "provider" if isinstance(raised, ScriptedProviderError) else "loop"
            error = RaisedError(type(raised).__name__, str(raised), kind)
        return CallerView(tuple(updates), response, error, self._frozen(caller_input), earlier,
                          function_calls_counted=self.loop.function_calls_counted)

    def _loop_session(self) -> LoopSession | None:
        return self.session if self.setup.use_session else None

    async def close(self) -> None:
        return None


class ReferenceAdapter:
    """The embedded reference loop, reached only through the adapter contract like any other implementation."""

    name = "reference"
    capabilities = REFERENCE_CAPABILITIES
    # Written from spec 004: it claims its mechanisms as well as safety.
    profiles = frozenset({"safety", "contract"})
    # What `loop-conformance mutate` and `coverage` measure: the loop itself, not this adapter's glue.
    loop_modules = REFERENCE_LOOP_MODULES

    def __init__(self, factory: LoopFactory = _default_factory, name: str | None = None, *,
                 stateless: bool = False) -> None:
        self._factory = factory
        if stateless:
            # The caller that keeps its own history and holds no session object: scenarios whose history a session
            # keeps are n/a. The reference keeps nothing outside a caller-kept history, so this variant must agree
            # with `reference` on every scenario both run; it is reported to show that the transcript suffices.
            self.name = "reference_stateless"
            self.capabilities = REFERENCE_CAPABILITIES - SESSION_CAPABILITIES
        if name is not None:
            self.name = name
        try:
            self.version = importlib.metadata.version("loop-conformance")
        except importlib.metadata.PackageNotFoundError:
            self.version = "0+unknown"

    def open(self, setup: ConversationSetup) -> ReferenceConversation:
        catalog = {tool.name: wrap_tool(tool) for tool in setup.toolbox.tools.values()}
        offered = [catalog[tool.name] for tool in setup.toolbox.offered()]
        loop = self._factory(setup, catalog)
        loop.keep_last_groups = setup.compaction
        return ReferenceConversation(setup, loop, offered)


def adapter() -> ReferenceAdapter:
    """Entry point: the reference adapter."""
    return ReferenceAdapter()


def stateless_adapter() -> ReferenceAdapter:
    """Entry point: the reference loop driven by a caller that keeps its own history and holds no session."""
    return ReferenceAdapter(stateless=True)

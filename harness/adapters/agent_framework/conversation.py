"""Driving the real framework as a caller does: one client and session per conversation, both response modes."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

from agent_framework import Agent, AgentSession, FunctionTool
from agent_framework import Message as FwMessage
from harness.adapters.agent_framework.approval_layer import approval_middleware, decision_on
from harness.adapters.agent_framework.client import (
    INVALIDATION_ERRORS,
    ScriptedChatClient,
    ScriptedStoringChatClient,
)
from harness.adapters.agent_framework.context import context_providers
from harness.adapters.agent_framework.convert import (
    StreamedSoFar,
    message_from_framework,
    messages_from_framework,
    pauses_after_batch,
    response_from_framework,
    to_framework,
    update_from_framework,
)
from harness.adapters.agent_framework.features import FEATURES
from harness.adapters.agent_framework.history import AuditHistoryProvider
from harness.adapters.agent_framework.tools import TerminateOnRequest, build_tools
from harness.adapters.agent_framework.wire import (
    DIALECTS,
    PROVIDER_PACKAGES,
    wire_client,
    wire_options,
    wire_provider_errors,
)
from harness.contents import ApprovalResponse, Message, Response, Update
from harness.contract import (
    SESSION_CAPABILITIES,
    SETTINGS,
    CallerView,
    Capability,
    ConversationSetup,
    LoopConfig,
    RaisedError,
    ScriptedProviderError,
    TurnInput,
)
from harness.log_capture import LogCapture
from harness.log_capture import captured_logs as _log_records
from harness.transcript import message_form

if TYPE_CHECKING:
    from harness.adapters.agent_framework.hosting import HostedResponsesConversation

_CONFIG_KEYS = {
    "enabled": "enabled",
    "max_iterations": "max_iterations",
    "max_function_calls": "max_function_calls",
    "max_consecutive_errors": "max_consecutive_errors_per_request",
    "terminate_on_unknown_calls": "terminate_on_unknown_calls",
    "include_detailed_errors": "include_detailed_errors",
}


def invocation_configuration(config: LoopConfig) -> dict[str, Any]:
    settings = {key: getattr(config, field) for field, key in _CONFIG_KEYS.items()}
    return {key: value for key, value in settings.items() if value is not None}


def wire_serving(setup: ConversationSetup) -> AbstractContextManager[None]:
    """The wire endpoint answering a conversation's requests (the SDK client is shared by the process); nothing
    for the neutral provider."""
    return nullcontext() if setup.wire is None else setup.wire.serving()


def captured_logs(*names: str) -> AbstractContextManager[LogCapture]:
    """Framework log records of one turn: some behaviour (an input it ignores) is visible only there. `names` are
    the loggers to read besides the framework's own."""
    return _log_records("agent_framework", *names, logger_level=logging.INFO)


def _key(message: Message) -> str:
    return json.dumps(message_form(message), sort_keys=True, default=str)


def framework_client(setup: ConversationSetup) -> Any:
    """The chat client the loop runs in: the function invocation layer over the scripted provider, or the
    framework's own provider client over the wire endpoint."""
    # The middleware also tells a Python-declared tool's body which call it runs for (it has no context).
    needs_middleware = any(b.terminate for t in setup.toolbox.tools.values() for b in t.spec.behaviours) or any(
        t.spec.signature is not None for t in setup.toolbox.tools.values())
    client_settings: dict[str, Any] = {
        "function_invocation_configuration": invocation_configuration(setup.config),
        "middleware": [TerminateOnRequest()] if needs_middleware else None,
    }
    if setup.dialect != "neutral":
        return wire_client(setup, **client_settings)
    client_type = ScriptedStoringChatClient if setup.service_stores_history else ScriptedChatClient
    return client_type(setup.provider, **client_settings)


def compaction_strategy(setup: ConversationSetup) -> Any:
    """The framework's sliding window for `setup.compaction`, or None. Given per run, not to the client: not every
    provider client's constructor takes one."""
    if setup.compaction is None:
        return None
    from agent_framework import SlidingWindowStrategy

    return SlidingWindowStrategy(keep_last_groups=setup.compaction)


class _AsScripted:
    """What the caller saw, in the script's terms: over a wire, without what the service generated itself (see
    `WireEndpoint.as_scripted`); over the neutral provider, as it is."""

    def __init__(self, setup: ConversationSetup) -> None:
        self._wire = setup.wire

    def message(self, message: Message) -> Message:
        if self._wire is None:
            return message
        return replace(message, contents=tuple(self._wire.as_scripted(c) for c in message.contents))

    def messages(self, messages: Sequence[Message]) -> tuple[Message, ...]:
        return tuple(self.message(m) for m in messages)

    def update(self, update: Update) -> Update:
        if self._wire is None:
            return update
        return replace(update, contents=tuple(self._wire.as_scripted(c) for c in update.contents))

    def response(self, response: Response) -> Response:
        return replace(response, messages=self.messages(response.messages))


class AgentFrameworkConversation:
    def __init__(self, setup: ConversationSetup, *, stateless: bool = False) -> None:
        self.setup = setup
        self.scripted = _AsScripted(setup)
        # A stateless caller keeps its own history and holds no session object at all: the spec's manual-replay
        # caller, whose decisions the layer must honour from the replayed transcript alone.
        self.stateless = stateless
        self.catalogue = build_tools(setup.toolbox.tools)
        self.compaction = compaction_strategy(setup)
        self.client: Any = framework_client(setup)
        # A session-managed scenario talks to an agent, whose history provider keeps the conversation; otherwise
        # the caller keeps history and talks to the chat client, still passing a session for approval binding.
        # A caller without a session whose agent has context providers still talks to the agent (the providers run
        # around its runs), passing no session: it keeps the history itself.
        self.sessionless_agent = not setup.use_session and bool(setup.context)
        self.agent = Agent(self.client, tools=self._offered(), middleware=approval_middleware(setup.approval_policy),
                           context_providers=self._providers(), compaction_strategy=self.compaction,
                           ) if setup.use_session or self.sessionless_agent else None
        self.session = self.agent.create_session() if setup.use_session and self.agent is not None else AgentSession()
        self._returned: list[Any] = []  # ChatResponse, or AgentResponse in session mode
        # The framework objects this conversation returned or was given, so that a caller replaying history hands
        # back the very objects it received, as a real caller does.
        self._originals: dict[str, FwMessage] = {}
        self._requests: dict[str, Any] = {}  # approval requests this conversation returned, by id

    def _providers(self) -> list[Any] | None:
        # The caller's history store goes last, as the framework places its own: context, then the conversation.
        providers = list(context_providers(self.setup.context) or [])
        if self.setup.history_store is not None:
            providers.append(AuditHistoryProvider(self.setup.history_store))
        return providers or None

    def _framework_input(self, messages: str | tuple[Message, ...]) -> str | list[FwMessage]:
        if isinstance(messages, str):
            return messages
        return [self._originals.get(_key(m)) or self._new_message(m) for m in messages]

    def _new_message(self, message: Message) -> FwMessage:
        """A message the caller writes; decisions are made on the request objects, as the framework's docs show."""
        contents: list[Any] = []
        for content in message.contents:
            request = self._requests.get(content.id) if isinstance(content, ApprovalResponse) else None
            if isinstance(content, ApprovalResponse) and request is not None:
                contents.append(decision_on(request, content))
            else:
                contents.append(to_framework(content))
        return FwMessage(message.role, contents)

    def _remember(self, messages: Sequence[FwMessage]) -> None:
        own = [message_from_framework(message) for message in messages]
        # The caller sees the pauses of a batch's declaration-only calls after its last call, maybe in another
        # message than the flagged call (`pauses_after_batch`): both forms name the framework's message.
        shown = pauses_after_batch(own)
        pairs = [*zip(own, messages, strict=True), *(zip(shown, messages, strict=True) if len(shown) == len(own)
                                                      else ())]
        for neutral, message in pairs:
            self._originals[_key(self.scripted.message(neutral))] = message
            for content in message.contents:
                if content.type == "function_approval_request" and content.id is not None:
                    self._requests[str(content.id)] = content

    def _offered(self) -> list[FunctionTool]:
        return [self.catalogue[t.name] for t in self.setup.toolbox.offered()]

    def _options(self, tool_choice: str | None = None) -> dict[str, Any]:
        """The run's options; `tool_choice` is the caller's for this run alone (else the conversation's)."""
        options: dict[str, Any] = {} if self.agent is not None else {"tools": self._offered()}
        options.update(wire_options(self.setup))
        choice = tool_choice or self.setup.tool_choice
        if choice is not None:
            options["tool_choice"] = choice
        return options

    def _restore_session(self) -> None:
        """Save the session to JSON and load it into a fresh one, as a caller resuming in another process does."""
        saved = json.dumps(self.session.to_dict())
        self.session = AgentSession.from_dict(json.loads(saved))

    async def run_turn(self, turn: TurnInput) -> CallerView:
        if turn.restore_session:
            self._restore_session()
        caller_input = self._framework_input(turn.messages)
        if not isinstance(caller_input, str):
            self._remember(caller_input)
        updates: list[Update] = []
        final: Any = None
        error: RaisedError | None = None
        client_kwargs: dict[str, Any] = {**turn.kwargs}
        if not self.stateless:
            client_kwargs["session"] = self.session
        # The layer counts the run's function calls in this dict, resuming from what a paused batch saved in the
        # session; it is read after the run as the budget the loop spent (`budget-counts`). Behind the approval
        # layer the dict is the one its middleware keeps in the session across turns (it only sets its own when
        # the caller passed none): handing the loop a fresh one would override that and leave the layer's carried
        # budget unexercised.
        budget: dict[str, Any] = {}
        if FEATURES.budget_state_key:
            if self.setup.approval_policy is not None and self.agent is not None:
                budget = self.session.state.setdefault(FEATURES.budget_state_key, budget)
            client_kwargs[FEATURES.budget_state_key] = budget
        with captured_logs() as logs, wire_serving(self.setup):
            try:
                if self.setup.mode == "streaming":
                    stream: Any = self._call(caller_input, client_kwargs, stream=True, tool_choice=turn.tool_choice)
                    so_far = StreamedSoFar()
                    async for update in stream:
                        updates.append(self.scripted.update(update_from_framework(update, so_far)))
                    final = await stream.get_final_response()
                else:
                    final = await self._call(caller_input, client_kwargs, stream=False, tool_choice=turn.tool_choice)
            except (ScriptedProviderError, *INVALIDATION_ERRORS, *wire_provider_errors(self.setup)) as raised:
                error = RaisedError(type(raised).__name__, str(raised), "provider")
            except KeyError as raised:
                error = RaisedError(type(raised).__name__, str(raised), "unknown-tool")
            except Exception as raised:  # noqa: BLE001 - whatever the caller gets is an observation
                error = RaisedError(type(raised).__name__, str(raised), "loop")
        earlier = tuple(self.scripted.response(response_from_framework(r)) for r in self._returned)
        response: Response | None = None
        if final is not None:
            response = self.scripted.response(response_from_framework(final))
            self._returned.append(final)
            self._remember(final.messages)
        inputs_after = caller_input if isinstance(caller_input, str) else self.scripted.messages(
            messages_from_framework(caller_input))
        counted = int(budget.get("total_function_calls", 0)) if FEATURES.budget_state_key else None
        return CallerView(tuple(updates), response, error, inputs_after, earlier, tuple(logs.lines),
                          function_calls_counted=counted)

    def _call(self, caller_input: str | list[FwMessage], client_kwargs: dict[str, Any], *, stream: bool,
              tool_choice: str | None = None) -> Any:
        options = cast(Any, self._options(tool_choice))
        if self.agent is not None:
            kwargs = {k: v for k, v in client_kwargs.items() if k != "session"}
            session = None if self.sessionless_agent else self.session
            return self.agent.run(caller_input, stream=stream, session=session, options=options,
                                  client_kwargs=kwargs or None)
        # Typed for message lists only, yet string input is part of the contract the spec tests.
        get_response: Any = self.client.get_response
        return get_response(caller_input, stream=stream, options=options, client_kwargs=client_kwargs,
                            **({"compaction_strategy": self.compaction} if self.compaction is not None else {}))

    async def close(self) -> None:
        return None


class AgentFrameworkAdapter:
    """The real `FunctionInvocationLayer` of the installed agent-framework-core release."""

    name = "agent_framework"
    # The framework's tool loop (`FunctionInvocationLayer` and the function-invocation helpers it calls) lives in
    # this one module at the pinned release; `loop-conformance mutate` and `coverage` measure and mutate only it.
    loop_modules: tuple[str, ...] = ("agent_framework._tools",)

    def __init__(self, *, stateless: bool = False) -> None:
        # The stateless variant (`agent_framework_stateless`) is the caller with no session object: scenarios whose
        # history a session keeps are n/a for it.
        self.version = FEATURES.version
        self.stateless = stateless
        if stateless:
            self.name = "agent_framework_stateless"
        capabilities: set[Capability] = {
            "approval", "declaration-only", "middleware-termination", "invocation-kwargs", "hosted-tools",
            "reasoning", "sessions", "user-input", "session-serialization", "approval-policy", "signature-tools",
            "context-providers", "history-providers",
            "service-continuation", "caller-options",
            # The scripted chat client streams a mapping as the framework's call content carries one (a str or a
            # Mapping), as its Gemini client does.
            "streamed-mapping-arguments",
        }
        if FEATURES.context_add_tools:
            capabilities.add("runtime-tool-changes")
        if FEATURES.informational_only:
            capabilities.add("informational-only")
        if FEATURES.result_occurrence_id:
            capabilities.add("occurrence-identity")
        if FEATURES.sliding_window:
            capabilities.add("compaction")
        if FEATURES.call_item_id:  # the call content takes the service's item id as its `id` from 1.17.0
            capabilities.add("call-item-ids")
        if FEATURES.budget_state_key:
            capabilities.add("budget-counts")
        capabilities |= SETTINGS
        # Spec 004 is written for this loop: it claims the spec's mechanisms as well as safety.
        self.profiles = frozenset({"safety", "contract"})
        if stateless:
            capabilities -= SESSION_CAPABILITIES
        else:
            # The Responses hosting server of agent-framework-foundry-hosting, which keeps the session for its
            # caller; without that package the runs that need it are n/a, saying so (see `hosting`).
            capabilities.add("hosting-server")
        self.capabilities: frozenset[Capability] = frozenset(capabilities)
        # The framework's OpenAI clients (agent-framework-openai); a run over a dialect without it is n/a.
        self.dialects = DIALECTS
        self.provider_packages = PROVIDER_PACKAGES

    def open(self, setup: ConversationSetup) -> AgentFrameworkConversation | HostedResponsesConversation:
        if setup.host is not None:
            # Imported here: the hosting server is an optional dependency (ImportError makes the run n/a).
            from harness.adapters.agent_framework.hosting import HostedResponsesConversation

            return HostedResponsesConversation(setup)
        return AgentFrameworkConversation(setup, stateless=self.stateless)

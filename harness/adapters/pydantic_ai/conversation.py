"""Driving pydantic-ai's agent loop as its callers do, in both response modes.

- Non-streaming is `Agent.run`; streaming is `Agent.run_stream_events`, which runs the same loop to the end (every
  model call streamed) and yields its events, ending with the run's result. (`Agent.run_stream` is not the loop's
  streaming path: it stops at the first output and, as documented, does not run tool calls that come after it.)
- The agent's output is ``[str, DeferredToolRequests]``, as pydantic-ai documents for runs that pause for approval
  or for calls the caller answers; the next run resumes with `deferred_tool_results`.
- History kept by the caller is `message_history` (see `caller`). History kept by the implementation
  (``session: true``) is pydantic-ai's `Conversation`: each run's `result.conversation` — its messages, usage and
  the deferred requests it waits on — is passed to the next run as `conversation=`, and decisions are made with
  `conversation.deferred_tool_requests.build_results(...)`, as its documentation shows.
- Loop settings: `max_iterations` is `UsageLimits.request_limit` (model responses per run; pydantic-ai raises
  `UsageLimitExceeded` where the spec makes a final call without tools), `max_function_calls` is
  `UsageLimits.tool_calls_limit` (checked before a batch runs, which raises as well; the model calls before that
  keep their tools). A `Conversation` carries its
  usage into the next run, so with session-kept history both limits are offset by the usage carried in, keeping
  them per turn as the spec's are. `enabled: false` is a model call made without the agent loop
  (`pydantic_ai.direct.model_request` / `model_request_stream`, pydantic-ai's API for exactly that) with the same
  tools, history and settings. The other settings have no pydantic-ai counterpart and are noted in the log.
- The caller's tool choice and invocation kwargs are the run's `tool_choice` and `extra_body` model settings.
"""

from __future__ import annotations

import logging
import re
import warnings
from collections.abc import Generator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, cast

from harness.adapters.pydantic_ai.caller import (
    CallerInput,
    Original,
    PartOf,
    PauseOf,
    Returned,
    SourcedMessage,
    build_input,
    plain_results,
    register_originals,
    returned,
)
from harness.adapters.pydantic_ai.convert import part_content
from harness.adapters.pydantic_ai.features import FEATURES
from harness.adapters.pydantic_ai.model import scripted_model
from harness.adapters.pydantic_ai.stream import RunUpdates
from harness.adapters.pydantic_ai.tools import build_tools, tool_definitions
from harness.contents import FunctionCall, Response, Update
from harness.contract import (
    CallerView,
    Capability,
    ConversationSetup,
    LoopConfig,
    RaisedError,
    ScriptedProviderError,
    TurnInput,
)
from harness.log_capture import LogCapture, captured_logs
from pydantic_ai import (
    Agent,
    AgentRunResult,
    AgentRunResultEvent,
    Conversation,
    DeferredToolRequests,
    DeferredToolResults,
    UsageLimits,
)
from pydantic_ai.direct import model_request, model_request_stream
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, UserPromptPart
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.settings import ModelSettings
from pydantic_ai.usage import RunUsage

_TOOL_CHOICES = ("auto", "none", "required")


def usage_limits(config: LoopConfig, carried: RunUsage | None = None) -> UsageLimits:
    """The run's limits for the scenario's loop settings, offset by the usage a `Conversation` carries in."""
    limits = UsageLimits()
    if config.max_iterations is not None:
        limits.request_limit = config.max_iterations + (carried.requests if carried else 0)
    if config.max_function_calls is not None:
        limits.tool_calls_limit = config.max_function_calls + (carried.tool_calls if carried else 0)
    return limits


def unmapped_settings(config: LoopConfig) -> list[str]:
    defaults = LoopConfig()
    names = ("max_consecutive_errors", "terminate_on_unknown_calls", "include_detailed_errors")
    return [f"loop setting {name}={getattr(config, name)!r} has no pydantic-ai counterpart; not applied"
            for name in names if getattr(config, name) != getattr(defaults, name)]


def _caused_by_provider(error: BaseException) -> bool:
    seen: set[int] = set()
    pending: list[BaseException] = [error]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, ScriptedProviderError):
            return True
        if isinstance(current, BaseExceptionGroup):
            pending.extend(cast(BaseExceptionGroup[BaseException], current).exceptions)
        pending.extend(e for e in (current.__cause__, current.__context__) if e is not None)
    return False


def raised(error: Exception) -> RaisedError:
    kind = "provider" if _caused_by_provider(error) else "loop"
    return RaisedError(type(error).__name__, _stable(str(error)), kind)


# A set of strings rendered into a message, e.g. "Expected: {'c2', 'c1'}".
_SET_OF_STRINGS = re.compile(r"\{'[^'{}]*'(?:, '[^'{}]*')+\}")


def _stable(message: str) -> str:
    """The message with each rendered set of strings in sorted order: pydantic-ai formats Python sets, whose order
    changes from one process to the next, and a report must not."""
    return _SET_OF_STRINGS.sub(lambda m: "{" + ", ".join(sorted(m.group(0)[1:-1].split(", "))) + "}", message)


@contextmanager
def _captured_logs() -> Generator[LogCapture]:
    """pydantic-ai's log records and warnings during one turn, shown with a failure."""
    with captured_logs("pydantic_ai", level=logging.INFO, logger_level=logging.INFO) as handler:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield handler
        handler.lines.extend(f"WARNING {w.category.__name__}: {w.message}" for w in caught)


class PydanticAIConversation:
    def __init__(self, setup: ConversationSetup) -> None:
        self.setup = setup
        self.model = scripted_model(setup.provider)
        tools, toolsets = build_tools(setup.toolbox.tools)
        self.agent: Agent[None, str | DeferredToolRequests] = Agent(
            self.model, output_type=[str, DeferredToolRequests], tools=tools, toolsets=toolsets,
            name="loop-conformance")
        self.conversation: Conversation | None = None  # session-kept history, when the scenario has it
        self.pending: DeferredToolRequests | None = None  # what the last run paused for, as its caller holds it
        self._returned: list[Returned] = []
        self._originals: dict[str, Original] = {}

    # --- the run's input ----------------------------------------------------------------------------------------

    def _answerable(self, turn: TurnInput) -> set[str]:
        """Deferred calls whose results the caller may send: the last pause's, and any declaration-only call's."""
        pending = self.conversation.deferred_tool_requests if self.conversation is not None else self.pending
        ids = {call.tool_call_id for call in pending.calls} if pending is not None else set[str]()
        declared = {name for name, tool in self.setup.toolbox.tools.items() if tool.spec.declaration_only}
        if not isinstance(turn.messages, str):
            ids |= {c.call_id for m in turn.messages for c in m.contents
                    if isinstance(c, FunctionCall) and c.name in declared}
        return ids

    def _settings(self, turn: TurnInput) -> ModelSettings:
        settings: ModelSettings = {}
        if turn.kwargs:
            settings["extra_body"] = dict(turn.kwargs)
        if self.setup.tool_choice in _TOOL_CHOICES:
            settings["tool_choice"] = cast(Any, self.setup.tool_choice)
        return settings

    def _results(self, approvals: dict[str, bool], answers: dict[str, object]) -> DeferredToolResults:
        requests = self.conversation.deferred_tool_requests if self.conversation is not None else None
        if requests is None:
            return plain_results(approvals, answers)
        return requests.build_results(approvals=approvals, calls=answers)

    # --- one turn -----------------------------------------------------------------------------------------------

    async def run_turn(self, turn: TurnInput) -> CallerView:
        caller = build_input(turn.messages, self._originals, self._answerable(turn))
        updates: list[Update] = []
        error: RaisedError | None = None
        done: Returned | None = None
        with _captured_logs() as logs:
            try:
                if self.setup.config.enabled:
                    done = await self._agent_turn(caller, turn, updates)
                else:
                    done = await self._direct_turn(caller, turn, updates)
            except Exception as failure:  # noqa: BLE001 - whatever the caller gets is an observation
                error = raised(failure)
        logs.lines[:0] = unmapped_settings(self.setup.config) + caller.notes
        earlier = tuple(r.read() for r in self._returned)
        response: Response | None = None
        if done is not None:
            response = done.read()
            self._returned.append(done)
            register_originals(done, self._originals)
        return CallerView(tuple(updates), response, error, caller.reread(), earlier, tuple(logs.lines))

    async def _agent_turn(self, caller: CallerInput, turn: TurnInput, updates: list[Update]) -> Returned:
        results = caller.deferred_results(self._results)
        carried = self.conversation.usage if self.conversation is not None else None
        options: dict[str, Any] = {
            "deferred_tool_results": results, "model_settings": self._settings(turn) or None,
            "usage_limits": usage_limits(self.setup.config, carried),
        }
        if self.setup.use_session:
            conversation = self.conversation or Conversation()
            if caller.history:
                conversation = replace(conversation, messages=[*conversation.messages, *caller.history])
            options["conversation"] = conversation
        else:
            options["message_history"] = caller.history or None
        if self.setup.mode == "streaming":
            result = await self._stream(caller, options, updates)
        else:
            result = await self.agent.run(caller.prompt, **options)
        output = result.output
        self.pending = output if isinstance(output, DeferredToolRequests) else None
        if self.setup.use_session:
            self.conversation = result.conversation
        done = returned(result.new_messages(), output, caller.answers)
        if self.setup.mode == "streaming":
            updates.extend(_pause_updates(done, updates))
        return done

    async def _stream(self, caller: CallerInput, options: dict[str, Any],
                      updates: list[Update]) -> AgentRunResult[str | DeferredToolRequests]:
        events = RunUpdates(set(caller.answers))
        result: AgentRunResult[str | DeferredToolRequests] | None = None
        async with self.agent.run_stream_events(caller.prompt, **options) as stream:
            async for event in stream:
                if isinstance(event, AgentRunResultEvent):
                    result = event.result
                elif (update := events.update(event)) is not None:
                    updates.append(update)
        if result is None:
            raise RuntimeError("the event stream ended without the run's result")
        return result

    async def _direct_turn(self, caller: CallerInput, turn: TurnInput, updates: list[Update]) -> Returned:
        """Function invocation disabled: one model call without the agent loop, as `pydantic_ai.direct` makes it."""
        if caller.approvals or caller.answers:
            caller.notes.append("decisions and answers have no place in a model call made without the loop; "
                                "not sent")
        history: list[ModelMessage] = list(self.conversation.messages) if self.conversation is not None else []
        history += caller.history
        if caller.prompt is not None:
            history.append(ModelRequest(parts=[UserPromptPart(caller.prompt)]))
        offered = [tool.name for tool in self.setup.toolbox.offered()]
        parameters = ModelRequestParameters(function_tools=tool_definitions(self.setup.toolbox.tools, offered))
        settings = self._settings(turn) or None
        if self.setup.mode == "streaming":
            events = RunUpdates()
            async with model_request_stream(self.model, history, model_settings=settings,
                                            model_request_parameters=parameters) as stream:
                async for event in stream:
                    if (update := events.update(event)) is not None:
                        updates.append(update)
                response = stream.get()
        else:
            response = await model_request(self.model, history, model_settings=settings,
                                           model_request_parameters=parameters)
        return _single_response(response)

    async def close(self) -> None:
        return None


def _single_response(response: ModelResponse) -> Returned:
    sources = tuple(PartOf(response, i) for i, p in enumerate(response.parts) if part_content(p) is not None)
    messages = (SourcedMessage("assistant", sources),) if sources else ()
    return Returned(messages, (response,) * len(messages), response.finish_reason)


def _pause_updates(done: Returned, updates: Sequence[Update]) -> list[Update]:
    """The pause the final response ends with, streamed as the run's last update."""
    if not done.messages:
        return []
    last = done.messages[-1]
    pauses = tuple(s.read() for s in last.sources if isinstance(s, PauseOf))
    if not pauses:
        return []
    joins = bool(updates) and updates[-1].role == "assistant" and len(last.sources) > len(pauses)
    message_id = updates[-1].message_id if joins else "pause"
    return [Update("assistant", pauses, message_id)]


class PydanticAIAdapter:
    """pydantic-ai's agent loop (`Agent.run` / `Agent.run_stream_events`) of the installed pydantic-ai-slim."""

    name = "pydantic_ai"

    def __init__(self) -> None:
        self.version = FEATURES.version
        self.capabilities: frozenset[Capability] = frozenset({
            "approval", "declaration-only", "user-input", "runtime-tool-changes", "invocation-kwargs", "sessions",
            "reasoning", "informational-only", "signature-tools",
            # UsageLimits' request_limit and tool_calls_limit, and the agent run without its tools; pydantic-ai
            # has no consecutive-error cap, no unknown-call switch and no detailed-errors option.
            "iteration-budget", "function-call-budget", "invocation-toggle",
        })

    def open(self, setup: ConversationSetup) -> PydanticAIConversation:
        return PydanticAIConversation(setup)

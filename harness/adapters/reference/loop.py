"""The reference function-calling loop: a clean implementation of the spec's contract, written from the spec.

It has its own mutable message type, as real frameworks do, so that the harness can catch a loop that mutates what
the caller handed it. Both response modes run the same iteration code; only how output leaves differs.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from harness.adapters.reference import approvals
from harness.adapters.reference.compaction import keep_last_groups
from harness.adapters.reference.occurrences import OccurrenceStamp, RepeatedItems, distinct_calls
from harness.adapters.reference.policy import ApprovalLayer
from harness.adapters.reference.session import LoopSession, Outbox, PausedBudget
from harness.contents import (
    JSON,
    ApprovalRequest,
    ApprovalResponse,
    Content,
    FunctionCall,
    FunctionResult,
    Message,
    Response,
    Role,
    Text,
    Update,
    UserInputRequest,
    fold_updates,
)
from harness.contract import ApprovalPolicy, LoopConfig
from harness.limits import DEFAULT_MAX_CONSECUTIVE_ERRORS, DEFAULT_MAX_ITERATIONS
from harness.parameters import argument_problems

LIMIT_FALLBACK_TEXT = "The function-calling limit was reached before a final answer could be produced."
# A rejection is a normal terminal result (not an error, not an exception): the call was not executed.
REJECTION_TEXT = "The user rejected this tool call; it was not executed."


_Emission = tuple[Update | None, Message | None, bool]


def result_text(value: JSON) -> str:
    """Tool results reach the model as text; structured values as JSON."""
    if isinstance(value, str):
        return value
    return "" if value is None else json.dumps(value)


@dataclass
class LoopMessage:
    """A caller-owned, mutable message."""

    role: Role
    contents: list[Content] = field(default_factory=lambda: [])

    def frozen(self) -> Message:
        return Message(self.role, tuple(self.contents))


@dataclass(frozen=True)
class ToolReturn:
    value: JSON = None
    terminate: bool = False
    add_tools: tuple[str, ...] = ()


class UserInputRequired(Exception):  # noqa: N818 - mirrors the control-flow exceptions of real loops
    """Raised by a tool that needs more input from the caller before it can finish."""

    def __init__(self, payloads: Sequence[JSON]) -> None:
        super().__init__("user input required")
        self.payloads = tuple(payloads)


class UnknownToolError(Exception):
    """Raised to the caller when the model calls an unknown tool and the config says to terminate."""


class ConflictingHostResult(Exception):  # noqa: N818 - reads as the condition it reports
    """A retry supplies a host result that contradicts the one stored for the same undelivered call."""


@dataclass(frozen=True)
class LoopTool:
    name: str
    run: Callable[[Mapping[str, JSON], str], Awaitable[ToolReturn]] | None
    approval_required: bool = False
    parameters: Mapping[str, JSON] = field(default_factory=lambda: {"type": "object"})

    @property
    def declaration_only(self) -> bool:
        return self.run is None


class ModelClient(Protocol):
    async def complete(
        self, messages: Sequence[Message], *, tool_choice: str | None, tools: Sequence[str],
        kwargs: Mapping[str, JSON] | None, conversation_id: str | None = None,
    ) -> Response: ...

    def stream(
        self, messages: Sequence[Message], *, tool_choice: str | None, tools: Sequence[str],
        kwargs: Mapping[str, JSON] | None, conversation_id: str | None = None,
    ) -> AsyncIterator[Update]: ...


@dataclass
class Continuation:
    """The service conversation a turn continues: each model call continues from the id the previous response
    issued, and the turn's response carries the id of its last model response (none if that issued none), so a
    caller never continues from a service state the loop has moved past."""

    current: str | None = None
    returned: str | None = None


@dataclass
class _RunState:
    tools: dict[str, LoopTool]
    history: list[Message]
    tool_choice: str
    kwargs: Mapping[str, JSON]
    iterations: int = 0
    function_calls: int = 0
    errors_in_row: int = 0
    sequence: int = 0
    terminated: bool = False
    model_message_id: str | None = None
    continuation: Continuation = field(default_factory=Continuation)
    service_owned: int = 0  # how many leading history messages the continued service conversation already holds
    session: LoopSession | None = None
    # hosted approval requests of the last model response that the approval layer answered itself
    hosted_approved: list[ApprovalResponse] = field(default_factory=lambda: [])


class ReferenceLoop:
    """Runs the function-calling loop over a model client; `run` yields the caller-visible updates in order."""

    def __init__(self, model: ModelClient, config: LoopConfig, catalog: Mapping[str, LoopTool] | None = None,
                 policy: ApprovalPolicy | None = None) -> None:
        """`catalog` holds tools that a running tool may add for the next iteration; `policy` puts the loop behind
        an approval layer (see `policy`), whose state lives in the session."""
        self.model = model
        self.config = config
        self.catalog = dict(catalog or {})
        self.layer = ApprovalLayer(policy) if policy is not None else None
        self._queued: Mapping[str, str] = {}
        self._request_numbers = itertools.count(1)  # approval request ids are unique per occurrence
        self._responses = itertools.count(1)  # model responses, for the occurrence ids of their calls
        self.keep_last_groups: int | None = None  # compaction: each model call gets only the latest groups
        self._latest_run: _RunState | None = None

    @property
    def function_calls_counted(self) -> int | None:
        """The function-call budget the latest run had spent when it ended (None before any run): what a caller
        sees of the budget only when a later decision of the same run depends on it."""
        return None if self._latest_run is None else self._latest_run.function_calls

    async def respond(
        self, messages: str | list[LoopMessage], tools: Sequence[LoopTool], *,
        tool_choice: str | None = None, kwargs: Mapping[str, JSON] | None = None,
        conversation_id: str | None = None, session: LoopSession | None = None,
    ) -> Response:
        """Non-streaming: the whole response at once."""
        messages_out: list[Message] = []
        continuation = Continuation(conversation_id, conversation_id)
        async for _, message, joins in self._iterate(messages, tools, tool_choice, kwargs or {}, continuation,
                                                     session, streaming=False):
            if message is None:
                continue
            if joins and messages_out:
                last = messages_out[-1]
                messages_out[-1] = Message(last.role, last.contents + message.contents)
            else:
                messages_out.append(message)
        return Response(tuple(messages_out), conversation_id=continuation.returned)

    def stream(
        self, messages: str | list[LoopMessage], tools: Sequence[LoopTool], *,
        tool_choice: str | None = None, kwargs: Mapping[str, JSON] | None = None,
        conversation_id: str | None = None, session: LoopSession | None = None,
    ) -> ReferenceStream:
        """Streaming: updates as they happen, then the finalised response."""
        continuation = Continuation(conversation_id, conversation_id)
        return ReferenceStream(self._iterate(messages, tools, tool_choice, kwargs or {}, continuation, session,
                                             streaming=True), continuation)

    # --- sessions ----------------------------------------------------------------------------------------------

    def save_session(self, session: LoopSession) -> str:
        """The session in the form a caller stores: JSON."""
        return session.to_json()

    def load_session(self, saved: str) -> LoopSession:
        """A stored session, validated; raises `InvalidSessionState` rather than trust a malformed one."""
        return LoopSession.from_json(saved)

    # --- the iteration -----------------------------------------------------------------------------------------

    async def _iterate(
        self, messages: str | list[LoopMessage], tools: Sequence[LoopTool], tool_choice: str | None,
        kwargs: Mapping[str, JSON], continuation: Continuation, session: LoopSession | None, *, streaming: bool,
    ) -> AsyncIterator[_Emission]:
        """Yields (streamed update, response message, whether the message joins the previous one)."""
        state = _RunState({t.name: t for t in tools}, self.caller_history(messages), tool_choice or "auto", kwargs,
                          continuation=continuation, session=session)
        self._latest_run = state
        if self._layered(state):
            assert state.session is not None
            state.session.approvals.learn(state.history)
        if not self.config.enabled:
            async for update, message in self._model_turn(state, streaming, tool_choice=tool_choice):
                yield update, message, False
            return
        resumed, stop = await self._resolve_approvals(state)
        if any(isinstance(c, FunctionResult) for m in resumed for c in m.contents):
            self.after_batch(state)  # the resumed batch ran (or was settled): it was this run's first
        for message in resumed:
            yield self._as_update(message, state), message, False
        if stop:
            if state.session is not None:
                state.session.outbox = None  # the turn ends here: its results reach the model through history
            return
        max_iterations = self.config.max_iterations or DEFAULT_MAX_ITERATIONS
        while True:
            limit_reached = self._limit_reached(state) or state.iterations >= max_iterations
            choice = "none" if limit_reached else state.tool_choice
            response_messages: list[Message] = []
            async for update, message in self._model_turn(state, streaming, tool_choice=choice):
                if message is not None:
                    response_messages.append(message)
                yield update, message, False
            if state.session is not None:
                state.session.outbox = None  # the model call carrying the batch's results succeeded
            state.iterations += 1
            calls = self.response_calls(response_messages)
            if state.hosted_approved:
                # The layer answered the service's own approval requests: the service gets the answers next call.
                state.history.append(Message("user", tuple(state.hosted_approved)))
                state.hosted_approved = []
                if not calls and not limit_reached:
                    continue
            if limit_reached or not calls:
                if limit_reached and not self._has_visible_content(response_messages):
                    fallback = Message("assistant", (Text(LIMIT_FALLBACK_TEXT),))
                    yield self._as_update(fallback, state), fallback, False
                return
            outcome = await self._process_calls(calls, state)
            if not outcome.pause:
                self.after_batch(state)
            if outcome.pause:
                self.keep_spent_budget(state, calls, outcome.pause)
                # A pause surfaces in the very message that holds the calls, as the caller's answer refers to it.
                message_id = state.model_message_id or self._as_update(response_messages[-1], state).message_id
                yield Update("assistant", outcome.pause, message_id), Message("assistant", outcome.pause), True
            for message in outcome.messages:
                state.history.append(message)
                yield self._as_update(message, state), message, False
            if outcome.stop:
                return

    def response_calls(self, messages: Sequence[Message]) -> list[FunctionCall]:
        """The calls of one model response to act on, each service output item once (see `distinct_calls`)."""
        return distinct_calls([c for m in messages for c in m.contents
                               if isinstance(c, FunctionCall) and self._actionable(c)])

    def compacted(self, history: list[Message]) -> list[Message]:
        """What a model call gets of the history under compaction: its latest groups, none of them split."""
        if self.keep_last_groups is None:
            return history
        return keep_last_groups(history, self.keep_last_groups)

    async def _model_turn(
        self, state: _RunState, streaming: bool, *, tool_choice: str | None,
    ) -> AsyncIterator[tuple[Update | None, Message | None]]:
        names = [name for name in state.tools]
        continuation = state.continuation
        # Continuing a service conversation, send only what the service does not hold: resending stored items
        # would duplicate them in the conversation the model sees.
        sent = state.history[state.service_owned:] if continuation.current is not None else state.history
        if continuation.current is None:
            sent = self.compacted(sent)
        if not streaming:
            response = await self.model.complete(sent, tool_choice=tool_choice, tools=names,
                                                 kwargs=state.kwargs, conversation_id=continuation.current)
            continuation.returned = response.conversation_id
            continuation.current = response.conversation_id or continuation.current
            occurrences = OccurrenceStamp(next(self._responses))
            stamped = [Message(m.role, occurrences.stamp(m.contents)) for m in response.messages]
            repeats = RepeatedItems()
            for message in self._keep_after_limit(stamped, tool_choice):
                model_bound = repeats.without_repeats(message)
                if model_bound.contents:
                    state.history.append(model_bound)
                visible = self._answer_hosted_requests(message.contents, state)
                if visible:
                    yield None, Message(message.role, visible)
            if response.conversation_id is not None:
                state.service_owned = len(state.history)
            return
        updates: list[Update] = []
        shown: set[str | None] = set()  # ids of the messages whose contents the caller has seen
        continuation.returned = None
        occurrences = OccurrenceStamp(next(self._responses))
        async for update in self.model.stream(sent, tool_choice=tool_choice, tools=names,
                                              kwargs=state.kwargs, conversation_id=continuation.current):
            continuation.returned = update.conversation_id or continuation.returned
            update = Update(update.role, occurrences.stamp(update.contents), update.message_id,  # noqa: PLW2901
                            update.finish_reason, update.conversation_id)
            kept = self._keep_update_after_limit(update, tool_choice)
            if kept is not None:
                updates.append(kept)
                state.model_message_id = kept.message_id
                visible = self._answer_hosted_requests(kept.contents, state)
                if visible:
                    shown.add(kept.message_id)
                # A content-less update (metadata only) belongs to a message the caller already sees; forwarded
                # alone, after a limit dropped everything its message held, it would show an empty message.
                if visible or (not kept.contents and kept.message_id in shown) or kept.conversation_id is not None:
                    yield Update(kept.role, visible, kept.message_id, kept.finish_reason, kept.conversation_id), None
        continuation.current = continuation.returned or continuation.current
        # The fold joins each call's fragments as `merge_contents` does: argument text concatenates, and arguments a
        # client delivered as a mapping are the call's whole arguments, so the calls that run are those a
        # non-streaming response holds ("Streaming yields the same logical result content ... as non-streaming").
        repeats = RepeatedItems()
        for message in (m for m in fold_updates(updates).messages if m.contents):
            model_bound = repeats.without_repeats(message)
            if model_bound.contents:
                state.history.append(model_bound)
            visible = tuple(c for c in message.contents if not _answered_here(c, state))
            if visible:
                yield None, Message(message.role, visible)
        if continuation.returned is not None:
            state.service_owned = len(state.history)

    def _answer_hosted_requests(self, contents: Sequence[Content], state: _RunState) -> tuple[Content, ...]:
        """The contents the caller sees: a hosted service's approval request that the approval layer approves is
        answered by the loop (the answer goes to the service on the next call) and never shown to the caller."""
        if self.layer is None or state.session is None:
            return tuple(contents)
        visible: list[Content] = []
        for content in contents:
            if (isinstance(content, ApprovalRequest) and approvals.is_hosted(content)
                    and self.layer.approves(state.session.approvals, content.function_call)):
                state.hosted_approved.append(ApprovalResponse(content.id, True, content.function_call))
            else:
                visible.append(content)
        return tuple(visible)

    # --- approvals ---------------------------------------------------------------------------------------------

    async def _resolve_approvals(self, state: _RunState) -> tuple[list[Message], bool]:
        """Carry out the decisions still pending in this turn's input, before any model call.

        The model-bound history loses every local approval wrapper and gains each decided call's terminal contents
        where the decision stood (see `approvals`). Returns the caller-visible messages for those contents and
        whether the turn ends here: an approved execution asked for more input, or middleware ended the loop.
        """
        self._queued = state.session.approvals.queued_ids() if self._layered(state) and state.session else {}
        normalised = self.normalise(state.history, restore_calls=state.continuation.current is None)
        state.history = normalised.history
        if self._queued and normalised.pending:
            # The caller answered what was surfaced; the batch still waits for queued requests: surface the next
            # one and carry out nothing until every request of the batch is answered.
            assert state.session is not None
            return [Message("assistant", (state.session.approvals.queued.pop(0),))], True
        outbox = state.session.outbox if state.session is not None else None
        if outbox is not None:
            _reject_conflicting_host_results(outbox, state.history)
        self.resume_spent_budget(state, normalised)
        if not normalised.pending:
            return [], False
        approved = [o for o in normalised.pending if o.decision is not None and o.decision.approved]
        # A retry of a batch whose results were never delivered: replay what the approved calls produced, with
        # the budgets they spent, instead of running them again.
        replay = outbox is not None and bool(approved) and all(o.call.call_id in outbox.executed for o in approved)
        if replay:
            assert outbox is not None
            ran: list[list[Content]] = [list(outbox.executed[o.call.call_id]) for o in approved]
        else:
            ran = await self._execute_grouped([o.call for o in approved], state)
        executed = iter(ran)
        outcomes: list[list[Content]] = []
        for occurrence in normalised.pending:
            if occurrence.decision is not None and occurrence.decision.approved:
                outcomes.append(next(executed))
            else:
                outcomes.append([FunctionResult(occurrence.call.call_id, REJECTION_TEXT)])
        settled, resumed = approvals.settle(normalised, outcomes)
        state.history = _join_result_messages(settled)
        executed_contents = [c for outcome in ran for c in outcome]
        if replay:
            assert outbox is not None
            state.function_calls, state.errors_in_row = outbox.function_calls, outbox.errors_in_row
        else:
            state.function_calls += len(approved)
            if approved:
                failed = any(isinstance(c, FunctionResult) and c.error for c in executed_contents)
                state.errors_in_row = state.errors_in_row + 1 if failed else 0
        if state.session is not None:
            # Kept before the model call that delivers these results, cleared once that call succeeds.
            state.session.outbox = Outbox(
                {o.call.call_id: tuple(r) for o, r in zip(approved, ran, strict=True)},
                _host_results(state.history, state.tools),
                state.function_calls, state.errors_in_row)
        follow_up = any(isinstance(c, UserInputRequest) for c in executed_contents)
        return resumed, follow_up or state.terminated

    def keep_spent_budget(self, state: _RunState, calls: Sequence[FunctionCall], pause: Sequence[Content]) -> None:
        """A run that pauses on a session for the caller's own calls (host-owned: the caller supplies their results)
        while it holds local calls of the same batch leaves its spent budgets there: the held calls are the paused
        run's unfinished work, and the run that carries them out continues its budget, as Agent Framework keeps the
        budget state with such a batch. Any other pause ends the invocation, and the next one starts afresh (the
        budgets count per invocation): a pause for approval alone, or one whose batch holds nothing."""
        if state.session is None:
            return
        waiting = tuple(c.function_call.call_id for c in pause
                        if isinstance(c, UserInputRequest) and c.function_call is not None)
        held = [c for c in calls if (tool := state.tools.get(c.name)) is not None
                and not tool.declaration_only and not tool.approval_required]
        if waiting and held:
            state.session.paused_budget = PausedBudget(state.function_calls, state.iterations, waiting)

    def resume_spent_budget(self, state: _RunState, normalised: approvals.Normalised) -> None:
        """The run that carries out a batch paused on the caller's own calls, with the local calls it held, continues
        the paused run's budgets: the caller's answer is not a new budget for the paused run's own work (our reading
        of rows "Shared call budget" and "Approval re-entry after iteration budget"). An unrelated turn leaves them
        waiting."""
        paused = state.session.paused_budget if state.session is not None else None
        if paused is None or state.session is None:
            return
        answered = {c.call_id for m in normalised.history for c in m.contents if isinstance(c, FunctionResult)}
        if not normalised.pending or not answered.intersection(paused.waiting):
            return
        state.function_calls += paused.function_calls
        state.iterations = max(state.iterations, paused.iterations)
        state.session.paused_budget = None

    def normalise(self, history: Sequence[Message], *, restore_calls: bool) -> approvals.Normalised:
        """The model-bound history and the decisions to carry out now (see `approvals`)."""
        return approvals.normalise(history, restore_calls=restore_calls, queued=self._queued)

    def _layered(self, state: _RunState) -> bool:
        """Whether this run goes through the approval layer (it keeps its state in the session)."""
        return self.layer is not None and state.session is not None

    # --- function calls ----------------------------------------------------------------------------------------

    @dataclass
    class _Outcome:
        messages: list[Message]
        stop: bool
        pause: tuple[Content, ...] = ()

    async def _process_calls(self, calls: list[FunctionCall], state: _RunState) -> ReferenceLoop._Outcome:
        self.refuse_unknown_calls(calls, state)
        declared = [c for c in calls if (t := state.tools.get(c.name)) is not None and t.declaration_only]
        gated = [c for c in calls if (t := state.tools.get(c.name)) is not None and t.approval_required]
        if self.layer is not None and state.session is not None:  # `_layered`, spelled out for the type checker
            # Calls the layer approves need no person: they run, or wait with their batch, like ungated calls.
            layer, approval_state = self.layer, state.session.approvals
            gated = [c for c in gated if not layer.approves(approval_state, c)]
        if gated or declared:
            # The batch pauses as a whole: approval-required calls ask for a decision, host-owned calls for their
            # result, and every other call of the batch is held back without a request of its own — it runs with
            # the batch once the caller has answered (the spec's mixed batches), never before and never alone.
            # One request per call occurrence, keyed by the occurrence and not by call id: a model that reuses a
            # call id within one response asks for two calls, and each gets its own decision.
            requests = {id(c): self._approval_request(c) for c in gated}
            if self._layered(state) and len(gated) > 1:
                # The layer surfaces one request per run; the others wait in the session, in the model's order.
                assert state.session is not None
                state.session.approvals.queued.extend(requests[id(c)] for c in gated[1:])
                requests = {id(gated[0]): requests[id(gated[0])]}
            declared_ids = {id(c) for c in declared}
            pause = tuple(
                UserInputRequest(f"input-{c.call_id}", c) if id(c) in declared_ids else requests[id(c)]
                for c in calls if id(c) in declared_ids or id(c) in requests
            )
            return self._Outcome([], stop=True, pause=pause)
        results = await self.execute_batch(calls, state)
        state.function_calls += len(calls)
        terminal = [c for c in results if isinstance(c, FunctionResult)]
        follow_ups = [c for c in results if isinstance(c, UserInputRequest)]
        messages = [Message("tool", tuple(terminal))] if terminal else []
        if follow_ups:
            return self._Outcome([*messages, Message("assistant", tuple(follow_ups))], stop=True)
        if any(getattr(c, "error", False) for c in terminal):
            state.errors_in_row += 1
        else:
            state.errors_in_row = 0
        return self._Outcome(messages, stop=state.terminated)

    def after_batch(self, state: _RunState) -> None:
        """A batch has run: a caller's 'required' tool choice has had its effect (the model chose a tool), so later
        model calls of the run may answer without one (spec flow: \"apply error/function-call-limit policy; reset
        required tool choice\"), or the run could never end but at its iteration budget."""
        if state.tool_choice == "required":
            state.tool_choice = "auto"

    def refuse_unknown_calls(self, calls: Sequence[FunctionCall], state: _RunState) -> None:
        """Told to stop on unknown calls, stop before anything else is decided about the batch: a pause for
        approval or input must never hide an invalid call (the caller would be asked about a batch the loop refuses)."""
        if not self.config.terminate_on_unknown_calls:
            return
        unknown = next((c for c in calls if c.name not in state.tools), None)
        if unknown is not None:
            raise UnknownToolError(f"the model called unknown function '{unknown.name}'")

    def _approval_request(self, call: FunctionCall) -> ApprovalRequest:
        return ApprovalRequest(f"approval-{next(self._request_numbers)}-{call.call_id}", call)

    async def execute_batch(self, calls: list[FunctionCall], state: _RunState) -> list[Content]:
        """Run one model response's calls concurrently; results keep the model's order."""
        return [content for group in await self._execute_grouped(calls, state) for content in group]

    async def _execute_grouped(self, calls: list[FunctionCall], state: _RunState) -> list[list[Content]]:
        """Run calls concurrently; one list of terminal contents per call, in the calls' order."""
        return list(await asyncio.gather(*(self._execute(c, state.tools.get(c.name), state) for c in calls)))

    async def _execute(self, call: FunctionCall, tool: LoopTool | None, state: _RunState) -> list[Content]:
        if tool is None or tool.run is None:
            if self.config.terminate_on_unknown_calls:
                raise UnknownToolError(f"the model called unknown function '{call.name}'")
            return [FunctionResult(call.call_id, f"Error: requested function '{call.name}' not found.", error=True)]
        arguments: Mapping[str, JSON] = call.arguments if isinstance(call.arguments, Mapping) else {}
        problems = argument_problems(tool.parameters, dict(arguments))
        if problems:
            # Refused before the body runs: the model gets one error result it can correct.
            return [FunctionResult(call.call_id, self._invalid_arguments_text(call.name, problems), error=True)]
        try:
            returned = await tool.run(arguments, call.call_id)
        except UserInputRequired as pause:
            return [UserInputRequest(f"input-{call.call_id}-{i}", call, p) for i, p in enumerate(pause.payloads)]
        except Exception as error:  # noqa: BLE001 - any tool failure becomes the call's error result
            return [FunctionResult(call.call_id, self._error_text(error), error=True)]
        state.terminated = state.terminated or returned.terminate
        for name in returned.add_tools:
            added = self.catalog.get(name)
            if added is not None:
                state.tools[name] = added
        return [FunctionResult(call.call_id, result_text(returned.value))]

    def _invalid_arguments_text(self, name: str, problems: Sequence[str]) -> str:
        if self.config.include_detailed_errors:
            return f"Error: invalid arguments for '{name}': {'; '.join(problems)}"
        return f"Error: invalid arguments for '{name}'."

    def _error_text(self, error: Exception) -> str:
        if self.config.include_detailed_errors:
            return f"Error: {type(error).__name__}: {error}"
        return "Error: the function failed."

    # --- policy helpers ----------------------------------------------------------------------------------------

    def _limit_reached(self, state: _RunState) -> bool:
        max_calls = self.config.max_function_calls
        max_errors = self.config.max_consecutive_errors
        if max_errors is None:
            max_errors = DEFAULT_MAX_CONSECUTIVE_ERRORS
        return (max_calls is not None and state.function_calls >= max_calls) or (
            max_errors > 0 and state.errors_in_row >= max_errors
        )

    @staticmethod
    def _actionable(content: Content) -> bool:
        return isinstance(content, FunctionCall) and not content.informational_only and content.server_label is None

    def _keep_after_limit(self, messages: Sequence[Message], tool_choice: str | None) -> list[Message]:
        """With tools disabled, drop calls a misbehaving provider returned anyway: they can never run."""
        if tool_choice != "none":
            return list(messages)
        kept = [Message(m.role, tuple(c for c in m.contents if not self._actionable(c))) for m in messages]
        return [m for m in kept if m.contents]

    def _keep_update_after_limit(self, update: Update, tool_choice: str | None) -> Update | None:
        if tool_choice != "none":
            return update
        contents = tuple(c for c in update.contents if not self._actionable(c))
        if not contents and update.contents and update.conversation_id is None:
            return None
        return Update(update.role, contents, update.message_id, update.finish_reason, update.conversation_id)

    @staticmethod
    def _has_visible_content(messages: Sequence[Message]) -> bool:
        """An answer the caller can read. Provider-executed calls and results kept after a limit are transcript,
        not an answer: the fallback text follows them (spec: fallback never replaces retained content)."""
        return any(isinstance(c, Text) and c.text.strip() for m in messages for c in m.contents)

    def _as_update(self, message: Message, state: _RunState) -> Update:
        state.sequence += 1
        return Update(message.role, message.contents, f"loop-{state.sequence}")

    def caller_history(self, messages: str | list[LoopMessage]) -> list[Message]:
        """The loop's private copy of the caller's input: the caller's objects are never touched."""
        if isinstance(messages, str):
            return [Message("user", (Text(messages),))]
        return [m.frozen() for m in messages]


def _answered_here(content: Content, state: _RunState) -> bool:
    return isinstance(content, ApprovalRequest) and any(r.id == content.id for r in state.hosted_approved)


def _join_result_messages(history: Sequence[Message]) -> list[Message]:
    """Adjacent tool messages as one: the results of one batch — executed, rejected, supplied by the caller —
    reach the model together, after the calls they answer, in the order of those calls (the caller's results for
    host-owned calls and the results of the siblings held with them come from different places)."""
    joined: list[Message] = []
    batch: list[str] = []  # the call ids of the latest model response, in the model's order
    for message in history:
        if message.role == "assistant" and any(isinstance(c, FunctionCall) for c in message.contents):
            calls = [c.call_id for c in message.contents if isinstance(c, FunctionCall)]
            batch = calls if not joined or joined[-1].role != "assistant" else batch + calls
        if joined and message.role == "tool" and joined[-1].role == "tool":
            joined[-1] = Message("tool", _in_call_order(joined[-1].contents + message.contents, batch))
        else:
            joined.append(message)
    return joined


def _in_call_order(results: Sequence[Content], calls: Sequence[str]) -> tuple[Content, ...]:
    """Results ordered as the calls they answer (stable: results of one reused id keep their order; anything else
    keeps its place after them)."""
    def position(content: Content) -> int:
        call_id = content.call_id if isinstance(content, FunctionResult) else None
        return calls.index(call_id) if call_id in calls else len(calls)
    return tuple(sorted(results, key=position))


def _host_results(history: Sequence[Message], tools: Mapping[str, LoopTool]) -> dict[str, FunctionResult]:
    """Results the caller supplied for calls to host-owned (declaration-only) tools, by call id."""
    names = {c.call_id: c.name for m in history for c in m.contents if isinstance(c, FunctionCall)}
    return {c.call_id: c for m in history for c in m.contents
            if isinstance(c, FunctionResult) and (t := tools.get(names.get(c.call_id, ""))) is not None
            and t.declaration_only}


def _reject_conflicting_host_results(outbox: Outbox, history: Sequence[Message]) -> None:
    """A retry must supply the host results the undelivered batch holds; a different one would give the model two
    answers to one call, so it is refused before anything is sent."""
    for content in (c for m in history for c in m.contents if isinstance(c, FunctionResult)):
        stored = outbox.host_results.get(content.call_id)
        if stored is not None and (stored.result, stored.error) != (content.result, content.error):
            raise ConflictingHostResult(
                f"the result supplied for call '{content.call_id}' differs from the one already stored for it "
                "in the undelivered batch; refusing to send the model two results for one call")


class ReferenceStream:
    """The streaming result: iterate for updates, then `final_response()` for the folded response."""

    def __init__(self, source: AsyncIterator[_Emission], continuation: Continuation) -> None:
        self._source = source
        self._continuation = continuation
        self._updates: list[Update] = []

    def __aiter__(self) -> AsyncIterator[Update]:
        return self._updates_only()

    async def _updates_only(self) -> AsyncIterator[Update]:
        async for update, _, _ in self._source:
            if update is not None:
                self._updates.append(update)
                yield update

    async def final_response(self) -> Response:
        async for _ in self._updates_only():
            pass
        folded = fold_updates(self._updates)
        # The stream's chunks carry every id the service issued; the response carries the last call's own.
        return Response(folded.messages, folded.finish_reason, self._continuation.returned)

"""Negative controls for the detection holes of issue 28: each breaks, in the reference loop, exactly the rule one
new scenario guards, and that scenario must fail on it (tests/test_negative_controls_detection.py).

Like `negative_controls_limits`, these hook the reference loop's own steps: the rules live there.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from negative_controls_limits import BUNDLED

from harness import MODES, Mode
from harness.adapters.reference import ReferenceAdapter, ReferenceConversation, approvals
from harness.adapters.reference.loop import (
    REJECTION_TEXT,
    LoopMessage,
    LoopTool,
    ModelClient,
    ReferenceLoop,
    ReferenceStream,
    _RunState,  # pyright: ignore[reportPrivateUsage]
)
from harness.adapters.reference.session import LoopSession
from harness.contents import (
    APPROVAL_PENDING,
    JSON,
    ApprovalRequest,
    ApprovalResponse,
    Content,
    FunctionCall,
    FunctionResult,
    Message,
    Reasoning,
    Response,
    Update,
    UserInputRequest,
)
from harness.contract import ApprovalPolicy, ConversationSetup, LoopConfig


@dataclass(frozen=True)
class DetectionControl:
    loop: type[ReferenceLoop]
    scenario: str  # a bundled scenario, relative to scenarios/
    check: str | None = None  # a check that must be among the failing ones, where one guards the rule
    modes: tuple[Mode, ...] = MODES  # the modes the break shows in
    # A profile that check fails in, where it matters: a tentative reading fails the run here and reads `differs`
    # (never gating) in a report; a safety failure gates every loop.
    profile: str | None = None

    @property
    def scenario_path(self) -> Path:
        return BUNDLED / self.scenario


# --- approval request ids that differ from the call ids ---------------------------------------------------------


class _ResultsUnderRequestIds(ReferenceLoop):
    """Builds resumed results from the approval decision's id instead of the call's; `only_rejections` limits the
    mistake to the synthetic rejection result."""

    only_rejections = False

    def normalise(self, history: Sequence[Message], *, restore_calls: bool) -> approvals.Normalised:
        normalised = super().normalise(history, restore_calls=restore_calls)
        self._request_of_call = {o.call.call_id: o.decision.id for o in normalised.pending if o.decision is not None}
        return normalised

    def _renamed(self, content: Content) -> Content:
        if not isinstance(content, FunctionResult) or content.call_id not in self._request_of_call:
            return content
        if self.only_rejections and content.result != REJECTION_TEXT:
            return content
        return replace(content, call_id=self._request_of_call[content.call_id])

    def _rename(self, messages: Sequence[Message]) -> list[Message]:
        return [Message(m.role, tuple(self._renamed(c) for c in m.contents)) for m in messages]

    async def _resolve_approvals(self, state: _RunState) -> tuple[list[Message], bool]:
        self._request_of_call: dict[str, str] = {}
        resumed, stop = await super()._resolve_approvals(state)
        state.history = self._rename(state.history)
        return self._rename(resumed), stop


class RejectionUnderRequestId(_ResultsUnderRequestIds):
    """The synthetic rejection result carries the approval request's id, not the function call's."""

    only_rejections = True


class ResultsUnderRequestIds(_ResultsUnderRequestIds):
    """Every result of a resumed batch, executed or rejected, carries its approval request's id."""


# --- two occurrences of one call id in one paused batch ---------------------------------------------------------


class OneRequestPerCallId(ReferenceLoop):
    """Issues approval requests by call id: a second occurrence of an id in the batch gets the first one's request
    again (one id, the first call's arguments), so one decision answers both."""

    async def _process_calls(self, calls: list[FunctionCall], state: _RunState) -> ReferenceLoop._Outcome:
        self._issued: dict[str, ApprovalRequest] = {}
        return await super()._process_calls(calls, state)

    def _approval_request(self, call: FunctionCall) -> ApprovalRequest:
        issued = getattr(self, "_issued", {})
        if call.call_id not in issued:
            issued[call.call_id] = super()._approval_request(call)
        return issued[call.call_id]


# --- streamed calls sharing a call id ---------------------------------------------------------------------------


class _MergesStreamedCallsById:
    """The model client, with every streamed call after the first of its id sent as a continuation of that call
    (no name, its arguments as text): what an update fold that matches call chunks by id alone makes of them."""

    def __init__(self, inner: ModelClient) -> None:
        self.inner = inner

    async def complete(self, messages: Sequence[Message], *, tool_choice: str | None, tools: Sequence[str],
                       kwargs: Mapping[str, JSON] | None, conversation_id: str | None = None) -> Response:
        return await self.inner.complete(messages, tool_choice=tool_choice, tools=tools, kwargs=kwargs,
                                         conversation_id=conversation_id)

    async def stream(self, messages: Sequence[Message], *, tool_choice: str | None, tools: Sequence[str],
                     kwargs: Mapping[str, JSON] | None, conversation_id: str | None = None) -> AsyncIterator[Update]:
        seen: set[str] = set()
        async for update in self.inner.stream(messages, tool_choice=tool_choice, tools=tools, kwargs=kwargs,
                                              conversation_id=conversation_id):
            contents: list[Content] = []
            for content in update.contents:
                if isinstance(content, FunctionCall) and content.name:
                    text = content.arguments if isinstance(content.arguments, str) else json.dumps(content.arguments)
                    again = content.call_id in seen
                    seen.add(content.call_id)
                    content = replace(content, name="" if again else content.name, arguments=text)  # noqa: PLW2901
                contents.append(content)
            yield replace(update, contents=tuple(contents))


class _NameFromFirstDelta(_MergesStreamedCallsById):
    """The model client, with every streamed call fragment after the first of its id stripped of its name: an
    aggregator that fixes a call's name from its first delta."""

    async def stream(self, messages: Sequence[Message], *, tool_choice: str | None, tools: Sequence[str],
                     kwargs: Mapping[str, JSON] | None, conversation_id: str | None = None) -> AsyncIterator[Update]:
        seen: set[str] = set()
        async for update in self.inner.stream(messages, tool_choice=tool_choice, tools=tools, kwargs=kwargs,
                                              conversation_id=conversation_id):
            contents: list[Content] = []
            for content in update.contents:
                if isinstance(content, FunctionCall) and content.call_id:
                    if content.call_id in seen:
                        content = replace(content, name="")  # noqa: PLW2901
                    seen.add(content.call_id)
                contents.append(content)
            yield replace(update, contents=tuple(contents))


class NamesCallsFromFirstDelta(ReferenceLoop):
    """Streaming, a call keeps the name of its first delta: one whose name comes later stays nameless."""

    def __init__(self, model: ModelClient, config: LoopConfig, catalog: Mapping[str, LoopTool] | None = None,
                 policy: ApprovalPolicy | None = None) -> None:
        super().__init__(_NameFromFirstDelta(model), config, catalog, policy)


class _DropsTextlessReasoning(_MergesStreamedCallsById):
    """The model client, with every streamed reasoning update that carries no text dropped: an aggregator that
    takes a signature-only update for an empty item."""

    async def stream(self, messages: Sequence[Message], *, tool_choice: str | None, tools: Sequence[str],
                     kwargs: Mapping[str, JSON] | None, conversation_id: str | None = None) -> AsyncIterator[Update]:
        async for update in self.inner.stream(messages, tool_choice=tool_choice, tools=tools, kwargs=kwargs,
                                              conversation_id=conversation_id):
            kept = tuple(c for c in update.contents if not (isinstance(c, Reasoning) and not c.text))
            yield replace(update, contents=kept)


class DropsSignatureOnlyReasoningUpdates(ReferenceLoop):
    """Streaming, drops a reasoning update without text, and with it a signature streamed on its own."""

    def __init__(self, model: ModelClient, config: LoopConfig, catalog: Mapping[str, LoopTool] | None = None,
                 policy: ApprovalPolicy | None = None) -> None:
        super().__init__(_DropsTextlessReasoning(model), config, catalog, policy)


class MergesStreamedCallsById(ReferenceLoop):
    """Streaming, joins a complete call to the earlier call of the same id: one call, its arguments glued."""

    def __init__(self, model: ModelClient, config: LoopConfig, catalog: Mapping[str, LoopTool] | None = None,
                 policy: ApprovalPolicy | None = None) -> None:
        super().__init__(_MergesStreamedCallsById(model), config, catalog, policy)


# --- streamed call arguments that arrive as a mapping -------------------------------------------------------------


class _ReadsArgumentsAsText(_MergesStreamedCallsById):
    """The model client, with every streamed call fragment whose client delivered a mapping read as text: by
    `str()` (Python's repr, not JSON), or, with `drop`, as no text at all."""

    drop = False

    async def stream(self, messages: Sequence[Message], *, tool_choice: str | None, tools: Sequence[str],
                     kwargs: Mapping[str, JSON] | None, conversation_id: str | None = None) -> AsyncIterator[Update]:
        async for update in self.inner.stream(messages, tool_choice=tool_choice, tools=tools, kwargs=kwargs,
                                              conversation_id=conversation_id):
            contents = tuple(
                replace(c, arguments="" if self.drop else str(c.arguments), arguments_as_mapping=False)
                if isinstance(c, FunctionCall) and c.arguments_as_mapping else c for c in update.contents)
            yield replace(update, contents=contents)


class _DropsMappingArguments(_ReadsArgumentsAsText):
    drop = True


class StringifiesMappingArguments(ReferenceLoop):
    """Streaming, joins argument fragments as text, so a mapping becomes its `str()`: not JSON, no arguments."""

    def __init__(self, model: ModelClient, config: LoopConfig, catalog: Mapping[str, LoopTool] | None = None,
                 policy: ApprovalPolicy | None = None) -> None:
        super().__init__(_ReadsArgumentsAsText(model), config, catalog, policy)


class DropsMappingArguments(ReferenceLoop):
    """Streaming, keeps only argument text: a fragment whose arguments are a mapping adds nothing to its call."""

    def __init__(self, model: ModelClient, config: LoopConfig, catalog: Mapping[str, LoopTool] | None = None,
                 policy: ApprovalPolicy | None = None) -> None:
        super().__init__(_DropsMappingArguments(model), config, catalog, policy)


# --- an unknown call beside an approval-required one ------------------------------------------------------------


class PauseHidesUnknownCall(ReferenceLoop):
    """Pauses a batch for approval before looking for unknown calls in it: the unknown call is met only when the
    batch runs, after the caller was asked about it."""

    def refuse_unknown_calls(self, calls: Sequence[FunctionCall], state: _RunState) -> None:
        return None


# --- a batch paused by the kind of its first call --------------------------------------------------------------


class PausesForFirstCallOnly(ReferenceLoop):
    """Decides how a batch pauses from its first call alone: a pause keeps only the requests of the first call's
    kind (the other calls are forgotten without a request), and an unknown first call settles the batch by running
    it, gated calls included."""

    async def _process_calls(self, calls: list[FunctionCall], state: _RunState) -> ReferenceLoop._Outcome:
        if calls and calls[0].name not in state.tools:
            results = await self.execute_batch(calls, state)
            state.function_calls += len(calls)
            return self._Outcome([Message("tool", tuple(results))], stop=False)
        outcome = await super()._process_calls(calls, state)
        if not outcome.pause:
            return outcome
        # Approval and input requests both carry the call they pause.
        first = type(next(c for c in outcome.pause if getattr(c, "function_call", None) == calls[0]))
        return replace(outcome, pause=tuple(c for c in outcome.pause if isinstance(c, first)))


# --- queued approvals: one unresolved request per run ------------------------------------------------------------


class ShowsQueuedRequests(ReferenceLoop):
    """Queues a batch's other approval requests but shows them in the response as well."""

    async def _process_calls(self, calls: list[FunctionCall], state: _RunState) -> ReferenceLoop._Outcome:
        outcome = await super()._process_calls(calls, state)
        if not outcome.pause or state.session is None:
            return outcome
        return replace(outcome, pause=(*outcome.pause, *state.session.approvals.queued))


class AsksAnsweredRequestAgain(ReferenceLoop):
    """Surfaces each queued request together with the one the caller has just answered."""

    async def _resolve_approvals(self, state: _RunState) -> tuple[list[Message], bool]:
        resumed, stop = await super()._resolve_approvals(state)
        answered = getattr(self, "_shown", ())
        shown = tuple(c for m in resumed for c in m.contents if isinstance(c, ApprovalRequest))
        if shown and stop:
            self._shown = shown
            return [Message("assistant", (*answered, *shown))], stop
        return resumed, stop

    async def _process_calls(self, calls: list[FunctionCall], state: _RunState) -> ReferenceLoop._Outcome:
        outcome = await super()._process_calls(calls, state)
        self._shown = tuple(c for c in outcome.pause if isinstance(c, ApprovalRequest))
        return outcome


# --- a hosted decision sent once ----------------------------------------------------------------------------------


def _with_stale_hosted_decisions(messages: str | list[LoopMessage], session: LoopSession | None,
                                 ) -> str | list[LoopMessage]:
    """The loop's input with every hosted decision the session ever stored sent again, as a history filter that
    waits for a local result to close a hosted decision would keep it."""
    if session is None or isinstance(messages, str):
        return messages
    present = {c.id for m in messages for c in m.contents if isinstance(c, ApprovalResponse)}
    stale = [c for m in session.history for c in m.contents
             if isinstance(c, ApprovalResponse) and approvals.is_hosted(c) and c.id not in present]
    if not stale:
        return messages
    # Before the caller's new message, as a replayed history holds them.
    return [*messages[:-1], LoopMessage("user", list[Content](stale)), messages[-1]]


class ResendsHostedDecisions(ReferenceLoop):
    """Sends every hosted approval response the session holds again on each later turn."""

    async def respond(
        self, messages: str | list[LoopMessage], tools: Sequence[LoopTool], *,
        tool_choice: str | None = None, kwargs: Mapping[str, JSON] | None = None,
        conversation_id: str | None = None, session: LoopSession | None = None,
    ) -> Response:
        return await super().respond(_with_stale_hosted_decisions(messages, session), tools, tool_choice=tool_choice,
                                     kwargs=kwargs, conversation_id=conversation_id, session=session)

    def stream(
        self, messages: str | list[LoopMessage], tools: Sequence[LoopTool], *,
        tool_choice: str | None = None, kwargs: Mapping[str, JSON] | None = None,
        conversation_id: str | None = None, session: LoopSession | None = None,
    ) -> ReferenceStream:
        return super().stream(_with_stale_hosted_decisions(messages, session), tools, tool_choice=tool_choice,
                              kwargs=kwargs, conversation_id=conversation_id, session=session)


# --- hiding the pending part of a batch ------------------------------------------------------------------------


class HidesEveryReasoningWithPendingCalls(ReferenceLoop):
    """While any call of the history stays hidden (awaiting a decision), drops every reasoning item from the
    model-bound history, the reasoning of calls the caller already answered included."""

    def normalise(self, history: Sequence[Message], *, restore_calls: bool) -> approvals.Normalised:
        normalised = super().normalise(history, restore_calls=restore_calls)
        calls_in = {c.call_id for m in history for c in m.contents if isinstance(c, FunctionCall)}
        calls_out = {c.call_id for m in normalised.history for c in m.contents if isinstance(c, FunctionCall)}
        if not calls_in - calls_out:
            return normalised
        kept = [Message(m.role, tuple(c for c in m.contents if not isinstance(c, Reasoning)))
                for m in normalised.history]
        return replace(normalised, history=[m for m in kept if m.contents])


# --- a caller's tool_choice "required" ----------------------------------------------------------------------------


class KeepsRequiredToolChoice(ReferenceLoop):
    """Keeps a caller's 'required' tool choice for every model call of the run."""

    def after_batch(self, state: _RunState) -> None:
        return None


# --- compaction and a reasoning-only message ----------------------------------------------------------------------


class CompactsReasoningMessagesAlone(ReferenceLoop):
    """Compacts by groups in which a reasoning-only message is a group of its own, apart from the call after it."""

    def compacted(self, history: list[Message]) -> list[Message]:
        if self.keep_last_groups is None:
            return history
        reasoning_only = [i for i, m in enumerate(history)
                          if m.role == "assistant" and m.contents and all(isinstance(c, Reasoning) for c in m.contents)]
        # Kept apart: compact the rest, then keep a reasoning message only if the window reaches back to it alone.
        rest = [m for i, m in enumerate(history) if i not in reasoning_only]
        kept = super().compacted(rest)
        return [m for m in history if any(m is k for k in kept)]


# --- a thought signature through a saved session ------------------------------------------------------------------


class RestoreDropsSignatures(ReferenceLoop):
    """Restores a saved session without the reasoning signatures its history held (provider metadata lost)."""

    def load_session(self, saved: str) -> LoopSession:
        session = super().load_session(saved)
        session.history = [Message(m.role, tuple(replace(c, signature=None) if isinstance(c, Reasoning) else c
                                                 for c in m.contents)) for m in session.history]
        return session


# --- the same call repeated in two messages of one response ------------------------------------------------------


class RunsRepeatedCallAgain(ReferenceLoop):
    """Acts on every function_call of a response, so a call repeated in a second message runs a second time."""

    def response_calls(self, messages: Sequence[Message]) -> list[FunctionCall]:
        return [c for m in messages for c in m.contents if isinstance(c, FunctionCall) and self._actionable(c)]


# --- budgets across a pause the caller owns ---------------------------------------------------------------------


class FreshBudgetOnCallersAnswer(ReferenceLoop):
    """Starts the run that carries out a paused batch on a fresh budget, forgetting what the paused run spent."""

    def resume_spent_budget(self, state: _RunState, normalised: approvals.Normalised) -> None:
        if state.session is not None:
            state.session.paused_budget = None


class RunsHeldSiblingsAtPauseToo(ReferenceLoop):
    """Runs the local calls of a batch that pauses for the caller's own calls at once (their results dropped), and
    again with the batch once the caller answers."""

    async def _process_calls(self, calls: list[FunctionCall], state: _RunState) -> ReferenceLoop._Outcome:
        outcome = await super()._process_calls(calls, state)
        if outcome.pause:
            local = [c for c in calls if (t := state.tools.get(c.name)) is not None
                     and not t.declaration_only and not t.approval_required]
            await self.execute_batch(local, state)
        return outcome


# --- context providers without a session -------------------------------------------------------------------------


class _ContextOnlyWithSession(ReferenceConversation):
    def _context(self) -> list[LoopMessage]:
        return super()._context() if self.setup.use_session else []


class ContextOnlyWithSession(ReferenceAdapter):
    """Runs the conversation's context providers only around a session: a caller without one loses them."""

    name = "control-context-only-with-session"

    def open(self, setup: ConversationSetup) -> ReferenceConversation:
        opened = super().open(setup)
        return _ContextOnlyWithSession(opened.setup, opened.loop, opened.offered)


# --- a pending placeholder written after its approval ----------------------------------------------------------


def _placeholders_after_decisions(history: Sequence[Message]) -> set[int]:
    """The `id()` of each placeholder result in `history` that follows an approval decision on its call id."""
    decided: set[str] = set()
    found: set[int] = set()
    for content in (c for m in history for c in m.contents):
        if isinstance(content, ApprovalResponse):
            decided.add(content.function_call.call_id)
        elif isinstance(content, FunctionResult) and content.result == APPROVAL_PENDING and content.call_id in decided:
            found.add(id(content))
    return found


class KeepsPlaceholderAfterDecision(ReferenceLoop):
    """Carries out an approval whose placeholder follows it, but leaves the placeholder in the model's view with
    the result after it: a correlator that settles the decision before it meets the placeholder, which then has no
    open call left to replace."""

    def normalise(self, history: Sequence[Message], *, restore_calls: bool) -> approvals.Normalised:
        normalised = super().normalise(history, restore_calls=restore_calls)
        late = _placeholders_after_decisions(history)
        kept = {occurrence: at for occurrence, at in normalised.placeholders.items()
                if id(normalised.history[at[0]].contents[at[1]]) not in late}
        return replace(normalised, placeholders=kept)


class TakesLatePlaceholderForOutput(ReferenceLoop):
    """Reads a placeholder written after its approval as the tool's output, the call's terminal result: the
    approval is settled and nothing runs (the reading the row "Pending placeholder history" leaves contested)."""

    def normalise(self, history: Sequence[Message], *, restore_calls: bool) -> approvals.Normalised:
        late = _placeholders_after_decisions(history)
        # An empty assistant message after it tells the scan the model answered it, as it answers a tool's output.
        answered: list[Message] = []
        for message in history:
            answered.append(message)
            if any(id(c) in late for c in message.contents):
                answered.append(Message("assistant", ()))
        return super().normalise(answered, restore_calls=restore_calls)


# --- the conversation id at a pause ----------------------------------------------------------------------------


class KeepsCarriedConversationIdAtPause(ReferenceLoop):
    """At a pause, returns the conversation id it carried between iterations rather than the paused response's:
    when that response issued none, the caller gets the id of a service state without the paused call."""

    async def _process_calls(self, calls: list[FunctionCall], state: _RunState) -> ReferenceLoop._Outcome:
        outcome = await super()._process_calls(calls, state)
        asks = any(isinstance(c, UserInputRequest) for m in outcome.messages for c in m.contents)
        if outcome.pause or asks:
            state.continuation.returned = state.continuation.current
        return outcome


DETECTION_CONTROLS: tuple[DetectionControl, ...] = (
    DetectionControl(RejectionUnderRequestId, "correlation/request-ids-differ.yaml", "rejection-call-id"),
    DetectionControl(RejectionUnderRequestId, "correlation/request-ids-differ-session.yaml", "rejection-call-id"),
    DetectionControl(ResultsUnderRequestIds, "correlation/request-ids-differ.yaml", "no-orphans"),
    DetectionControl(ResultsUnderRequestIds, "correlation/request-ids-differ-session.yaml", "no-orphans"),
    DetectionControl(OneRequestPerCallId, "correlation/reused-id-one-paused-batch.yaml", "approved-once"),
    DetectionControl(PauseHidesUnknownCall, "errors/unknown-call-beside-approval.yaml", "expect.error"),
    DetectionControl(PausesForFirstCallOnly, "mixed/declaration-only-before-gated.yaml", "expect.response"),
    DetectionControl(PausesForFirstCallOnly, "mixed/gated-before-declaration-only.yaml", "expect.response"),
    DetectionControl(PausesForFirstCallOnly, "mixed/unknown-before-gated.yaml", "expect.executions"),
    DetectionControl(ShowsQueuedRequests, "mixed/queued-approvals-one-per-run.yaml", "expect.response"),
    DetectionControl(AsksAnsweredRequestAgain, "mixed/queued-approvals-one-per-run.yaml", "expect.response"),
    DetectionControl(ResendsHostedDecisions, "approval/hosted-decision-sent-once.yaml", "expect.requests"),
    DetectionControl(ResendsHostedDecisions, "mixed/hosted-decision-sent-once.yaml", "expect.requests"),
    DetectionControl(HidesEveryReasoningWithPendingCalls, "correlation/pending-part-keeps-sibling-reasoning.yaml",
                     "expect.requests"),
    DetectionControl(KeepsRequiredToolChoice, "limits/tool-choice-required-reset.yaml", "script"),
    DetectionControl(NamesCallsFromFirstDelta, "normal/streaming-call-name-later.yaml", "stream-agreement",
                     ("streaming",)),
    DetectionControl(DropsSignatureOnlyReasoningUpdates, "normal/streaming-reasoning-signature-update.yaml",
                     "stream-agreement", ("streaming",)),
    DetectionControl(CompactsReasoningMessagesAlone, "history/compaction-reasoning-message.yaml", "reasoning-bound"),
    DetectionControl(RestoreDropsSignatures, "history/gemini-approval-signature-restored.yaml", "expect.requests"),
    DetectionControl(MergesStreamedCallsById, "normal/streaming-reused-id-calls.yaml", "stream-agreement",
                     ("streaming",)),
    DetectionControl(MergesStreamedCallsById, "correlation/reused-id-one-paused-batch.yaml", "stream-agreement",
                     ("streaming",)),
    DetectionControl(KeepsPlaceholderAfterDecision, "history/pending-placeholder-after-response.yaml", "no-orphans"),
    DetectionControl(KeepsPlaceholderAfterDecision, "history/pending-placeholder-after-response-store.yaml",
                     "no-orphans"),
    DetectionControl(KeepsCarriedConversationIdAtPause, "continuation/conversation-id-approval-pause.yaml",
                     "expect.conversation-id"),
    DetectionControl(KeepsCarriedConversationIdAtPause, "continuation/conversation-id-declaration-only-pause.yaml",
                     "expect.conversation-id"),
    DetectionControl(KeepsCarriedConversationIdAtPause, "continuation/conversation-id-user-input-pause.yaml",
                     "expect.conversation-id"),
    DetectionControl(StringifiesMappingArguments, "normal/streaming-call-mapping-arguments.yaml", "expect.executions",
                     ("streaming",)),
    DetectionControl(DropsMappingArguments, "normal/streaming-call-mapping-arguments.yaml", "expect.executions",
                     ("streaming",)),
    DetectionControl(StringifiesMappingArguments, "normal/declaration-only-mapping-arguments.yaml", "expect.response",
                     ("streaming",)),
    DetectionControl(DropsMappingArguments, "normal/declaration-only-mapping-arguments.yaml", "expect.response",
                     ("streaming",)),
    DetectionControl(StringifiesMappingArguments, "approval/streamed-mapping-arguments.yaml", "expect.response",
                     ("streaming",)),
    DetectionControl(DropsMappingArguments, "approval/streamed-mapping-arguments.yaml", "expect.response",
                     ("streaming",)),
    DetectionControl(RunsRepeatedCallAgain, "normal/calls-across-messages-repeated-call.yaml", "expect.executions"),
    DetectionControl(FreshBudgetOnCallersAnswer, "limits/caller-pause-function-call-budget.yaml", "expect.requests",
                     profile="tentative"),
    DetectionControl(FreshBudgetOnCallersAnswer, "limits/caller-pause-iteration-budget.yaml", "expect.requests",
                     profile="tentative"),
    DetectionControl(RunsHeldSiblingsAtPauseToo, "limits/caller-pause-function-call-budget.yaml", "exactly-once",
                     profile="safety"),
    DetectionControl(RunsHeldSiblingsAtPauseToo, "limits/caller-pause-iteration-budget.yaml", "exactly-once",
                     profile="safety"),
)

# Breaks of a contested reading: they fail only tentative assertions, so the scenario reports `differs`.
TENTATIVE_CONTROLS: tuple[DetectionControl, ...] = (
    DetectionControl(TakesLatePlaceholderForOutput, "history/pending-placeholder-after-response.yaml",
                     "expect.executions"),
    DetectionControl(TakesLatePlaceholderForOutput, "history/pending-placeholder-after-response-store.yaml",
                     "expect.executions"),
)

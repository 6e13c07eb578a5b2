"""Negative controls for the rows of "Mixed batches and approval middleware": each breaks one rule of the spec's
mixed-batch design or of the approval layer in the reference loop, and at least one bundled scenario of
`scenarios/mixed/` must fail on it.
"""

from __future__ import annotations

from typing import Any

from negative_controls_limits import LimitControl

from harness.adapters.reference import approvals
from harness.adapters.reference.loop import (
    ReferenceLoop,
    _RunState,  # pyright: ignore[reportPrivateUsage]
)
from harness.adapters.reference.policy import ApprovalLayer, ApprovalState, StandingRule
from harness.adapters.reference.session import LoopSession
from harness.contents import ApprovalResponse, FunctionCall, Message
from harness.script import same_arguments


def _approve(occurrence: approvals.CallOccurrence, at: int) -> None:
    occurrence.decision = ApprovalResponse(f"held-{occurrence.call.call_id}", True, occurrence.call)
    occurrence.decision_at = at


def _never_hold(scan: approvals.Scan) -> None:
    """Leaves a batch's unpaused calls as plain open calls: they neither wait nor run."""


def _release_every_turn(scan: approvals.Scan) -> None:
    """Runs the held calls of a paused batch on the next turn, whatever the caller says."""
    for members in approvals.batches(scan):
        paused, quiet = approvals.split_batch(members)
        if paused:
            for occurrence in quiet:
                _approve(occurrence, len(scan.out))
    approvals.resolve_held_calls(scan)


def _release_every_batch(scan: approvals.Scan) -> None:
    """When any batch is approved, runs the held calls of every paused batch, not only that one's."""
    approvals.resolve_held_calls(scan)
    released = [o for o in scan.occurrences if o.decision is not None and o.decision.id.startswith("held-")]
    if released:
        at = min(o.decision_at for o in released)
        for members in approvals.batches(scan):
            for occurrence in (o for o in members if o.held):
                occurrence.held = False
                _approve(occurrence, at)


class _WithHoldPolicy(ReferenceLoop):
    policy: Any = None

    def normalise(self, history: Any, *, restore_calls: bool) -> approvals.Normalised:
        return approvals.normalise(history, restore_calls=restore_calls, hold=type(self).policy)


class DropsHeldCalls(_WithHoldPolicy):
    """Never runs the call that needed no approval: it stays without a result."""

    policy = staticmethod(_never_hold)


class RunsHeldCallsOnAnyTurn(_WithHoldPolicy):
    """Runs what it held back on the next turn, even an unrelated one."""

    policy = staticmethod(_release_every_turn)


class RunsHeldCallsOfEveryBatch(_WithHoldPolicy):
    """Approving one batch runs the held calls of abandoned batches too."""

    policy = staticmethod(_release_every_batch)


class RunsHeldCallsAfterTheApproved(ReferenceLoop):
    """Carries out the approved calls of a batch first and its held calls after them, out of the model's order."""

    def normalise(self, history: Any, *, restore_calls: bool) -> approvals.Normalised:
        normalised = super().normalise(history, restore_calls=restore_calls)
        held = [o for o in normalised.pending if o.decision is not None and o.decision.id.startswith("held-")]
        normalised.pending[:] = [o for o in normalised.pending if o not in held] + held
        return normalised


class RunsSafeCallsEarly(ReferenceLoop):
    """Runs a mixed batch's safe calls at once, before the caller has decided on the batch."""

    async def _process_calls(self, calls: list[FunctionCall], state: _RunState) -> ReferenceLoop._Outcome:
        gated = [c for c in calls if (t := state.tools.get(c.name)) is not None and t.approval_required]
        if gated:
            await self.execute_batch([c for c in calls if c not in gated], state)
        return await super()._process_calls(calls, state)


# --- the approval layer ----------------------------------------------------------------------------------------


class _WithLayer(ReferenceLoop):
    """The reference loop with another approval layer in place of its own."""

    layer_type: type[ApprovalLayer] = ApprovalLayer

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        if self.layer is not None:
            self.layer = type(self).layer_type(self.layer.policy)


def _standing_match(state: ApprovalState, call: FunctionCall, covers: Any) -> bool:
    return any(covers(rule, call) for rule in state.standing)


class _NoServerBoundary(ApprovalLayer):
    def approves(self, state: ApprovalState, call: FunctionCall) -> bool:
        def covers(rule: StandingRule, c: FunctionCall) -> bool:
            return rule.tool == c.name and (rule.arguments is None or same_arguments(rule.arguments, c.arguments))
        return _standing_match(state, call, covers) or super().approves(state, call)


class _EmptyArgumentsAreAny(ApprovalLayer):
    def approves(self, state: ApprovalState, call: FunctionCall) -> bool:
        def covers(rule: StandingRule, c: FunctionCall) -> bool:
            loose = StandingRule(rule.tool, rule.server, rule.arguments or None)
            return loose.covers(c)
        return _standing_match(state, call, covers) or super().approves(state, call)


class _ArgumentRulesAreToolWide(ApprovalLayer):
    def approves(self, state: ApprovalState, call: FunctionCall) -> bool:
        def covers(rule: StandingRule, c: FunctionCall) -> bool:
            return StandingRule(rule.tool, rule.server).covers(c)
        return _standing_match(state, call, covers) or super().approves(state, call)


class _StandingRulesCoverEveryTool(ApprovalLayer):
    def approves(self, state: ApprovalState, call: FunctionCall) -> bool:
        return bool(state.standing) or super().approves(state, call)


class _AsksRulesWithoutArguments(ApprovalLayer):
    def approves(self, state: ApprovalState, call: FunctionCall) -> bool:
        stripped = FunctionCall(call.call_id, call.name, {}, call.informational_only, call.server_label)
        return super().approves(state, stripped)


class StandingRuleCrossesServers(_WithLayer):
    """A standing rule matches the tool name in any hosted server, and the local tool of that name."""

    layer_type = _NoServerBoundary


class EmptyArgumentsRuleIsToolWide(_WithLayer):
    """An argument-scoped rule recorded for a call without arguments approves every call of the tool."""

    layer_type = _EmptyArgumentsAreAny


class ArgumentRuleIsToolWide(_WithLayer):
    """An argument-scoped rule approves calls of the tool with any arguments."""

    layer_type = _ArgumentRulesAreToolWide


class StandingRuleCoversOtherTools(_WithLayer):
    """Once the caller approved any tool for good, every later call runs without asking."""

    layer_type = _StandingRulesCoverEveryTool


class RulesSeeCallsWithoutArguments(_WithLayer):
    """Auto-approval rules are asked about a copy of the call without its arguments."""

    layer_type = _AsksRulesWithoutArguments


class RuleApprovedCallsSpendNoBudget(ReferenceLoop):
    """Calls an auto-approval rule approved start a fresh function-call budget, as a re-entered loop would."""

    async def _process_calls(self, calls: list[FunctionCall], state: _RunState) -> ReferenceLoop._Outcome:
        outcome = await super()._process_calls(calls, state)
        if self.layer is not None and not outcome.pause:
            state.function_calls = 0
        return outcome


class QueuedRequestsNeverSurface(ReferenceLoop):
    """Forgets the requests it queued: the approved first call runs at once, the queued one with it unasked."""

    def normalise(self, history: Any, *, restore_calls: bool) -> approvals.Normalised:
        self._queued = {}
        return super().normalise(history, restore_calls=restore_calls)


class ForgetsLayerStateOnRestore(ReferenceLoop):
    """A restored session starts the approval layer afresh: standing rules are lost."""

    def load_session(self, saved: str) -> LoopSession:
        session = super().load_session(saved)
        session.approvals = ApprovalState()
        session.history = [_without_standing(m) for m in session.history]
        return session


class RestoreDropsHeldCalls(ReferenceLoop):
    """Saving the session keeps the approval requests but drops the calls held back without one."""

    def load_session(self, saved: str) -> LoopSession:
        session = super().load_session(saved)
        requested = {c.function_call.call_id for m in session.history for c in m.contents
                     if isinstance(c, approvals.ApprovalRequest)}
        session.history = [Message(m.role, tuple(c for c in m.contents if not isinstance(c, FunctionCall)
                                                 or c.call_id in requested)) for m in session.history]
        return session


def _without_standing(message: Message) -> Message:
    return Message(message.role, tuple(ApprovalResponse(c.id, c.approved, c.function_call)
                                       if isinstance(c, ApprovalResponse) else c for c in message.contents))


MIXED_CONTROLS: tuple[LimitControl, ...] = (
    LimitControl(StandingRuleCrossesServers, "mixed/hosted-server-boundary.yaml"),
    LimitControl(EmptyArgumentsRuleIsToolWide, "mixed/empty-arguments-rule.yaml", "approved-once"),
    LimitControl(ArgumentRuleIsToolWide, "mixed/argument-scoped-rule.yaml", "approved-once"),
    LimitControl(StandingRuleCoversOtherTools, "mixed/standing-tool-rule.yaml", "approved-once"),
    LimitControl(RulesSeeCallsWithoutArguments, "mixed/auto-approval-callback.yaml", "expect.rules-asked"),
    LimitControl(RuleApprovedCallsSpendNoBudget, "mixed/shared-call-budget.yaml", "bounded"),
    LimitControl(QueuedRequestsNeverSurface, "mixed/queued-approvals.yaml", "approved-once"),
    LimitControl(ForgetsLayerStateOnRestore, "mixed/standing-tool-rule.yaml"),
    LimitControl(RestoreDropsHeldCalls, "mixed/middleware-hidden-state.yaml"),
    LimitControl(RunsSafeCallsEarly, "mixed/safe-and-gated-session.yaml"),
    LimitControl(RunsSafeCallsEarly, "mixed/safe-and-gated-caller-history.yaml"),
    LimitControl(DropsHeldCalls, "mixed/safe-and-gated-session.yaml"),
    LimitControl(DropsHeldCalls, "mixed/safe-and-gated-caller-history.yaml"),
    LimitControl(DropsHeldCalls, "mixed/restored-state.yaml"),
    LimitControl(RunsHeldCallsOnAnyTurn, "mixed/unrelated-turn.yaml"),
    LimitControl(RunsHeldCallsOfEveryBatch, "mixed/abandoned-batches.yaml"),
    LimitControl(RunsHeldCallsAfterTheApproved, "mixed/safe-and-gated-session.yaml", "parallel-order"),
    LimitControl(RunsHeldCallsAfterTheApproved, "mixed/safe-and-gated-caller-history.yaml", "parallel-order"),
)

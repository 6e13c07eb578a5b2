"""Negative controls for the rows of "Mixed batches and approval middleware": each breaks one rule of the spec's
mixed-batch design in the reference loop, and at least one bundled scenario of `scenarios/mixed/` must fail on it.
"""

from __future__ import annotations

from typing import Any

from negative_controls_limits import LimitControl

from harness.adapters.reference import approvals
from harness.adapters.reference.loop import (
    ReferenceLoop,
    _RunState,  # pyright: ignore[reportPrivateUsage]
)
from harness.contents import ApprovalResponse, FunctionCall


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


MIXED_CONTROLS: tuple[LimitControl, ...] = (
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

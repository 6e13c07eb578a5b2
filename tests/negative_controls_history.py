"""Negative controls for the rows of "History and provider serialization" the neutral provider can judge: each
breaks one rule of compaction or of pending placeholders in the reference loop, and a bundled scenario of
`scenarios/history/` must fail."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from negative_controls_limits import LimitControl

from harness.adapters.reference import approvals, compaction
from harness.adapters.reference.loop import ReferenceLoop
from harness.contents import APPROVAL_PENDING, ApprovalResponse, FunctionCall, FunctionResult, Message


def _window(history: Sequence[Message], count: int | None, spans: list[range]) -> list[Message]:
    if count is None:
        return list(history)
    kept_groups = [g for g in compaction._merged(spans) if any(history[i].role != "system" for i in g)][-count:]  # pyright: ignore[reportPrivateUsage]
    kept = {i for g in kept_groups for i in g} | {i for i, m in enumerate(history) if m.role == "system"}
    return [m for i, m in enumerate(history) if i in kept]


class PairsAdjacentResultsOnly(ReferenceLoop):
    """Compaction groups a call with its result only when the result is the very next message."""

    def compacted(self, history: list[Message]) -> list[Message]:
        spans = [range(i, i + 1) for i in range(len(history))]
        for index in range(1, len(history)):
            calls = {c.call_id for c in history[index - 1].contents if isinstance(c, FunctionCall)}
            if any(isinstance(c, FunctionResult) and c.call_id in calls for c in history[index].contents):
                spans.append(range(index - 1, index + 1))
        return _window(history, self.keep_last_groups, spans)


class LeavesReasoningBehind(ReferenceLoop):
    """Compaction keeps a call with its result but not the reasoning message the call was made after."""

    def compacted(self, history: list[Message]) -> list[Message]:
        spans = [range(i, i + 1) for i in range(len(history))]
        open_calls: dict[str, int] = {}
        for index, message in enumerate(history):
            for content in message.contents:
                if isinstance(content, FunctionCall):
                    open_calls[content.call_id] = index
                elif isinstance(content, FunctionResult) and content.call_id in open_calls:
                    spans.append(range(open_calls.pop(content.call_id), index + 1))
        return _window(history, self.keep_last_groups, spans)


class PairsReusedIdWithFirstCall(ReferenceLoop):
    """Compaction pairs each result with the first call of its id, so a reused id joins every round into one group
    and nothing is ever dropped."""

    def compacted(self, history: list[Message]) -> list[Message]:
        spans = [range(i, i + 1) for i in range(len(history))]
        first: dict[str, int] = {}
        for index, message in enumerate(history):
            for content in message.contents:
                if isinstance(content, FunctionCall):
                    first.setdefault(content.call_id, index)
                elif isinstance(content, FunctionResult) and content.call_id in first:
                    spans.append(range(first[content.call_id], index + 1))
        return _window(history, self.keep_last_groups, spans)


class ForwardsSpentPlaceholders(ReferenceLoop):
    """Once a call has its real result, the caller's earlier placeholder for it goes to the model too, before it."""

    def normalise(self, history: Sequence[Message], *, restore_calls: bool) -> approvals.Normalised:
        normalised = super().normalise(history, restore_calls=restore_calls)
        spent = [c for m in history for c in m.contents
                 if isinstance(c, FunctionResult) and c.result == APPROVAL_PENDING]
        out = list(normalised.history)
        for placeholder in spent:
            answered = next((i for i, m in enumerate(out) for c in m.contents
                             if isinstance(c, FunctionResult) and c.call_id == placeholder.call_id
                             and c.result != APPROVAL_PENDING), None)
            if answered is not None:
                out.insert(answered, Message("tool", (placeholder,)))
        return replace(normalised, history=out)


class TakesPlaceholderForResult(ReferenceLoop):
    """A call with any result, a placeholder included, counts as answered: its approval is dropped as settled."""

    def normalise(self, history: Sequence[Message], *, restore_calls: bool) -> approvals.Normalised:
        answered = {c.call_id for m in history for c in m.contents if isinstance(c, FunctionResult)}
        kept = [Message(m.role, tuple(c for c in m.contents
                                      if not (isinstance(c, ApprovalResponse)
                                              and c.function_call.call_id in answered)))
                for m in history]
        return super().normalise([m for m in kept if m.contents], restore_calls=restore_calls)


HISTORY_CONTROLS: tuple[LimitControl, ...] = (
    LimitControl(PairsAdjacentResultsOnly, "history/compaction-pair-integrity.yaml", "no-orphans"),
    LimitControl(LeavesReasoningBehind, "history/compaction-pair-integrity.yaml", "reasoning-bound"),
    LimitControl(PairsReusedIdWithFirstCall, "history/compaction-pair-integrity.yaml", "expect.requests"),
    LimitControl(ForwardsSpentPlaceholders, "history/pending-placeholder-caller-history.yaml", "no-orphans"),
    LimitControl(ForwardsSpentPlaceholders, "history/pending-placeholder-history-store.yaml", "no-orphans"),
    LimitControl(TakesPlaceholderForResult, "history/pending-placeholder-caller-history.yaml", "approved-once"),
    LimitControl(TakesPlaceholderForResult, "history/pending-placeholder-history-store.yaml", "approved-once"),
)

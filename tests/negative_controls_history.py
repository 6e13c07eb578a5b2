"""Negative controls for the rows of "History and provider serialization" the neutral provider can judge: each
breaks one rule of compaction in the reference loop, and a bundled scenario of `scenarios/history/` must fail."""

from __future__ import annotations

from collections.abc import Sequence

from negative_controls_limits import LimitControl

from harness.adapters.reference import compaction
from harness.adapters.reference.loop import ReferenceLoop
from harness.contents import FunctionCall, FunctionResult, Message


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


HISTORY_CONTROLS: tuple[LimitControl, ...] = (
    LimitControl(PairsAdjacentResultsOnly, "history/compaction-pair-integrity.yaml", "no-orphans"),
    LimitControl(LeavesReasoningBehind, "history/compaction-pair-integrity.yaml", "reasoning-bound"),
    LimitControl(PairsReusedIdWithFirstCall, "history/compaction-pair-integrity.yaml", "expect.requests"),
)

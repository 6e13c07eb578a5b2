"""Negative controls for the fuzzer, as zero-argument factories that `loop-conformance run --impl
fuzz_controls:NAME` can load in its worker processes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from negative_controls import ReversesParallelResults, RewritingModel, RunsEachCallTwice, adapter_for

from harness.adapters.reference import ReferenceAdapter
from harness.adapters.reference.loop import ReferenceLoop
from harness.contents import ApprovalResponse, Message


class DropsHostedDecisions(ReferenceLoop):
    """Leaves the caller's decisions on a hosted service's approval requests out of what the model receives, as a
    loop that takes every approval response for its own would: the service waits for a decision it never gets."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.model = RewritingModel(self.model, _without_hosted_decisions)


def _without_hosted_decisions(messages: Sequence[Message]) -> list[Message]:
    kept = (Message(m.role, tuple(c for c in m.contents if not (isinstance(c, ApprovalResponse)
                                                                and c.function_call.server_label is not None)))
            for m in messages)
    return [m for m in kept if m.contents]


def runs_each_call_twice() -> ReferenceAdapter:
    return adapter_for(RunsEachCallTwice)


def reverses_parallel_results() -> ReferenceAdapter:
    return adapter_for(ReversesParallelResults)


def drops_hosted_decisions() -> ReferenceAdapter:
    return adapter_for(DropsHostedDecisions)

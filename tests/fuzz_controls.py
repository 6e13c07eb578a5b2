"""Negative controls for the fuzzer, as zero-argument factories that `loop-conformance run --impl
fuzz_controls:NAME` can load in its worker processes."""

from __future__ import annotations

from negative_controls import ReversesParallelResults, RunsEachCallTwice, adapter_for

from harness.adapters.reference import ReferenceAdapter


def runs_each_call_twice() -> ReferenceAdapter:
    return adapter_for(RunsEachCallTwice)


def reverses_parallel_results() -> ReferenceAdapter:
    return adapter_for(ReversesParallelResults)

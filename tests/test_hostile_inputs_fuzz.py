"""A seeded sample of tools/fuzz_data_files.py: mutated results and baseline files through `report`, `gate`, `diff`
and `version-matrix` give no traceback and no hang (the full 500 + 500 run is the tool's, see its docstring)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from tool_loader import load_tool

import harness.cli

fuzz_tool = load_tool("fuzz_data_files")

# Small enough for CI (about 10 s); the seed keeps it the same sample on every run.
SAMPLE_RESULTS = 28
SAMPLE_BASELINES = 28
FAILURES = ("traceback", "hang", "unclear-refusal", "odd-exit")


def test_a_seeded_sample_of_mutated_files_gives_no_traceback_and_no_hang() -> None:
    tally = fuzz_tool.fuzz(SAMPLE_RESULTS, SAMPLE_BASELINES, seed=32)
    assert {outcome: tally.outcomes[outcome] for outcome in FAILURES} == dict.fromkeys(FAILURES, 0), tally.tracebacks
    assert tally.files == {"results": SAMPLE_RESULTS, "baseline": SAMPLE_BASELINES}
    assert tally.outcomes["accepted"] > 0
    assert tally.outcomes["refused"] > 0


def test_the_fuzzer_counts_a_traceback_and_a_hang(monkeypatch: pytest.MonkeyPatch) -> None:
    def crash(*args: Any, **kwargs: Any) -> int:
        raise ValueError("a bug")

    def stall(*args: Any, **kwargs: Any) -> int:
        time.sleep(30)
        return 0

    monkeypatch.setattr(harness.cli, "diff_command", crash)
    assert fuzz_tool.fuzz(1, 0, seed=0).outcomes["traceback"] == 1
    monkeypatch.setattr(harness.cli, "diff_command", stall)
    assert fuzz_tool.fuzz(1, 0, seed=0, limit=0.2).outcomes["hang"] == 1


@pytest.mark.parametrize("seed", range(3))
def test_mutants_are_the_same_for_a_seed(seed: int) -> None:
    import random

    document = fuzz_tool.seed_results()
    baseline = fuzz_tool.seed_baseline(document)
    first = [fuzz_tool.mutate_results(random.Random(seed), document), fuzz_tool.mutate_baseline(
        random.Random(seed), baseline)]
    again = [fuzz_tool.mutate_results(random.Random(seed), document), fuzz_tool.mutate_baseline(
        random.Random(seed), baseline)]
    assert first == again

"""Correct loops must pass: the placeholder is told by its place, not its text, and hand-written history may reuse
a call id. Each rule has a negative control that breaks it in the reference loop."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from negative_controls import adapter_for

from harness import MODES, Mode, load_scenario, run_scenario
from harness.adapters.reference import ReferenceAdapter
from harness.adapters.reference.loop import ReferenceLoop
from harness.checks.invariants import orphans
from harness.contents import (
    APPROVAL_PENDING,
    ApprovalRequest,
    ApprovalResponse,
    FunctionCall,
    FunctionResult,
    Message,
    Text,
    placeholder_call_ids,
    placeholder_results,
)

BUNDLED = Path(__file__).resolve().parent.parent / "scenarios"
LOOKALIKE = BUNDLED / "correlation" / "placeholder-lookalike-result.yaml"
HANDWRITTEN = BUNDLED / "correlation" / "reused-id-handwritten-history.yaml"


class TakesToolOutputForPlaceholder(ReferenceLoop):
    """Tells a placeholder by its text: a tool's output "[APPROVAL_PENDING]" reopens its call, whose replayed
    approval then runs the tool again."""

    def normalise(self, history: Any, *, restore_calls: bool) -> Any:
        kept = [Message(m.role, tuple(c for c in m.contents
                                      if not (isinstance(c, FunctionResult) and c.result == APPROVAL_PENDING)))
                for m in history]
        return super().normalise([m for m in kept if m.contents], restore_calls=restore_calls)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("path", [LOOKALIKE, HANDWRITTEN], ids=lambda p: p.stem)
async def test_the_reference_loop_passes(path: Path, mode: Mode) -> None:
    result = await run_scenario(load_scenario(path), ReferenceAdapter(), mode)
    assert result.verdict == "pass", [(c.id, c.message) for c in result.checks if c.verdict == "fail"]


@pytest.mark.parametrize("mode", MODES)
async def test_a_loop_taking_tool_output_for_the_placeholder_fails(mode: Mode) -> None:
    result = await run_scenario(load_scenario(LOOKALIKE), adapter_for(TakesToolOutputForPlaceholder), mode)
    failing = {c.id for c in result.checks if c.verdict == "fail"}
    assert result.verdict == "fail"
    assert {"exactly-once", "expect.executions"} <= failing


def _call(call_id: str = "c1") -> FunctionCall:
    return FunctionCall(call_id, "t", {})


def test_only_a_result_for_an_occurrence_awaiting_its_result_is_a_placeholder() -> None:
    request = ApprovalRequest("r1", _call())
    written = FunctionResult("c1", APPROVAL_PENDING)
    pending = [Message("assistant", (_call(), request)), Message("tool", (written,))]
    assert placeholder_results(pending) == {id(written)}
    ungated = FunctionResult("c2", APPROVAL_PENDING)
    assert placeholder_results([Message("assistant", (_call("c2"),)), Message("tool", (ungated,))]) == set()


def test_a_placeholder_after_the_decision_stands_until_the_model_answers_it() -> None:
    request = ApprovalRequest("r1", _call())
    decided = [Message("assistant", (_call(), request)), Message("user", (ApprovalResponse("r1", True, _call()),))]
    late = FunctionResult("c1", APPROVAL_PENDING)
    # The shape of the row's upstream test: the approval, then the placeholder, nothing after.
    assert placeholder_results([*decided, Message("tool", (late,))]) == {id(late)}
    # The contested reading takes it for the call's result, and the model-bound rule names no call id for it.
    assert placeholder_results([*decided, Message("tool", (late,))], after_decision=False) == set()
    assert placeholder_call_ids([*decided, Message("tool", (late,))]) == set()
    # Its terminal result follows: it stood for that result.
    real = FunctionResult("c1", "done")
    assert placeholder_results([*decided, Message("tool", (late,)), Message("tool", (real,)),
                                Message("assistant", (Text("ok"),))]) == {id(late)}
    # The model answered it: it was the tool's output.
    output = FunctionResult("c1", APPROVAL_PENDING)
    assert placeholder_results([*decided, Message("tool", (output,)), Message("assistant", (Text("ok"),))]) == set()


def test_a_tool_output_reading_like_the_placeholder_is_an_ordinary_result_for_the_model() -> None:
    history = [Message("assistant", (_call("b1"),)), Message("tool", (FunctionResult("b1", APPROVAL_PENDING),))]
    assert orphans(history, allow_pauses=False) == []
    # A placeholder the caller wrote is still caught when a loop forwards it to the model.
    problems = orphans(history, allow_pauses=False, caller_placeholders={"b1"})
    assert any("pending-approval placeholder" in p for p in problems)


def test_a_reused_identical_call_is_judged_by_the_occurrence_its_reasoning_travels_with() -> None:
    # A later round reuses an earlier round's call id, name and arguments, with reasoning this time: the first
    # occurrence (no reasoning) is not the one the reasoning belongs to. A loop that dropped it still fails.
    from harness.checks.invariants import _reasoning_problem  # pyright: ignore[reportPrivateUsage]
    from harness.contents import Reasoning, Text

    call = FunctionCall("c1", "lookup", {"x": "a"})
    thought = Reasoning("why", "sig-1")
    first = [Message("assistant", (call,)), Message("tool", (FunctionResult("c1", "r"),)),
             Message("user", (Text("again"),))]
    kept = [*first, Message("assistant", (thought, call))]
    dropped = [*first, Message("assistant", (call,))]
    assert _reasoning_problem(kept, call, (thought,)) is None
    problem = _reasoning_problem(dropped, call, (thought,))
    assert problem is not None
    assert "without its reasoning" in problem

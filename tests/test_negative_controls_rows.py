"""Rows issue #15 found only partly checked: each control of `negative_controls_rows` breaks the row's requirement
and must fail the scenario that now checks it, while the correct loops pass the same scenario."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from negative_controls import adapter_for
from negative_controls_rows import (
    MIXED_AFTER_LIMIT,
    MULTI_CONTENT_SAME_TURN,
    ONLY_THE_FOLLOW_UP_CLOSES,
    USER_INPUT_BUDGET,
    USER_INPUT_BUDGET_SESSION,
    AccumulatesResultsByCallId,
    EndsStreamAtDroppedCall,
    FilesResultsByCallId,
    FollowUpClosesEveryOccurrence,
    IgnoresFollowUpRequests,
    JudgesWholeResponseAfterLimit,
    SpendsNothingOnPausedExecutions,
    SpendsOnePerInputRequest,
)

from harness import MODES, Mode, Scenario, ScenarioResult, load_scenario, run_scenario
from harness.adapters.reference import ReferenceAdapter
from harness.adapters.reference.loop import ReferenceLoop
from harness.contract import LoopAdapter


@cache
def _scenario(path: Path) -> Scenario:
    return load_scenario(path)


def _failed(result: ScenarioResult) -> set[str]:
    return {check.id for check in result.checks if check.verdict == "fail"}


def _message(result: ScenarioResult, check: str) -> str:
    return "\n".join(c.message for c in result.checks if c.id == check and c.verdict == "fail")


def _framework() -> LoopAdapter:
    pytest.importorskip("agent_framework")
    from harness.adapters.agent_framework import adapter

    return adapter()


def _pydantic_ai() -> LoopAdapter:
    # The pinned agent-framework-core ignores hand-written approvals (a known failure); pydantic-ai, like
    # agent-framework-core 1.13.0 ... 1.19.0 without a session, honours them and lets a follow-up spend its own.
    pytest.importorskip("pydantic_ai")
    from harness.adapters.pydantic_ai import adapter

    return adapter()


# --- Multi-content result with reused id -------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("control", [FilesResultsByCallId, AccumulatesResultsByCallId])
async def test_contents_filed_by_call_id_fail_the_same_turn_reused_id_scenario(control: type[ReferenceLoop],
                                                                               mode: Mode) -> None:
    result = await run_scenario(_scenario(MULTI_CONTENT_SAME_TURN), adapter_for(control), mode)
    assert {"expect.response", "expect.requests"} <= _failed(result), _failed(result)
    if control is FilesResultsByCallId:
        # Both occurrences still run once and each gets one result: only the expectations on what each result
        # holds can tell, in what the caller is shown and in what the model receives.
        assert _failed(result) <= {"expect.response", "expect.requests"}
        assert "Report for March exported." in _message(result, "expect.response")
    else:  # March's result turns up a second time, with the April round
        assert {"exactly-once", "no-orphans"} <= _failed(result)
        assert "march.pdf" in _message(result, "expect.response")


@pytest.mark.parametrize("mode", MODES)
async def test_the_reference_keeps_each_executions_contents_with_its_occurrence(mode: Mode) -> None:
    result = await run_scenario(_scenario(MULTI_CONTENT_SAME_TURN), ReferenceAdapter(), mode)
    assert result.verdict == "pass", [(c.id, c.message) for c in result.checks if c.verdict == "fail"]


# --- Follow-up request closes one occurrence ------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_a_follow_up_that_closes_nothing_runs_the_spent_approval_again(mode: Mode) -> None:
    result = await run_scenario(_scenario(ONLY_THE_FOLLOW_UP_CLOSES), adapter_for(IgnoresFollowUpRequests), mode)
    # Before approved-once and approval-inert knew that a follow-up spends its approval, only the expected
    # executions could tell.
    assert {"expect.executions", "approval-inert"} <= _failed(result), _failed(result)
    assert "staging" in _message(result, "approval-inert")


@pytest.mark.parametrize("mode", MODES)
async def test_a_follow_up_that_closes_every_occurrence_never_runs_the_later_one(mode: Mode) -> None:
    result = await run_scenario(_scenario(ONLY_THE_FOLLOW_UP_CLOSES), adapter_for(FollowUpClosesEveryOccurrence),
                                mode)
    # Nothing runs and the loop calls the model, which has no response scripted: the turn ends in an error, which
    # excuses approved-once; the expected executions and the script (that unforeseen model call, reported there
    # alone) tell.
    assert {"expect.executions", "script"} <= _failed(result), _failed(result)
    assert 'got "0 items"' in _message(result, "expect.executions")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("make", [pytest.param(ReferenceAdapter, id="reference"),
                                  pytest.param(_pydantic_ai, id="pydantic_ai")])
async def test_correct_loops_let_the_follow_up_close_only_its_own_occurrence(make: type[LoopAdapter],
                                                                            mode: Mode) -> None:
    result = await run_scenario(_scenario(ONLY_THE_FOLLOW_UP_CLOSES), make(), mode)
    assert result.verdict == "pass", [(c.id, c.message) for c in result.checks if c.verdict == "fail"]


# --- Provider tool content after an active limit -----------------------------------------------------------------


async def test_judging_the_whole_response_keeps_the_local_call_non_streaming() -> None:
    result = await run_scenario(_scenario(MIXED_AFTER_LIMIT), adapter_for(JudgesWholeResponseAfterLimit),
                                "non-streaming")
    # The kept local call is held back with the hosted approval's paused batch, so it is no orphan caller-side:
    # only the expected response, whose kept message starts with the service's call, tells.
    assert _failed(result) == {"expect.response"}, _failed(result)
    assert 'got "c2"' in _message(result, "expect.response")


async def test_judging_the_whole_stream_by_its_first_update_drops_the_services_content() -> None:
    result = await run_scenario(_scenario(MIXED_AFTER_LIMIT), adapter_for(JudgesWholeResponseAfterLimit), "streaming")
    assert "expect.response" in _failed(result), _failed(result)
    assert "web_search" in _message(result, "expect.response")


async def test_ending_the_stream_at_the_dropped_call_loses_what_follows() -> None:
    result = await run_scenario(_scenario(MIXED_AFTER_LIMIT), adapter_for(EndsStreamAtDroppedCall), "streaming")
    assert "expect.response" in _failed(result), _failed(result)
    assert "web_search" in _message(result, "expect.response")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("make", [pytest.param(ReferenceAdapter, id="reference"),
                                  pytest.param(_framework, id="agent_framework")])
async def test_correct_loops_drop_only_the_local_call_after_the_limit(make: type[LoopAdapter], mode: Mode) -> None:
    result = await run_scenario(_scenario(MIXED_AFTER_LIMIT), make(), mode)
    assert result.verdict == "pass", [(c.id, c.message) for c in result.checks if c.verdict == "fail"]


# --- Approval-time user input: the budget unit -------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("path", [USER_INPUT_BUDGET, USER_INPUT_BUDGET_SESSION], ids=["caller-history", "session"])
@pytest.mark.parametrize(("control", "counted"), [(SpendsNothingOnPausedExecutions, 0), (SpendsOnePerInputRequest, 2)])
async def test_a_loop_miscounting_a_paused_execution_fails_the_budget_unit(control: type[ReferenceLoop], counted: int,
                                                                           path: Path, mode: Mode) -> None:
    result = await run_scenario(_scenario(path), adapter_for(control), mode)
    # Everything the caller sees is right: only the loop's own count tells.
    assert _failed(result) == {"expect.function-calls-counted"}, _failed(result)
    assert f"counted {counted} function calls against its budget, expected 1" in _message(
        result, "expect.function-calls-counted")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("path", [USER_INPUT_BUDGET, USER_INPUT_BUDGET_SESSION], ids=["caller-history", "session"])
@pytest.mark.parametrize("make", [pytest.param(ReferenceAdapter, id="reference"),
                                  pytest.param(_framework, id="agent_framework")])
async def test_correct_loops_spend_one_unit_on_the_paused_execution(make: type[LoopAdapter], path: Path,
                                                                   mode: Mode) -> None:
    result = await run_scenario(_scenario(path), make(), mode)
    assert result.verdict == "pass", [(c.id, c.message) for c in result.checks if c.verdict == "fail"]
    assert "expect.function-calls-counted" in {c.id for c in result.checks if c.verdict == "pass"}

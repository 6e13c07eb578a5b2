"""The holes of issue #15 stay closed: each control below passed every check before, and must fail its check now;
the correct loops must still pass the same scenarios."""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest
from negative_controls import SCENARIOS, TagsCallerMessagesInPlace, adapter_for
from negative_controls_holes import (
    SESSION_SCENARIO,
    HandsOverBareDeclarationRequest,
    RestoresReplayedWrappers,
    ResultTampering,
    StreamShowsOneInputRequest,
    Tampering,
)

from harness import MODES, Mode, Scenario, ScenarioResult, load_scenario, run_scenario
from harness.adapters.reference import ReferenceAdapter
from harness.contract import LoopAdapter
from harness.reporting.baseline import KnownFailure, apply_baseline
from harness.results import CheckResult

BUNDLED = Path(__file__).resolve().parents[1] / "scenarios"
THREE_INPUT_REQUESTS = BUNDLED / "approval" / "user-input.yaml"


@cache
def _scenario(path: Path) -> Scenario:
    return load_scenario(path)


def _failed(result: ScenarioResult) -> set[str]:
    return {check.id for check in result.checks if check.verdict == "fail"}


def _framework() -> LoopAdapter:
    pytest.importorskip("agent_framework")
    from harness.adapters.agent_framework import adapter

    return adapter()


def _implementations() -> list[object]:
    return [pytest.param(ReferenceAdapter, id="reference"), pytest.param(_framework, id="agent_framework")]


# --- exactly-once: one result per execution, whatever the loop --------------------------------------------------


@pytest.mark.parametrize("how", ["duplicate", "drop"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("make", _implementations())
async def test_a_repeated_or_hidden_result_fails_exactly_once(make: type[LoopAdapter], how: Tampering,
                                                             mode: Mode) -> None:
    result = await run_scenario(_scenario(SCENARIOS / "single-call.yaml"), ResultTampering(make(), how), mode)
    failures = [c for c in result.checks if c.id == "exactly-once" and c.verdict == "fail"]
    assert failures, [(c.id, c.verdict, c.message) for c in result.checks]
    count = 2 if how == "duplicate" else 0
    assert any(f"the response holds {count} result(s) for call 'c1', which the tools' records show executed 1 "
               "time(s)" in c.message and c.profile == "contract" for c in failures)
    # The call and its result travel together, so this is no orphan: only the result count can tell.
    assert _failed(result) - {"exactly-once", "expect.response"} == set()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("make", _implementations())
async def test_the_untampered_loops_pass_the_same_scenario(make: type[LoopAdapter], mode: Mode) -> None:
    result = await run_scenario(_scenario(SCENARIOS / "single-call.yaml"), make(), mode)
    assert result.verdict == "pass", [(c.id, c.message) for c in result.checks if c.verdict == "fail"]


# --- expect.stream-order: repeated items are items ---------------------------------------------------------------


async def test_a_stream_showing_one_of_three_input_requests_fails_the_stream_order() -> None:
    result = await run_scenario(_scenario(THREE_INPUT_REQUESTS), adapter_for(StreamShowsOneInputRequest), "streaming")
    order = next(c for c in result.checks if c.id == "expect.stream-order" and c.verdict == "fail")
    assert (order.actual or "").count("user_input_request c1") == 1
    assert (order.expected or "").count("user_input_request c1") == 3
    # The stream's own response lacks the two requests as well; no invariant but stream agreement may notice.
    assert _failed(result) <= {"expect.stream-order", "expect.response", "stream-agreement"}


@pytest.mark.parametrize("make", _implementations())
async def test_correct_streams_show_all_three_input_requests(make: type[LoopAdapter]) -> None:
    result = await run_scenario(_scenario(THREE_INPUT_REQUESTS), make(), "streaming")
    assert result.verdict == "pass", [(c.id, c.message) for c in result.checks if c.verdict == "fail"]


# --- inputs-unmutated with a session ----------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_writing_into_the_callers_messages_is_seen_with_a_session(mode: Mode) -> None:
    result = await run_scenario(_scenario(SESSION_SCENARIO),
                                adapter_for(TagsCallerMessagesInPlace), mode)
    unmutated = [c for c in result.checks if c.id == "inputs-unmutated"]
    # Both turns' input messages are written into, the second beside the stored conversation.
    assert [(c.verdict, c.turn) for c in unmutated] == [("fail", 1), ("fail", 2)]
    assert _failed(result) <= {"inputs-unmutated", "expect.requests", "expect.response"}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("make", _implementations())
async def test_correct_loops_leave_the_callers_messages_alone_with_a_session(make: type[LoopAdapter],
                                                                            mode: Mode) -> None:
    result = await run_scenario(_scenario(SESSION_SCENARIO), make(), mode)
    assert result.verdict == "pass", [(c.id, c.message) for c in result.checks if c.verdict == "fail"]


# --- the baseline ratchet -----------------------------------------------------------------------------------------

_REASON = "The loop leaves the call without a result and also runs it a second time after the pause."


def _run(*failing: str, provider: str = "neutral") -> ScenarioResult:
    checks = tuple(CheckResult(check, "fail" if check in failing else "pass", "broken" if check in failing else "")
                   for check in ("exactly-once", "no-orphans", "parallel-order"))
    return ScenarioResult("normal.single-call", "One call", ("Single non-streaming call",), "normal",
                          "agent_framework", "1.23.0", "non-streaming", "fail" if failing else "pass",
                          provider=provider, checks=checks)


def _entry(*checks: str, intermittent: bool = False, providers: list[str] | None = None) -> KnownFailure:
    return KnownFailure.model_validate({"scenario": "normal.single-call", "implementation": "agent_framework",
                                        "checks": list(checks), "reason": _REASON, "intermittent": intermittent,
                                        "reproduction": "repro/agent_framework/x.py", "providers": providers})


def test_an_entry_whose_checks_now_partly_pass_is_reported_stale_in_part() -> None:
    judged = apply_baseline(_run("no-orphans"), [_entry("exactly-once", "no-orphans")])
    # Before the ratchet any subset of the entry's checks made a known failure, so the fix of one hid.
    assert judged.verdict == "fail"
    marker = judged.checks[-1]
    assert (marker.id, marker.verdict) == ("baseline", "fail")
    assert "now passes exactly-once" in marker.message
    assert "repro/agent_framework/x.py" in marker.message
    assert {c.id: c.verdict for c in judged.checks[:-1]}["no-orphans"] == "xfail"


def test_a_run_failing_exactly_its_entrys_checks_stays_a_known_failure() -> None:
    judged = apply_baseline(_run("exactly-once", "no-orphans"), [_entry("exactly-once", "no-orphans")])
    assert judged.verdict == "xfail"
    assert all(c.id != "baseline" for c in judged.checks)


def test_the_ratchet_spares_intermittent_entries_and_wire_runs_of_an_every_provider_entry() -> None:
    flaky = apply_baseline(_run("no-orphans"), [_entry("exactly-once", "no-orphans", intermittent=True)])
    assert flaky.verdict == "xfail"
    wire = apply_baseline(_run("no-orphans", provider="gemini"), [_entry("exactly-once", "no-orphans")])
    assert wire.verdict == "xfail"  # the other check may still fail over another provider: the gate judges
    named = apply_baseline(_run("no-orphans", provider="gemini"),
                           [_entry("exactly-once", "no-orphans", providers=["gemini"])])
    assert named.verdict == "fail"


def test_two_entries_covering_one_run_each_keep_their_own_checks() -> None:
    entries = [_entry("exactly-once"), _entry("no-orphans", "parallel-order")]
    assert apply_baseline(_run("exactly-once", "no-orphans", "parallel-order"), entries).verdict == "xfail"
    partly = apply_baseline(_run("exactly-once", "no-orphans"), entries)
    assert [c.message for c in partly.checks if c.id == "baseline"] == [
        "known failure now passes parallel-order; remove it from its baseline entry (repro/agent_framework/x.py)"]


def test_a_check_the_run_did_not_judge_is_not_taken_for_fixed() -> None:
    # A stream order is judged on streaming runs only: a non-streaming run that lacks it fixed nothing.
    judged = apply_baseline(_run("no-orphans"), [_entry("no-orphans", "expect.stream-order")])
    assert judged.verdict == "xfail"


# --- Declaration-only call: the request carries the finalised call -------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_a_declaration_request_without_the_calls_arguments_fails(mode: Mode) -> None:
    scenario = _scenario(BUNDLED / "normal" / "declaration-only.yaml")
    result = await run_scenario(scenario, adapter_for(HandsOverBareDeclarationRequest), mode)
    response = next(c for c in result.checks if c.id == "expect.response")
    assert response.verdict == "fail"
    assert "user_input_request.function_call.arguments" in response.message
    assert _failed(result) == {"expect.response"}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("make", _implementations())
async def test_correct_loops_hand_over_the_finalised_declaration_call(make: type[LoopAdapter], mode: Mode) -> None:
    result = await run_scenario(_scenario(BUNDLED / "normal" / "declaration-only.yaml"), make(), mode)
    assert result.verdict == "pass", [(c.id, c.message) for c in result.checks if c.verdict == "fail"]


# --- Replayed approval wrapper: every loop meets the duplicate ---------------------------------------------------

DUPLICATED = BUNDLED / "correlation" / "replayed-wrapper-handwritten.yaml"


@pytest.mark.parametrize("mode", MODES)
async def test_restoring_a_call_from_a_duplicated_wrapper_fails(mode: Mode) -> None:
    result = await run_scenario(_scenario(DUPLICATED), adapter_for(RestoresReplayedWrappers), mode)
    assert result.verdict == "fail"
    # The restored call runs a second time for one call the model made.
    assert {"exactly-once", "approved-once", "expect.executions"} <= _failed(result), [
        (c.id, c.message) for c in result.checks if c.verdict == "fail"]


@pytest.mark.parametrize("mode", MODES)
async def test_the_reference_resolves_a_duplicated_wrapper_to_one_call(mode: Mode) -> None:
    result = await run_scenario(_scenario(DUPLICATED), ReferenceAdapter(), mode)
    assert result.verdict == "pass", [(c.id, c.message) for c in result.checks if c.verdict == "fail"]


def test_a_check_failing_on_one_turn_and_passing_on_another_still_fails() -> None:
    run = _run("no-orphans")
    two_turns = replace(run, checks=(*run.checks, CheckResult("exactly-once", "fail", "turn 2", 2)))
    assert apply_baseline(two_turns, [_entry("exactly-once", "no-orphans")]).verdict == "xfail"

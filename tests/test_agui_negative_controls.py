"""The event-level checks fail on every negative control (the real AG-UI endpoint behind a broken wrapper) and pass
the endpoint as it is, on the scenario each control uses."""

from __future__ import annotations

import pytest

pytest.importorskip("agent_framework_ag_ui", reason="the AG-UI controls wrap agent-framework-ag-ui's endpoint")

from negative_controls_agui import APPROVED_RESUME, EVENT_CONTROLS, EventControl  # noqa: E402

from harness import load_scenario, run_scenario  # noqa: E402
from harness.adapters.agent_framework_ag_ui import adapter  # noqa: E402
from harness.bundled import BUNDLED_BASELINE  # noqa: E402
from harness.reporting.baseline import apply_baseline, load_baseline  # noqa: E402
from harness.results import EVENT_CHECKS  # noqa: E402


def test_every_event_check_has_a_control() -> None:
    assert {control.check for control in EVENT_CONTROLS} == set(EVENT_CHECKS)


@pytest.mark.parametrize("control", EVENT_CONTROLS, ids=lambda c: c.id)
async def test_control_fails_its_check(control: EventControl) -> None:
    result = await run_scenario(load_scenario(control.scenario_path), control.adapter(), "streaming")
    assert result.implementation == f"control-{control.id}"
    failed = [check for check in result.checks if check.id == control.check and check.verdict == "fail"]
    assert failed, [(c.id, c.verdict, c.message) for c in result.checks]
    assert all(check.message and check.turn is not None for check in failed)


@pytest.mark.parametrize("control", EVENT_CONTROLS, ids=lambda c: c.id)
async def test_the_endpoint_as_it_is_passes_each_controls_check(control: EventControl) -> None:
    result = await run_scenario(load_scenario(control.scenario_path), adapter(), "streaming")
    verdicts = {check.id: check.verdict for check in result.checks}
    assert verdicts.get(control.check) == "pass", result.failed_checks()


async def test_the_endpoint_fails_only_the_known_renamed_result_on_a_resume() -> None:
    result = await run_scenario(load_scenario(APPROVED_RESUME), adapter(), "streaming")
    failed = {check.id for check in result.failed_checks()}
    assert failed == {"snapshot-agrees"}, result.failed_checks()
    assert all("the snapshot names it" in c.message for c in result.failed_checks())
    judged = apply_baseline(result, load_baseline(BUNDLED_BASELINE).known_failures)
    assert judged.verdict == "xfail", judged.reason


async def test_non_streaming_is_not_applicable_with_the_reason() -> None:
    result = await run_scenario(load_scenario(APPROVED_RESUME), adapter(), "non-streaming")
    assert result.verdict == "n/a"
    assert "server-sent event stream" in result.reason


def test_every_unexpressible_scenario_is_bundled_and_reported_not_applicable_with_its_reason() -> None:
    from harness.adapters.agent_framework_ag_ui.limits import UNEXPRESSIBLE
    from harness.run.suite import BUNDLED_SCENARIOS, load_all

    scenarios = {s.id: s for s in load_all([BUNDLED_SCENARIOS])[0]}
    assert set(UNEXPRESSIBLE) <= set(scenarios)


async def test_a_scenario_without_an_ag_ui_form_is_not_applicable() -> None:
    from harness.adapters.agent_framework_ag_ui.limits import UNEXPRESSIBLE
    from harness.run.suite import BUNDLED_SCENARIOS, load_all

    scenario = next(s for s in load_all([BUNDLED_SCENARIOS])[0] if s.id == "mixed.held-calls.unrelated-turn")
    result = await run_scenario(scenario, adapter(), "streaming")
    assert result.verdict == "n/a"
    assert UNEXPRESSIBLE[scenario.id] in result.reason

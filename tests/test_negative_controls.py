"""The harness catches every negative control with the intended check, and passes the reference loop.

A control that stops failing means a check has gone blind; a control that fails an unrelated invariant means a
check blames the wrong promise. Both are harness bugs, so both are asserted here.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from negative_controls import CONTROLS, SCENARIOS, NegativeControl, adapter_for
from negative_controls_approval import APPROVAL_CONTROLS
from negative_controls_holes import HOLES_SCENARIOS

from harness import MODES, Mode, Scenario, ScenarioResult, load_scenario, run_scenario
from harness.adapters.reference import ReferenceAdapter
from harness.adapters.reference.loop import ReferenceLoop
from harness.checks.approvals import APPROVAL_CHECKS, NO_APPROVALS
from harness.results import EVENT_CHECKS, EXPECT_CHECKS, INVARIANT_CHECKS, RUN_CHECKS, WIRE_CHECKS

JUDGED = set(INVARIANT_CHECKS) | set(RUN_CHECKS)


@cache
def _scenario(path: Path) -> Scenario:
    return load_scenario(path)


def _failed(result: ScenarioResult) -> set[str]:
    return {check.id for check in result.checks if check.verdict == "fail"}


CASES = [pytest.param(control, mode, id=f"{control.id}-{mode}") for control in CONTROLS for mode in control.modes]


@pytest.mark.parametrize(("control", "mode"), CASES)
async def test_control_fails_its_check(control: NegativeControl, mode: Mode) -> None:
    result = await run_scenario(_scenario(control.scenario_path), control.adapter(), mode)
    assert result.verdict == "fail"
    assert result.implementation == f"control-{control.id}"
    intended = [check for check in result.checks if check.id == control.check]
    assert intended, f"{control.check} was not judged"
    assert any(check.verdict == "fail" for check in intended), [(c.id, c.message) for c in result.checks]
    assert all(check.message for check in intended if check.verdict == "fail")


@pytest.mark.parametrize(("control", "mode"), CASES)
async def test_control_trips_no_unrelated_check(control: NegativeControl, mode: Mode) -> None:
    result = await run_scenario(_scenario(control.scenario_path), control.adapter(), mode)
    assert _failed(result) & JUDGED == {control.check} | control.collateral
    assert not any(check.verdict == "error" for check in result.checks)
    assert _failed(result) <= JUDGED | set(EXPECT_CHECKS)


@pytest.mark.parametrize("mode", MODES)
async def test_bounded_control_is_caught_by_the_bound_not_the_timeout(mode: Mode) -> None:
    control = next(c for c in CONTROLS if c.check == "bounded")
    result = await run_scenario(_scenario(control.scenario_path), control.adapter(), mode)
    verdicts = {check.id: check.verdict for check in result.checks}
    assert verdicts["completes"] == "pass"
    assert verdicts["script"] == "pass"
    assert verdicts["bounded"] == "fail"
    bounded = next(check for check in result.checks if check.id == "bounded")
    assert bounded.turn == 1
    assert "the bound is 2" in bounded.message


# Invariants whose controls are not reference subclasses: `provider-accepts` judges what a provider client puts on
# the wire, so its controls break the framework's own serializers (tests/test_wire_negative_controls.py).
WIRE_CONTROLLED = {"provider-accepts"}
# The event-level invariants judge an AG-UI run's events, so their controls wrap the AG-UI endpoint
# (tests/test_agui_negative_controls.py).
EVENT_CONTROLLED = set(EVENT_CHECKS)


def test_every_invariant_and_the_script_check_has_a_control() -> None:
    checks = {control.check for control in CONTROLS} | {control.check for control in APPROVAL_CONTROLS}
    assert checks >= (set(INVARIANT_CHECKS) - WIRE_CONTROLLED - EVENT_CONTROLLED) | {"script"}
    wire_controls = (Path(__file__).parent / "test_wire_negative_controls.py").read_text()
    assert all(f'"{check}" in failing' in wire_controls for check in WIRE_CONTROLLED)
    event_controls = (Path(__file__).parent / "negative_controls_agui.py").read_text()
    assert all(f'"{check}"' in event_controls for check in EVENT_CONTROLLED)


def test_controls_are_distinct_one_line_documented_reference_subclasses() -> None:
    assert len({control.loop for control in CONTROLS}) == len(CONTROLS)
    for control in CONTROLS:
        assert issubclass(control.loop, ReferenceLoop)
        assert control.loop is not ReferenceLoop
        doc = control.loop.__doc__ or ""
        assert doc.strip(), control.loop.__name__
        assert "\n" not in doc.strip(), control.loop.__name__


SCENARIO_FILES = sorted(SCENARIOS.glob("*.yaml"))


def test_control_scenarios_are_all_used() -> None:
    used = {control.scenario_path for control in CONTROLS}
    used |= {path for control in APPROVAL_CONTROLS for path in control.scenario_paths}
    used |= set(HOLES_SCENARIOS)
    assert used == set(SCENARIO_FILES)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("path", SCENARIO_FILES, ids=lambda p: p.stem)
@pytest.mark.parametrize("adapter", [ReferenceAdapter(), adapter_for(ReferenceLoop, "reference-via-factory")],
                         ids=["reference", "reference-via-factory"])
async def test_reference_passes_every_check(path: Path, mode: Mode, adapter: ReferenceAdapter) -> None:
    result = await run_scenario(_scenario(path), adapter, mode)
    assert result.verdict == "pass", [(c.id, c.message) for c in result.failed_checks()]
    verdicts = {check.id: check.verdict for check in result.checks}
    assert (set(INVARIANT_CHECKS) - set(WIRE_CHECKS) - set(EVENT_CHECKS)) | set(RUN_CHECKS) <= set(verdicts)
    assert not set(WIRE_CHECKS) & set(verdicts)  # judged over a provider's wire only
    assert not set(EVENT_CHECKS) & set(verdicts)  # judged over AG-UI only
    expected_na = {"stream-agreement"} if mode == "non-streaming" else set()
    if not path.name.startswith("approval-"):  # the approval checks apply only where approvals happen
        expected_na |= set(APPROVAL_CHECKS)
        assert all(c.message == NO_APPROVALS for c in result.checks if c.id in APPROVAL_CHECKS)
    assert {cid for cid, verdict in verdicts.items() if verdict != "pass"} == expected_na

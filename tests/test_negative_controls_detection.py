"""The detection holes of issue 28 stay closed: breaking in the reference loop exactly the rule a new scenario
guards fails that scenario, and the reference loop passes it in every mode it runs in."""

from __future__ import annotations

from pathlib import Path

import pytest
from negative_controls import adapter_for
from negative_controls_detection import (
    BUNDLED,
    DETECTION_CONTROLS,
    TENTATIVE_CONTROLS,
    ContextOnlyWithSession,
    DetectionControl,
)

from harness import MODES, Mode, load_scenario, run_scenario
from harness.adapters.reference import ReferenceAdapter
from harness.reporting.design import apply_profiles


def _modes(path: Path) -> tuple[Mode, ...]:
    only = load_scenario(path).spec.modes
    return MODES if only is None else (only.only,)


CASES = [pytest.param(c, mode, id=f"{c.loop.__name__}-{c.scenario_path.stem}-{mode}")
         for c in DETECTION_CONTROLS for mode in _modes(c.scenario_path) if mode in c.modes]


@pytest.mark.parametrize(("control", "mode"), CASES)
async def test_the_broken_rule_fails_the_scenario(control: DetectionControl, mode: Mode) -> None:
    result = await run_scenario(load_scenario(control.scenario_path), adapter_for(control.loop), mode)
    failing = [c.id for c in result.checks if c.verdict == "fail"]
    assert result.verdict == "fail", f"{control.loop.__name__} passed {control.scenario}"
    # The control breaks a rule, not the loop: a bug in the control (which the reference adapter hands the caller
    # as the loop's error) would fail any scenario and prove nothing.
    assert not [c.message for c in result.checks
                if any(bug in (c.message or "") + (c.actual or "") for bug in ("NameError", "AttributeError",
                                                                                "TypeError"))]
    if control.check is not None:
        assert control.check in failing, failing
    if control.profile is not None:
        assert control.profile in {c.profile for c in result.checks if c.id == control.check and c.verdict == "fail"}


TENTATIVE_CASES = [pytest.param(c, mode, id=f"{c.loop.__name__}-{c.scenario_path.stem}-{mode}")
                   for c in TENTATIVE_CONTROLS for mode in _modes(c.scenario_path) if mode in c.modes]


@pytest.mark.parametrize(("control", "mode"), TENTATIVE_CASES)
async def test_a_contested_reading_differs_without_gating(control: DetectionControl, mode: Mode) -> None:
    raw = await run_scenario(load_scenario(control.scenario_path), adapter_for(control.loop), mode)
    failing = [c for c in raw.checks if c.verdict == "fail"]
    assert {c.profile for c in failing} == {"tentative"}, [(c.id, c.profile, c.message) for c in failing]
    # approved-once reports the approval that never ran, tentatively: its only result is the late placeholder.
    assert {control.check, "approved-once"} <= {c.id for c in failing}
    assert apply_profiles(raw, design=()).verdict == "differs"


SCENARIO_PATHS = sorted({c.scenario_path for c in (*DETECTION_CONTROLS, *TENTATIVE_CONTROLS)})
REFERENCE_CASES = [pytest.param(path, mode, id=f"{path.stem}-{mode}")
                   for path in SCENARIO_PATHS for mode in _modes(path)]


@pytest.mark.parametrize(("path", "mode"), REFERENCE_CASES)
@pytest.mark.parametrize("stateless", [False, True], ids=["reference", "reference_stateless"])
async def test_the_reference_loop_passes_the_same_scenarios(path: Path, mode: Mode, stateless: bool) -> None:
    scenario = load_scenario(path)
    adapter = ReferenceAdapter(stateless=stateless)
    result = await run_scenario(scenario, adapter, mode)
    expected = {"pass", "n/a"} if stateless else {"pass"}
    assert result.verdict in expected, [(c.id, c.message) for c in result.checks if c.verdict == "fail"]


@pytest.mark.parametrize("mode", MODES)
async def test_context_providers_run_without_a_session(mode: Mode) -> None:
    scenario = load_scenario(BUNDLED / "normal" / "context-providers-no-session.yaml")
    assert (await run_scenario(scenario, ReferenceAdapter(), mode)).verdict == "pass"
    broken = await run_scenario(scenario, ContextOnlyWithSession(), mode)
    assert broken.verdict == "fail"
    assert "expect.requests" in {c.id for c in broken.checks if c.verdict == "fail"}

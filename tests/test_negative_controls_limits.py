"""Breaking any one rule of "Errors, control flow, and limits", of continuation and recovery, of the spec's
mixed-batch design or of compaction in the reference loop fails a bundled scenario."""

from __future__ import annotations

import pytest
from negative_controls import adapter_for
from negative_controls_history import HISTORY_CONTROLS
from negative_controls_limits import LIMIT_CONTROLS, LimitControl
from negative_controls_mixed import MIXED_CONTROLS

from harness import MODES, Mode, load_scenario, run_scenario
from harness.adapters.reference import ReferenceAdapter


def _modes(control: LimitControl) -> tuple[Mode, ...]:
    """The modes the control's scenario runs in (a scenario may be limited to one, with its reason)."""
    only = load_scenario(control.scenario_path).spec.modes
    return MODES if only is None else (only.only,)


CONTROLS = (*LIMIT_CONTROLS, *MIXED_CONTROLS, *HISTORY_CONTROLS)
CASES = [pytest.param(c, mode, id=f"{c.loop.__name__}-{c.scenario_path.stem}-{mode}")
         for c in CONTROLS for mode in _modes(c)]


@pytest.mark.parametrize(("control", "mode"), CASES)
async def test_the_broken_rule_fails_the_scenario(control: LimitControl, mode: Mode) -> None:
    scenario = load_scenario(control.scenario_path)
    result = await run_scenario(scenario, adapter_for(control.loop), mode)
    failing = [c.id for c in result.checks if c.verdict == "fail"]
    assert result.verdict == "fail", f"{control.loop.__name__} passed {control.scenario}"
    assert failing
    if control.check is not None:
        assert control.check in failing, failing


@pytest.mark.parametrize("path", sorted({c.scenario_path for c in CONTROLS}), ids=lambda p: p.stem)
async def test_the_reference_loop_passes_the_same_scenarios(path: object) -> None:
    scenario = load_scenario(path)  # type: ignore[arg-type]
    modes = MODES if scenario.spec.modes is None else (scenario.spec.modes.only,)
    for mode in modes:
        assert (await run_scenario(scenario, ReferenceAdapter(), mode)).verdict == "pass"

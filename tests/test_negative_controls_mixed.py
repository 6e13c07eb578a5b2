"""Breaking any one rule of the spec's mixed-batch design in the reference loop fails a bundled scenario."""

from __future__ import annotations

from pathlib import Path

import pytest
from negative_controls import adapter_for
from negative_controls_mixed import MIXED_CONTROLS, MixedControl

from harness import MODES, Mode, load_scenario, run_scenario
from harness.adapters.reference import ReferenceAdapter

CASES = [pytest.param(c, mode, id=f"{c.loop.__name__}-{c.scenario_path.stem}-{mode}")
         for c in MIXED_CONTROLS for mode in MODES]


@pytest.mark.parametrize(("control", "mode"), CASES)
async def test_the_broken_rule_fails_the_scenario(control: MixedControl, mode: Mode) -> None:
    result = await run_scenario(load_scenario(control.scenario_path), adapter_for(control.loop), mode)
    failing = [c.id for c in result.checks if c.verdict == "fail"]
    assert result.verdict == "fail", f"{control.loop.__name__} passed {control.scenario}"
    if control.check is not None:
        assert control.check in failing, failing


@pytest.mark.parametrize("path", sorted({c.scenario_path for c in MIXED_CONTROLS}), ids=lambda p: p.stem)
async def test_the_reference_loop_passes_the_same_scenarios(path: Path) -> None:
    scenario = load_scenario(path)
    for mode in MODES:
        assert (await run_scenario(scenario, ReferenceAdapter(), mode)).verdict == "pass"

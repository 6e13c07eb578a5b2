"""Rows that cannot be observed from outside are reported n/a with their reason, never dropped."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from harness import ScenarioFileError, load_scenario, run_scenario
from harness.adapters.reference import ReferenceAdapter

REASON = "the behaviour lives only inside the loop's private normaliser state"


def _write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "row.yaml"
    path.write_text("id: correlation.hidden\ntitle: hidden row\nspec: [Missing result call id]\n" + body)
    return path


@pytest.mark.parametrize("mode", ["non-streaming", "streaming"])
def test_not_observable_row_is_na_with_its_reason(tmp_path: Path, mode: str) -> None:
    scenario = load_scenario(_write(tmp_path, f"not_observable: {REASON}\n"))
    result = asyncio.run(run_scenario(scenario, ReferenceAdapter(), mode))  # type: ignore[arg-type]
    assert result.verdict == "n/a"
    assert result.reason == f"not observable from outside: {REASON}"
    assert result.spec_rows == ("Missing result call id",)


def test_not_observable_scenario_cannot_also_have_turns(tmp_path: Path) -> None:
    body = f"not_observable: {REASON}\nturns:\n  - input: hi\n"
    with pytest.raises(ScenarioFileError) as raised:
        load_scenario(_write(tmp_path, body))
    assert "error[invalid-value]" in raised.value.render()
    assert "has no turns" in raised.value.render()


def test_a_scenario_without_turns_needs_the_reason(tmp_path: Path) -> None:
    with pytest.raises(ScenarioFileError) as raised:
        load_scenario(_write(tmp_path, ""))
    assert "at least one turn (or 'not_observable' with the reason)" in raised.value.render()

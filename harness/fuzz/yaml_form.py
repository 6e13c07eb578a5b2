"""A `ScenarioSpec` as the YAML text of a scenario file, and back: how generated scenarios are run and saved."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from harness.scenario.loader import load_scenario_text
from harness.scenario.model import Scenario
from harness.scenario.schema import ScenarioSpec

# Keys first in a written file, in the order a person reads a scenario; the rest follow as the model orders them.
_LEADING = ("id", "title", "spec", "description", "requires", "session", "config", "tools", "turns")


def scenario_yaml(spec: ScenarioSpec, comment: str = "") -> str:
    """The scenario file for `spec`: only the fields it sets, so loading the text gives back an equal spec."""
    data: dict[str, Any] = spec.model_dump(mode="json", by_alias=True, exclude_unset=True)
    ordered = {key: data[key] for key in _LEADING if key in data} | data
    header = "".join(f"# {line}\n".replace("# \n", "#\n") for line in comment.splitlines())
    return header + yaml.safe_dump(ordered, sort_keys=False, allow_unicode=True, width=120)


def load_generated(spec: ScenarioSpec, path: Path) -> Scenario:
    """`spec` built into a runnable scenario through the loader, as if it had been read from `path`."""
    return load_scenario_text(path, scenario_yaml(spec))

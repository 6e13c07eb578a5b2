"""Fuzz allowances: known framework defects as they show on generated conversations, whose ids no baseline entry
names. Each allowance is tied to the baseline entry (scenario and reproduction) that documents the defect, names the
implementations, releases and modes, the checks the defect fails and the features a conversation must exercise for
it to show (`harness.fuzz.features`). A finding is allowed only when every check it fails is named by an allowance
that applies to the run (its implementation, release and mode, and every feature it names present in the
scenario); nothing else is ever ignored.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.data_files import load_yaml_model
from harness.errors import HarnessError
from harness.fuzz.features import Feature, features
from harness.reporting.baseline import in_release_range
from harness.results import ScenarioResult
from harness.scenario.model import Scenario


class Allowance(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    implementation: list[str] = Field(min_length=1)
    checks: list[str] = Field(min_length=1, description="Checks the defect makes fail (differential included).")
    when: list[Feature] = Field(min_length=1, description="Every feature a conversation needs for it to show.")
    modes: list[Literal["streaming", "non-streaming"]] = Field(default=["non-streaming", "streaming"])
    versions_from: str | None = None
    versions_until: str | None = None
    known_failure: str | None = Field(default=None, description="The baseline scenario whose known-failure entry "
                                      "documents the defect; none for a fuzz-specific allowance, whose reason says "
                                      "why the spec does not decide it.")
    reason: str = Field(min_length=40)
    reproduction: str | None = None

    def applies(self, result: ScenarioResult, scenario: Scenario) -> bool:
        """This run is of an implementation, release and mode the defect affects, on a conversation that
        exercises every feature the defect needs."""
        return (result.implementation in self.implementation and result.mode in self.modes
                and in_release_range(result.version, self.versions_from, self.versions_until)
                and set(self.when) <= features(scenario))


class Allowances(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    allowances: list[Allowance] = Field(default_factory=list[Allowance])


class AllowancesError(HarnessError):
    """A fuzz allowances file that cannot be used."""


def load_allowances(path: Path) -> list[Allowance]:
    """The allowances of the file at `path`, read bounded (`harness.data_files`); `AllowancesError` otherwise."""
    return list(load_yaml_model(path, Allowances, AllowancesError, "a fuzz allowances file").allowances)


def allowed(allowances: Sequence[Allowance], result: ScenarioResult, scenario: Scenario,
            failing: Sequence[str]) -> bool:
    """Every failing check is one that an allowance applying to this run names. Several may apply (two known
    defects on one conversation), as several baseline entries may cover one run."""
    covered = {check for a in allowances if a.applies(result, scenario) for check in a.checks}
    return bool(failing) and set(failing) <= covered

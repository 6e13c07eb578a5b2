"""Design differences: behaviour a framework documents as intended where spec 004 asks for something else.

A design difference is not a defect, so it never gates: the runs it covers are `differs`, with the framework's own
words quoted and where they are written. It covers only checks outside the safety profile, since safety binds every
loop whatever its design; a covered run that also fails a safety check still fails (or needs a known failure).
One entry stands for one documented choice, however many scenarios show it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from fnmatch import fnmatchcase
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from harness.bundled import BUNDLED_DESIGN_DIFFERENCES
from harness.contract import Dialect
from harness.data_files import load_yaml_model
from harness.errors import HarnessError
from harness.requirements import REQUIREMENTS, gates, profile_of
from harness.results import CheckResult, ScenarioResult, overall

# Safety checks some of whose failures judge spec 004's mechanism instead (`profile_of`): an approved call that never
# ran, a final call at a limit that still offered tools, the same stream contents in another order.
_SPLIT = frozenset({"approved-once", "bounded", "stream-agreement"})


class DesignDifference(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9.-]*$", description="Stable id, shown as `design:<id>` on runs.")
    implementation: list[str] = Field(min_length=1)
    scenarios: list[str] = Field(min_length=1, description="Scenario ids, or shell-style patterns over them.")
    checks: list[str] = Field(min_length=1, description="The checks the documented behaviour fails (never safety).")
    modes: list[Literal["streaming", "non-streaming"]] = Field(default=["non-streaming", "streaming"])
    providers: list[Dialect] | None = Field(default=None, min_length=1)
    versions_from: str | None = None
    versions_until: str | None = None
    quote: str = Field(min_length=20, description="The framework's documentation, in its own words.")
    documented_at: str = Field(min_length=5, description="Where the quote is written (module, docstring, page).")
    reason: str = Field(min_length=40, description="What the spec asks, what the framework does, what holds.")

    @field_validator("checks")
    @classmethod
    def _no_safety(cls, checks: list[str]) -> list[str]:
        safety = [c for c in checks if c in REQUIREMENTS and REQUIREMENTS[c].profile == "safety"
                  and c not in _SPLIT]
        if safety:
            raise ValueError(f"{', '.join(safety)}: a safety check holds for every loop; a design cannot excuse it")
        return checks

    def matches(self, result: ScenarioResult) -> bool:
        from harness.reporting.baseline import in_release_range  # baseline imports this module

        return (result.implementation in self.implementation
                and any(fnmatchcase(result.scenario, pattern) for pattern in self.scenarios)
                and result.mode in self.modes
                and (self.providers is None or result.provider in self.providers)
                and in_release_range(result.version, self.versions_from, self.versions_until))


class DesignDifferences(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    design_differences: list[DesignDifference] = Field(default_factory=list[DesignDifference])


class DesignDifferencesError(HarnessError):
    """A design-differences file that cannot be used."""


def load_design_differences(path: Path) -> list[DesignDifference]:
    """The design-differences file at `path`, read bounded and located as every baseline file is."""
    return list(load_yaml_model(path, DesignDifferences, DesignDifferencesError,
                                "a design-differences file").design_differences)


@cache
def bundled_design_differences() -> tuple[DesignDifference, ...]:
    """The design differences shipped with the harness (empty when the file is absent, as in a bare checkout)."""
    if not BUNDLED_DESIGN_DIFFERENCES.is_file():
        return ()
    return tuple(load_design_differences(BUNDLED_DESIGN_DIFFERENCES))


def apply_profiles(result: ScenarioResult, design: Sequence[DesignDifference] | None = None) -> ScenarioResult:
    """The result with every failure that does not gate for its implementation marked `differs`: a profile it does
    not claim, a tentative reading, or a documented design difference. A run left with no gating failure is
    `differs` when any check differs."""
    if result.verdict in ("n/a", "error"):
        return result
    entries = [e for e in (bundled_design_differences() if design is None else design) if e.matches(result)]
    used: list[str] = []
    checks: list[CheckResult] = []
    for check in result.checks:
        if check.verdict != "fail":
            checks.append(check)
            continue
        covering = next((e for e in entries if check.id in e.checks and profile_of(check) != "safety"), None)
        if covering is not None:
            used.append(f"design:{covering.id}")
        if covering is not None or not gates(check, result.claims):
            checks.append(replace(check, verdict="differs"))
        else:
            checks.append(check)
    verdict = overall(checks)
    if verdict == "pass" and any(c.verdict == "differs" for c in checks):
        verdict = "differs"
    return replace(result, verdict=verdict, checks=tuple(checks), entries=(*result.entries, *dict.fromkeys(used)),
                   reason=_differs_reason(checks, entries, used) if verdict == "differs" else result.reason)


def _differs_reason(checks: Sequence[CheckResult], entries: Sequence[DesignDifference], used: Sequence[str]) -> str:
    named = {f"design:{e.id}": e for e in entries}
    parts = [f"documented design ({named[u].documented_at}): {' '.join(named[u].quote.split())}"
             for u in dict.fromkeys(used)]
    others = sorted({f"{c.id} ({profile_of(c)})" for c in checks if c.verdict == "differs"}
                    - {f"{c} ({'contract'})" for u in used for c in named[u].checks})
    if others:
        parts.append("fails only assertions its implementation does not claim: " + ", ".join(others))
    return "; ".join(parts)

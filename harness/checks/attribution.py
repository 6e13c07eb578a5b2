"""Each reported check's profile and the sources it enforces, filled in once every check of a run is judged.

Universal checks take theirs from the requirements table (a check function may have set its own on a failure that
judges another promise than the check's usual one); a scenario's expectations take theirs from the turn that states
them (`cites`, `tentative`, `profile` in the scenario file); `script` enforces whatever the scenario's rows script.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from harness.citations import resolve
from harness.requirements import requirement
from harness.results import CheckResult, Profile
from harness.scenario.model import Scenario
from harness.scenario.schema import ExpectationName, ExpectSpec


def attribute(checks: Sequence[CheckResult], scenario: Scenario) -> list[CheckResult]:
    return [_attributed(check, scenario) for check in checks]


def _attributed(check: CheckResult, scenario: Scenario) -> CheckResult:
    if check.id.startswith("expect."):
        expect = _turn_expectations(scenario, check.turn)
        if expect is not None:
            name: ExpectationName = check.id.removeprefix("expect.").replace("-", "_")  # type: ignore[assignment]
            return replace(check, profile=check.profile or _expectation_profile(expect, name),
                           cites=check.cites or _expectation_cites(expect, name))
    if check.id == "script":
        rows = tuple(f"row:{row}" for row in scenario.spec.spec)
        return replace(check, profile=check.profile or "contract", cites=check.cites or rows)
    known = requirement(check.id)
    return replace(check, profile=check.profile or known.profile, cites=check.cites or known.cites)


def _turn_expectations(scenario: Scenario, turn: int | None) -> ExpectSpec | None:
    if turn is None or not 1 <= turn <= len(scenario.turns):
        return None
    return scenario.turns[turn - 1].spec.expect


def _expectation_profile(expect: ExpectSpec, name: ExpectationName) -> Profile:
    if name in expect.tentative:
        return "tentative"
    return expect.profile.get(name, "contract")


def _expectation_cites(expect: ExpectSpec, name: ExpectationName) -> tuple[str, ...]:
    cites = expect.cites
    references = cites.get(name, []) if isinstance(cites, dict) else (cites or [])
    return tuple(cited for r in references if (cited := resolve(r)) is not None)

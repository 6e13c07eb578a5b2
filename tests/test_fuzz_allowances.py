"""Fuzz allowances excuse only what they name: the implementation, release and mode, the checks, and only on
conversations with every feature; the bundled allowances file loads and names real baseline entries."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.bundled import BUNDLED_BASELINE, BUNDLED_FUZZ_ALLOWANCES
from harness.fuzz.allowances import Allowance, allowed, load_allowances
from harness.reporting.baseline import load_baseline
from harness.results import ScenarioResult
from harness.scenario.loader import load_scenario

ROOT = Path(__file__).resolve().parent.parent
ACROSS = load_scenario(ROOT / "scenarios" / "approval" / "calls-across-messages-session.yaml")
SINGLE = load_scenario(ROOT / "scenarios" / "normal" / "single-call.yaml")


def _result(implementation: str = "loop", version: str = "1.0.0", mode: str = "streaming") -> ScenarioResult:
    return ScenarioResult("s", "t", (), "x", implementation, version, mode, "fail")


def _allowance(**changes: object) -> Allowance:
    fields: dict[str, object] = {"implementation": ["loop"], "checks": ["no-orphans"],
                                 "when": ["approval", "calls-across-messages"], "versions_from": "1.0.0",
                                 "reason": "a documented defect of this loop, for the tests of allowances"}
    return Allowance.model_validate(fields | changes)


def test_an_allowance_covers_only_its_checks_features_releases_and_modes() -> None:
    allowance = [_allowance()]
    assert allowed(allowance, _result(), ACROSS, ["no-orphans"])
    assert not allowed(allowance, _result(), ACROSS, ["no-orphans", "exactly-once"])
    assert not allowed(allowance, _result(), SINGLE, ["no-orphans"])
    assert not allowed(allowance, _result(implementation="other"), ACROSS, ["no-orphans"])
    assert not allowed(allowance, _result(version="0.9.0"), ACROSS, ["no-orphans"])
    assert not allowed([_allowance(modes=["non-streaming"])], _result(), ACROSS, ["no-orphans"])
    assert not allowed(allowance, _result(), ACROSS, [])


def test_two_defects_on_one_conversation_are_covered_together() -> None:
    both = [_allowance(), _allowance(checks=["stream-agreement"], when=["approval"])]
    assert allowed(both, _result(), ACROSS, ["no-orphans", "stream-agreement"])
    assert not allowed(both[:1], _result(), ACROSS, ["no-orphans", "stream-agreement"])


def test_bundled_allowances_name_baseline_entries_and_their_reproductions() -> None:
    known = load_baseline(BUNDLED_BASELINE).known_failures
    for allowance in load_allowances(BUNDLED_FUZZ_ALLOWANCES):
        if allowance.known_failure is None:
            assert allowance.reproduction is None
            assert allowance.reason.startswith("Fuzz-specific")
            continue
        entries = [e for e in known if e.scenario == allowance.known_failure]
        assert entries, allowance.known_failure
        assert allowance.reproduction is not None
        assert (ROOT / allowance.reproduction).is_file()
        assert set(allowance.implementation) & {i for e in entries for i in e.implementations}, allowance


def test_only_a_loop_claiming_the_contract_is_held_to_agree_with_the_reference(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The reference loop is spec 004's mechanisms; a loop claiming safety alone differs from it by design."""
    import asyncio

    from harness.adapters.reference import adapter as reference_adapter
    from harness.fuzz.oracle import DIFFERENTIAL, Judge

    async def always_differs(*_: object) -> str:
        return "the transcripts differ"

    monkeypatch.setattr(Judge, "_differ", always_differs)
    judge = Judge(reference=reference_adapter())
    claims_contract = reference_adapter()
    claims_contract.name = "claims-contract"
    safety_only = reference_adapter()
    safety_only.name = "safety-only"
    safety_only.profiles = frozenset({"safety"})  # type: ignore[attr-defined]
    found = asyncio.run(judge.findings(SINGLE, claims_contract, ("non-streaming",)))
    assert [f.checks for f in found] == [(DIFFERENTIAL,)]
    assert asyncio.run(judge.findings(SINGLE, safety_only, ("non-streaming",))) == []

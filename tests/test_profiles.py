"""Profiles: every assertion cites its source and has a profile; what gates depends on what a loop claims.

A failure of a profile the implementation does not claim, of a tentative reading or of a documented design
difference is `differs`, never `fail`; safety failures fail every loop; negative controls still fail their safety and
contract assertions in both modes.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from negative_controls import CONTROLS
from requirements_helper import SPEC_MISSING, require

from harness import MODES, Mode, ScenarioFileError, load_scenario, run_scenario
from harness.citations import CITATIONS, sentence_id
from harness.contract import adapter_profiles
from harness.reporting.baseline import apply_baseline
from harness.reporting.design import DesignDifference, apply_profiles
from harness.reporting.gate import gate
from harness.requirements import REQUIREMENTS, gates, profile_of
from harness.results import CheckResult, ScenarioResult
from harness.run.suite import BUNDLED_SCENARIOS, load_all

# The harness's own checks judge the harness, not a loop: they name no spec sentence.
HARNESS_ONLY = {"scenario-file", "judging", "baseline"}


def test_every_universal_check_cites_a_known_source_and_has_a_profile() -> None:
    for check, requirement in REQUIREMENTS.items():
        if check in HARNESS_ONLY or check.startswith("expect.") or check == "script":
            continue  # a scenario's own expectations and script cite the scenario's sources
        assert requirement.profile in ("safety", "contract", "tentative"), check
        assert requirement.cites, f"{check} cites no source"
        assert all(c in CITATIONS for c in requirement.cites), (check, requirement.cites)


def test_sentence_ids_are_derived_from_the_sentence_text() -> None:
    assert sentence_id("Approval request and resume", "An approved tool executes exactly once.") == (
        "sentence:approval-request-and-resume/an-approved-tool-executes-exactly-once")
    sentences = [c for c in CITATIONS.values() if c.id.startswith("sentence:")]
    assert len({c.id for c in sentences}) == len(sentences)


def test_citations_quote_the_spec_when_it_is_at_hand() -> None:
    spec = Path(__file__).resolve().parents[2] / "shared" / "spec" / "004-python-function-calling-loop.md"
    require(spec.is_file(), SPEC_MISSING)
    text = " ".join(spec.read_text(encoding="utf-8").split())
    for citation in CITATIONS.values():
        if citation.id.startswith("sentence:"):
            assert " ".join(citation.text.split()) in text, citation.id


def test_every_bundled_expectation_is_attributed_a_source_and_profile() -> None:
    scenarios, errors = load_all([BUNDLED_SCENARIOS])
    assert not errors
    for scenario in scenarios:
        for number, turn in enumerate(scenario.turns, 1):
            expect = turn.spec.expect
            asserted = expect.asserted()
            if asserted:
                assert expect.cites, f"{scenario.id} turn {number}"


VALID = textwrap.dedent("""\
    id: t.cites
    title: A scenario whose expectations cite
    spec: [Single non-streaming call]
    tools:
      - name: get_weather
        returns: sunny
    turns:
      - input:
          - user: Weather?
        model:
          - contents:
              - text: Sunny.
        expect:
          model_calls: 1
""")


def _load(tmp_path: Path, text: str) -> ScenarioFileError:
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioFileError) as caught:
        load_scenario(path)
    return caught.value


def test_an_expectation_without_a_source_is_a_located_error(tmp_path: Path) -> None:
    message = str(_load(tmp_path, VALID))
    assert "s.yaml:14:" in message
    assert "cites no source" in message


def test_an_unknown_citation_is_a_located_error(tmp_path: Path) -> None:
    message = str(_load(tmp_path, VALID + "      cites: [Single non-streaming cal]\n"))
    assert "s.yaml:14:" in message
    assert "no known row or sentence" in message


def test_a_tentative_expectation_must_be_one_the_turn_states(tmp_path: Path) -> None:
    text = VALID + "      cites: [Single non-streaming call]\n      tentative: {requests: our reading}\n"
    assert "does not expect" in str(_load(tmp_path, text))


async def test_checks_of_a_run_carry_profile_and_citations() -> None:
    from harness.adapters.reference import ReferenceAdapter

    scenario = load_scenario(BUNDLED_SCENARIOS / "approval" / "approved-resume.yaml")
    result = await run_scenario(scenario, ReferenceAdapter(), "streaming")
    assert result.claims == ("contract", "safety")
    for check in result.checks:
        if check.id not in HARNESS_ONLY and check.verdict != "n/a":
            assert check.profile is not None, check.id
    first = [c for c in result.checks if c.id == "expect.response" and c.turn == 1]
    second = [c for c in result.checks if c.id == "expect.response" and c.turn == 2]
    assert first[0].cites == ("row:Initial approval request",)
    assert "row:Approved streaming resume" in second[0].cites


def _run(*checks: CheckResult, claims: tuple[str, ...] = ("safety",), implementation: str = "x",
         scenario: str = "s.one") -> ScenarioResult:
    return ScenarioResult(scenario, "t", ("Single non-streaming call",), "normal", implementation, "1.0",
                          "non-streaming", "fail", checks=checks, claims=claims)


def test_a_contract_failure_differs_for_a_loop_claiming_only_safety() -> None:
    run = _run(CheckResult("expect.response", "fail", "shape", 1, profile="contract"))
    judged = apply_baseline(run, [], design=[])
    assert judged.verdict == "differs"
    assert judged.checks[0].verdict == "differs"
    assert "does not claim" in judged.reason


def test_a_contract_failure_fails_a_loop_claiming_the_contract() -> None:
    run = _run(CheckResult("expect.response", "fail", "shape", 1, profile="contract"), claims=("contract", "safety"))
    assert apply_baseline(run, [], design=[]).verdict == "fail"


def test_a_safety_failure_fails_every_loop() -> None:
    run = _run(CheckResult("rejected-never-runs", "fail", "ran", 2, profile="safety"))
    assert apply_baseline(run, [], design=[]).verdict == "fail"


def test_a_tentative_failure_never_gates_unless_asked_for() -> None:
    check = CheckResult("expect.requests", "fail", "grouping", 1, profile="tentative")
    assert apply_baseline(_run(check, claims=("contract", "safety")), [], design=[]).verdict == "differs"
    assert apply_baseline(_run(check, claims=("safety", "tentative")), [], design=[]).verdict == "fail"


def _design(**overrides: object) -> DesignDifference:
    fields: dict[str, object] = {
        "id": "x.documented", "implementation": ["x"], "scenarios": ["s.*"], "checks": ["expect.executions"],
        "quote": "The framework does this on purpose, as its docs say.", "documented_at": "x/_loop.py docstring",
        "reason": "The spec is silent on this caller; the framework documents its own choice, so it differs.",
    } | overrides
    return DesignDifference.model_validate(fields)


def test_a_design_difference_covers_its_checks_but_never_a_safety_failure() -> None:
    run = _run(CheckResult("expect.executions", "fail", "never ran", 2, profile="contract"),
               CheckResult("approved-once", "fail", "call c1 was approved in turn 2 but never executed",
                           2, profile="contract"),
               claims=("contract", "safety"))
    design = [_design(checks=["expect.executions", "approved-once"])]
    judged = apply_profiles(run, design)
    assert judged.verdict == "differs"
    assert judged.entries == ("design:x.documented",)
    assert "documented design" in judged.reason
    unsafe = _run(CheckResult("approved-once", "fail", "executed twice", 2, profile="safety"),
                  claims=("contract", "safety"))
    assert apply_profiles(unsafe, design).verdict == "fail"


def test_a_design_difference_may_not_name_a_safety_only_check() -> None:
    with pytest.raises(ValueError, match="safety check"):
        _design(checks=["rejected-never-runs"])


def test_the_gate_never_fails_on_differs() -> None:
    run = _run(CheckResult("expect.response", "fail", "shape", 1, profile="contract"))
    document = {"results": [run.to_json()], "filtered": True}
    assert gate(document, []).passed


def test_results_written_before_profiles_are_judged_by_message() -> None:
    assert profile_of(CheckResult("bounded", "fail", "model call #2 came after ... had tool_choice='auto', not "
                                                     "'none'")) == "contract"
    assert profile_of(CheckResult("bounded", "fail", "5 model calls in one turn; the bound is 3")) == "safety"
    assert not gates(CheckResult("parallel-order", "fail", "x"), ("safety",))


def test_built_in_adapters_claim_what_their_documentation_supports() -> None:
    from harness.adapters.reference import ReferenceAdapter

    assert adapter_profiles(ReferenceAdapter()) == {"safety", "contract"}

    class Bare:
        name, version, capabilities = "bare", "0", frozenset[str]()

    assert adapter_profiles(Bare()) == {"safety"}  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", MODES)
async def test_negative_controls_still_fail_safety_and_contract_assertions(mode: Mode) -> None:
    failed: dict[str, set[str]] = {"safety": set(), "contract": set()}
    for control in CONTROLS:
        if mode not in control.modes:
            continue
        result = await run_scenario(load_scenario(control.scenario_path), control.adapter(), mode)
        for check in result.checks:
            if check.id == control.check and check.verdict == "fail":
                failed.setdefault(profile_of(check), set()).add(control.id)
                # Judged as a loop claiming only safety, a safety control still fails.
                if profile_of(check) == "safety":
                    assert apply_profiles(ScenarioResult(**{**result.__dict__, "claims": ("safety",)}),
                                          []).verdict == "fail", control.id
    assert failed["safety"], f"no safety control fails in {mode} mode"
    assert failed["contract"], f"no contract control fails in {mode} mode"

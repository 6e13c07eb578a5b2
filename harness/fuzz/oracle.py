"""The oracles of a fuzzed scenario, which states no expectations: every check a run makes (the run checks and the
universal invariants), what the spec asks of hosted approvals (`harness.fuzz.hosted`), and a differential check
against the reference loop modulo `harness.fuzz.differences`.

Failures are judged the way `loop-conformance run` judges them: against the baseline's known failures (a bundled
scenario re-split keeps its id, so its entries apply) and, for generated conversations, against the fuzz allowances
(`harness.fuzz.allowances`). What remains is a finding.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.contract import LoopAdapter, Mode, adapter_profiles
from harness.fuzz.allowances import Allowance, allowed
from harness.fuzz.differences import Known, execution_summary, normalised_items
from harness.fuzz.hosted import HOSTED_PASSTHROUGH, hosted_problems
from harness.fuzz.yaml_form import scenario_yaml
from harness.reporting.baseline import KnownFailure, apply_baseline
from harness.results import ScenarioResult
from harness.run.runner import RunObserver, run_scenario
from harness.scenario.model import Scenario
from harness.script import ModelRequest, ToolExecution

DIFFERENTIAL = "differential"
FUZZ_TURN_TIMEOUT = 10.0  # seconds; a safety net against a hanging loop, never an assertion on speed


@dataclass(frozen=True)
class Finding:
    """A failure no baseline entry or allowance explains: the implementation, mode, failing checks and why."""

    implementation: str
    mode: Mode
    checks: tuple[str, ...]
    message: str

    @property
    def signature(self) -> tuple[str, str, tuple[str, ...]]:
        """What tells one finding from another when the fuzzer looks for several."""
        return (self.implementation, self.mode, self.checks)


@dataclass(frozen=True)
class Observed:
    result: ScenarioResult
    executions: tuple[ToolExecution, ...]
    requests: tuple[ModelRequest, ...] = ()


@dataclass
class Judge:
    """How runs are judged: the baseline's known failures and the fuzz allowances; `reference` is the loop the
    differential check compares with (None: no differential check)."""

    known: Sequence[KnownFailure] = ()
    allowances: Sequence[Allowance] = ()
    reference: LoopAdapter | None = None
    _reference_runs: dict[tuple[str, Mode], Observed] = field(default_factory=lambda: {})

    async def findings(self, scenario: Scenario, adapter: LoopAdapter, modes: Sequence[Mode] | None = None,
                       ) -> list[Finding]:
        found: list[Finding] = []
        for mode in modes or scenario.modes():
            observed = await observe(scenario, adapter, mode)
            result = apply_baseline(observed.result, self.known)
            failed = {c.id for c in result.checks if c.verdict in ("fail", "error") and c.id != "baseline"}
            # Judged where nothing else is known to explain the run (a run whose failures a known-failures entry
            # covers is that entry's).
            hosted = hosted_problems(scenario, observed.result.transcript, observed.requests, observed.executions
                                     ) if result.verdict in ("pass", "fail", "error") else []
            failing = tuple(sorted(failed | ({HOSTED_PASSTHROUGH} if hosted else set[str]())))
            if (result.verdict in ("fail", "error") or hosted) and failing and not allowed(
                    self.allowances, result, scenario, failing):
                first = next((f"{c.id}: {c.message}" for c in result.checks if c.id in failing),
                             f"{HOSTED_PASSTHROUGH}: {'; '.join(hosted)}")
                found.append(Finding(adapter.name, mode, failing, first))
                continue
            if hosted:
                continue  # allowed: a known defect
            # The reference loop is spec 004's mechanisms: only a loop claiming them (the contract profile) is
            # held to agree with it; a loop claiming safety alone differs from it by its own design.
            if (result.verdict == "pass" and self.reference is not None and adapter.name != self.reference.name
                    and "contract" in adapter_profiles(adapter)):
                disagreement = await self._differ(scenario, observed, mode)
                if disagreement is not None and not allowed(self.allowances, result, scenario, (DIFFERENTIAL,)):
                    found.append(Finding(adapter.name, mode, (DIFFERENTIAL,), disagreement))
        return found

    async def _differ(self, scenario: Scenario, observed: Observed, mode: Mode) -> str | None:
        assert self.reference is not None
        key = (scenario_yaml(scenario.spec), mode)  # the last example's, by content: objects' ids are reused
        if key not in self._reference_runs:
            self._reference_runs = {key: await observe(scenario, self.reference, mode)}
        expected = self._reference_runs[key]
        if expected.result.verdict != "pass":
            return None  # the reference itself fails: reported when the reference is fuzzed, not blamed on others
        return disagreement(scenario, expected, observed)


async def observe(scenario: Scenario, adapter: LoopAdapter, mode: Mode) -> Observed:
    executions: list[ToolExecution] = []
    requests: list[ModelRequest] = []
    result = await run_scenario(scenario, adapter, mode, turn_timeout=FUZZ_TURN_TIMEOUT,
                                observer=RunObserver(on_request=requests.append, on_execution=executions.append))
    return Observed(result, tuple(executions), tuple(requests))


def disagreement(scenario: Scenario, expected: Observed, actual: Observed) -> str | None:
    """How `actual` differs from the reference's `expected` beyond the accepted differences, if it does."""
    scripted = scripted_texts(scenario)
    ran, reference_ran = execution_summary(actual.executions), execution_summary(expected.executions)
    if ran != reference_ran:
        return f"executions {_short(ran)} differ from the reference loop's {_short(reference_ran)}"
    known = Known(scripted, rejected_calls(scenario), optional_texts(scenario))
    mine = normalised_items(actual.result.transcript, known)
    theirs = normalised_items(expected.result.transcript, known)
    for turn, (got, want) in enumerate(zip(mine, theirs, strict=False), 1):
        if got != want:
            return (f"turn {turn}: the caller sees {_short([c for _, c in got])}, the reference loop shows "
                    f"{_short([c for _, c in want])}")
    if len(mine) != len(theirs):
        return f"{len(mine)} turn(s) ran, the reference loop ran {len(theirs)}"
    return None


def rejected_calls(scenario: Scenario) -> frozenset[str]:
    """The call ids the caller's decisions reject, in any turn."""
    return frozenset(call_id for turn in scenario.spec.turns if not isinstance(turn.input, str)
                     for item in turn.input for call_id, decision in (item.approvals or {}).items()
                     if decision == "reject")


def optional_texts(scenario: Scenario) -> frozenset[str]:
    """Texts that only optional model responses of the script hold (a required response's text stays compared)."""
    optional: set[str] = set()
    required: set[str] = set()
    for turn in scenario.turns:
        for step in turn.steps:
            texts = {text for message in step.response.messages for content in message.contents
                     if isinstance(text := getattr(content, "text", None), str)}
            (optional if step.optional else required).update(texts)
    return frozenset(optional - required)


def scripted_texts(scenario: Scenario) -> set[str]:
    """Texts the script wrote (the model's texts, each tool's return value as JSON): anything else a caller sees is
    the loop's own wording."""
    texts: set[str] = set()
    for turn in scenario.turns:
        for step in turn.steps:
            for message in step.response.messages:
                texts.update(getattr(content, "text", "") for content in message.contents)
    for tool in scenario.tools:
        texts.update(json.dumps(behaviour.value) for behaviour in tool.behaviours if behaviour.kind == "return")
    return texts


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 400 else text[:397] + "..."

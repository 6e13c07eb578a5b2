"""Running a whole suite: every scenario × implementation × mode, each run independent of the others."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harness.bundled import BUNDLED_SCENARIOS as BUNDLED_SCENARIOS
from harness.contract import MODES, LoopAdapter, Mode
from harness.errors import ScenarioFileError
from harness.reporting.baseline import KnownFailure, apply_baseline
from harness.results import CheckResult, ScenarioResult
from harness.run.runner import run_scenario
from harness.scenario.loader import discover, load_scenario
from harness.scenario.model import Scenario


@dataclass
class SuiteRun:
    results: list[ScenarioResult] = field(default_factory=lambda: [])
    file_errors: list[ScenarioFileError] = field(default_factory=lambda: [])
    filtered: bool = False


def load_all(paths: Iterable[Path]) -> tuple[list[Scenario], list[ScenarioFileError]]:
    scenarios: list[Scenario] = []
    errors: list[ScenarioFileError] = []
    for path in discover(paths):
        try:
            scenarios.append(load_scenario(path))
        except ScenarioFileError as error:
            errors.append(error)
    return scenarios, errors


def run_suite(adapters: Sequence[LoopAdapter], paths: Sequence[Path] = (BUNDLED_SCENARIOS,),
              modes: Sequence[Mode] = MODES, known_failures: Sequence[KnownFailure] = ()) -> SuiteRun:
    scenarios, errors = load_all(paths)
    run = SuiteRun(file_errors=errors)
    for scenario in scenarios:
        for adapter in adapters:
            for mode in modes:
                result = asyncio.run(run_scenario(scenario, adapter, mode))
                run.results.append(apply_baseline(result, known_failures))
    for error in errors:
        for adapter in adapters:
            for mode in modes:
                run.results.append(_file_error_result(error, adapter, mode))
    return run


def _file_error_result(error: ScenarioFileError, adapter: LoopAdapter, mode: Mode) -> ScenarioResult:
    first = error.problems[0]
    check = CheckResult("scenario-file", "error", error.render())
    return ScenarioResult(str(error.path), "", (), error.path.parent.name, adapter.name, adapter.version, mode,
                          "error", (check,), str(error.path), first.line, reason="malformed scenario file")

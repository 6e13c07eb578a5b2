"""Running a whole suite: every scenario × implementation × mode × provider, each run independent of the others.

An implementation runs over every provider it declares (`harness.contract.adapter_dialects`: neutral, then any wire
dialect), narrowed to the providers asked for when some are.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from harness.bundled import BUNDLED_SCENARIOS as BUNDLED_SCENARIOS
from harness.contract import MODES, Dialect, LoopAdapter, Mode, adapter_dialects
from harness.errors import ScenarioFileError
from harness.reporting.baseline import KnownFailure, apply_baseline
from harness.results import CheckResult, ScenarioResult
from harness.run.isolation import (
    RUN_TIMEOUT_SECONDS,
    RunRequest,
    WorkerPool,
    broken_adapter_result,
    probe,
    run_requests,
)
from harness.run.registry import is_reference
from harness.run.runner import TURN_TIMEOUT_SECONDS, run_scenario
from harness.scenario.loader import load_many
from harness.scenario.model import Scenario


@dataclass
class SuiteRun:
    results: list[ScenarioResult] = field(default_factory=lambda: [])
    file_errors: list[ScenarioFileError] = field(default_factory=lambda: [])
    filtered: bool = False


def load_all(paths: Iterable[Path]) -> tuple[list[Scenario], list[ScenarioFileError]]:
    return load_many(paths)


def selected_dialects(declared: Sequence[Dialect], providers: Sequence[Dialect] | None) -> tuple[Dialect, ...]:
    """The providers an implementation runs over: those it declares, narrowed to `providers` when given."""
    return tuple(d for d in declared if providers is None or d in providers)


def run_suite(adapters: Sequence[LoopAdapter], paths: Sequence[Path] = (BUNDLED_SCENARIOS,),
              modes: Sequence[Mode] = MODES, known_failures: Sequence[KnownFailure] = (),
              providers: Sequence[Dialect] | None = None) -> SuiteRun:
    """Every scenario × adapter × provider × mode in this process (no hard limit: for trusted loops and tests)."""
    scenarios, errors = load_all(paths)
    run = SuiteRun(file_errors=errors)
    over = {id(a): selected_dialects(adapter_dialects(a), providers) for a in adapters}
    for scenario in scenarios:
        for adapter in adapters:
            for dialect in over[id(adapter)]:
                for mode in modes:
                    result = asyncio.run(run_scenario(scenario, adapter, mode, dialect=dialect))
                    run.results.append(apply_baseline(result, known_failures))
    for error in errors:
        for adapter in adapters:
            for dialect in over[id(adapter)]:
                for mode in modes:
                    run.results.append(_file_error_result(error, adapter.name, adapter.version, mode, dialect))
    return run


def _file_error_result(error: ScenarioFileError, implementation: str, version: str, mode: Mode,
                       dialect: Dialect) -> ScenarioResult:
    first = error.problems[0]
    check = CheckResult("scenario-file", "error", error.render())
    return ScenarioResult(str(error.path), "", (), error.path.parent.name, implementation, version, mode,
                          "error", (check,), str(error.path), first.line, reason="malformed scenario file",
                          provider=dialect)


def run_isolated_suite(implementations: Sequence[str], paths: Sequence[Path] = (BUNDLED_SCENARIOS,),
                       modes: Sequence[Mode] = MODES, known_failures: Sequence[KnownFailure] = (), *,
                       providers: Sequence[Dialect] | None = None,
                       jobs: int | None = None, run_timeout: float = RUN_TIMEOUT_SECONDS,
                       turn_timeout: float = TURN_TIMEOUT_SECONDS,
                       on_result: Callable[[ScenarioResult], None] | None = None,
                       on_total: Callable[[int], None] | None = None,
                       profiles: Sequence[str] | None = None) -> IsolatedSuiteRun:
    """Every scenario × implementation × provider × mode in worker processes, each under a hard `run_timeout`.

    Implementations are named (registered names or ``module:factory``) and built inside the workers, so a broken
    adapter, a hanging loop or a crashing one costs only its own runs. Each runs over the providers its adapter
    declares, narrowed to `providers` when given (an asked provider it does not declare is noted in
    `IsolatedSuiteRun.unsupported`). Results are in the same order, with the same content, whatever `jobs` is.
    `on_total` is told how many results to expect once the implementations are probed, and `on_result` is told of
    each as it is decided.
    """
    scenarios, errors = load_all(paths)
    run = IsolatedSuiteRun(file_errors=errors)
    with WorkerPool(jobs or os.cpu_count() or 1, run_timeout) as pool:
        probed = probe(pool, implementations)
        run.unavailable = [f"{p.implementation}: {p.unavailable}" for p in probed if p.unavailable is not None]
        present = [p for p in probed if p.unavailable is None]
        identities = {p.implementation: (p.name or p.implementation, p.version) for p in present}
        # How to name again an implementation asked for as `module:factory` (its results carry its adapter's name).
        run.references = {name: reference for reference, (name, _) in identities.items() if is_reference(reference)}
        # A broken adapter's dialects are unknown: it gets its error results wherever it was asked to run.
        over = {p.implementation: selected_dialects(p.dialects, providers) if p.broken is None
                else tuple(providers or ("neutral",)) for p in present}
        run.unsupported = [f"{p.implementation} does not run over the {d} provider" for p in present
                           if p.broken is None for d in (providers or ()) if d not in p.dialects]
        requests = [RunRequest(scenario, p.implementation, mode, dialect)
                    for scenario in scenarios for p in present for dialect in over[p.implementation]
                    for mode in modes]
        broken = {p.implementation: p.broken for p in present if p.broken is not None}
        runnable = [r for r in requests if r.implementation not in broken]
        if on_total is not None:
            on_total(len(requests) + len(errors) * len(modes) * sum(len(d) for d in over.values()))

        def judged(result: ScenarioResult) -> ScenarioResult:
            if profiles:  # `run --profile`: the caller's choice of what gates replaces every implementation's claim
                result = replace(result, claims=tuple(sorted({"safety", *profiles})))
            return apply_baseline(result, known_failures)

        def notify(result: ScenarioResult) -> None:
            if on_result is not None:
                on_result(judged(result))

        finished = iter(run_requests(pool, runnable, identities, turn_timeout, notify))
    for request in requests:
        reason = broken.get(request.implementation)
        if reason is not None:
            result = broken_adapter_result(request, reason)
            notify(result)
            run.results.append(result)
        else:
            run.results.append(judged(next(finished)))
    for error in errors:
        for p in present:
            for dialect in over[p.implementation]:
                for mode in modes:
                    result = _file_error_result(error, *identities[p.implementation], mode, dialect)
                    notify(result)
                    run.results.append(result)
    return run


@dataclass
class IsolatedSuiteRun(SuiteRun):
    unavailable: list[str] = field(default_factory=lambda: [])  # implementations whose extra is not installed
    unsupported: list[str] = field(default_factory=lambda: [])  # asked providers an implementation does not declare
    references: dict[str, str] = field(default_factory=lambda: {})  # adapter name -> the `module:factory` asked for

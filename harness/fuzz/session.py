"""Running the fuzzer on one implementation: generate, judge, let Hypothesis shrink each failure, export it.

Two searches run in turn: generated conversations (`harness.fuzz.conversations`) and stream splits of the bundled
scenarios (`harness.fuzz.stream_splits`, streaming mode only). Each search stops at its first failure, which
Hypothesis shrinks; the shrunk example is written as a scenario file, its finding's signature (implementation,
mode, failing checks) is set aside, and the search starts again for a different one, up to `max_findings`.
Hypothesis keeps every failing example in its database (`database`), so a later run replays it first.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings
from hypothesis import strategies as st
from hypothesis.database import DirectoryBasedExampleDatabase

from harness.contract import LoopAdapter, Mode
from harness.fuzz.conversations import conversations
from harness.fuzz.export import counterexample, write_counterexample
from harness.fuzz.hosted import HOSTED_PASSTHROUGH
from harness.fuzz.oracle import DIFFERENTIAL, Finding, Judge, observe
from harness.fuzz.profiles import DEFAULT_DATABASE as DEFAULT_DATABASE
from harness.fuzz.profiles import PROFILES as PROFILES
from harness.fuzz.stream_splits import split_streams
from harness.fuzz.yaml_form import load_generated
from harness.scenario.model import Scenario
from harness.scenario.schema import ScenarioSpec

GENERATED_PATH = Path("<generated>.yaml")  # where a generated scenario says it comes from, in messages
# Each example runs whole conversations through a loop: slow and large by Hypothesis's measure, by design.
SLOW_EXAMPLES = (HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example)


@dataclass
class Counterexample:
    finding: Finding
    spec: ScenarioSpec
    path: Path | None


@dataclass
class FuzzReport:
    implementation: str
    examples: int = 0
    counterexamples: list[Counterexample] = field(default_factory=lambda: list[Counterexample]())


class _Found(Exception):
    """Raised inside the property so Hypothesis shrinks the example; carries nothing (the finding is captured)."""


@dataclass
class _Search:
    name: str
    strategy: st.SearchStrategy[ScenarioSpec]
    modes: Sequence[Mode] | None


def fuzz(adapter: LoopAdapter, judge: Judge, *, max_examples: int, seed_value: int, out: Path | None,
         database: Path | None = DEFAULT_DATABASE, max_findings: int = 5,
         bundled: Sequence[Scenario] = (), on_finding: Callable[[Counterexample], None] | None = None,
         ) -> FuzzReport:
    report = FuzzReport(adapter.name)
    searches = [_Search("conversations", conversations(adapter.capabilities), None)]
    if bundled:
        runnable = [s.spec for s in bundled if not set(s.spec.requires) - set(adapter.capabilities)
                    and s.spec.not_observable is None and "streaming" in s.modes()]
        if runnable:
            searches.append(_Search("stream-splits", st.sampled_from(runnable).flatmap(split_streams),
                                    ("streaming",)))
    seen: set[tuple[str, str, tuple[str, ...]]] = set()
    for search in searches:
        while len(report.counterexamples) < max_findings:
            found = _search_once(adapter, judge, search, seen, report, max_examples, seed_value, database)
            if found is None:
                break
            seen.add(found.finding.signature)
            reference_run = None
            if {DIFFERENTIAL, HOSTED_PASSTHROUGH} & set(found.finding.checks) and judge.reference is not None:
                scenario = load_generated(found.spec, GENERATED_PATH)
                reference_run = asyncio.run(observe(scenario, judge.reference, found.finding.mode))
            exported = counterexample(found.spec, found.finding, reference_run)
            path = write_counterexample(exported, found.finding, out) if out is not None else None
            result = Counterexample(found.finding, exported, path)
            report.counterexamples.append(result)
            if on_finding is not None:
                on_finding(result)
    return report


def _search_once(adapter: LoopAdapter, judge: Judge, search: _Search, seen: set[tuple[str, str, tuple[str, ...]]],
                 report: FuzzReport, max_examples: int, seed_value: int, database: Path | None,
                 ) -> Counterexample | None:
    captured: list[Counterexample] = []

    def check(spec: ScenarioSpec) -> None:
        report.examples += 1
        scenario = load_generated(spec, GENERATED_PATH)
        findings = [f for f in asyncio.run(judge.findings(scenario, adapter, search.modes))
                    if f.signature not in seen]
        if findings:
            captured.append(Counterexample(findings[0], spec, None))
            raise _Found

    test: Any = given(search.strategy)(check)
    # The database keys examples by test; one key per implementation and search keeps their examples apart.
    test._hypothesis_internal_add_digest = f"{adapter.name}:{search.name}".encode()  # noqa: SLF001
    # `seed` turns the database off; settings applied after it turn it back on, so a fixed seed still saves and
    # replays failures.
    configured = settings(
        max_examples=max_examples, deadline=None, derandomize=False, print_blob=False,
        database=DirectoryBasedExampleDatabase(database) if database is not None else None,
        suppress_health_check=SLOW_EXAMPLES, report_multiple_bugs=False, verbosity=Verbosity.quiet,
        phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink),
    )(seed(seed_value)(test))
    try:
        configured()
    except _Found:
        return captured[-1]  # Hypothesis replays the shrunk example last
    return None

"""A mutation run: every mutant of the loop modules, each judged by the scenarios that execute its lines.

A mutant is killed when one of its scenarios fails a check the unmutated loop passes (or errors where it did not);
the scenarios and checks that did so are recorded. A mutant whose child does not finish in time is killed by
timeout, one whose child dies is killed by crash, each labelled as such. A mutant no scenario reaches survives
without running ("no coverage"); one that does not even import is incompetent and left out of the score, as are
reviewed equivalents.
"""

from __future__ import annotations

import asyncio
import random
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal, cast

from harness.contents import JSON
from harness.contract import Mode
from harness.power.engine import DEFAULT_OPERATORS, Mutant, ParsedModule, mutant_diff
from harness.power.equivalents import Equivalent
from harness.power.forked import ForkJob, ForkOutcome, run_forked
from harness.power.hook import install_mutant
from harness.power.line_coverage import LoopCoverage
from harness.power.probe import Probe, forget_fresh
from harness.power.specificity import rank_rows
from harness.scenario.model import Scenario

Status = Literal["killed", "timeout", "crashed", "survived", "no-coverage", "incompetent", "equivalent"]
KILLED: frozenset[Status] = frozenset({"killed", "timeout", "crashed"})
TURN_TIMEOUT = 5.0  # a mutant that awaits forever fails `completes` after this; one that spins hits the hard limit
START_ALLOWANCE = 20.0  # importing the loop afresh in the child, before any scenario runs
SLOWDOWN_ALLOWED = 10.0  # times the unmutated runs' time (under coverage, itself slower) before a mutant times out
_NOT_LOADED = "the mutated copy was not the module the loop used"


@dataclass(frozen=True)
class Kill:
    context: str  # scenario|mode
    checks: tuple[str, ...]  # checks failing on the mutant that pass on the unmutated loop


@dataclass(frozen=True)
class MutantResult:
    mutant: Mutant
    status: Status
    diff: str
    contexts: tuple[str, ...]  # the scenario × mode runs selected (those executing its lines), cheapest first
    rows: tuple[str, ...]  # the spec rows whose scenarios execute its lines
    kills: tuple[Kill, ...] = ()
    detail: str = ""  # the timeout, the crash, the reviewer's reason
    module_level: bool = False  # on code run at import: every scenario depends on it, no row more than another
    specific_rows: tuple[str, ...] = ()  # rows whose own code it sits in (see harness.power.specificity)
    ran: int = 0  # of `contexts`, the runs made before the verdict (a kill stops the rest unless all kills are wanted)


@dataclass
class MutationRun:
    implementation: str
    version: str
    operators: tuple[str, ...]
    total_mutants: int  # before sampling
    results: list[MutantResult] = field(default_factory=lambda: [])
    stale_equivalents: list[Equivalent] = field(default_factory=lambda: [])
    seconds: float = 0.0
    parallel: int = 1
    rows_by_context: dict[str, tuple[str, ...]] = field(default_factory=lambda: {})
    all_kills: bool = False  # every selected run was made, not only those up to the first kill

    @property
    def sampled(self) -> bool:
        return len(self.results) < self.total_mutants


def _judge_in_child(probe: Probe, mutant: Mutant, parsed: ParsedModule, scenarios: dict[str, Scenario],
                    contexts: Sequence[str], baseline: dict[str, tuple[str, ...]], all_kills: bool) -> JSON:
    """In the child: import the loop from the mutated copy, run the selected scenarios (stopping at the first that
    kills it unless `all_kills`), name what failed anew."""
    from harness.run.registry import load_adapter
    from harness.run.runner import run_scenario

    # Made again here from the tree the child inherited (milliseconds) rather than kept for every queued mutant in
    # the parent, where 2,000 copies of a large module would hold gigabytes.
    mutated = parsed.mutated(mutant)
    if mutated is None:
        return {"incompetent": "the mutation no longer applies"}
    forget_fresh(probe.fresh)
    with tempfile.TemporaryDirectory(prefix="loop-mutant-") as folder:
        finder = install_mutant(mutant.module, mutated, Path(folder))
        try:
            adapter = load_adapter(probe.implementation)
        except Exception as error:  # noqa: BLE001 - a mutant that breaks the import is incompetent, not a verdict
            return {"incompetent": f"{type(error).__name__}: {error}"}
        import sys

        loaded = getattr(sys.modules.get(mutant.module), "__file__", None)
        if loaded != str(finder.copy):
            return {"incompetent": _NOT_LOADED}
        kills: list[JSON] = []
        ran = 0
        for context in contexts:
            ran += 1
            scenario_id, _, mode = context.partition("|")
            result = asyncio.run(run_scenario(scenarios[scenario_id], adapter, cast(Mode, mode),
                                              turn_timeout=TURN_TIMEOUT))
            failing = {c.id for c in result.checks if c.verdict in ("fail", "error")}
            new = sorted(failing - set(baseline[context]))
            if new:
                kills.append({"context": context, "checks": list[JSON](new)})
                if not all_kills:
                    break
        return {"kills": kills, "ran": ran}


def select_mutants(mutants: Sequence[Mutant], limit: int | None, seed: int) -> list[Mutant]:
    """All mutants, or a seeded sample of `limit` of them in their original order."""
    if limit is None or limit >= len(mutants):
        return list(mutants)
    chosen = set(random.Random(seed).sample(range(len(mutants)), limit))
    return [m for i, m in enumerate(mutants) if i in chosen]


def run_mutation(probe: Probe, coverage: LoopCoverage, scenarios: Sequence[Scenario], *,
                 operators: Sequence[str] = DEFAULT_OPERATORS, limit: int | None = None, seed: int = 0,
                 parallel: int = 1, equivalents: Sequence[Equivalent] = (), all_kills: bool = False,
                 on_result: Callable[[MutantResult], None] | None = None) -> MutationRun:
    """Generate, select and judge the mutants of `probe`'s loop modules."""
    parsed = {name: ParsedModule(name, Path(path).read_text(encoding="utf-8"), operators)
              for name, path in probe.loop_modules}
    mutants = [m for module in parsed.values() for m in module.mutants]
    run = MutationRun(probe.implementation, coverage.version, tuple(operators), len(mutants), parallel=parallel,
                      rows_by_context={key: r.rows for key, r in coverage.runs.items()}, all_kills=all_kills)
    reviewed = {e.mutant: e for e in equivalents if e.implementation == probe.implementation}
    by_id = {s.id: s for s in scenarios}
    baseline = {key: r.failing for key, r in coverage.runs.items()}
    jobs: list[ForkJob] = []
    prepared: dict[str, MutantResult] = {}  # what is known of each mutant before it runs
    for mutant in select_mutants(mutants, limit, seed):
        source = parsed[mutant.module].source
        mutated = parsed[mutant.module].mutated(mutant)
        if mutated is None:
            continue
        # Cheapest runs first: most mutants are killed by one of the first few, and the rest are then skipped.
        contexts = tuple(sorted(coverage.contexts_for(mutant.module, mutant.lines),
                                key=lambda key: coverage.runs[key].seconds))
        rows = tuple(sorted({row for c in contexts for row in coverage.runs[c].rows}))
        diff = mutant_diff(mutant, source, mutated)
        module_level = coverage.at_import(mutant.module, mutant.lines)
        specific = () if module_level else tuple(
            r.row for r in rank_rows(coverage, [(mutant.module, mutant.lines)]) if not r.broad)
        equivalent = reviewed.get(mutant.id)
        if equivalent is not None and equivalent.line != mutant.start_line:
            run.stale_equivalents.append(equivalent)
            equivalent = None
        if equivalent is not None or not contexts:
            status: Status = "equivalent" if equivalent is not None else "no-coverage"
            result = MutantResult(mutant, status, diff, contexts, rows, module_level=module_level,
                                  specific_rows=specific, detail=equivalent.reason if equivalent is not None else "")
            run.results.append(result)
            if on_result is not None:
                on_result(result)
            continue
        prepared[mutant.id] = MutantResult(mutant, "survived", diff, contexts, rows, module_level=module_level,
                                           specific_rows=specific)
        allowed = START_ALLOWANCE + SLOWDOWN_ALLOWED * sum(coverage.runs[c].seconds for c in contexts)
        jobs.append(ForkJob(mutant.id, _job(probe, mutant, parsed[mutant.module], by_id, contexts, baseline,
                                            all_kills), allowed))
    for outcome in run_forked(jobs, parallel):
        result = _result(outcome, prepared[outcome.key])
        run.results.append(result)
        if on_result is not None:
            on_result(result)
    order = {m.id: i for i, m in enumerate(mutants)}
    run.results.sort(key=lambda r: order[r.mutant.id])
    return run


def _job(probe: Probe, mutant: Mutant, parsed: ParsedModule, scenarios: dict[str, Scenario],
         contexts: tuple[str, ...], baseline: dict[str, tuple[str, ...]], all_kills: bool) -> Callable[[], JSON]:
    return lambda: _judge_in_child(probe, mutant, parsed, scenarios, contexts, baseline, all_kills)


def _result(outcome: ForkOutcome, prepared: MutantResult) -> MutantResult:
    if outcome.status == "timeout":
        return replace(prepared, status="timeout", detail=f"killed by timeout: {outcome.detail}")
    if outcome.status == "crashed":
        last = (outcome.detail.strip().splitlines() or [""])[-1]
        return replace(prepared, status="crashed", detail=f"killed by crash: {last}")
    value = cast(dict[str, JSON], outcome.value)
    if "incompetent" in value:
        return replace(prepared, status="incompetent", detail=str(value["incompetent"]))
    kills = tuple(Kill(str(k["context"]), tuple(cast(list[str], k["checks"])))
                  for k in cast(list[dict[str, JSON]], value["kills"]))
    return replace(prepared, status="killed" if kills else "survived", kills=kills, ran=int(cast(int, value["ran"])))



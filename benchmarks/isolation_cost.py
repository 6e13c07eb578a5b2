"""What isolation, the wire dialects and a mutation run cost, measured in one run, in CPU time.

    PYTHONPATH=. python benchmarks/isolation_cost.py [--scenarios PATH ...] [--mutants N] [--skip-mutation]
                                                     [--repeat N]

Prints, in CPU seconds (user + system, this process and every process it waited for: templates, forked runs,
mutant children), never wall time, since the machine may be shared:

1. isolated ÷ in-process, for the reference and agent_framework: the CLI's way (`run_isolated_suite`, `-j 1`: a
   template per implementation, run processes forked from it, the judge in this process) against `run_suite` (all
   in this process, after an untimed pass), over the same scenarios and modes, neutral provider; both load the
   scenario files. Shown with and without the template's start-up (an interpreter and the adapter's imports, paid
   once per implementation and concurrent run). Then the steady state, both sides warm (the isolated suite again
   over a pool that has served one pass), and under it the floors of `isolation_floor.py`: messages a run times
   a bare round trip, and the judge's CPU reading them strictly, against the budget 1.15x leaves a run.
2. each wire dialect ÷ neutral, for agent_framework in process, over the scenario × mode pairs both run (n/a
   runs cost nothing and are left out), after an untimed warm-up pass of each dialect.
3. a full mutation run of the framework's loop module (`agent_framework._tools`): the fixed cost (probe and the
   coverage run) and the cost per mutant from a seeded sample of `--mutants`, extrapolated to every mutant and
   divided over two cores. An estimate, from a sample: said so where it is printed.

With `--repeat N`, each isolation and isolated wire ratio is measured N times over and printed each time, with
their median: on a shared machine one measurement can be off by a tenth either way.

Targets (issue 32): isolated at most 1.15× in-process; each wire dialect at most 2× neutral; a full mutation run
under 30 minutes on two cores. Figures only: nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import statistics
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from isolation_floor import ProtocolTally, all_cpu, round_trip_cpu  # beside this script

from harness.contract import DIALECTS, MODES, Dialect, LoopAdapter, Mode, adapter_dialects
from harness.run.isolation import RunRequest, WorkerPool, probe, run_requests
from harness.run.registry import load_adapter
from harness.run.runner import run_scenario
from harness.run.suite import BUNDLED_SCENARIOS, load_all, run_isolated_suite, run_suite
from harness.scenario.model import Scenario

LOOP_MODULE_IMPLEMENTATION = "agent_framework"


def measured(action: Callable[[], object]) -> float:
    """CPU of `action`: this process, what it waited for, and the live processes a pool keeps between passes."""
    started = all_cpu()
    action()
    return all_cpu() - started


def isolation_ratio(name: str, paths: Sequence[Path], scenarios: Sequence[Scenario], repeat: int = 1) -> None:
    adapter = load_adapter(name)
    run_suite([adapter], paths, MODES, providers=["neutral"])  # untimed: lazy imports and first-use caches

    def start_only() -> None:
        with WorkerPool(1) as pool:
            probe(pool, [name])

    ratios: list[float] = []
    for _ in range(repeat):
        local = measured(lambda: run_suite([adapter], paths, MODES, providers=["neutral"]))
        start = measured(start_only)
        isolated = measured(lambda: run_isolated_suite([name], paths, MODES, providers=["neutral"], jobs=1))
        runs = len(scenarios) * len(MODES)
        ratios.append(isolated / local)
        print(f"{name:>16}: in process {local:6.2f}s, isolated {isolated:6.2f}s for {runs} runs "
              f"({1000 * local / runs:.2f} vs {1000 * (isolated - start) / runs:.2f} ms a run); "
              f"ratio {isolated / local:.2f}x with the template's start-up ({start:.2f}s), "
              f"{(isolated - start) / local:.2f}x without")
    _median(name, ratios)
    steady_state_ratio(name, adapter, paths, len(scenarios) * len(MODES), repeat)


def steady_state_ratio(name: str, adapter: LoopAdapter, paths: Sequence[Path], runs: int, repeat: int) -> None:
    """Both sides warm: in process after an untimed pass, as above; isolated over a pool that has already served
    one untimed pass (its template started, its run process has imported what the runs need). What isolation
    costs a run once every one-off cost is paid, and the floors under it."""

    def requests() -> list[RunRequest]:  # the scenario files are loaded on both sides
        return [RunRequest(s, name, m, "neutral") for s in load_all(paths)[0] for m in MODES]

    ratios: list[float] = []
    locals_: list[float] = []
    tally = ProtocolTally()
    with WorkerPool(1) as pool:
        run_requests(pool, requests())
        for _ in range(repeat):
            local = measured(lambda: run_suite([adapter], paths, MODES, providers=["neutral"]))
            isolated = measured(lambda: run_requests(pool, requests()))
            ratios.append(isolated / local)
            locals_.append(local)
            print(f"{'':>16}  steady state: in process {local:6.2f}s, isolated {isolated:6.2f}s: "
                  f"ratio {isolated / local:.2f}x")
        with tally.counting():  # a pass of its own: the tally's timers are not in the figures above
            run_requests(pool, requests())
    _median(f"{name} steady", ratios)
    # What a bare round trip costs moves with the load (a wake-up on an idle core costs more than a switch on a busy
    # one): five measurements, their median and range.
    trips = sorted(round_trip_cpu() for _ in range(5))
    trip, budget, messages = trips[2], 0.15 * statistics.median(locals_), tally.messages / runs
    print(f"{'':>16}  budget at 1.15x: {1000 * budget / runs:.2f} ms a run. Floors: {messages:.1f} messages a run "
          f"x {1e6 * trip:.0f} us a bare round trip ({1e6 * trips[0]:.0f} to {1e6 * trips[-1]:.0f}) = "
          f"{1000 * messages * trip:.2f} ms; the judge reading them strictly: {1000 * tally.reading / runs:.2f} ms")


def _median(name: str, ratios: Sequence[float]) -> None:
    if len(ratios) > 1:
        print(f"{name:>16}  median of {len(ratios)}: {statistics.median(ratios):.2f}x "
              f"(from {min(ratios):.2f}x to {max(ratios):.2f}x)")


def wire_ratios(scenarios: Sequence[Scenario], repeat: int = 1) -> None:
    adapter = load_adapter(LOOP_MODULE_IMPLEMENTATION)
    dialects = [d for d in adapter_dialects(adapter) if d != "neutral"]
    wires: list[Dialect] = [d for d in DIALECTS if d in dialects]
    for dialect in wires:
        pairs = _runnable(adapter, scenarios, dialect)
        both: tuple[Dialect, Dialect] = ("neutral", dialect)
        for d in both:  # warm-up, untimed
            _timed_pairs(adapter, pairs, d)
        neutral, wire = _timed_pairs(adapter, pairs, "neutral"), _timed_pairs(adapter, pairs, dialect)
        print(f"{dialect:>16}: {wire:6.2f}s against {neutral:6.2f}s neutral over the {len(pairs)} scenario × mode "
              f"runs both make: ratio {wire / neutral:.2f}x")
        _isolated_wire_ratio(pairs, dialect, repeat)


def _isolated_wire_ratio(pairs: Sequence[tuple[Scenario, Mode]], dialect: Dialect, repeat: int) -> None:
    ratios: list[float] = []
    for _ in range(repeat):
        neutral = measured(lambda: _isolated(pairs, "neutral"))
        wire = measured(lambda: _isolated(pairs, dialect))
        ratios.append(wire / neutral)
        print(f"{'':>16}  isolated (-j 1, start-up included): {wire:6.2f}s against {neutral:6.2f}s: "
              f"ratio {wire / neutral:.2f}x")
    _median(f"{dialect} isolated", ratios)


def _runnable(adapter: LoopAdapter, scenarios: Sequence[Scenario], dialect: Dialect) -> list[tuple[Scenario, Mode]]:
    pairs: list[tuple[Scenario, Mode]] = []
    for scenario in scenarios:
        for mode in MODES:
            results = [asyncio.run(run_scenario(scenario, adapter, mode, dialect=d)) for d in ("neutral", dialect)]
            if all(r.verdict != "n/a" for r in results):
                pairs.append((scenario, mode))
    return pairs


def _timed_pairs(adapter: LoopAdapter, pairs: Sequence[tuple[Scenario, Mode]], dialect: Dialect) -> float:
    return measured(lambda: [asyncio.run(run_scenario(s, adapter, m, dialect=dialect)) for s, m in pairs])


def _isolated(pairs: Sequence[tuple[Scenario, Mode]], dialect: Dialect) -> None:
    from harness.run.isolation import RunRequest, run_requests

    with WorkerPool(1) as pool:
        run_requests(pool, [RunRequest(s, LOOP_MODULE_IMPLEMENTATION, m, dialect) for s, m in pairs])


def mutation_estimate(sample: int) -> None:
    from harness.power.commands import Selection, mutate_command

    def mutate(limit: int) -> dict[str, object]:
        with tempfile.TemporaryDirectory() as folder:
            code = mutate_command(Selection(LOOP_MODULE_IMPLEMENTATION), Path(folder), limit=limit, seed=0, jobs=1,
                                  stdout=io.StringIO(), stderr=io.StringIO())
            if code != 0:
                raise SystemExit(f"mutate failed with exit code {code}")
            return json.loads((Path(folder) / f"mutation-{LOOP_MODULE_IMPLEMENTATION}.json").read_text())

    fixed = measured(lambda: mutate(0))
    report: dict[str, object] = {}
    sampled = measured(lambda: report.update(mutate(sample)))
    total = int(str(report["total_mutants"]))
    per_mutant = (sampled - fixed) / sample
    two_cores = fixed + per_mutant * total / 2
    print(f"mutation of agent_framework._tools: {total} mutants; fixed cost {fixed:.1f}s, {per_mutant:.2f}s a mutant "
          f"(from a seeded sample of {sample}, one process); estimated full run on 2 cores: "
          f"{two_cores / 60:.1f} min (an estimate extrapolated from the sample, not a full run)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenarios", type=Path, action="append", help="default: the bundled scenarios")
    parser.add_argument("--mutants", type=int, default=20, help="mutants in the timed sample (default 20)")
    parser.add_argument("--skip-mutation", action="store_true", help="leave out the mutation estimate")
    parser.add_argument("--repeat", type=int, default=1,
                        help="measure each isolation and isolated wire ratio this many times (default 1)")
    args = parser.parse_args()
    paths: list[Path] = args.scenarios or [BUNDLED_SCENARIOS]
    scenarios, _ = load_all(paths)
    print(f"CPU seconds (user + system, children included); {len(scenarios)} scenarios, modes {', '.join(MODES)}. "
          "The machine may be shared: CPU time, not wall time.")
    for name in ("reference", LOOP_MODULE_IMPLEMENTATION):
        isolation_ratio(name, paths, scenarios, max(1, args.repeat))
    wire_ratios(scenarios, max(1, args.repeat))
    if not args.skip_mutation:
        mutation_estimate(args.mutants)


if __name__ == "__main__":
    main()

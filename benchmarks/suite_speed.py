"""How fast the harness runs the bundled suite: scenario runs per second per implementation and mode (in
process), and the whole isolated suite with one and with two worker processes (the speed-up of `-j 2`).

Figures only — nothing here asserts a speed. Run: `python benchmarks/suite_speed.py [--repeat N]`.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from harness import BUNDLED_SCENARIOS, MODES, run_scenario
from harness.run.registry import installed_adapters
from harness.run.suite import load_all, run_isolated_suite


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5, help="timed passes over the suite (default 5)")
    args = parser.parse_args()
    scenarios, _ = load_all([BUNDLED_SCENARIOS])
    adapters, _ = installed_adapters()
    print(f"{len(scenarios)} scenarios, {args.repeat} passes each")
    for adapter in adapters:
        for mode in MODES:
            passes: list[float] = []
            for _ in range(args.repeat):
                start = time.perf_counter()
                for scenario in scenarios:
                    asyncio.run(run_scenario(scenario, adapter, mode))
                passes.append(time.perf_counter() - start)
            median = statistics.median(passes)
            print(f"{adapter.name:>16} {mode:>13}: {len(scenarios) / median:8.1f} scenario runs/s "
                  f"({1000 * median / len(scenarios):6.2f} ms each, median of {args.repeat})")
    isolated = {jobs: _isolated_seconds([a.name for a in adapters], jobs, args.repeat) for jobs in (1, 2)}
    runs = len(scenarios) * len(adapters) * len(MODES)
    for jobs, seconds in isolated.items():
        print(f"isolated suite, -j {jobs}: {seconds:6.2f} s for {runs} runs, worker start-up included "
              f"(median of {args.repeat})")
    print(f"speed-up of -j 2 over -j 1: {isolated[1] / isolated[2]:.2f}x")


def _isolated_seconds(names: list[str], jobs: int, repeat: int) -> float:
    passes: list[float] = []
    for _ in range(repeat):
        start = time.perf_counter()
        run_isolated_suite(names, [BUNDLED_SCENARIOS], jobs=jobs)
        passes.append(time.perf_counter() - start)
    return statistics.median(passes)


if __name__ == "__main__":
    main()

"""How fast the harness runs the bundled suite: prints scenario runs per second per implementation and mode.

Figures only — nothing here asserts a speed. Run: `python benchmarks/suite_speed.py [--repeat N]`.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from harness import BUNDLED_SCENARIOS, MODES, run_scenario
from harness.run.registry import installed_adapters
from harness.run.suite import load_all


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


if __name__ == "__main__":
    main()

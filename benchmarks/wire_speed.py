"""What the wire path costs: per scenario run, the time over each wire dialect as a ratio to the neutral provider,
for the same implementation and mode (target: at most 2x, so the wire path can run on every PR).

Only scenarios that run (not n/a) over both the neutral provider and the dialect are timed, in process, after one
untimed pass (what a process builds once, such as the provider SDK clients, is not a per-run cost). Wall-clock time
is the figure; the process's CPU time is printed beside it, since on a shared, loaded machine the wall clock also
counts the time other processes held the CPU. Figures only — nothing here asserts a speed.
Where the wire time goes is printed beside the ratio: the share of the wire pass spent in our own wire service
(rendering the script, parsing the request back, the provider rules) and the share spent in the `openai` SDK turning
the request's parameters into its body (`async_maybe_transform`, a recursive walk of the typed parameter
definitions, paid on every request by every user of the SDK). What is left is the provider client and the loop.
Run: `python benchmarks/wire_speed.py [--impl NAME] [--repeat N]`.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import importlib
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from harness import BUNDLED_SCENARIOS, MODES, run_scenario
from harness.contract import Dialect, adapter_dialects
from harness.run.registry import load_adapter
from harness.run.suite import load_all


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--impl", default="agent_framework", help="implementation (default agent_framework)")
    parser.add_argument("--repeat", type=int, default=3, help="timed passes (default 3)")
    args = parser.parse_args()
    scenarios, _ = load_all([BUNDLED_SCENARIOS])
    adapter = load_adapter(args.impl)
    for mode in MODES:
        runnable: dict[Dialect, list[int]] = {}
        for dialect in adapter_dialects(adapter):
            results = [asyncio.run(run_scenario(s, adapter, mode, dialect=dialect)) for s in scenarios]
            runnable[dialect] = [i for i, r in enumerate(results) if r.verdict != "n/a"]
        for dialect in adapter_dialects(adapter):
            if dialect == "neutral":
                continue
            shared = sorted(set(runnable["neutral"]) & set(runnable[dialect]))
            neutral, neutral_cpu = _seconds([scenarios[i] for i in shared], adapter, mode, "neutral", args.repeat)
            with _stopwatches() as spent:
                wire, wire_cpu = _seconds([scenarios[i] for i in shared], adapter, mode, dialect, args.repeat)
            runs = max(len(shared), 1)
            passes = args.repeat * wire or 1.0
            print(f"{adapter.name} {mode:>13} {dialect:>16}: {len(shared):3} scenarios, neutral "
                  f"{1000 * neutral / runs:6.2f} ms/run, wire {1000 * wire / runs:6.2f} "
                  f"ms/run, ratio {wire / neutral:4.2f}x (median of {args.repeat}); CPU ratio "
                  f"{wire_cpu / neutral_cpu:4.2f}x ({1000 * neutral_cpu / runs:.2f} vs "
                  f"{1000 * wire_cpu / runs:.2f} ms/run); of the wire time: our wire service "
                  f"{100 * spent['service'] / passes:.0f}%, openai SDK parameter transform "
                  f"{100 * spent['sdk-transform'] / passes:.0f}%")


def _seconds(scenarios: list[object], adapter: object, mode: str, dialect: Dialect,
             repeat: int) -> tuple[float, float]:
    """The median wall-clock and CPU seconds of a pass over `scenarios`."""
    passes: list[float] = []
    cpu: list[float] = []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        for scenario in scenarios:
            asyncio.run(run_scenario(scenario, adapter, mode, dialect=dialect))  # type: ignore[arg-type]
        passes.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(passes), statistics.median(cpu)


# What each stopwatch times: (module, attribute holding the coroutine function) pairs. The SDK's transform is
# imported by name into each resource module, so it is wrapped where the resources look it up.
_TIMED: dict[str, tuple[tuple[str, str], ...]] = {
    "service": (("fakes.wire.service", "WireService.handle"),),
    "sdk-transform": (("openai.resources.responses.responses", "async_maybe_transform"),
                      ("openai.resources.chat.completions.completions", "async_maybe_transform")),
}


@contextmanager
def _stopwatches() -> Iterator[dict[str, float]]:
    """Seconds spent inside each of `_TIMED`'s functions while the block runs (wall clock, summed over calls; the
    timed functions do not nest in one another)."""
    spent = dict.fromkeys(_TIMED, 0.0)
    with ExitStack() as restore:
        for name, places in _TIMED.items():
            for module_name, attribute in places:
                owner: Any = importlib.import_module(module_name)
                *path, leaf = attribute.split(".")
                for step in path:
                    owner = getattr(owner, step)
                original = getattr(owner, leaf)
                setattr(owner, leaf, _timed(original, name, spent))
                restore.callback(setattr, owner, leaf, original)
        yield spent


def _timed(function: Callable[..., Any], name: str, spent: dict[str, float]) -> Callable[..., Any]:
    @functools.wraps(function)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return await function(*args, **kwargs)
        finally:
            spent[name] += time.perf_counter() - start

    return wrapper


if __name__ == "__main__":
    main()

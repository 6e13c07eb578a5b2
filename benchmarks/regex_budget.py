"""What many backtracking `$regex` matchers cost one run: a scenario whose final answer is checked by N patterns that
backtrack catastrophically on it, run and judged in process against the reference loop, with the per-run budget
(the default) and, for comparison, one match without it.

Figures only — nothing here asserts a speed. Run: `python benchmarks/regex_budget.py [--matchers 200]`.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from harness.adapters.reference import adapter
from harness.run.runner import run_scenario
from harness.scenario.loader import load_scenario
from harness.scenario.matchers import match

ROOT = Path(__file__).resolve().parent.parent
PATTERN = "(a|a)*$"  # each "a" may be either branch: 2**n paths before it gives up at the "!"
ANSWER = "a" * 40 + "!"


def scenario_text(matchers: int) -> str:
    text = (ROOT / "scenarios" / "normal" / "single-call.yaml").read_text(encoding="utf-8")
    text = text.replace("- text: It is sunny in Paris.\n    expect:", f"- text: '{ANSWER}'\n    expect:")
    patterns = "".join(f"                  - $regex: '{PATTERN}'\n" for _ in range(matchers))
    return text.replace("            - text: It is sunny in Paris.\n      executions",
                        f"            - text:\n                $all:\n{patterns}      executions")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matchers", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "many-regex.yaml"
        path.write_text(scenario_text(args.matchers), encoding="utf-8")
        scenario = load_scenario(path)
        size = path.stat().st_size
    started = time.perf_counter()
    result = asyncio.run(run_scenario(scenario, adapter(), "non-streaming"))
    run_seconds = time.perf_counter() - started
    failed = [c for c in result.checks if c.id == "expect.response"]
    started = time.perf_counter()
    match({"$regex": PATTERN}, ANSWER)  # one match outside any run: only the per-match limit applies
    one = time.perf_counter() - started
    print(f"{args.matchers} backtracking $regex matchers in a {size / 1024:.1f} KB scenario: one run, judged, took "
          f"{run_seconds:.2f}s (verdict {result.verdict}; expect.response {failed[0].verdict if failed else '-'})")
    print(f"one such match without a run budget takes {one:.2f}s, so {args.matchers} would take about "
          f"{one * args.matchers:.0f}s")


if __name__ == "__main__":
    main()

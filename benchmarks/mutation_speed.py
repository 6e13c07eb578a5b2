"""How long a full mutation run takes and how many scenario runs each mutant needs.

    PYTHONPATH=. python benchmarks/mutation_speed.py [--impl agent_framework] [--jobs 2] [--max-mutants N --seed S]

Prints the wall-clock time of `loop-conformance mutate` (probe, coverage run and every mutant) and the mean number of
scenario × mode runs per mutant that ran. The issue's target: a full run of the framework's loop module under 30
minutes on two cores. Writes its reports to a temporary folder, never to reports/.
"""

from __future__ import annotations

import argparse
import io
import json
import tempfile
import time
from pathlib import Path

from harness.power.commands import Selection, mutate_command


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--impl", default="agent_framework")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--max-mutants", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        started = time.monotonic()
        code = mutate_command(Selection(args.impl), Path(folder), limit=args.max_mutants, seed=args.seed,
                              jobs=args.jobs, equivalents=None, stdout=io.StringIO(), stderr=io.StringIO())
        seconds = time.monotonic() - started
        if code != 0:
            raise SystemExit(f"mutate failed with exit code {code}")
        report = json.loads((Path(folder) / f"mutation-{args.impl}.json").read_text(encoding="utf-8"))
    ran = [m for m in report["mutants"] if m["status"] not in ("no-coverage", "equivalent")]
    mean = sum(m["scenario_runs"] for m in ran) / len(ran) if ran else 0.0
    judged = [m for m in ran if m["status"] in ("killed", "survived")]
    made = sum(m["runs_made"] for m in judged) / len(judged) if judged else 0.0
    print(f"{args.impl}: {len(report['mutants'])} mutants ({len(ran)} run) in {seconds:.0f}s on {args.jobs} "
          f"process(es); mean scenario × mode runs per mutant: {mean:.1f} selected, {made:.1f} made; score "
          f"{report['score']['killed']}/{report['score']['scored']}")


if __name__ == "__main__":
    main()

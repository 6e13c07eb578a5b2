"""Regenerate the committed report snapshot under results/snapshot/: the coverage reports, the spec-author matrix
and the invariant table of one full run (every scenario, every installed implementation, both modes, every
provider), as `loop-conformance run` writes them.

The snapshot is documentation: the reports of one particular run, at the framework releases pinned in
constraints/latest.txt. `loop-conformance run` itself writes to reports/, which is never committed, so running it in
a checkout leaves `git status` clean; only this script (the `snapshot` nox session) rewrites the snapshot, and
tests/test_committed_reports.py fails when the snapshot is stale.

    python tools/snapshot_reports.py            # a full run, then the snapshot files copied from its reports
    python tools/snapshot_reports.py --from reports   # copy from a full run's reports already written there
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOT = ROOT / "results" / "snapshot"
# The reports the snapshot keeps: what a reader opens. coverage.json and junit.xml are per-run output (JUnit carries
# each run's duration), and results.json is the input of the others.
SNAPSHOT_FILES = ("coverage.md", "coverage.html", "spec-matrix.md", "invariants.md", "invariants.html")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--from", dest="source", type=Path, default=None, metavar="DIR",
                        help="copy from the reports a full run already wrote to DIR instead of running")
    parser.add_argument("--jobs", "-j", default=None, help="worker processes of the run (default: every core)")
    args = parser.parse_args(argv)
    source: Path = args.source or ROOT / "reports"
    if args.source is None:
        command = [sys.executable, "-m", "harness.cli", "run", "--json", str(source / "results.json"),
                   "--reports", str(source), "-q", *(["-j", args.jobs] if args.jobs else [])]
        done = subprocess.run(command, cwd=ROOT, check=False)  # paths in the reports relative to the checkout
        if done.returncode not in (0, 1):  # 1: some run fails, which the snapshot shows
            return done.returncode
    SNAPSHOT.mkdir(parents=True, exist_ok=True)
    for name in SNAPSHOT_FILES:
        shutil.copyfile(source / name, SNAPSHOT / name)
        print(f"{SNAPSHOT.relative_to(ROOT) / name}: {(SNAPSHOT / name).stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Refresh the compact release files of the pinned releases from one fresh run in the pinned environment.

The version sweep (`nox -s versions`) reruns every release in its own environment, which takes hours. The newest
releases are the ones `constraints/latest.txt` pins, so a plain `loop-conformance run --json` in the pinned
environment has already judged them with today's scenarios and checks: this takes that run's results for the
implementations a release file holds, at that file's releases, and writes the file again in compact form (keeping
its release and companions). A release file whose implementations or releases the run does not have is left alone.

    loop-conformance run --no-baseline --no-reports --json /tmp/fresh.json
    python tools/refresh_release_files.py /tmp/fresh.json results/versions/1.23.0.json \\
        results/versions/pydantic-ai-slim/2.68.0.json results/versions/openai-agents/0.24.0.json
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.reporting.compact import compact_document, render_compact  # noqa: E402
from harness.reporting.documents import load_results_document  # noqa: E402


def refresh(fresh: Path, release_file: Path) -> str:
    """The release file's text with its runs replaced by the fresh run's; raises ValueError when it cannot be."""
    stored = load_results_document(release_file)
    held = {(r.implementation, r.version) for r in stored.results}
    runs = tuple(r for r in load_results_document(fresh).results if (r.implementation, r.version) in held)
    missing = held - {(r.implementation, r.version) for r in runs}
    if missing:
        raise ValueError(f"the fresh run has no runs of {', '.join(sorted(f'{i} {v}' for i, v in missing))}")
    return render_compact(compact_document(replace(stored, results=runs, filtered=stored.filtered)))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("fresh", type=Path, help="results of a full run in the pinned environment (run --json)")
    parser.add_argument("release_files", type=Path, nargs="+", help="compact release files to refresh")
    args = parser.parse_args(argv)
    status = 0
    for path in args.release_files:
        try:
            text = refresh(args.fresh, path)
        except ValueError as error:
            print(f"{path}: left alone: {error}", file=sys.stderr)
            status = 1
            continue
        changed = path.read_text(encoding="utf-8") != text
        path.write_text(text, encoding="utf-8")
        print(f"{path}: {'refreshed' if changed else 'unchanged'}")
    return status


if __name__ == "__main__":
    raise SystemExit(main())

"""Re-triage the known failures under the profiles: keep each entry only for the checks that still gate.

Every stored run an entry matches is judged afresh without any known failure (the implementation's claimed
profiles, the design differences, the tentative expectations), and the entry keeps the checks that still fail as
gating checks on some run it matches; an entry left with none is removed (its runs are now `differs`, `n/a` or
passing). Each kept entry is classed `safety` when one of its checks fails as a safety assertion on some run, else
`contract`. The file is edited in place, line by line, so comments, anchors and the order of entries stay as written.

    python tools/retriage_baseline.py --results reports/results.json reports/versions/*.json ... [--dry-run]

Results files of the same release as an earlier-named file are read for the runs that file lacks only, so name the
freshest run first. Prints the classes before and after and the runs each class covers.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.reporting.baseline import KnownFailure, load_baseline, rejudge  # noqa: E402
from harness.reporting.documents import load_results_document  # noqa: E402
from harness.requirements import profile_of  # noqa: E402
from harness.results import ScenarioResult  # noqa: E402


@dataclass
class Verdict:
    """What the stored runs say of one entry."""

    hits: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # check -> profiles it failed as
    runs: int = 0  # matching runs where some of its checks still gate
    differs: int = 0  # matching runs whose failures no longer gate
    not_applicable: int = 0
    matched: int = 0  # matching runs of any verdict


def _run_key(result: ScenarioResult) -> tuple[str, ...]:
    return (result.scenario, result.implementation, result.mode, result.provider, result.version)


def read_runs(paths: Sequence[Path]) -> list[ScenarioResult]:
    seen: set[tuple[str, ...]] = set()
    runs: list[ScenarioResult] = []
    for path in paths:
        fresh = [r for r in load_results_document(path).results if _run_key(r) not in seen]
        seen.update(_run_key(r) for r in fresh)
        runs.extend(fresh)
    return runs


def judge_entries(entries: Sequence[KnownFailure], runs: Iterable[ScenarioResult]) -> list[Verdict]:
    verdicts = [Verdict() for _ in entries]
    by_scenario: dict[str, list[int]] = defaultdict(list)
    for index, entry in enumerate(entries):
        by_scenario[entry.scenario].append(index)
    for run in runs:
        indices = [i for i in by_scenario.get(run.scenario, []) if entries[i].matches(run)]
        if not indices:
            continue
        judged = rejudge(run, [])
        gating = [c for c in judged.checks if c.verdict == "fail"]
        for i in indices:
            verdict = verdicts[i]
            verdict.matched += 1
            if judged.verdict == "n/a":
                verdict.not_applicable += 1
                continue
            hit = [c for c in gating if c.id in entries[i].checks]
            if hit:
                verdict.runs += 1
                for check in hit:
                    verdict.hits[check.id].add(profile_of(check))
            elif judged.verdict == "differs":
                verdict.differs += 1
    return verdicts


def entry_class(verdict: Verdict) -> str:
    if not verdict.hits and not (verdict.runs or verdict.differs or verdict.not_applicable or verdict.matched):
        return "unjudged"  # no run of these results is one it covers: it stays as written
    if not verdict.hits:
        return "removed"
    return "safety" if any("safety" in p for p in verdict.hits.values()) else "contract"


def _blocks(lines: list[str]) -> list[tuple[int, int]]:
    starts = [i for i, line in enumerate(lines) if line.startswith("  - scenario:")]
    ends = starts[1:] + [len(lines)]
    blocks: list[tuple[int, int]] = []
    for start, end in zip(starts, ends, strict=True):
        # A block ends before the blank lines and comments that head the next group of entries.
        while end > start + 1 and (not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("#")):
            end -= 1
        blocks.append((start, end))
    return blocks


def rewrite(text: str, entries: Sequence[KnownFailure], verdicts: Sequence[Verdict]) -> str:
    lines = text.split("\n")
    blocks = _blocks(lines)
    if len(blocks) != len(entries):
        raise SystemExit(f"{len(blocks)} entry blocks in the file, {len(entries)} entries parsed")
    removed: set[int] = set()
    for (start, end), entry, verdict in zip(blocks, entries, verdicts, strict=True):
        if entry_class(verdict) == "unjudged":
            continue
        kept = [c for c in entry.checks if c in verdict.hits]
        if not kept:
            removed.update(range(start, end))
            continue
        for i in range(start, end):
            if lines[i].startswith("    checks: ["):
                last = next(j for j in range(i, end) if lines[j].rstrip().endswith("]"))
                if kept != list(entry.checks):
                    lines[i] = f"    checks: [{', '.join(kept)}]"
                    removed.update(range(i + 1, last + 1))
                break
        else:
            raise SystemExit(f"entry at line {start + 1} has no checks list")
    _keep_anchors(lines, removed)
    out = [line for i, line in enumerate(lines) if i not in removed]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out))


def _keep_anchors(lines: list[str], removed: set[int]) -> None:
    """An anchor defined in a removed entry moves to the first kept alias of it, with its text."""
    for i in sorted(removed):
        found = re.match(r"^(    reason: )&([\w-]+) >$", lines[i])
        if found is None:
            continue
        name = found.group(2)
        body: list[str] = []
        j = i + 1
        while j < len(lines) and lines[j].startswith("      "):
            body.append(lines[j])
            j += 1
        alias = next((k for k in range(len(lines)) if k not in removed and lines[k] == f"    reason: *{name}"), None)
        if alias is not None:
            lines[alias] = f"    reason: &{name} >\n" + "\n".join(body)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", type=Path, default=ROOT / "baselines" / "known-failures.yaml")
    parser.add_argument("--results", type=Path, nargs="+", required=True)
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--report", type=Path, help="write each entry's class and runs as JSON here")
    args = parser.parse_args(argv)
    entries = load_baseline(args.baseline).known_failures
    verdicts = judge_entries(entries, read_runs(args.results))
    classes = Counter(entry_class(v) for v in verdicts)
    runs = Counter()
    for v in verdicts:
        runs[entry_class(v)] += v.runs
    print(f"{len(entries)} entries: " + ", ".join(f"{n} {c}" for c, n in sorted(classes.items())))
    print("gating runs covered: " + ", ".join(f"{c} {n}" for c, n in sorted(runs.items())))
    if args.report:
        rows = [{"scenario": e.scenario, "implementation": list(e.implementations), "versions_from": e.versions_from,
                 "class": entry_class(v), "checks": list(e.checks), "kept": sorted(v.hits), "runs": v.runs,
                 "differs": v.differs, "n/a": v.not_applicable, "reproduction": e.reproduction}
                for e, v in zip(entries, verdicts, strict=True)]
        args.report.write_text(json.dumps(rows, indent=1) + "\n")
    if not args.dry_run:
        text = args.baseline.read_text(encoding="utf-8")
        new = rewrite(text, entries, verdicts)
        yaml.safe_load(new)
        args.baseline.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

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
    # The first results file is the fresh run of today's harness; the others were judged by the harness of their
    # sweep, which may have reported the same behaviour under other checks.
    fresh_hits: set[str] = field(default_factory=lambda: set[str]())
    old_hits: set[str] = field(default_factory=lambda: set[str]())
    fresh_versions: set[str] = field(default_factory=lambda: set[str]())


def _run_key(result: ScenarioResult) -> tuple[str, ...]:
    return (result.scenario, result.implementation, result.mode, result.provider, result.version)


def read_runs(paths: Sequence[Path]) -> list[tuple[ScenarioResult, bool]]:
    """Every run, each once (the earliest file that has it wins), marked when it comes from the first file."""
    seen: set[tuple[str, ...]] = set()
    runs: list[tuple[ScenarioResult, bool]] = []
    for number, path in enumerate(paths):
        unseen = [r for r in load_results_document(path).results if _run_key(r) not in seen]
        seen.update(_run_key(r) for r in unseen)
        runs.extend((r, number == 0) for r in unseen)
    return runs


def judge_entries(entries: Sequence[KnownFailure], runs: Iterable[tuple[ScenarioResult, bool]]) -> list[Verdict]:
    verdicts = [Verdict() for _ in entries]
    by_scenario: dict[str, list[int]] = defaultdict(list)
    for index, entry in enumerate(entries):
        by_scenario[entry.scenario].append(index)
    for run, fresh in runs:
        indices = [i for i in by_scenario.get(run.scenario, []) if entries[i].matches(run)]
        if not indices:
            continue
        judged = rejudge(run, [])
        gating = [c for c in judged.checks if c.verdict == "fail"]
        for i in indices:
            verdict = verdicts[i]
            verdict.matched += 1
            if fresh:
                verdict.fresh_versions.add(run.version)
            if judged.verdict == "n/a":
                verdict.not_applicable += 1
                continue
            hit = [c for c in gating if c.id in entries[i].checks]
            if hit:
                verdict.runs += 1
                for check in hit:
                    verdict.hits[check.id].add(profile_of(check))
                    (verdict.fresh_hits if fresh else verdict.old_hits).add(check.id)
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
    appended: dict[int, list[str]] = {}  # after a block's last line: the entry for the fresh release on
    reemitted: set[int] = set()  # lines of split entries, written again (changed) where `appended` says
    for (start, end), entry, verdict in zip(blocks, entries, verdicts, strict=True):
        if entry_class(verdict) == "unjudged":
            continue
        split = _split_at_fresh_release(lines, start, end, entry, verdict)
        if split is not None:
            old_block, fresh_block = split
            reemitted.update(range(start, end))
            appended[end - 1] = [*old_block, *([""] + fresh_block if fresh_block else [])]
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
    out: list[str] = []
    for i, line in enumerate(lines):
        if i not in removed and i not in reemitted:
            out.append(line)
        if i in appended:
            out.extend(appended[i])
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out))


def _split_at_fresh_release(lines: list[str], start: int, end: int, entry: KnownFailure,
                            verdict: Verdict) -> tuple[list[str], list[str]] | None:
    """An entry whose fresh release fails other checks than the releases judged by an earlier harness: the entry
    up to the fresh release with the old checks, and one from it with the fresh checks (none when it passes).

    Only the fresh release was judged by today's checks; the earlier ones are split off rather than rewritten, so
    each range says what its own results show until a re-sweep judges them all alike."""
    if len(verdict.fresh_versions) != 1 or not verdict.old_hits:
        return None
    fresh = next(iter(verdict.fresh_versions))
    old = [c for c in entry.checks if c in verdict.old_hits]
    new = [c for c in entry.checks if c in verdict.fresh_hits]
    if old == new or (entry.versions_from is not None and entry.versions_from == fresh):
        return None
    block = _without_multiline_checks(lines[start:end])
    old_block = [f"    checks: [{', '.join(old)}]" if line.startswith("    checks: [") else line for line in block]
    note = (f"  # Split at {fresh}: the releases before it were last judged by the harness of their sweep, {fresh} by "
            "today's; a re-sweep merges the two.")
    old_block = [note, *_with_field(old_block, "versions_until", fresh)]
    if not new:
        return old_block, []
    fresh_block = [f"    checks: [{', '.join(new)}]" if line.startswith("    checks: [") else line for line in block]
    fresh_block = _with_field(fresh_block, "versions_from", fresh)
    return old_block, _aliased(fresh_block)


def _without_multiline_checks(block: list[str]) -> list[str]:
    out: list[str] = []
    skipping = False
    for line in block:
        if skipping:
            skipping = not line.rstrip().endswith("]")
            continue
        out.append(line)
        skipping = line.startswith("    checks: [") and not line.rstrip().endswith("]")
    return out


def _with_field(block: list[str], name: str, value: str) -> list[str]:
    if any(line.startswith(f"    {name}:") for line in block):
        return [f"    {name}: {value}" if line.startswith(f"    {name}:") else line for line in block]
    at = next(i for i, line in enumerate(block) if line.startswith("    reason:"))
    return [*block[:at], f"    {name}: {value}", *block[at:]]


def _aliased(block: list[str]) -> list[str]:
    """A copy's reason refers to the original's anchor instead of defining it again."""
    out: list[str] = []
    skipping = False
    for line in block:
        found = re.match(r"^    reason: &([\w-]+) >$", line)
        if found:
            out.append(f"    reason: *{found.group(1)}")
            skipping = True
            continue
        if skipping and line.startswith("      "):
            continue
        skipping = False
        out.append(line)
    return out


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

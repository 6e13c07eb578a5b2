"""Run every standalone reproduction of a swept framework in every release's environment, and hold the baseline's
release ranges against what the scripts show.

A known-failure entry claims its defect on the releases of its range, and its reproduction is the evidence: the
script exits 1 while the defect is present and 0 once it is fixed. This tool runs each reproduction named by an
entry of one of the framework's implementations in each release environment of the version sweep (the environments
hold the companion packages paired with their core release, so a wire reproduction runs against the provider client
of that release) and reports, per reproduction, the releases where it exits 1, 0 or otherwise, and every entry whose
range disagrees:
- `unproven`: the range claims a release where the script exits 0 (the defect is not there; the range is too wide,
  or the script does not show what the entry says);
- `wider`: the script exits 1 on a release the range leaves out (an earlier or later release also has the defect;
  harmless for the gate, but the range says less than is known).
A script that neither exits 0 nor 1 there (it cannot import what it needs from that release) proves nothing either
way and is listed as such. Exit status: 1 when any entry is `unproven`, else 0.

Needs the sweep's environments (`nox -s versions` builds them), so it is not part of the test suite. Run:
`python tools/reproduction_ranges.py [--framework agent-framework-core] [--json F] [--markdown F] [releases ...]`;
after new reproductions, `--from-json results/reproduction-ranges.json` runs only the scripts it has no exits for
(and each `--rerun SCRIPT`).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]

from sweep_versions import FRAMEWORKS, Framework, installed_release  # noqa: E402

from harness.reporting.baseline import KnownFailure, in_release_range, load_baseline, release_key  # noqa: E402

# A reproduction imports the framework and drives a scripted model in process; one that runs longer is stuck.
SCRIPT_TIMEOUT_SECONDS = 120


@dataclass(frozen=True)
class Disagreement:
    reproduction: str
    scenario: str
    kind: str  # "unproven" or "wider"
    releases: tuple[str, ...]


def reproductions_of(entries: Sequence[KnownFailure], framework: Framework) -> list[str]:
    named = {e.reproduction for e in entries if set(e.implementations) & set(framework.implementations)}
    return sorted(named)


def run_script(python: Path, script: str) -> int:
    """The script's exit status in the release environment of `python`; -1 when it overran."""
    # Without PYTHONPATH: a reproduction needs only the framework, so it must not see this checkout's harness.
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    try:
        done = subprocess.run([str(python), str(ROOT / script)], capture_output=True, text=True, cwd=ROOT,
                              timeout=SCRIPT_TIMEOUT_SECONDS, env=environment)
    except subprocess.TimeoutExpired:
        return -1
    return done.returncode


def companion_releases(envs: Path, releases: Sequence[str], framework: Framework) -> dict[str, dict[str, str]]:
    """Per release environment, the release of each companion-driven implementation's package installed there (an
    implementation whose package is missing is left out), read from the package's files."""
    paired: dict[str, dict[str, str]] = {}
    for release in releases:
        for implementation, package in framework.companion_implementations:
            held = installed_release(envs / release, package.replace("-", "_"))
            if held is not None:
                paired.setdefault(release, {})[implementation] = held
    return paired


def disagreements(entries: Sequence[KnownFailure], framework: Framework, outcomes: dict[str, dict[str, int]],
                  paired: dict[str, dict[str, str]] | None = None) -> list[Disagreement]:
    """Per scenario and reproduction, the releases where the ranges of the entries naming both and the script's exit
    differ. Entries are taken together: one defect is often several entries, split by the checks each range fails.
    An entry of a companion-driven implementation only (the AG-UI endpoint) has its range in the companion
    package's releases, so each environment is judged by the companion release `paired` says it holds."""
    companions = dict(framework.companion_implementations)

    def claims(entry: KnownFailure, release: str) -> bool:
        named = [i for i in entry.implementations if i in framework.implementations]
        if named and all(i in companions for i in named):
            held = (paired or {}).get(release, {}).get(named[0])
            return held is not None and in_release_range(held, entry.versions_from, entry.versions_until)
        return in_release_range(release, entry.versions_from, entry.versions_until)

    ranges: dict[tuple[str, str], list[KnownFailure]] = {}
    for entry in entries:
        if set(entry.implementations) & set(framework.implementations) and entry.reproduction in outcomes:
            ranges.setdefault((entry.reproduction, entry.scenario), []).append(entry)
    found: list[Disagreement] = []
    for (script, scenario), group in sorted(ranges.items()):
        exits = outcomes[script]
        inside = {r for r in exits for e in group if claims(e, r)}
        # An intermittent defect shows on some runs only, so a script that passed once proves no fix.
        steady = {r for r in inside for e in group if not e.intermittent and claims(e, r)}
        unproven = tuple(sorted((r for r in steady if exits[r] == 0), key=release_key))
        if unproven:
            found.append(Disagreement(script, scenario, "unproven", unproven))
        wider = tuple(sorted((r for r in exits if exits[r] == 1 and r not in inside), key=release_key))
        if wider:
            found.append(Disagreement(script, scenario, "wider", wider))
    return sorted(found, key=lambda d: (d.kind, d.reproduction, d.scenario))


def markdown(releases: Sequence[str], outcomes: dict[str, dict[str, int]], found: Sequence[Disagreement],
             paired: dict[str, dict[str, str]] | None = None) -> str:
    symbol = {1: "defect", 0: "fixed"}
    lines = ["# Reproductions across releases", "",
             "`defect`: the script exits 1 (the defect is present); `fixed`: it exits 0; anything else: the script "
             "cannot run on that release (exit status shown, -1 for a timeout).", ""]
    if paired:
        held = "; ".join(f"{r}: " + ", ".join(f"{i} {v}" for i, v in sorted(paired[r].items()))
                         for r in releases if r in paired)
        lines += ["Companion releases in each environment (the ranges of entries of those implementations are "
                  f"judged by them): {held}.", ""]
    lines += ["| reproduction | " + " | ".join(releases) + " |", "|---|" + "---|" * len(releases)]
    for script, exits in sorted(outcomes.items()):
        cells = [symbol.get(exits[r], f"exit {exits[r]}") if r in exits else "" for r in releases]
        lines.append(f"| `{script}` | " + " | ".join(cells) + " |")
    lines += ["", "## Ranges that disagree with their reproduction", ""]
    lines += [f"- {d.kind}: `{d.scenario}` ({d.reproduction}): {', '.join(d.releases)}" for d in found] or ["None."]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("releases", nargs="*", help="releases to run (default: every environment present)")
    parser.add_argument("--framework", default="agent-framework-core", choices=list(FRAMEWORKS))
    parser.add_argument("--envs", type=Path, default=ROOT / ".nox" / "versions")
    parser.add_argument("--baseline", type=Path, default=ROOT / "baselines" / "known-failures.yaml")
    parser.add_argument("--jobs", type=int, default=2, help="scripts run at once (default 2)")
    parser.add_argument("--from-json", type=Path, default=None, metavar="F",
                        help="judge the exits recorded in F (an earlier --json) instead of running the scripts")
    parser.add_argument("--rerun", action="append", default=[], metavar="SCRIPT",
                        help="with --from-json: run this script again (repeatable); a script or release F has no exit "
                             "for is run too, so a refresh after new reproductions costs only their runs")
    parser.add_argument("--json", type=Path, default=ROOT / "results" / "reproduction-ranges.json")
    parser.add_argument("--markdown", type=Path, default=ROOT / "results" / "reproduction-ranges.md")
    args = parser.parse_args(argv)
    framework = FRAMEWORKS[args.framework]
    envs: Path = args.envs / framework.folder  # where the version sweep builds each release (`Framework.env_dir`)
    present = sorted((p.name for p in envs.iterdir() if (p / "bin" / "python").exists()), key=release_key)
    releases = [r for r in present if not args.releases or r in args.releases]
    entries = load_baseline(args.baseline).known_failures
    scripts = reproductions_of(entries, framework)
    outcomes: dict[str, dict[str, int]] = {}
    if args.from_json is not None:
        recorded = json.loads(args.from_json.read_text(encoding="utf-8"))
        outcomes = {s: {r: int(x) for r, x in exits.items() if r in releases}
                    for s, exits in recorded["exits"].items() if s in scripts and s not in args.rerun}
    jobs = [(script, release) for script in scripts for release in releases if release not in outcomes.get(script, {})]
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        exits = list(pool.map(lambda job: run_script(envs / job[1] / "bin" / "python", job[0]), jobs))
    for (script, release), status in zip(jobs, exits, strict=True):
        outcomes.setdefault(script, {})[release] = status
    paired = companion_releases(envs, releases, framework)
    found = disagreements(entries, framework, outcomes, paired)
    args.json.write_text(json.dumps({"framework": framework.package, "releases": releases, "exits": outcomes,
                                     "companions": paired, "disagreements": [d.__dict__ for d in found]},
                                    indent=2) + "\n", encoding="utf-8")
    args.markdown.write_text(markdown(releases, outcomes, found, paired), encoding="utf-8")
    for d in found:
        print(f"{d.kind}: {d.scenario} ({d.reproduction}): {', '.join(d.releases)}")
    print(f"{len(outcomes)} reproductions × {len(releases)} releases; {sum(d.kind == 'unproven' for d in found)} "
          f"unproven ranges, {sum(d.kind == 'wider' for d in found)} narrower than their script shows")
    return 1 if any(d.kind == "unproven" for d in found) else 0


if __name__ == "__main__":
    raise SystemExit(main())

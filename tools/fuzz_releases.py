"""Run `loop-conformance fuzz` once over every installed implementation and every release of the version matrix.

Each release runs in the environment the `versions` sweep made for it (`.nox/versions/<release>` for
agent-framework-core, `.nox/versions/<package>/<release>` for the others), with this checkout's harness first
on the path, so the release's framework is the one fuzzed. The agent-framework-core environments fuzz
agent_framework and agent_framework_stateless, and agent_framework_ag_ui where the release's ag-ui companion is
installed; the reference loop runs once, in this interpreter. Those environments do not install Hypothesis, and
the sweep never installs into them: it puts this interpreter's copy (and its one dependency, sortedcontainers) on
their path from a folder of links instead.

Every run gets the same seed and number of examples, its own Hypothesis database and its own findings folder
(`<out>/<package>/<release>/<implementation>/`). The summary (`<out>/summary.md`) lists per run the examples, the
counterexamples and each finding's failing checks. Exits 1 when any run found something or failed.

    python tools/fuzz_releases.py [--examples N] [--seed S] [--max-findings N] [--jobs N] [--out DIR]
                                  [--only SUBSTRING] [--dry-run]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from sweep_versions import installed_release  # noqa: E402

from harness.reporting.baseline import release_key  # noqa: E402

NOX = ROOT / ".nox"
# The defaults were sized for 44 runs (58 since agent_framework_ag_ui runs from ag-ui 1.0.0rc7) in about 40 minutes
# on a shared 2-core machine; see docs/how-to/fuzz.md ("Over every release").
DEFAULT_EXAMPLES = 6
DEFAULT_SEED = 16
DEFAULT_MAX_FINDINGS = 1
DEFAULT_TIMEOUT = 360  # seconds per run: a run still shrinking then is reported as timed out, not waited for
CORE_IMPLEMENTATIONS = ("agent_framework", "agent_framework_stateless")
# The AG-UI adapter drives the endpoint of agent-framework-ag-ui 1.0.0rc7 and later (rc7 in its own resume form);
# baselines/known-failures.yaml and baselines/fuzz-allowances.yaml triage it from there.
AG_UI_FIRST = "1.0.0rc7"
OTHER_IMPLEMENTATIONS = {"pydantic-ai-slim": "pydantic_ai", "openai-agents": "openai_agents"}
_SUMMARY = re.compile(r": (\d+) examples run, (\d+) counterexample")


@dataclass(frozen=True)
class Run:
    package: str
    release: str
    implementation: str
    python: Path

    @property
    def label(self) -> str:
        return f"{self.package} {self.release} {self.implementation}"


@dataclass
class Outcome:
    run: Run
    exit_code: int | None  # None: timed out
    examples: int = 0
    findings: list[str] = field(default_factory=lambda: list[str]())
    error: str = ""


def release_order(release: str) -> tuple[int, ...]:
    """The harness's release order (a pre-release such as `1.0.0rc7` before its final release), so the sweep
    selects releases as the baselines' ranges read them."""
    return release_key(release)


def planned_runs(nox_dir: Path) -> list[Run]:
    """Every implementation of every release environment present, oldest release first; the reference first."""
    runs = [Run("reference", "-", "reference", Path(sys.executable))]
    core = nox_dir / "versions"
    for env in sorted((p for p in core.glob("*") if (p / "bin" / "python").exists()),
                      key=lambda p: release_order(p.name)):
        implementations: list[str] = list(CORE_IMPLEMENTATIONS)
        ag_ui = installed_release(env, "agent_framework_ag_ui")
        if ag_ui is not None and release_order(ag_ui) >= release_order(AG_UI_FIRST):
            implementations.append("agent_framework_ag_ui")
        runs += [Run("agent-framework-core", env.name, name, env / "bin" / "python") for name in implementations]
    for package, implementation in OTHER_IMPLEMENTATIONS.items():
        # Where tools/sweep_versions.py builds them (`Framework.env_dir`): beside the core releases, one folder
        # per package, which the core glob above skips (a package folder has no bin/python).
        envs = (p for p in (core / package).glob("*") if (p / "bin" / "python").exists())
        runs += [Run(package, env.name, implementation, env / "bin" / "python")
                 for env in sorted(envs, key=lambda p: release_order(p.name))]
    return runs


def hypothesis_links(folder: Path) -> Path:
    """A folder holding links to this interpreter's Hypothesis (its package and its `_hypothesis_*` modules) and
    sortedcontainers, for a release environment's path: nothing else of this interpreter's packages, so the
    release's framework stays the one imported."""
    for module in ("hypothesis", "sortedcontainers"):
        spec = importlib.util.find_spec(module)
        if spec is None or spec.origin is None:
            raise SystemExit(f"fuzz_releases: {module} is not installed in {sys.executable}")
        package = Path(spec.origin).parent
        wanted = [package] + (sorted(package.parent.glob("_hypothesis_*.py")) if module == "hypothesis" else [])
        for source in wanted:
            link = folder / source.name
            if not link.exists():
                link.symlink_to(source, target_is_directory=source.is_dir())
    return folder


def fuzz_one(run: Run, args: argparse.Namespace, links: Path) -> Outcome:
    where = args.out / run.package / run.release / run.implementation
    command = ["nice", "-n", "10", str(run.python), "-m", "harness.cli", "fuzz", "--impl", run.implementation,
               "--max-examples", str(args.examples), "--max-findings", str(args.max_findings),
               "--seed", str(args.seed), "--out", str(where), "--database", str(where / ".hypothesis")]
    env = os.environ | {"PYTHONPATH": os.pathsep.join([str(ROOT), str(links)])}
    try:
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired as timeout:
        output = timeout.stdout.decode() if isinstance(timeout.stdout, bytes) else (timeout.stdout or "")
        return Outcome(run, None, findings=_findings(output), error=f"timed out after {args.timeout} s")
    outcome = Outcome(run, done.returncode, findings=_findings(done.stdout))
    summary = _SUMMARY.search(done.stdout)
    if summary is not None:
        outcome.examples = int(summary.group(1))
    if done.returncode not in (0, 1) or summary is None:
        outcome.error = (done.stderr.strip().splitlines() or ["no output"])[-1][:300]
    return outcome


def _findings(output: str) -> list[str]:
    return [line.removeprefix("FOUND ")[:300] for line in output.splitlines() if line.startswith("FOUND ")]


def summary_markdown(outcomes: Sequence[Outcome], args: argparse.Namespace) -> str:
    lines = [f"# Fuzz sweep over releases: seed {args.seed}, {args.examples} examples per search, at most "
             f"{args.max_findings} findings per run", "",
             "| package | release | implementation | examples run | counterexamples | findings |",
             "|---|---|---|---|---|---|"]
    for o in outcomes:
        found = "<br>".join(f.replace("|", "\\|") for f in o.findings) or ("—" if not o.error else o.error)
        if o.error and o.findings:
            found += f"<br>{o.error}"
        lines.append(f"| {o.run.package} | {o.run.release} | {o.run.implementation} | {o.examples} | "
                     f"{len(o.findings)} | {found} |")
    total = sum(o.examples for o in outcomes)
    lines += ["", f"{len(outcomes)} runs, {total} examples, {sum(len(o.findings) for o in outcomes)} counterexamples, "
              f"{sum(1 for o in outcomes if o.error)} runs with an error or timeout."]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=DEFAULT_EXAMPLES, help="examples per search")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--max-findings", type=int, default=DEFAULT_MAX_FINDINGS, help="per run")
    parser.add_argument("--jobs", type=int, default=3, help="runs at a time")
    parser.add_argument("--timeout", type=int, default=DEFAULT_TIMEOUT, help="seconds per run")
    parser.add_argument("--out", type=Path, default=ROOT / "fuzz-findings" / "releases")
    parser.add_argument("--nox-dir", type=Path, default=NOX, help="where the release environments are")
    parser.add_argument("--only", default="", help="only runs whose 'package release implementation' has this")
    parser.add_argument("--dry-run", action="store_true", help="list the runs, run nothing")
    args = parser.parse_args(argv)
    runs = [r for r in planned_runs(args.nox_dir) if args.only in r.label]
    if args.dry_run:
        print("\n".join(r.label for r in runs))
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="fuzz-releases-") as folder:
        links = hypothesis_links(Path(folder))
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            outcomes = list(pool.map(lambda r: _reported(fuzz_one(r, args, links)), runs))
    (args.out / "summary.md").write_text(summary_markdown(outcomes, args), encoding="utf-8")
    print(f"summary: {args.out / 'summary.md'}")
    return 1 if any(o.findings or o.error for o in outcomes) else 0


def _reported(outcome: Outcome) -> Outcome:
    state = outcome.error or f"{outcome.examples} examples, {len(outcome.findings)} counterexample(s)"
    print(f"{outcome.run.label}: {state}", flush=True)
    for finding in outcome.findings:
        print(f"  {finding}", flush=True)
    return outcome


if __name__ == "__main__":
    sys.exit(main())

"""Run the suite against the recent releases of each framework, each release in its own environment.

Used by the `versions` nox session. Writes one results file per release under reports/versions/ (agent-framework-core
at the top, every other framework in a folder named after its package), an index of what is there, and the version
matrix built from every results file present. Needs the package registry, so it never runs in CI or in the tests.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import venv
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.reporting.baseline import release_key

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Framework:
    """A framework the sweep covers: its package, the implementations that drive it, which releases count."""

    package: str
    implementations: tuple[str, ...]
    first: str  # the oldest release swept
    newest_patch_only: bool  # one release per minor, its newest patch: for frameworks that release many patches
    folder: str  # under reports/versions/; "" keeps agent-framework-core's files where tests and docs find them

    def results_dir(self, out: Path) -> Path:
        return out / self.folder if self.folder else out

    def env_dir(self, envs: Path, version: str) -> Path:
        # agent-framework-core keeps the layout of the environments the sweep made before it covered more.
        return envs / self.folder / version if self.folder else envs / version


FRAMEWORKS: dict[str, Framework] = {
    # Both callers: one that passes its session back, and the stateless one that keeps its own history only.
    "agent-framework-core": Framework("agent-framework-core", ("agent_framework", "agent_framework_stateless"),
                                      "1.10.0", newest_patch_only=False, folder=""),
    "pydantic-ai-slim": Framework("pydantic-ai-slim", ("pydantic_ai",), "2.60.0", newest_patch_only=False,
                                  folder="pydantic-ai-slim"),
    "openai-agents": Framework("openai-agents", ("openai_agents",), "0.20.0", newest_patch_only=True,
                               folder="openai-agents"),
}


def select_releases(available: Iterable[str], framework: Framework) -> list[str]:
    """The releases of `framework` to sweep, oldest first: final releases from `first` on (no pre-releases)."""
    stable = [v for v in available if v.replace(".", "").isdigit()]
    chosen = sorted((v for v in stable if release_key(v) >= release_key(framework.first)), key=release_key)
    if framework.newest_patch_only:
        # Ascending order, so each minor ends up with its newest patch.
        chosen = list({release_key(v)[:2]: v for v in chosen}.values())
    return chosen


def parse_index_versions(pip_output: str) -> list[str]:
    """The release list of `pip index versions` output."""
    line = next(line for line in pip_output.splitlines() if line.startswith("Available versions:"))
    return [v.strip() for v in line.split(":", 1)[1].split(",")]


def released_versions(framework: Framework) -> list[str]:
    output = subprocess.run([sys.executable, "-m", "pip", "index", "versions", framework.package],
                            check=True, capture_output=True, text=True).stdout
    return select_releases(parse_index_versions(output), framework)


def missing_implementations(document: dict[str, object], framework: Framework) -> list[str]:
    """Implementations of `framework` without a single result: their adapter did not load on this release."""
    results = document.get("results")
    present = {r.get("implementation") for r in results if isinstance(r, dict)} if isinstance(results, list) else set()
    return [name for name in framework.implementations if name not in present]


def run_one(framework: Framework, version: str, envs: Path, out: Path) -> int:
    env = framework.env_dir(envs, version)
    if not (env / "bin" / "python").exists():
        venv.create(env, with_pip=True)
    python = str(env / "bin" / "python")
    subprocess.run([python, "-m", "pip", "install", "--quiet", "-e", str(ROOT), f"{framework.package}=={version}"],
                   check=True)
    target = framework.results_dir(out) / f"{version}.json"
    unsupported = target.with_suffix(".unsupported")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)  # a run that writes nothing must not leave an earlier run's file standing
    impls = [arg for name in framework.implementations for arg in ("--impl", name)]
    result = subprocess.run([python, "-m", "harness.cli", "run", *impls, "--json", str(target), "--no-reports"],
                            capture_output=True, text=True)
    summary = result.stdout.strip().splitlines()[-3:]
    print(f"{framework.package} {version}: exit {result.returncode}; " + " | ".join(summary), flush=True)
    document = json.loads(target.read_text(encoding="utf-8")) if target.exists() else {}
    # An adapter that fails to import is only a note to `run`, and its results file would pass every gate empty.
    # The sweep leaves a note in the results' place instead, which the index lists, and fails.
    missing = missing_implementations(document, framework)
    if not missing:
        unsupported.unlink(missing_ok=True)
        return 0
    target.unlink(missing_ok=True)
    notes = [line for line in result.stderr.splitlines() if line.startswith("note:")]
    reason = f"no results for {', '.join(missing)}: " + (" | ".join(notes) or result.stderr.strip()[-500:])
    unsupported.write_text(reason + "\n", encoding="utf-8")
    print(f"{framework.package} {version}: UNSUPPORTED, {reason}", file=sys.stderr, flush=True)
    return 1


def results_files(framework: Framework, out: Path) -> list[Path]:
    files = [p for p in framework.results_dir(out).glob("*.json") if p.name != "index.json"]
    return sorted(files, key=lambda p: release_key(p.stem))


def write_index_and_matrix(out: Path, markdown: Path, matrix_json: Path) -> None:
    """The index and the matrix of every results file present, whichever frameworks this sweep ran."""
    index = {"frameworks": [
        {"package": f.package, "implementations": list(f.implementations),
         "folder": str(f.results_dir(out).relative_to(out)), "versions": [p.stem for p in results_files(f, out)],
         "unsupported": sorted((p.stem for p in f.results_dir(out).glob("*.unsupported")), key=release_key)}
        for f in FRAMEWORKS.values()]}
    (out / "index.json").write_text(json.dumps(index, indent=2) + "\n", encoding="utf-8")
    files = [str(p) for f in FRAMEWORKS.values() for p in results_files(f, out)]
    if not files:
        print(f"no results files under {out}: no version matrix written", file=sys.stderr)
        return
    packages = [arg for f in FRAMEWORKS.values() for name in f.implementations
                for arg in ("--package", f"{name}={f.package}")]
    # From the repository root, so the harness of this checkout writes it even where another is installed.
    subprocess.run([sys.executable, "-m", "harness.cli", "version-matrix", *files, *packages,
                    "--markdown", str(markdown), "--json", str(matrix_json)], check=True, cwd=ROOT)


def chosen_frameworks(names: Sequence[str], versions: Sequence[str]) -> list[Framework]:
    """The frameworks `--framework` names (every one by default); explicit releases need exactly one."""
    frameworks = [FRAMEWORKS[name] for name in dict.fromkeys(names)] or list(FRAMEWORKS.values())
    if versions and len(frameworks) != 1:
        raise SystemExit("error: name one --framework to run explicit releases of")
    return frameworks


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("versions", nargs="*", help="releases to run (default: the framework's recent releases)")
    parser.add_argument("--framework", action="append", default=[], choices=list(FRAMEWORKS), metavar="PACKAGE",
                        help=f"framework to sweep, by package (repeatable; default: all of {', '.join(FRAMEWORKS)})")
    parser.add_argument("--matrix-only", action="store_true",
                        help="run nothing: rebuild the index and the matrix from the results files present")
    parser.add_argument("--envs", type=Path, default=ROOT / ".nox" / "versions")
    parser.add_argument("--out", type=Path, default=ROOT / "reports" / "versions")
    parser.add_argument("--markdown", type=Path, default=ROOT / "reports" / "version-matrix.md")
    parser.add_argument("--json", type=Path, default=ROOT / "reports" / "version-matrix.json")
    args = parser.parse_args(argv)
    status = 0
    if not args.matrix_only:
        for framework in chosen_frameworks(args.framework, args.versions):
            for version in args.versions or released_versions(framework):
                status |= run_one(framework, version, args.envs, args.out)
    write_index_and_matrix(args.out, args.markdown, args.json)
    return status


if __name__ == "__main__":
    raise SystemExit(main())

"""Run the suite against the recent releases of each framework, each release in its own environment.

Used by the `versions` nox session. Writes one results file per release under reports/versions/ (agent-framework-core
at the top, every other framework in a folder named after its package), an index of what is there, and the version
matrix built from every results file present. Needs the package registry, so it never runs in CI or in the tests.

Beside each agent-framework-core release it installs the companion releases built for it (agent-framework-openai,
-gemini, -ag-ui, -foundry-hosting; which one goes with which core release is decided in `companion_releases`), so the
wire providers run on every release, and records them in the results file's `companions`. A provider whose package
was not released for a core release has its runs' n/a reason say so. `--provider` runs only the providers named and
merges their results into the release's existing file, leaving the other providers' results as they were.
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
from typing import Any, cast

import companion_releases as companions

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
    companions: tuple[str, ...] = ()  # packages released beside it, installed with each release (`companion_releases`)

    def results_dir(self, out: Path) -> Path:
        return out / self.folder if self.folder else out

    def env_dir(self, envs: Path, version: str) -> Path:
        # agent-framework-core keeps the layout of the environments the sweep made before it covered more.
        return envs / self.folder / version if self.folder else envs / version


FRAMEWORKS: dict[str, Framework] = {
    # Both callers: one that passes its session back, and the stateless one that keeps its own history only.
    "agent-framework-core": Framework("agent-framework-core", ("agent_framework", "agent_framework_stateless"),
                                      "1.10.0", newest_patch_only=False, folder="",
                                      companions=tuple(companions.COMPANIONS)),
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


def run_one(framework: Framework, version: str, envs: Path, out: Path, pairing: dict[str, str | None] | None = None,
            providers: Sequence[str] = ()) -> int:
    env = framework.env_dir(envs, version)
    if not (env / "bin" / "python").exists():
        venv.create(env, with_pip=True)
    python = str(env / "bin" / "python")
    subprocess.run([python, "-m", "pip", "install", "--quiet", "-e", str(ROOT), f"{framework.package}=={version}"],
                   check=True)
    installed = install_companions(python, framework, version, pairing or {})
    target = framework.results_dir(out) / f"{version}.json"
    unsupported = target.with_suffix(".unsupported")
    target.parent.mkdir(parents=True, exist_ok=True)
    earlier = json.loads(target.read_text(encoding="utf-8")) if providers and target.exists() else None
    fresh = target.with_suffix(".partial") if earlier is not None else target
    target.unlink(missing_ok=True)  # a run that writes nothing must not leave an earlier run's file standing
    impls = [arg for name in framework.implementations for arg in ("--impl", name)]
    chosen = [arg for name in providers for arg in ("--provider", name)]
    result = subprocess.run([python, "-m", "harness.cli", "run", *impls, *chosen, "--json", str(fresh),
                             "--no-reports"], capture_output=True, text=True)
    summary = result.stdout.strip().splitlines()[-3:]
    print(f"{framework.package} {version}: exit {result.returncode}; " + " | ".join(summary), flush=True)
    document = json.loads(fresh.read_text(encoding="utf-8")) if fresh.exists() else {}
    fresh.unlink(missing_ok=True)
    if document and earlier is not None:
        document = merge_results(earlier, document, providers)
    if document and framework.companions:
        document = with_companions(document, installed)
        target.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    elif document:
        target.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")
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


def install_companions(python: str, framework: Framework, version: str,
                       pairing: dict[str, str | None]) -> dict[str, dict[str, object]]:
    """Install the companion releases paired with `version` beside it (core pinned, so pip cannot move it) and remove
    any other, so that a provider without a release for `version` cannot run an earlier sweep's leftover. Returns
    per package what the results file records: the release, whether it is installed, and why not."""
    outcome: dict[str, dict[str, object]] = {}
    for package in framework.companions:
        release = pairing.get(package)
        if release is None:
            _uninstall(python, package)
            outcome[package] = {"version": None, "installed": False, "reason": companions.NOT_RELEASED}
            continue
        done = subprocess.run([python, "-m", "pip", "install", "--quiet", f"{package}=={release}",
                               f"{framework.package}=={version}"], capture_output=True, text=True)
        if done.returncode == 0:
            outcome[package] = {"version": release, "installed": True, "reason": ""}
            continue
        _uninstall(python, package)
        why = [line for line in done.stderr.splitlines() if line.strip()][-3:]
        outcome[package] = {"version": release, "installed": False,
                            "reason": f"cannot be installed beside {framework.package} {version}: " + " ".join(why)}
        print(f"{framework.package} {version}: {package} {release} NOT INSTALLED: {' '.join(why)}", file=sys.stderr)
    return outcome


def _uninstall(python: str, package: str) -> None:
    subprocess.run([python, "-m", "pip", "uninstall", "--quiet", "--yes", package], capture_output=True, text=True)


def merge_results(earlier: dict[str, Any], fresh: dict[str, Any], providers: Sequence[str]) -> dict[str, Any]:
    """`earlier`'s results with those of `providers` replaced by `fresh`'s (a run restricted to those providers)."""
    chosen = set(providers)
    kept = [r for r in cast(list[dict[str, Any]], earlier.get("results") or [])
            if str(r.get("provider") or "neutral") not in chosen]
    return {**earlier, **{k: v for k, v in fresh.items() if k != "results"},
            "filtered": bool(earlier.get("filtered", True)), "results": kept + list(fresh["results"])}


def with_companions(document: dict[str, Any], installed: dict[str, dict[str, object]]) -> dict[str, Any]:
    """`document` with the companion releases recorded, and the n/a reason of every run over a provider whose
    package was not released for this core release saying that, instead of only "not installed"."""
    unreleased = {dialect for package, state in installed.items() if state["version"] is None
                  for dialect in companions.COMPANIONS.get(package, ())}
    results = [({**r, "reason": f"{_package_of(r)} {companions.NOT_RELEASED}"}
                if r.get("verdict") == "n/a" and r.get("provider") in unreleased
                and "provider not installed" in str(r.get("reason", "")) else r)
               for r in cast(list[dict[str, Any]], document.get("results") or [])]
    return {**document, "companions": installed, "results": results}


def _package_of(result: dict[str, Any]) -> str:
    return str(result.get("provider_package") or result.get("provider"))


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


def companion_pairings(framework: Framework, versions: Sequence[str], envs: Path) -> dict[str, dict[str, str | None]]:
    """Per release of `framework`, its companion releases, from the registry's metadata (cached under `envs`: a
    published release's metadata never changes, so only new releases are read)."""
    if not framework.companions:
        return {}
    cache_path = envs / "companion-metadata.json"
    cache = json.loads(cache_path.read_text(encoding="utf-8")) if cache_path.exists() else {}
    core = companions.fetch_releases(framework.package, cache.setdefault(framework.package, {}), requirements=False)
    others = {p: companions.fetch_releases(p, cache.setdefault(p, {})) for p in framework.companions}
    cache_path.parent.mkdir(parents=True, exist_ok=True)
    cache_path.write_text(json.dumps(cache, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    pairings = {v: companions.pair_companions(v, core, others) for v in versions}
    for version, pairing in pairings.items():
        print(f"{framework.package} {version}: " + ", ".join(f"{p} {r or '-'}" for p, r in pairing.items()))
    return pairings


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
    parser.add_argument("--provider", action="append", default=[], metavar="PROVIDER",
                        help="run only these providers (repeatable) and merge their results into the existing files")
    parser.add_argument("--envs", type=Path, default=ROOT / ".nox" / "versions")
    parser.add_argument("--out", type=Path, default=ROOT / "reports" / "versions")
    parser.add_argument("--markdown", type=Path, default=ROOT / "reports" / "version-matrix.md")
    parser.add_argument("--json", type=Path, default=ROOT / "reports" / "version-matrix.json")
    args = parser.parse_args(argv)
    status = 0
    if not args.matrix_only:
        for framework in chosen_frameworks(args.framework, args.versions):
            versions = args.versions or released_versions(framework)
            pairings = companion_pairings(framework, versions, args.envs)
            for version in versions:
                status |= run_one(framework, version, args.envs, args.out, pairings.get(version), args.provider)
    write_index_and_matrix(args.out, args.markdown, args.json)
    return status


if __name__ == "__main__":
    raise SystemExit(main())

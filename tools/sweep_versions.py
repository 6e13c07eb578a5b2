"""Run the suite against the recent releases of each framework, each release in its own environment.

Used by the `versions` nox session. Writes one results file per release, in two forms: the full one (`run --json`,
every message and log) under reports/versions-full/, which is never committed, and the compact one
(harness.reporting.compact: what the gate and the version matrix read) under results/versions/, which is
(agent-framework-core at the top, every other framework in a folder named after its package); then an index of what
is there and the version matrix built from every compact file present (results/version-matrix.md and .json). Needs
the package registry, so it never runs in CI or in the tests. `--matrix-only` rebuilds the index and the matrix from
the compact files alone.

Beside each agent-framework-core release it installs the companion releases built for it (agent-framework-openai,
-gemini, -ag-ui, -foundry-hosting; which one goes with which core release is decided in `companion_releases`), so the
wire providers run on every release, and records them in the results file's `companions`. A provider whose package
was not released for a core release has its runs' n/a reason say so. `--provider` runs only the providers named and
merges their results into the release's existing file, leaving the other providers' results as they were; `--impl`
does the same for implementations, and `--scenarios` for the scenarios under the paths it names (new or changed
scenarios swept over every release without running the rest again). An implementation driven through a companion
(`agent_framework_ag_ui`, the loop behind agent-framework-ag-ui's endpoint) that cannot run on a release gets n/a
runs saying why, so that release still counts for the implementations that did run; only a release on which nothing
ran is unsupported.
`--no-install` uses each release's environment as it is (environments someone else prepared and shares).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tomllib
import venv
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import companion_releases as companions

from harness.reporting.baseline import release_key
from harness.reporting.compact import write_compact
from harness.reporting.documents import load_results_document
from harness.scenario.loader import load_many

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Framework:
    """A framework the sweep covers: its package, the implementations that drive it, which releases count."""

    package: str
    implementations: tuple[str, ...]
    first: str  # the oldest release swept
    newest_patch_only: bool  # one release per minor, its newest patch: for frameworks that release many patches
    folder: str  # under results/versions/; "" keeps agent-framework-core's files where tests and docs find them
    companions: tuple[str, ...] = ()  # packages released beside it, installed with each release (`companion_releases`)
    # Implementations whose loop is reached through a companion package, which their results' release is of.
    companion_implementations: tuple[tuple[str, str], ...] = ()
    # Requirements installed beside the releases from `first` up to (not including) `until`, as (first, until,
    # requirement): where pip's own resolution gives an environment that cannot import.
    pins: tuple[tuple[str, str, str], ...] = ()

    def pinned(self, version: str) -> list[str]:
        """The requirements `pins` adds beside `version`."""
        key = release_key(version)
        return [requirement for first, until, requirement in self.pins
                if release_key(first) <= key < release_key(until)]

    def results_dir(self, out: Path) -> Path:
        return out / self.folder if self.folder else out

    def env_dir(self, envs: Path, version: str) -> Path:
        # agent-framework-core keeps the layout of the environments the sweep made before it covered more.
        return envs / self.folder / version if self.folder else envs / version


FRAMEWORKS: dict[str, Framework] = {
    # Both callers: one that passes its session back, and the stateless one that keeps its own history only; and
    # the loop as a UI reaches it, behind the AG-UI endpoint of the agent-framework-ag-ui release built for it.
    "agent-framework-core": Framework("agent-framework-core",
                                      ("agent_framework", "agent_framework_stateless", "agent_framework_ag_ui"),
                                      "1.10.0", newest_patch_only=False, folder="",
                                      companions=tuple(companions.COMPANIONS),
                                      companion_implementations=(("agent_framework_ag_ui", "agent-framework-ag-ui"),)),
    "pydantic-ai-slim": Framework("pydantic-ai-slim", ("pydantic_ai",), "2.60.0", newest_patch_only=False,
                                  folder="pydantic-ai-slim"),
    "openai-agents": Framework("openai-agents", ("openai_agents",), "0.20.0", newest_patch_only=True,
                               folder="openai-agents"),
    # pip resolves the langgraph each langchain release allows (the newest of its range). langchain 1.0 and 1.1 allow
    # langgraph 1.0, whose range admits langgraph-prebuilt 1.0.9 on, which imports names only langgraph 1.1 has.
    "langchain": Framework("langchain", ("langchain",), "1.0.0", newest_patch_only=True, folder="langchain",
                           pins=(("1.0.0", "1.2.0", "langgraph-prebuilt<1.0.9"),)),
    # Google's Agent Development Kit: each minor's newest patch from 1.18, the first release whose tool confirmation
    # pauses the run (1.14-1.17 load the adapter, but send ADK's pending placeholder to the model as the call's result
    # and carry on, so no approval scenario reaches its decision there).
    "google-adk": Framework("google-adk", ("google_adk",), "1.18.0", newest_patch_only=True, folder="google-adk"),
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


@dataclass(frozen=True)
class Selection:
    """What one sweep runs of each release: every implementation and provider, or only those named (whose results
    then replace theirs in the release's existing file)."""

    implementations: tuple[str, ...] = ()
    providers: tuple[str, ...] = ()
    install: bool = True  # False: use each release's environment as it is
    # Scenario files or folders, and the ids of the scenarios they hold: a sweep of new or changed scenarios
    # re-runs only those on each release, keeping every other run of its file as it was.
    scenario_paths: tuple[str, ...] = ()
    scenario_ids: frozenset[str] = frozenset()

    @property
    def partial(self) -> bool:
        return bool(self.implementations or self.providers or self.scenario_paths)

    def covers(self, result: dict[str, Any]) -> bool:
        """Whether a run of an earlier file is one this selection runs again."""
        return ((not self.implementations or str(result.get("implementation")) in self.implementations)
                and (not self.providers or str(result.get("provider") or "neutral") in self.providers)
                and (not self.scenario_paths or str(result.get("scenario")) in self.scenario_ids))


def scenario_ids(paths: Sequence[str]) -> frozenset[str]:
    """The ids of the scenarios under `paths`; a file that does not load stops the sweep, since its runs could
    not be told apart from the release's other runs."""
    scenarios, errors = load_many(paths)
    if errors:
        raise SystemExit("error: " + "\n".join(str(error) for error in errors))
    if not scenarios:
        raise SystemExit(f"error: no scenario under {', '.join(paths)}")
    return frozenset(scenario.id for scenario in scenarios)


def run_one(framework: Framework, version: str, envs: Path, out: Path, pairing: dict[str, str | None] | None = None,
            selection: Selection = Selection(), full_out: Path | None = None) -> int:
    """Sweep one release: its full results file under `full_out` (default: `out` itself), its compact form under
    `out` when they differ. Returns 0, or 1 when the release is unsupported."""
    env = framework.env_dir(envs, version)
    python = str(env / "bin" / "python")
    if selection.install:
        if not (env / "bin" / "python").exists():
            venv.create(env, with_pip=True)
        subprocess.run([python, "-m", "pip", "install", "--quiet", "-e", str(ROOT),
                        f"{framework.package}=={version}", *framework.pinned(version)], check=True)
        installed = install_companions(python, framework, version, pairing or {})
    else:
        installed = present_companions(python, framework, pairing or {})
    compact = framework.results_dir(out) / f"{version}.json"
    target = framework.results_dir(full_out or out) / f"{version}.json"
    unsupported = compact.with_suffix(".unsupported")
    target.parent.mkdir(parents=True, exist_ok=True)
    earlier = earlier_results(target, compact) if selection.partial else None
    fresh = target.with_suffix(".partial") if earlier is not None else target
    target.unlink(missing_ok=True)  # a run that writes nothing must not leave an earlier run's file standing
    chosen_impls = selection.implementations or framework.implementations
    # An environment used as it is may hold an older install of the harness whose entry points lack an
    # implementation this checkout has: name each by this checkout's own `module:factory` then.
    references = {} if selection.install else checkout_adapters()
    impls = [arg for name in chosen_impls for arg in ("--impl", references.get(name, name))]
    chosen = [arg for name in selection.providers for arg in ("--provider", name)]
    chosen += [arg for path in selection.scenario_paths for arg in ("--scenarios", path)]
    # This checkout's harness, whatever the environment has installed (an editable install of another checkout).
    child_env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    result = subprocess.run([python, "-m", "harness.cli", "run", *impls, *chosen, "--json", str(fresh),
                             "--no-reports"], capture_output=True, text=True, cwd=ROOT, env=child_env)
    summary = result.stdout.strip().splitlines()[-3:]
    print(f"{framework.package} {version}: exit {result.returncode}; " + " | ".join(summary), flush=True)
    document = json.loads(fresh.read_text(encoding="utf-8")) if fresh.exists() else {}
    fresh.unlink(missing_ok=True)
    notes = [line for line in result.stderr.splitlines() if line.startswith("note:")]
    if earlier is not None:
        document = merge_results(earlier, document or {"results": []}, selection)
    if document:
        errors = [line for line in result.stderr.splitlines() if line.startswith(("note:", "error:"))]
        document = with_unavailable(document, framework, errors, pairing or {}, version, installed)
    if document and framework.companions:
        document = with_companions(document, installed)
    if document:
        document["release"] = version
        target.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        if compact != target:
            write_compact(target, compact)
    # An adapter that fails to import is only a note to `run`, and its results file would pass every gate empty.
    # The sweep leaves a note in the results' place instead, which the index lists, and fails.
    missing = missing_implementations(document, framework)
    if not missing:
        unsupported.unlink(missing_ok=True)
        return 0
    target.unlink(missing_ok=True)
    compact.unlink(missing_ok=True)
    reason = f"no results for {', '.join(missing)}: " + (" | ".join(notes) or result.stderr.strip()[-500:])
    unsupported.write_text(reason + "\n", encoding="utf-8")
    print(f"{framework.package} {version}: UNSUPPORTED, {reason}", file=sys.stderr, flush=True)
    return 1


def earlier_results(full: Path, compact: Path) -> dict[str, Any] | None:
    """The release's earlier results a partial sweep merges into: its full file when this machine has it, else its
    committed compact form (whose runs carry no messages: a merged file is as full as its parts)."""
    if full.exists():
        return cast(dict[str, Any], json.loads(full.read_text(encoding="utf-8")))
    if not compact.exists():
        return None
    document = load_results_document(compact)
    return {"filtered": document.filtered, "release": document.release, "companions": dict(document.companions),
            "results": [result.to_json() for result in document.results]}


def checkout_adapters() -> dict[str, str]:
    """The implementations this checkout registers, each with its `module:factory` reference."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return dict(cast(dict[str, str], project["entry-points"]["loop_conformance.adapters"]))


def with_unavailable(document: dict[str, Any], framework: Framework, notes: Sequence[str],
                     pairing: dict[str, str | None], version: str,
                     installed: dict[str, dict[str, object]] | None = None) -> dict[str, Any]:
    """`document` with n/a runs, saying why, for each companion-driven implementation that has none (its package is
    missing beside this release or its adapter cannot drive that package's release), in the place of every run the
    release's other implementations made; unchanged when none of them ran either (nothing to stand in for)."""
    results = cast(list[dict[str, Any]], document.get("results") or [])
    present = {str(r.get("implementation")) for r in results}
    template = {(str(r.get("scenario")), str(r.get("mode"))): r for r in results
                if str(r.get("provider") or "neutral") == "neutral"}
    added: list[dict[str, Any]] = []
    for implementation, package in framework.companion_implementations:
        if implementation in present or not template:
            continue
        note = next((n.split(":", 1)[1].strip() for n in notes if implementation in n), "")
        release = pairing.get(package)
        state = (installed or {}).get(package, {})
        if release is None:
            why = f"{package} {companions.NOT_RELEASED}"
        elif state and not state.get("installed"):
            why = f"{package} {release} (built for {framework.package} {version}) {state.get('reason')}"
        else:
            why = (f"{implementation} cannot run beside {framework.package} {version} ({package} {release}): "
                   + (note or "its adapter did not load"))
        added.extend({**run, "implementation": implementation, "version": release or version, "verdict": "n/a",
                      "reason": why, "checks": [], "log": []} for run in template.values())
    return {**document, "results": results + added} if added else document


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


def merge_results(earlier: dict[str, Any], fresh: dict[str, Any], selection: Selection) -> dict[str, Any]:
    """`earlier`'s results with those `selection` covers replaced by `fresh`'s (a run restricted to them)."""
    kept = [r for r in cast(list[dict[str, Any]], earlier.get("results") or []) if not selection.covers(r)]
    return {**earlier, **{k: v for k, v in fresh.items() if k != "results"},
            "filtered": bool(earlier.get("filtered", True)), "results": kept + list(fresh.get("results") or [])}


def installed_release(env: Path, distribution: str) -> str | None:
    """The release of `distribution` (its import name, e.g. `agent_framework_ag_ui`) installed in the environment
    `env`, read from its files (asking the environment's interpreter would cost a process)."""
    for info in env.glob(f"lib/python3*/site-packages/{distribution}-*.dist-info"):
        return info.name.removesuffix(".dist-info").split("-", 1)[1]
    return None


def present_companions(python: str, framework: Framework,
                       pairing: dict[str, str | None]) -> dict[str, dict[str, object]]:
    """What `install_companions` records, read from an environment used as it is: each companion's paired release
    and whether that very release is what the environment holds."""
    outcome: dict[str, dict[str, object]] = {}
    for package in framework.companions:
        release = pairing.get(package)
        found = subprocess.run([python, "-c", "import importlib.metadata as m, sys; print(m.version(sys.argv[1]))",
                                package], capture_output=True, text=True).stdout.strip()
        if release is None:
            outcome[package] = {"version": None, "installed": False, "reason": companions.NOT_RELEASED}
        elif found == release:
            outcome[package] = {"version": release, "installed": True, "reason": ""}
        else:
            outcome[package] = {"version": release, "installed": False,
                                "reason": f"not installed in the release's environment (it holds {found or 'none'})"}
    return outcome


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
    # Only a release's file: the index, or a matrix written beside the results, is not one.
    files = [p for p in framework.results_dir(out).glob("*.json") if p.stem[:1].isdigit()]
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
                for arg in ("--package", f"{name}={dict(f.companion_implementations).get(name, f.package)}")]
    # From the repository root, so the harness of this checkout writes it even where another is installed.
    # Judged against today's baseline: a file keeps the verdicts of the baseline it was swept with.
    subprocess.run([sys.executable, "-m", "harness.cli", "version-matrix", *files, *packages,
                    "--baseline", str(ROOT / "baselines" / "known-failures.yaml"),
                    "--markdown", str(markdown), "--json", str(matrix_json)], check=True, cwd=ROOT)


def companion_pairings(framework: Framework, versions: Sequence[str], envs: Path,
                       keep_cache: bool = True) -> dict[str, dict[str, str | None]]:
    """Per release of `framework`, its companion releases, from the registry's metadata (cached under `envs`: a
    published release's metadata never changes, so only new releases are read; `keep_cache` False reads the cache
    but leaves it as it is, for environments the sweep does not own)."""
    if not framework.companions:
        return {}
    cache_path = envs / "companion-metadata.json"
    cache = json.loads(cache_path.read_text(encoding="utf-8")) if cache_path.exists() else {}
    core = companions.fetch_releases(framework.package, cache.setdefault(framework.package, {}), requirements=False)
    others = {p: companions.fetch_releases(p, cache.setdefault(p, {})) for p in framework.companions}
    if keep_cache:
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
    parser.add_argument("--impl", action="append", default=[], metavar="NAME",
                        help="run only these implementations (repeatable) and merge their results into the existing "
                             "files")
    parser.add_argument("--scenarios", action="append", default=[], metavar="PATH",
                        help="run only the scenarios under these files or folders (repeatable) and merge their "
                             "results into the existing files")
    parser.add_argument("--no-install", action="store_true",
                        help="use each release's environment as it is: install nothing, record what it holds")
    parser.add_argument("--envs", type=Path, default=ROOT / ".nox" / "versions")
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "versions",
                        help="where the compact release files (committed) and their index go")
    parser.add_argument("--full-out", type=Path, default=ROOT / "reports" / "versions-full",
                        help="where the full release files go (never committed; a CI artifact at most)")
    parser.add_argument("--markdown", type=Path, default=ROOT / "results" / "version-matrix.md")
    parser.add_argument("--json", type=Path, default=ROOT / "results" / "version-matrix.json")
    args = parser.parse_args(argv)
    status = 0
    if not args.matrix_only:
        for framework in chosen_frameworks(args.framework, args.versions):
            unknown = [name for name in args.impl if name not in framework.implementations]
            if unknown:
                raise SystemExit(f"error: {framework.package} is not driven by {', '.join(unknown)} (its "
                                 f"implementations: {', '.join(framework.implementations)})")
            paths = tuple(dict.fromkeys(str(Path(p).resolve()) for p in args.scenarios))
            selection = Selection(tuple(dict.fromkeys(args.impl)), tuple(dict.fromkeys(args.provider)),
                                  install=not args.no_install, scenario_paths=paths,
                                  scenario_ids=scenario_ids(paths) if paths else frozenset())
            versions = args.versions or released_versions(framework)
            pairings = companion_pairings(framework, versions, args.envs, keep_cache=selection.install)
            for version in versions:
                status |= run_one(framework, version, args.envs, args.out, pairings.get(version), selection,
                                  full_out=args.full_out)
    write_index_and_matrix(args.out, args.markdown, args.json)
    return status


if __name__ == "__main__":
    raise SystemExit(main())

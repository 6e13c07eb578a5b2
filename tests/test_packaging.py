"""The installable harness: what a built wheel carries, and an outside adapter plugged in through its entry point.

The `slow` tests do what another project's CI does: build the sdist and, from it, the wheel (as `pip install` from
the registry would), install the wheel and the toy adapter of examples/toy_loop into a fresh virtual environment
outside the checkout, and run the `loop-conformance` command from an empty folder. No network: the builds run
without isolation on this environment's setuptools (`build` and `setuptools>=77.0.3` come with the `test` extra),
the installs use `--no-deps --no-index`, and the fresh environment finds the dependencies (pydantic, pyyaml, ...) in
this one's site-packages through a `.pth` file written after the installs. Such a path entry does not run this
environment's own `.pth` files, so the checkout's editable install stays invisible there, which
`test_the_fresh_environment_imports_the_wheel_not_the_checkout` proves.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import site
import subprocess
import sys
import tarfile
import venv
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import pytest
from requirements_helper import require

from harness import MODES, run_suite
from harness.bundled import BUNDLED_BASELINE, BUNDLED_SCENARIOS
from harness.scenario.loader import discover, load_many
from harness.scenario.model import Scenario

ROOT = Path(__file__).resolve().parents[1]
TOY = ROOT / "examples" / "toy_loop"
TOY_CAPABILITIES = frozenset({"reasoning", "call-item-ids"})
SCENARIO_FILES = [path.relative_to(ROOT).as_posix() for path in discover([ROOT / "scenarios"])]
# Build outputs, caches and environments a checkout may hold; the rest is copied and built as it is.
_NOT_SOURCES = shutil.ignore_patterns(".git", ".nox", ".venv", ".ci-venv", "build", "dist", "reports", "*.egg-info",
                                      "__pycache__", ".pytest_cache", ".hypothesis", ".ruff_cache")

# Scenarios that need a capability they do not declare, so a loop without it fails them instead of reporting n/a.
# Each is a scenario to fix (add the capability to its `requires:`), not a defect of the toy loop: once fixed, the
# toy loop reports it n/a and the entry must go.
UNDECLARED_REQUIREMENTS: dict[str, str] = {}


def test_the_checkout_is_what_an_editable_install_uses() -> None:
    assert BUNDLED_SCENARIOS == ROOT / "scenarios"
    assert BUNDLED_BASELINE == ROOT / "baselines" / "known-failures.yaml"


# --- the toy adapter, in this process: fast feedback on the worked example --------------------------------------


def test_the_toy_loop_passes_every_scenario_it_claims_and_the_rest_are_na(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(TOY))
    from toy_loop.conformance import adapter  # type: ignore[import-not-found]  # examples/, not an installed package

    toy = adapter()
    assert toy.capabilities == TOY_CAPABILITIES
    suite = run_suite([toy], [BUNDLED_SCENARIOS], MODES)
    assert not suite.file_errors
    _assert_toy_verdicts(Verdict(r.scenario, r.mode, r.verdict, r.reason) for r in suite.results)


# --- a built wheel in a fresh environment ----------------------------------------------------------------------


@dataclass(frozen=True)
class Built:
    sdist: Path
    wheel: Path
    toy_wheel: Path


@dataclass(frozen=True)
class FreshEnvironment:
    bin: Path
    python: Path

    def run(self, command: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        environment = {k: v for k, v in os.environ.items()
                       if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "GITHUB_STEP_SUMMARY")}
        return subprocess.run([str(self.bin / command), *args], cwd=cwd, env=environment, capture_output=True,
                              text=True, timeout=600, check=False)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The sdist, the wheel built from it, and the toy adapter's wheel; each built from a copy of its sources, so
    the checkout gets no build/ or egg-info."""
    require(importlib.util.find_spec("build") is not None and _setuptools_builds_wheels(),
            "building offline needs `build` and setuptools>=77.0.3: pip install -e '.[test]'")
    root = tmp_path_factory.mktemp("packaging")
    dist = root / "dist"
    shutil.copytree(ROOT, root / "harness-src", ignore=_NOT_SOURCES)
    shutil.copytree(TOY, root / "toy-src", ignore=_NOT_SOURCES)
    _check([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(root / "harness-src")])
    _check([sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir", str(dist), str(root / "toy-src")])
    return Built(_one(dist.glob("loop_conformance-*.tar.gz")), _one(dist.glob("loop_conformance-*.whl")),
                 _one(dist.glob("loop_conformance_toy_loop-*.whl")))


@pytest.fixture(scope="module")
def fresh(built: Built, tmp_path_factory: pytest.TempPathFactory) -> FreshEnvironment:
    """A new virtual environment outside the checkout holding the wheel and the toy adapter."""
    where = tmp_path_factory.mktemp("fresh") / "venv"
    venv.create(where, with_pip=False)
    bin_dir = where / ("Scripts" if sys.platform == "win32" else "bin")
    python = bin_dir / ("python.exe" if sys.platform == "win32" else "python")
    _check([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "--quiet",
            str(built.wheel), str(built.toy_wheel)])
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    borrowed = [p for p in [*site.getsitepackages(), site.getusersitepackages()] if Path(p).is_dir()]
    (Path(purelib) / "_borrowed_dependencies.pth").write_text("\n".join(borrowed) + "\n", encoding="utf-8")
    return FreshEnvironment(bin_dir, python)


@pytest.fixture
def empty_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    return folder


@pytest.mark.slow
def test_the_sdist_ships_the_scenarios_the_baseline_and_the_build_hook(built: Built) -> None:
    with tarfile.open(built.sdist) as archive:
        names = {name.partition("/")[2] for name in archive.getnames()}
    assert {*SCENARIO_FILES, "baselines/known-failures.yaml", "build_support/bundle_suite.py", "MANIFEST.in"} <= names


@pytest.mark.slow
def test_the_wheel_carries_the_bundled_suite_inside_the_package(built: Built) -> None:
    with zipfile.ZipFile(built.wheel) as archive:
        names = set(archive.namelist())
    assert {f"harness/_data/{path}" for path in SCENARIO_FILES} <= names
    assert "harness/_data/baselines/known-failures.yaml" in names
    assert not any(name.startswith(("scenarios/", "baselines/")) for name in names)  # nothing at the top level


@pytest.mark.slow
def test_the_fresh_environment_imports_the_wheel_not_the_checkout(fresh: FreshEnvironment, empty_folder: Path
                                                                   ) -> None:
    probe = ("import json, harness, harness.bundled as b\n"
             "from harness.reporting.baseline import load_baseline\n"
             "print(json.dumps([harness.__file__, str(b.BUNDLED_SCENARIOS), str(b.BUNDLED_BASELINE),\n"
             "                  len(load_baseline(b.BUNDLED_BASELINE).known_failures)]))")
    done = fresh.run(fresh.python.name, "-c", probe, cwd=empty_folder)
    assert done.returncode == 0, done.stderr
    module, scenarios, baseline, known = json.loads(done.stdout)
    package = Path(module).parent
    assert package.parent.name == "site-packages"
    assert not package.is_relative_to(ROOT)
    assert Path(scenarios) == package / "_data" / "scenarios"
    assert Path(baseline) == package / "_data" / "baselines" / "known-failures.yaml"
    assert known > 0


@pytest.mark.slow
def test_run_from_any_folder_runs_the_whole_bundled_suite(fresh: FreshEnvironment, empty_folder: Path) -> None:
    done = fresh.run("loop-conformance", "run", "--impl", "reference", "--no-baseline", "--json", "out.json",
                     cwd=empty_folder)
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((empty_folder / "out.json").read_text(encoding="utf-8"))["results"]
    assert len({r["scenario"] for r in results}) == len(SCENARIO_FILES)
    assert {r["verdict"] for r in results} <= {"pass", "n/a"}
    # Paths relative to the scenario root's folder, never the machine's: the bundled suite's, wherever installed.
    assert all(r["path"].startswith("scenarios/") for r in results)
    written = {p.name for p in (empty_folder / "reports").iterdir()}
    assert {"coverage.md", "coverage.html", "coverage.json", "junit.xml"} <= written
    assert "coverage reports written to reports/" in done.stdout


@pytest.mark.slow
def test_list_shows_the_toy_adapter_beside_the_bundled_ones(fresh: FreshEnvironment, empty_folder: Path) -> None:
    done = fresh.run("loop-conformance", "list", cwd=empty_folder)
    assert done.returncode == 0, done.stderr
    assert {"reference", "toy_loop"} <= set(done.stdout.split())


@pytest.mark.slow
def test_the_installed_toy_adapter_is_discovered_and_run(fresh: FreshEnvironment, empty_folder: Path) -> None:
    done = fresh.run("loop-conformance", "run", "--impl", "toy_loop", "--no-baseline", "--json", "toy.json",
                     "--reports", "toy-reports", cwd=empty_folder)
    results: list[dict[str, Any]] = json.loads((empty_folder / "toy.json").read_text(encoding="utf-8"))["results"]
    assert {r["implementation"] for r in results} == {"toy_loop"}
    _assert_toy_verdicts(Verdict(r["scenario"], r["mode"], r["verdict"], r["reason"]) for r in results)
    assert done.returncode == (1 if UNDECLARED_REQUIREMENTS else 0), done.stderr
    assert (empty_folder / "toy-reports" / "coverage.md").is_file()
    assert not (empty_folder / "reports").exists()
    assert "coverage reports written to toy-reports/" in done.stdout


# --- helpers -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    scenario: str
    mode: str
    verdict: str
    reason: str


def _assert_toy_verdicts(verdicts: Iterable[Verdict]) -> None:
    """Pass where the toy loop has every capability the scenario requires, n/a with the reason elsewhere."""
    scenarios = {s.id: s for s in _bundled_scenarios()}
    seen = {(v.scenario, v.mode): v for v in verdicts}
    assert {s for s, _ in seen} == set(scenarios)
    for scenario_id, capability in UNDECLARED_REQUIREMENTS.items():
        assert capability not in scenarios[scenario_id].spec.requires, (
            f"{scenario_id} now requires {capability}: remove it from UNDECLARED_REQUIREMENTS")
    for (scenario_id, mode), got in seen.items():
        expected, reason = _expected_toy_verdict(scenarios[scenario_id], mode)
        wrong = f"{scenario_id} [{mode}]: {got.verdict} ({got.reason}), expected {expected} ({reason})"
        assert got.verdict == expected, wrong
        assert reason in got.reason, wrong


def _expected_toy_verdict(scenario: Scenario, mode: str) -> tuple[str, str]:
    if scenario.spec.not_observable is not None:
        return "n/a", "not observable"
    missing = sorted(set(scenario.needs()) - TOY_CAPABILITIES)
    if missing:
        return "n/a", f"toy_loop lacks capability: {', '.join(missing)}"
    if mode not in scenario.modes():
        return "n/a", "runs only in"
    providers = scenario.spec.providers
    if providers is not None and "neutral" not in providers.only:
        return "n/a", f"scenario runs only over {', '.join(providers.only)}"
    if scenario.id in UNDECLARED_REQUIREMENTS:
        return "fail", ""
    return "pass", ""


def _bundled_scenarios() -> list[Scenario]:
    scenarios, errors = load_many([BUNDLED_SCENARIOS])
    assert not errors
    return scenarios


def _setuptools_builds_wheels() -> bool:
    try:
        major, minor = (int(part) for part in version("setuptools").split(".")[:2])
    except (PackageNotFoundError, ValueError):  # absent, or a version this cannot read: do not build offline
        return False
    return (major, minor) >= (77, 0)  # the SPDX license (PEP 639); 77.0.0-77.0.2 are yanked


def _check(command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}"


def _one(paths: Iterator[Path]) -> Path:
    found = list(paths)
    assert len(found) == 1, found
    return found[0]

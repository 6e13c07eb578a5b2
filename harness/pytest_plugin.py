"""The pytest plugin: scenario files become test items, one per implementation × mode.

Registered through the ``pytest11`` entry point. Hooks stay thin and hand off to the engine.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.contract import MODES, LoopAdapter, Mode
from harness.errors import ScenarioFileError
from harness.reporting.baseline import BUNDLED_BASELINE, BaselineError, KnownFailure, apply_baseline, load_baseline
from harness.reporting.text import render_failure
from harness.results import ScenarioResult
from harness.run.registry import implementation_names, installed_adapters, load_adapter
from harness.run.runner import run_scenario
from harness.scenario.loader import SCENARIO_SUFFIXES, load_scenario
from harness.scenario.model import Scenario

_ADAPTERS = pytest.StashKey[list[LoopAdapter]]()
_ROOTS = pytest.StashKey[list[Path]]()
_KNOWN = pytest.StashKey[list[KnownFailure]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("loop-conformance", "function-calling loop conformance scenarios")
    group.addoption("--lc-impl", action="append", default=[], metavar="NAME",
                    help="implementation to run scenarios against (repeatable; default: every installed one)")
    group.addoption("--lc-mode", choices=MODES, default=None, help="only this response mode (default: both)")
    group.addoption("--lc-baseline", default=None, metavar="FILE",
                    help="known failures, reported as xfail (default: the bundled baselines/known-failures.yaml)")
    group.addoption("--lc-scenarios", action="append", default=[], metavar="DIR",
                    help="folder whose YAML files are scenarios (repeatable; default: <rootdir>/scenarios)")


def pytest_configure(config: pytest.Config) -> None:
    roots = [Path(p).resolve() for p in _strings(config, "--lc-scenarios")] or [config.rootpath / "scenarios"]
    config.stash[_ROOTS] = roots
    baseline: str | None = config.getoption("--lc-baseline")
    path = Path(baseline) if baseline else (BUNDLED_BASELINE if BUNDLED_BASELINE.exists() else None)
    try:
        config.stash[_KNOWN] = list(load_baseline(path).known_failures) if path else []
    except BaselineError as error:
        raise pytest.UsageError(str(error)) from None
    unknown = [n for n in _strings(config, "--lc-impl") if n not in implementation_names()]
    if unknown:
        installed = ", ".join(implementation_names()) or "none"
        raise pytest.UsageError(f"no implementation named '{unknown[0]}' is installed (installed: {installed})")
    config.addinivalue_line("markers", "spec_row(name): the spec matrix row a scenario item covers")


def _strings(config: pytest.Config, option: str) -> list[str]:
    value: list[str] | None = config.getoption(option)
    return list(value or [])


def _adapters(config: pytest.Config) -> list[LoopAdapter]:
    if _ADAPTERS not in config.stash:
        names = _strings(config, "--lc-impl")
        if names:
            config.stash[_ADAPTERS] = [load_adapter(name) for name in names]
        else:
            config.stash[_ADAPTERS] = installed_adapters()[0]
    return config.stash[_ADAPTERS]


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix not in SCENARIO_SUFFIXES:
        return None
    roots = parent.config.stash[_ROOTS]
    if not any(file_path.resolve().is_relative_to(root) for root in roots):
        return None
    return ScenarioFile.from_parent(parent, path=file_path)  # pyright: ignore[reportUnknownMemberType]


class ScenarioFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        try:
            scenario = load_scenario(self.path)
        except ScenarioFileError as error:
            yield MalformedScenarioItem.from_parent(  # pyright: ignore[reportUnknownMemberType]
                self, name="scenario-file", error=error)
            return
        mode_option: Mode | None = self.config.getoption("--lc-mode")
        modes: tuple[Mode, ...] = (mode_option,) if mode_option else MODES
        for adapter in _adapters(self.config):
            for mode in modes:
                yield ScenarioItem.from_parent(  # pyright: ignore[reportUnknownMemberType]
                    self, name=f"{scenario.id}[{adapter.name}-{mode}]", scenario=scenario, adapter=adapter, mode=mode)


class ScenarioFailedError(Exception):
    def __init__(self, result: ScenarioResult) -> None:
        super().__init__(result.scenario)
        self.result = result


class ScenarioItem(pytest.Item):
    def __init__(self, *, scenario: Scenario, adapter: LoopAdapter, mode: Mode, **kwargs: Any) -> None:
        super().__init__(**kwargs)  # pyright: ignore[reportUnknownMemberType]
        self.scenario = scenario
        self.adapter = adapter
        self.mode: Mode = mode
        for row in scenario.spec.spec:
            self.user_properties.append(("spec_row", row))
            self.add_marker(pytest.mark.spec_row(row))
        self.user_properties.extend([("implementation", adapter.name), ("mode", mode)])

    def runtest(self) -> None:
        result = asyncio.run(run_scenario(self.scenario, self.adapter, self.mode))
        result = apply_baseline(result, self.config.stash[_KNOWN])
        self.user_properties.append(("verdict", result.verdict))
        if result.verdict == "n/a":
            pytest.skip(f"n/a: {result.reason}")
        if result.verdict == "xfail":
            pytest.xfail(result.reason)
        if result.verdict in ("fail", "error"):
            raise ScenarioFailedError(result)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ScenarioFailedError):
            return render_failure(excinfo.value.result, verbose=self.config.get_verbosity() >= 2)
        return str(super().repr_failure(excinfo, style))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.scenario.line - 1, f"{self.scenario.id} [{self.adapter.name}, {self.mode}]"


class MalformedScenarioItem(pytest.Item):
    def __init__(self, *, error: ScenarioFileError, **kwargs: Any) -> None:
        super().__init__(**kwargs)  # pyright: ignore[reportUnknownMemberType]
        self.error = error

    def runtest(self) -> None:
        raise self.error

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ScenarioFileError):
            return excinfo.value.render()
        return str(super().repr_failure(excinfo, style))

    def reportinfo(self) -> tuple[Path, int, str]:
        first = self.error.problems[0]
        return self.path, first.line - 1, f"malformed scenario {self.path.name}"

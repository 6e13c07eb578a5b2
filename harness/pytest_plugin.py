"""The pytest plugin: scenario files become test items, one per implementation × provider × mode.

An item's id names its provider only when it is not the neutral one (``[agent_framework-streaming]``,
``[agent_framework-streaming-openai-chat]``), so the ids of neutral runs are those they always were.

Registered through the ``pytest11`` entry point. Hooks stay thin and hand off to the engine.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, cast

import pytest

from harness.bundled import BUNDLED_SCENARIOS
from harness.contract import DIALECTS, MODES, Dialect, Mode
from harness.errors import ScenarioFileError, UnknownImplementationError
from harness.reporting.baseline import BUNDLED_BASELINE, BaselineError, KnownFailure, apply_baseline, load_baseline
from harness.reporting.text import render_failure, run_where
from harness.results import ScenarioResult, with_provider
from harness.run.isolation import (
    RUN_TIMEOUT_SECONDS,
    START_TIMEOUT_SECONDS,
    RunRequest,
    WorkerPool,
    probe,
    run_requests,
)
from harness.run.registry import check_known, implementation_names
from harness.run.worker import ProbeOutcome
from harness.scenario.loader import (
    SCENARIO_SUFFIXES,
    duplicate_id_error,
    inside_root,
    load_scenario,
    outside_root_error,
)
from harness.scenario.model import Scenario

_ADAPTERS = pytest.StashKey[list[ProbeOutcome]]()
_ROOTS = pytest.StashKey[list[Path]]()
_KNOWN = pytest.StashKey[list[KnownFailure]]()
_POOL = pytest.StashKey[WorkerPool]()
_COLLECTED = pytest.StashKey[set[str]]()  # real paths of the scenario files collected so far
MIN_START_SECONDS = 30.0  # the least time a worker gets to start and build an adapter


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("loop-conformance", "function-calling loop conformance scenarios")
    group.addoption("--lc-timeout", type=float, default=RUN_TIMEOUT_SECONDS, metavar="SECONDS",
                    help=f"hard limit on one scenario run (default: {RUN_TIMEOUT_SECONDS:g})")
    group.addoption("--lc-impl", action="append", default=[], metavar="NAME",
                    help="implementation to run scenarios against (repeatable; default: every installed one)")
    group.addoption("--lc-mode", choices=MODES, default=None, help="only this response mode (default: both)")
    group.addoption("--lc-provider", action="append", choices=DIALECTS, default=[], metavar="PROVIDER",
                    help="only this provider: neutral or a wire format, one of "
                         f"{', '.join(DIALECTS[1:])} (repeatable; default: every provider each implementation "
                         "supports)")
    group.addoption("--lc-baseline", default=None, metavar="FILE",
                    help="known failures, reported as xfail (default: the bundled baselines/known-failures.yaml)")
    group.addoption("--lc-scenarios", action="append", default=[], metavar="DIR",
                    help="folder whose YAML files are scenarios, collected and run wherever it lies, inside "
                         "pytest's rootdir and testpaths or not (repeatable; write --lc-scenarios=DIR, as pytest "
                         "takes a separate path argument as a hint for its rootdir and ini file)")
    group.addoption("--lc-bundled", action="store_true", dest="lc_bundled", default=None,
                    help="collect the bundled scenarios too, wherever pytest runs (default: with --lc-scenarios "
                         "only those folders; without it the bundled scenarios, where pytest's own arguments reach "
                         "them, as the checkout's testpaths do)")
    group.addoption("--lc-no-bundled", action="store_false", dest="lc_bundled",
                    help="never collect the bundled scenarios")


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_ROOTS] = _scenario_roots(config)
    baseline: str | None = config.getoption("--lc-baseline")
    path = Path(baseline) if baseline else (BUNDLED_BASELINE if BUNDLED_BASELINE.exists() else None)
    try:
        config.stash[_KNOWN] = list(load_baseline(path).known_failures) if path else []
    except BaselineError as error:
        raise pytest.UsageError(str(error)) from None
    for name in _strings(config, "--lc-impl"):
        try:
            check_known(name)
        except UnknownImplementationError as error:
            raise pytest.UsageError(str(error)) from None
    config.addinivalue_line("markers", "spec_row(name): the spec matrix row a scenario item covers")


def _strings(config: pytest.Config, option: str) -> list[str]:
    value: list[str] | None = config.getoption(option)
    return list(value or [])


def _scenario_roots(config: pytest.Config) -> list[Path]:
    """The folders whose YAML files are scenarios; those pytest's own arguments miss join its arguments."""
    folders = _scenario_folders(config)
    bundled_option: bool | None = config.getoption("lc_bundled")
    if bundled_option and not BUNDLED_SCENARIOS.is_dir():
        raise pytest.UsageError(f"--lc-bundled: no bundled scenarios at {BUNDLED_SCENARIOS}")
    with_bundled = [*folders, BUNDLED_SCENARIOS.resolve()]
    # Named folders are collected by adding them to pytest's own collection arguments, as if they had been named
    # on the command line, rather than by a collector of our own bolted onto the session: pytest then gives their
    # items node ids (relative to the folder when it lies outside the rootdir), reports their collection errors,
    # and applies -k/-m/--deselect/--lf, --collect-only and xdist's distribution to them as to any item, through
    # the public `config.args` alone, whatever the pytest version's collection internals. The bundled scenarios
    # are added only on --lc-bundled: the plugin loads in every project that installs the harness and must not
    # add a suite to its runs unasked; otherwise they are items where pytest's own arguments reach them.
    config.args.extend(str(folder) for folder in _unreached(config, with_bundled if bundled_option else folders))
    if bundled_option or (bundled_option is None and not folders):
        return with_bundled
    return folders


def _scenario_folders(config: pytest.Config) -> list[Path]:
    folders = [(config.invocation_params.dir / name).resolve() for name in _strings(config, "--lc-scenarios")]
    missing = [folder for folder in folders if not folder.is_dir()]
    if missing:
        raise pytest.UsageError(f"--lc-scenarios: {missing[0]} is not a folder")
    return list(dict.fromkeys(folders))


def _unreached(config: pytest.Config, folders: Sequence[Path]) -> list[Path]:
    """The folders pytest's collection arguments do not reach already, parents first, each once.

    An argument reaches a folder when it names that folder or one above it (pytest walks into it; a folder its
    norecursedirs or --ignore hides stays hidden, as with `pytest . .hidden`). An argument given on the command
    line that names something inside a folder narrows the run to that part, so the whole folder is not added.
    """
    here = config.invocation_params.dir
    arguments = [(here / argument.split("::")[0]).resolve() for argument in config.args]
    narrowed = config.args_source == pytest.Config.ArgsSource.ARGS
    added: list[Path] = []
    for folder in sorted(folders, key=lambda path: len(path.parts)):
        if any(folder.is_relative_to(reached) for reached in (*arguments, *added)):
            continue
        if narrowed and any(argument.is_relative_to(folder) for argument in arguments):
            continue
        added.append(folder)
    return added


def _adapters(config: pytest.Config) -> list[ProbeOutcome]:
    """Each implementation to run: its adapter built once in the worker process that will run its items, never in
    pytest's own (a factory that crashes, hangs or patches the interpreter must not take pytest with it), as the
    name it is loaded by, the name and version it reports and the providers it runs over."""
    if _ADAPTERS not in config.stash:
        asked = _strings(config, "--lc-impl")
        loaded: list[ProbeOutcome] = []
        for outcome in probe(_pool(config), asked or implementation_names()):
            if outcome.unavailable is not None:  # a missing extra: only an error when asked for by name
                if outcome.implementation in asked:
                    raise pytest.UsageError(f"implementation '{outcome.implementation}' is {outcome.unavailable}")
            elif outcome.broken is not None:  # a broken factory is the user's to fix, shown plainly
                raise pytest.UsageError(f"implementation '{outcome.implementation}' cannot be built: "
                                        f"{outcome.broken}")
            else:
                loaded.append(outcome)
        config.stash[_ADAPTERS] = loaded
    return config.stash[_ADAPTERS]


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix not in SCENARIO_SUFFIXES:
        return None
    # Where the file was found, links not followed: a link inside a scenario folder is a scenario file, and is
    # refused unread when it leads out of that folder.
    found = file_path.parent.resolve() / file_path.name
    root = next((root for root in parent.config.stash[_ROOTS] if found.is_relative_to(root)), None)
    if root is None:
        return None
    if not inside_root(file_path, root):
        return ScenarioFile.from_parent(  # pyright: ignore[reportUnknownMemberType]
            parent, path=file_path, refusal=outside_root_error(file_path, root))
    collected = parent.config.stash.setdefault(_COLLECTED, set())
    real = os.path.realpath(file_path)
    if real in collected:  # a link to a file collected already (or the file a link collected): its runs once
        return None
    collected.add(real)
    return ScenarioFile.from_parent(parent, path=file_path)  # pyright: ignore[reportUnknownMemberType]


class ScenarioFile(pytest.File):
    def __init__(self, *, refusal: ScenarioFileError | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)  # pyright: ignore[reportUnknownMemberType]
        self.refusal = refusal

    def collect(self) -> Iterator[pytest.Item]:
        try:
            if self.refusal is not None:
                raise self.refusal
            scenario = load_scenario(self.path)
        except ScenarioFileError as error:
            yield MalformedScenarioItem.from_parent(  # pyright: ignore[reportUnknownMemberType]
                self, name="scenario-file", error=error)
            return
        mode_option: Mode | None = self.config.getoption("--lc-mode")
        modes: tuple[Mode, ...] = (mode_option,) if mode_option else MODES
        asked: list[Dialect] = self.config.getoption("--lc-provider") or []
        for adapter in _adapters(self.config):
            for dialect in adapter.dialects:
                if asked and dialect not in asked:
                    continue
                for mode in modes:
                    parameters = "-".join(with_provider([adapter.name, mode], dialect))
                    yield ScenarioItem.from_parent(  # pyright: ignore[reportUnknownMemberType]
                        self, name=f"{scenario.id}[{parameters}]", scenario=scenario, adapter=adapter, mode=mode,
                        dialect=dialect)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Scenario files that share an id are errors, each naming the others, as the command line reports them: no
    result could say which of them it belongs to."""
    owners: dict[str, dict[Path, Scenario]] = {}
    for item in items:
        if isinstance(item, ScenarioItem):
            owners.setdefault(item.scenario.id, {})[item.scenario.path] = item.scenario
    shared = {path: (scenario, [other for other in files if other != path])
              for files in owners.values() if len(files) > 1 for path, scenario in files.items()}
    if not shared:
        return
    replaced: list[pytest.Item] = []
    reported: set[Path] = set()
    for item in items:
        if not isinstance(item, ScenarioItem) or item.scenario.path not in shared:
            replaced.append(item)
        elif item.scenario.path not in reported:
            reported.add(item.scenario.path)
            scenario, others = shared[item.scenario.path]
            parent = cast(pytest.Collector, item.parent)
            replaced.append(MalformedScenarioItem.from_parent(  # pyright: ignore[reportUnknownMemberType]
                parent, name="scenario-file", error=duplicate_id_error(scenario, others)))
    items[:] = replaced


class ScenarioFailedError(Exception):
    def __init__(self, result: ScenarioResult) -> None:
        super().__init__(result.scenario)
        self.result = result


class ScenarioItem(pytest.Item):
    def __init__(self, *, scenario: Scenario, adapter: ProbeOutcome, mode: Mode,
                 dialect: Dialect = "neutral", **kwargs: Any) -> None:
        super().__init__(**kwargs)  # pyright: ignore[reportUnknownMemberType]
        self.scenario = scenario
        self.adapter = adapter
        self.reference = adapter.implementation  # how the worker process loads the same adapter
        self.mode: Mode = mode
        self.dialect: Dialect = dialect
        for row in scenario.spec.spec:
            self.user_properties.append(("spec_row", row))
            self.add_marker(pytest.mark.spec_row(row))
        self.user_properties.extend([("implementation", adapter.name), ("mode", mode), ("provider", dialect)])

    def runtest(self) -> None:
        # In a worker process under a hard limit, as the CLI runs it: a loop that never yields must not hang pytest.
        request = RunRequest(self.scenario, self.reference, self.mode, self.dialect)
        identity = {self.reference: (self.adapter.name, self.adapter.version)}
        (result,) = run_requests(_pool(self.config), [request], identity)
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
        where = run_where(self.adapter.name, self.mode, self.dialect)
        return self.path, self.scenario.line - 1, f"{self.scenario.id} [{where}]"


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


def _pool(config: pytest.Config) -> WorkerPool:
    """One worker process per pytest process (per xdist worker), started on first use and reused."""
    if _POOL not in config.stash:
        timeout = cast(float, config.getoption("--lc-timeout"))
        # Building an adapter (importing its framework) gets the run limit too, but never less than a slow import
        # needs: a factory that hangs then stops collection for that long, not for good.
        start = min(START_TIMEOUT_SECONDS, max(timeout, MIN_START_SECONDS))
        config.stash[_POOL] = WorkerPool(1, timeout, start_timeout=start)
    return config.stash[_POOL]


def pytest_unconfigure(config: pytest.Config) -> None:
    if _POOL in config.stash:
        config.stash[_POOL].close()

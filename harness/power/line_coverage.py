"""Which lines of the loop modules each scenario × mode executes: one coverage.py run with a dynamic context per
scenario × mode, in a forked child that imports the loop afresh. The same run records each scenario's verdict and
failing checks on the unmutated loop, the baseline mutants are judged against."""

from __future__ import annotations

import asyncio
import hashlib
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from harness.contents import JSON
from harness.contract import Mode
from harness.errors import HarnessError
from harness.power.forked import ForkJob, run_forked
from harness.power.probe import Probe, forget_fresh
from harness.scenario.model import Scenario
from harness.scenario.spec_rows import SpecRow, rows_by_name

IMPORT_CONTEXT = ""  # coverage.py's context for what ran before the first scenario: module-level code at import


class CoverageRunError(HarnessError):
    """The coverage run could not finish (coverage.py missing, the adapter failed to build, a timeout)."""


@dataclass(frozen=True)
class ContextRun:
    """One scenario × mode run on the unmutated loop."""

    scenario: str
    mode: Mode
    rows: tuple[str, ...]  # "Section › Row" of every spec row the scenario names
    verdict: str
    failing: tuple[str, ...]  # the ids of its failing (or erroring) checks
    seconds: float

    @property
    def key(self) -> str:
        return context_key(self.scenario, self.mode)


@dataclass(frozen=True)
class ModuleLines:
    name: str
    path: str
    sha256: str
    statements: tuple[int, ...]
    contexts_by_line: dict[int, tuple[str, ...]]  # executed line -> context keys ("" for import time)


@dataclass(frozen=True)
class LoopCoverage:
    implementation: str
    version: str
    modules: tuple[ModuleLines, ...]
    runs: dict[str, ContextRun]  # context key -> run; n/a runs are absent

    def module(self, name: str) -> ModuleLines:
        return next(m for m in self.modules if m.name == name)

    def at_import(self, module: str, lines: Sequence[int]) -> bool:
        """One of `lines` is module-level code, run at import rather than by a scenario."""
        by_line = self.module(module).contexts_by_line
        return any(IMPORT_CONTEXT in by_line.get(line, ()) for line in lines)

    def contexts_for(self, module: str, lines: Sequence[int]) -> tuple[str, ...]:
        """The scenario × mode contexts that execute any of `lines` of `module`; every context when one of the lines
        ran only at import (module-level code: every run depends on it)."""
        by_line = self.module(module).contexts_by_line
        found: set[str] = set()
        for line in lines:
            found.update(by_line.get(line, ()))
        if IMPORT_CONTEXT in found:
            return tuple(self.runs)
        return tuple(key for key in self.runs if key in found)


def context_key(scenario: str, mode: Mode) -> str:
    return f"{scenario}|{mode}"


def row_label(row: SpecRow) -> str:
    return f"{row.section} › {row.name}"


def source_hash(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _measure(probe: Probe, scenarios: Sequence[Scenario], modes: Sequence[Mode]) -> JSON:
    """In the child: every scenario × mode under coverage, contexts switched between runs."""
    import coverage

    from harness.run.registry import load_adapter
    from harness.run.runner import run_scenario

    forget_fresh(probe.fresh)
    paths = [path for _, path in probe.loop_modules]
    measurer = coverage.Coverage(data_file=None, include=paths, config_file=False)
    measurer.start()
    adapter = load_adapter(probe.implementation)
    rows = rows_by_name()
    runs: dict[str, JSON] = {}
    for scenario in scenarios:
        for mode in modes:
            measurer.switch_context(context_key(scenario.id, mode))
            started = time.perf_counter()
            result = asyncio.run(run_scenario(scenario, adapter, mode))
            if result.verdict == "n/a":
                continue
            named = [row_label(rows[n]) if n in rows else n for n in scenario.spec.spec]
            runs[context_key(scenario.id, mode)] = {
                "scenario": scenario.id, "mode": mode, "rows": list[JSON](named), "verdict": result.verdict,
                "failing": [c.id for c in result.checks if c.verdict in ("fail", "error")],
                "seconds": time.perf_counter() - started}
    measurer.stop()
    data = measurer.get_data()
    modules: list[JSON] = []
    for name, path in probe.loop_modules:
        statements = measurer.analysis2(path)[1]
        by_line = data.contexts_by_lineno(path)
        modules.append({"name": name, "path": path, "sha256": source_hash(path), "statements": list[JSON](statements),
                        "contexts_by_line": {str(line): list[JSON](sorted(c)) for line, c in by_line.items()}})
    return {"version": adapter.version, "modules": modules, "runs": runs}


def measure(probe: Probe, scenarios: Sequence[Scenario], modes: Sequence[Mode],
            timeout: float = 1800.0) -> LoopCoverage:
    """Run every scenario × mode once on the unmutated loop under coverage.py, in a forked child."""
    job = ForkJob("coverage", lambda: _measure(probe, scenarios, modes), timeout)
    outcome = next(iter(run_forked([job])))
    if outcome.status != "done":
        raise CoverageRunError(f"the coverage run of {probe.implementation} failed: {outcome.detail.strip()}")
    return coverage_from_json(probe.implementation, cast(dict[str, JSON], outcome.value))


def portable(path: str) -> str:
    """A module's path as a report stores it, never a machine's: relative to the working directory when below it
    (the checkout's own adapters), else relative to the import root holding it (`agent_framework/_tools.py` of
    site-packages)."""
    candidate = Path(path)
    if not candidate.is_absolute():
        return path
    for root in sorted((Path(entry or ".").resolve() for entry in (str(Path.cwd()), *sys.path)),
                       key=lambda root: -len(root.parts)):
        if candidate.is_relative_to(root):
            return candidate.relative_to(root).as_posix()
    return candidate.name


def located(path: str) -> str:
    """The file a report's (portable) module path names here: below the working directory, else on the import
    path; the path itself when neither holds it (the report then reads as measured elsewhere)."""
    candidate = Path(path)
    if candidate.is_absolute():
        return path
    for root in (Path.cwd(), *(Path(entry) for entry in sys.path if entry)):
        if (root / candidate).is_file():
            return str(root / candidate)
    return path


def coverage_from_json(implementation: str, data: dict[str, JSON]) -> LoopCoverage:
    """The coverage a child (or a loop-coverage JSON report's ``raw`` part) describes."""
    modules: list[ModuleLines] = []
    # A report names each line's contexts by index into `contexts`; a child names them outright.
    names = cast(list[str], data["contexts"]) if "contexts" in data else None
    for raw in cast(list[dict[str, JSON]], data["modules"]):
        by_line = cast(dict[str, list[str | int]], raw["contexts_by_line"])
        modules.append(ModuleLines(str(raw["name"]), located(str(raw["path"])), str(raw["sha256"]),
                                   tuple(sorted(cast(list[int], raw["statements"]))),
                                   {int(line): tuple(names[int(c)] if names is not None else str(c) for c in found)
                                    for line, found in by_line.items()}))
    runs: dict[str, ContextRun] = {}
    for key, raw in cast(dict[str, dict[str, JSON]], data["runs"]).items():
        mode = cast(Mode, raw["mode"])
        runs[key] = ContextRun(str(raw["scenario"]), mode, tuple(cast(list[str], raw["rows"])),
                               str(raw["verdict"]), tuple(cast(list[str], raw["failing"])),
                               float(cast(float, raw["seconds"])))
    return LoopCoverage(implementation, str(data["version"]), tuple(modules), runs)

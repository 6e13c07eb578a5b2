"""Loading scenario files: safe YAML, strict schema, cross-references; every problem of a file at once.

Whatever a file holds, loading it returns a `Scenario` or raises `ScenarioFileError`: no other exception escapes.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from pydantic import ValidationError

from harness.contents import FunctionCall
from harness.contract import LoopConfig
from harness.errors import ScenarioFileError, ScenarioProblem
from harness.scenario.model import Scenario, Turn, build_call, build_step, build_tool
from harness.scenario.references import reference_problems
from harness.scenario.schema import (
    ScenarioSpec,
)
from harness.scenario.schema_errors import problem_at, schema_problems
from harness.scenario.source_text import read_source
from harness.scenario.spec_rows import SPEC_ROWS
from harness.scenario.yaml_source import SourceError, YamlSource, load_yaml

SCENARIO_SUFFIXES = (".yaml", ".yml")
# Callers name files as strings as often as paths; both are taken.
PathLike = str | os.PathLike[str]


def discover(paths: Iterable[PathLike]) -> list[Path]:
    """Scenario files under `paths` (files or folders), sorted for a stable order."""
    found: set[Path] = set()
    for path in map(Path, paths):
        if path.is_dir():
            found.update(p for p in path.rglob("*") if p.suffix in SCENARIO_SUFFIXES and p.is_file())
        else:
            found.add(path)
    return sorted(found)


def load_scenario(path: PathLike, known_rows: Iterable[str] | None = None) -> Scenario:
    """Load one scenario file; raises `ScenarioFileError` listing every problem it has."""
    return _load(Path(path), _rows(known_rows))[0]


def load_scenario_text(path: PathLike, text: str, known_rows: Iterable[str] | None = None) -> Scenario:
    """Load a scenario from `text` as if read from `path` (generated scenarios): `ScenarioFileError` if it is bad."""
    path = Path(path)
    try:
        return _validated(load_yaml(path, text), _rows(known_rows))
    except SourceError as error:
        where = error.position
        problem = ScenarioProblem(path, where.line, where.column, error.code, error.message, error.hint)
        raise ScenarioFileError(path, [problem], text) from None


def load_many(paths: Iterable[PathLike], known_rows: Iterable[str] | None = None,
              ) -> tuple[list[Scenario], list[ScenarioFileError]]:
    """Every scenario file under `paths` (files or folders): the scenarios that load, and the errors of the rest.

    Scenario ids are unique across the files: files that share an id are all errors, each naming the others,
    since no result could say which of them it belongs to.
    """
    rows = _rows(known_rows)
    loaded: list[tuple[Scenario, YamlSource]] = []
    errors: list[ScenarioFileError] = []
    files: set[str] = set()
    for path in discover(paths):
        real = os.path.realpath(path)  # unlike Path.resolve, never raises (e.g. on a symlink loop)
        if real in files:
            continue  # the same file named twice (e.g. relative and absolute) is not a duplicate of itself
        files.add(real)
        try:
            loaded.append(_load(path, rows))
        except ScenarioFileError as error:
            errors.append(error)
    owners: dict[str, list[Path]] = {}
    for scenario, _ in loaded:
        owners.setdefault(scenario.id, []).append(scenario.path)
    scenarios: list[Scenario] = []
    for scenario, source in loaded:
        others = [str(other) for other in owners[scenario.id] if other != scenario.path]
        if not others:
            scenarios.append(scenario)
            continue
        problem = problem_at(source, ("id",), "duplicate-id", f"scenario id '{scenario.id}' is also the id of "
                             f"{', '.join(others)}", "ids are unique and never reused: rename one of them")
        errors.append(ScenarioFileError(scenario.path, [problem], source.text))
    errors.sort(key=lambda error: error.path)
    return scenarios, errors


def _rows(known_rows: Iterable[str] | None) -> set[str]:
    return set(known_rows or (r.name for r in SPEC_ROWS))


def _load(path: Path, known_rows: set[str]) -> tuple[Scenario, YamlSource]:
    text: str | None = None
    try:
        text = read_source(path)
        source = load_yaml(path, text)
        return _validated(source, known_rows), source
    except SourceError as error:
        where = error.position
        problem = ScenarioProblem(path, where.line, where.column, error.code, error.message, error.hint)
        raise ScenarioFileError(path, [problem], text) from None
    except ScenarioFileError:
        raise
    except Exception as error:  # a bug of the harness; still reported against the file that triggered it
        raise ScenarioFileError(path, [_internal_problem(path, error)], text) from error


def _internal_problem(path: Path, error: Exception) -> ScenarioProblem:
    try:
        detail = f"{type(error).__name__}: {error}"[:300]
    except Exception:  # an exception whose message cannot even be formatted
        detail = type(error).__name__
    return ScenarioProblem(path, 1, 1, "internal-error", f"the harness failed while loading this file ({detail})",
                           "this is a bug in the harness, not a mistake in the scenario: please report it with the "
                           "file")


def _validated(source: YamlSource, known_rows: set[str]) -> Scenario:
    path, text = source.path, source.text
    problems = [problem_at(source, p, "duplicate-key", f"duplicate key '{p[-1]}'", key=True)
                for p, _ in source.duplicate_keys]
    data: object = source.data
    if not isinstance(data, dict):
        problems.append(problem_at(source, (), "wrong-type", "a scenario file must hold a mapping"))
        raise ScenarioFileError(path, problems, text)
    try:
        spec = ScenarioSpec.model_validate(data)
    except ValidationError as error:
        problems.extend(schema_problems(source, error.errors()))
        raise ScenarioFileError(path, problems, text) from None
    problems.extend(reference_problems(source, spec, known_rows))
    if problems:
        raise ScenarioFileError(path, problems, text)
    return _build(spec, source)


def _build(spec: ScenarioSpec, source: YamlSource) -> Scenario:
    calls: dict[str, FunctionCall] = {}
    turns: list[Turn] = []
    for t, turn in enumerate(spec.turns):
        for item in turn.input if not isinstance(turn.input, str) else []:
            for content in item.message.contents if item.message is not None else []:
                if content.function_call is not None:
                    call = build_call(content.function_call)
                    calls.setdefault(call.call_id, call)
        steps = tuple(
            build_step(step, t, n + 1, calls, source.position(("turns", t, "model", n)).line)
            for n, step in enumerate(turn.model)
        )
        turns.append(Turn(t, turn, steps, source.position(("turns", t)).line))
    config = LoopConfig(**spec.config.model_dump())
    tools = tuple(build_tool(t) for t in spec.tools)
    return Scenario(spec, source.path, 1, tools, config, tuple(turns), calls, _labels(spec))


def _labels(spec: ScenarioSpec) -> dict[str, tuple[str, int]]:
    seen: dict[str, int] = {}
    labels: dict[str, tuple[str, int]] = {}
    for turn in spec.turns:
        for step in turn.model:
            contents = step.contents or [c for m in (step.messages or []) for c in m.contents]
            for content in contents:
                call = content.function_call
                if call is not None:
                    seen[str(call.call_id)] = seen.get(str(call.call_id), 0) + 1
                    if call.label:
                        labels[call.label] = (str(call.call_id), seen[str(call.call_id)])
    return labels

"""Loading scenario files: safe YAML, strict schema, cross-references; every problem of a file at once.

Whatever a file holds, loading it returns a `Scenario` or raises `ScenarioFileError`: no other exception escapes.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
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
    """Scenario files under `paths` (files or folders), sorted for a stable order; symbolic links that lead out of
    the folder they were found in are left out (`discover_files` says which)."""
    return discover_files(paths)[0]


def discover_files(paths: Iterable[PathLike]) -> tuple[list[Path], list[ScenarioFileError]]:
    """Scenario files under `paths`, sorted, and an error for each one refused unread: a symbolic link whose target
    lies outside its scenario root (the folder named, or for a named file the folder holding it).

    A scenario is data from the repository under test, and a link can point anywhere the harness can read (a
    `.env`, a key): its target is never opened, and the error names neither the target nor any of its text."""
    found: set[Path] = set()
    refused: dict[Path, ScenarioFileError] = {}
    for path in map(Path, paths):
        root = path if path.is_dir() else path.parent
        candidates = [p for p in path.rglob("*") if p.suffix in SCENARIO_SUFFIXES and p.is_file()] if \
            path.is_dir() else [path]
        for candidate in candidates:
            if inside_root(candidate, root):
                found.add(candidate)
            else:
                refused[candidate] = outside_root_error(candidate, root)
    return sorted(found), [refused[path] for path in sorted(refused)]


def inside_root(path: Path, root: Path) -> bool:
    """`path`, symbolic links followed, lies inside `root` (also followed): reading it reads nothing else."""
    real_root = os.path.realpath(root)
    return os.path.commonpath([os.path.realpath(path), real_root]) == real_root


def outside_root_error(path: Path, root: Path) -> ScenarioFileError:
    """The located refusal of a link out of `root`; it says nothing of where the link leads."""
    problem = ScenarioProblem(path, 1, 1, "outside-root", f"this is a symbolic link to a file outside the scenario "
                              f"folder {root}; it is not read", "scenario files are read only inside the folder "
                              "they are found in: copy the scenario there instead of linking to it")
    return ScenarioFileError(path, [problem])


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
    found, errors = discover_files(paths)
    files: set[str] = set()
    for path in sorted(found, key=lambda p: (p.is_symlink(), p)):  # a file reached by a link too: by its own name
        real = os.path.realpath(path)  # unlike Path.resolve, never raises (e.g. on a symlink loop)
        if real in files:
            continue  # the same file reached twice (named relative and absolute, or through a link) is loaded once
        files.add(real)
        try:
            loaded.append(_load(path, rows))
        except ScenarioFileError as error:
            errors.append(error)
    loaded.sort(key=lambda pair: pair[0].path)
    owners: dict[str, list[Path]] = {}
    for scenario, _ in loaded:
        owners.setdefault(scenario.id, []).append(scenario.path)
    scenarios: list[Scenario] = []
    for scenario, source in loaded:
        others = [other for other in owners[scenario.id] if other != scenario.path]
        if not others:
            scenarios.append(scenario)
            continue
        errors.append(duplicate_id_error(scenario, others, source))
    errors.sort(key=lambda error: error.path)
    return scenarios, errors


def duplicate_id_error(scenario: Scenario, others: Sequence[Path], source: YamlSource | None = None,
                       ) -> ScenarioFileError:
    """The error of a scenario whose id `others` files share, located at its `id` (its file is read again when
    `source` is not given)."""
    if source is None:
        try:
            source = load_yaml(scenario.path, read_source(scenario.path))
        except SourceError:  # the file changed since it loaded: point at its start
            source = YamlSource(scenario.path, "")
    problem = problem_at(source, ("id",), "duplicate-id", f"scenario id '{scenario.id}' is also the id of "
                         f"{', '.join(map(str, others))}", "ids are unique and never reused: rename one of them")
    return ScenarioFileError(scenario.path, [problem], source.text or None)


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

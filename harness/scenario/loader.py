"""Loading scenario files: safe YAML, strict schema, cross-references; every problem of a file at once."""

from __future__ import annotations

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
from harness.scenario.spec_rows import SPEC_ROWS
from harness.scenario.yaml_source import YamlSource, YamlSyntaxError, load_yaml

SCENARIO_SUFFIXES = (".yaml", ".yml")



def discover(paths: Iterable[Path]) -> list[Path]:
    """Scenario files under `paths` (files or folders), sorted for a stable order."""
    found: set[Path] = set()
    for path in paths:
        if path.is_dir():
            found.update(p for p in path.rglob("*") if p.suffix in SCENARIO_SUFFIXES and p.is_file())
        else:
            found.add(path)
    return sorted(found)


def load_scenario(path: Path, known_rows: Iterable[str] | None = None) -> Scenario:
    """Load one scenario file; raises `ScenarioFileError` listing every problem it has."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ScenarioFileError(path, [ScenarioProblem(path, 1, 1, "unreadable", str(error))]) from None
    try:
        source = load_yaml(path, text)
    except YamlSyntaxError as error:
        problem = ScenarioProblem(path, error.position.line, error.position.column, "yaml-syntax", str(error))
        raise ScenarioFileError(path, [problem], text) from None
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
    problems.extend(reference_problems(source, spec, set(known_rows or (r.name for r in SPEC_ROWS))))
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

"""Tools declared as Python functions: the signature format, the function adapters build, and a loop that drops
an explicit null."""

from __future__ import annotations

import dataclasses
import inspect
import typing
from pathlib import Path
from typing import Any

import pytest
from negative_controls import adapter_for

from harness import MODES, Mode, ScenarioFileError, load_scenario, run_scenario
from harness.adapters.reference import ReferenceAdapter
from harness.adapters.reference.loop import LoopTool, ReferenceLoop
from harness.contents import FunctionCall
from harness.run.registry import load_adapter
from harness.scenario.schema import SignatureType
from harness.script import ToolParameter
from harness.signatures import SIGNATURE_TYPES, as_received, bind, json_schema, python_function

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "normal" / "python-signature-tool.yaml"
PARAMETERS = (ToolParameter("city", "str"), ToolParameter("days", "int", 3, True),
              ToolParameter("units", "str | None", "metric", True))


def test_the_format_and_the_builder_know_the_same_types() -> None:
    assert set(typing.get_args(SignatureType)) == set(SIGNATURE_TYPES)


def test_binding_fills_defaults_and_keeps_an_explicit_none() -> None:
    assert bind(PARAMETERS, {"city": "Paris"}) == {"city": "Paris", "days": 3, "units": "metric"}
    assert bind(PARAMETERS, {"city": "Rome", "units": None}) == {"city": "Rome", "days": 3, "units": None}
    with pytest.raises(TypeError):
        bind(PARAMETERS, {"days": 1})
    assert as_received(PARAMETERS, {"days": 1}) == {"days": 1}  # what does not bind stays as the model sent it
    assert as_received(None, {"city": "x"}) == {"city": "x"}


def test_the_schema_a_schema_taking_loop_gets() -> None:
    schema = json_schema(PARAMETERS)
    assert schema["required"] == ["city"]
    assert schema["properties"] == {
        "city": {"type": "string"}, "days": {"type": "integer", "default": 3},
        "units": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": "metric"}}


async def test_the_built_function_looks_like_a_users_and_binds_its_call() -> None:
    seen: list[dict[str, Any]] = []

    async def body(arguments: dict[str, Any]) -> str:
        seen.append(arguments)
        return "ok"

    function = python_function("forecast", PARAMETERS, body)
    signature = inspect.signature(function)
    assert list(signature.parameters) == ["city", "days", "units"]
    assert signature.parameters["days"].default == 3
    assert typing.get_type_hints(function)["units"] == str | None
    assert await function(city="Oslo") == "ok"
    assert seen == [{"city": "Oslo", "days": 3, "units": "metric"}]


async def test_an_injected_parameter_reaches_the_body_and_stays_out_of_the_declared_binding() -> None:
    """Room for what a loop fills in itself (a call id): a keyword-only parameter beside the declared ones."""
    seen: list[tuple[dict[str, Any], dict[str, Any]]] = []

    async def body(arguments: dict[str, Any], **injected: Any) -> str:
        seen.append((arguments, injected))
        return "ok"

    function = python_function("forecast", PARAMETERS, body, injected={"call_id": str})
    signature = inspect.signature(function)
    assert list(signature.parameters) == ["city", "days", "units", "call_id"]
    assert signature.parameters["call_id"].kind is inspect.Parameter.KEYWORD_ONLY
    assert typing.get_type_hints(function)["call_id"] is str
    assert await function(city="Oslo", call_id="c1") == "ok"
    assert seen == [({"city": "Oslo", "days": 3, "units": "metric"}, {"call_id": "c1"})]
    with pytest.raises(ValueError, match="'city' is also a declared parameter"):
        python_function("forecast", PARAMETERS, body, injected={"city": str})


@pytest.mark.parametrize(("change", "message"), [
    (("    signature:\n", "    parameters: {type: object}\n    signature:\n"),
     "a tool is declared by 'parameters' (a JSON schema) or by 'signature', not both"),
    (("type: int, default: 3}", "type: integer, default: 3}"), "tool 1 › parameter 2 › type: Input should be"),
    (("requires: [signature-tools]", "requires: []"),
     "error[missing-capability]: a tool declared by 'signature' needs 'signature-tools' in 'requires'"),
])
def test_mistakes_in_a_signature_are_located(tmp_path: Path, change: tuple[str, str], message: str) -> None:
    text = SCENARIO.read_text(encoding="utf-8")
    assert change[0] in text
    path = tmp_path / "scenario.yaml"
    path.write_text(text.replace(*change), encoding="utf-8")
    with pytest.raises(ScenarioFileError) as caught:
        load_scenario(path)
    assert message in str(caught.value)
    assert f"{path}:" in str(caught.value).splitlines()[0]


class DropsNullArguments(ReferenceLoop):
    """Drops every argument the model set to null before calling the tool, so the function takes its default."""

    async def _execute(self, call: FunctionCall, tool: LoopTool | None, state: Any) -> Any:
        if isinstance(call.arguments, dict):
            call = dataclasses.replace(call, arguments={k: v for k, v in call.arguments.items() if v is not None})
        return await super()._execute(call, tool, state)


@pytest.mark.parametrize("mode", MODES)
async def test_the_reference_passes_and_a_loop_dropping_nulls_fails(mode: Mode) -> None:
    scenario = load_scenario(SCENARIO)
    assert (await run_scenario(scenario, ReferenceAdapter(), mode)).verdict == "pass"
    broken = await run_scenario(scenario, adapter_for(DropsNullArguments), mode)
    assert broken.verdict == "fail"
    assert "expect.executions" in {c.id for c in broken.checks if c.verdict == "fail"}


_TERMINATING = """\
id: signature-tool.terminates
title: A tool declared as a Python function whose middleware ends the loop
spec: [Middleware termination]
description: A typed function's body is not told its call id; the loop must still stop after it.
requires: [signature-tools, middleware-termination]
tools:
  - name: book_room
    signature:
      - {name: room, type: str}
    behaviour:
      - return: booked
        terminate: true
turns:
  - input:
      - user: Book room 4
    model:
      - contents:
          - function_call: {call_id: c1, name: book_room, arguments: {room: "4"}}
    expect:
      executions:
        book_room: [{room: "4"}]
      model_calls: 1
      cites: ["Middleware termination"]
"""


@pytest.mark.parametrize("implementation", ["reference", "agent_framework", "openai_agents"])
@pytest.mark.parametrize("mode", MODES)
async def test_a_terminating_signature_tool_ends_the_loop(tmp_path: Path, implementation: str, mode: Mode) -> None:
    pytest.importorskip({"reference": "harness", "agent_framework": "agent_framework",
                         "openai_agents": "agents"}[implementation])
    adapter = load_adapter(implementation)
    path = tmp_path / "terminating.yaml"
    path.write_text(_TERMINATING)
    result = await run_scenario(load_scenario(path), adapter, mode)
    assert result.verdict == "pass", [c for c in result.checks if c.verdict == "fail"]

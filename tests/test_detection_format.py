"""The format extensions issue 28 needed: each is read into what the fakes replay, and each misuse is a located
error, never a traceback."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from loader_problems import problem_lines

from fakes import ScriptedProvider
from harness import load_scenario
from harness.cli import scenario_schema
from harness.contents import FunctionCall, Message, Text

BUNDLED = Path(__file__).resolve().parents[1] / "scenarios"

_SERVICE_ITEM_IDS = """\
    id: test.item-ids
    title: t
    spec: [Single non-streaming call]
    tools: [{name: lookup, returns: ok}]
    turns:
      - input: hi
        model:
          - contents:
              - function_call: {call_id: c1, item_id: fc_1, name: lookup}
          - contents: [{text: done}]
        expect:
          cites: [Single non-streaming call]
          response:
            - role: assistant
              contents: [{function_call: {call_id: c1, name: lookup%s}}]
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "scenario.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_a_scripted_call_carries_the_services_item_id_outside_equality(tmp_path: Path) -> None:
    scenario = load_scenario(_write(tmp_path, _SERVICE_ITEM_IDS % ""))
    call = scenario.turns[0].steps[0].response.messages[0].contents[0]
    assert isinstance(call, FunctionCall)
    assert call.item_id == "fc_1"
    # A loop that returns the call without the service's item id still returns the same call.
    assert call == FunctionCall("c1", "lookup")
    streamed = scenario.turns[0].steps[0].updates[0].contents[0]
    assert isinstance(streamed, FunctionCall)
    assert streamed.item_id == "fc_1"


def test_an_item_id_in_an_expectation_is_a_located_error(tmp_path: Path) -> None:
    lines = problem_lines(_write(tmp_path, _SERVICE_ITEM_IDS % ", item_id: fc_1"))
    assert len(lines) == 1
    assert ":15:" in lines[0], lines
    assert "error[invalid-value]" in lines[0], lines
    assert "'item_id'" in lines[0], lines


_REQUIRED_CHOICE = """\
    id: test.caller-options
    title: t
    spec: [Single non-streaming call]
    %s
    tools: [{name: lookup, returns: ok}]
    turns:
      - input: hi
        options: {tool_choice: %s}
        model:
          - contents: [{text: done}]
"""


def test_caller_options_reach_the_turn_input(tmp_path: Path) -> None:
    scenario = load_scenario(_write(tmp_path, _REQUIRED_CHOICE % ("requires: [caller-options]", "required")))
    options = scenario.turns[0].spec.options
    assert options is not None
    assert options.tool_choice == "required"


def test_caller_options_without_the_capability_or_with_an_unknown_choice_are_located_errors(tmp_path: Path) -> None:
    missing = problem_lines(_write(tmp_path, _REQUIRED_CHOICE % ("", "required")))
    assert any(":8:" in line and "caller-options" in line for line in missing), missing
    unknown = problem_lines(_write(tmp_path, _REQUIRED_CHOICE % ("requires: [caller-options]", "always")))
    assert any(":8:" in line and "tool_choice" in line for line in unknown), unknown


async def test_the_fake_provider_refuses_a_text_answer_to_a_required_tool_choice() -> None:
    scenario = load_scenario(BUNDLED / "limits" / "tool-choice-required-reset.yaml")
    provider = ScriptedProvider([turn.steps for turn in scenario.turns])
    await provider.complete([Message("user", (Text("hi"),))], tool_choice="required", tools=["get_weather"])
    assert provider.violations == []
    await provider.complete([Message("user", (Text("hi"),))], tool_choice="required", tools=["get_weather"])
    assert ["tool_choice='required'" in v.message for v in provider.violations] == [True]


def test_context_providers_load_without_a_session() -> None:
    scenario = load_scenario(BUNDLED / "normal" / "context-providers-no-session.yaml")
    assert not scenario.spec.session
    assert [source.id for source in scenario.context] == ["house-style", "user-profile"]


_MAPPING_STREAM = """\
    id: test.mapping-arguments
    title: t
    spec: [Streaming call]
    %s
    tools: [{name: lookup, returns: ok}]
    turns:
      - input: hi
        model:
          - contents:
              - function_call: {call_id: c1, name: lookup, arguments: {q: a}}
            stream:
              - [{function_call: {call_id: c1, name: lookup}}]
              - [{function_call: {call_id: c1, arguments: %s}}]
              - [{function_call: {arguments: %s}}]
          - contents: [{text: done}]
"""


def test_a_mapping_in_a_stream_fragment_arrives_as_a_mapping_and_text_as_text(tmp_path: Path) -> None:
    scenario = load_scenario(_write(tmp_path, _MAPPING_STREAM % ("requires: [streamed-mapping-arguments]",
                                                                "{q: a}", "''")))
    fragments = [u.contents[0] for u in scenario.turns[0].steps[0].updates]
    assert all(isinstance(f, FunctionCall) for f in fragments)
    calls = [f for f in fragments if isinstance(f, FunctionCall)]
    assert [(c.arguments, c.arguments_as_mapping) for c in calls] == [("", False), ({"q": "a"}, True), ("", False)]
    # The mark is how the arguments travelled, not what the call is.
    assert calls[1] == FunctionCall("c1", "", {"q": "a"})


def test_a_mapping_fragment_needs_the_capability(tmp_path: Path) -> None:
    lines = problem_lines(_write(tmp_path, _MAPPING_STREAM % ("", "{q: a}", "''")))
    assert len(lines) == 1, lines
    assert ":13:" in lines[0], lines
    assert "error[missing-capability]" in lines[0], lines
    assert "streamed-mapping-arguments" in lines[0], lines


@pytest.mark.parametrize(("second", "third", "line", "already"), [
    ("'{\"q\": '", "{q: a}", 14, "as text"),  # text, then a mapping for the same call
    ("{q: a}", "'\"a\"}'", 14, "as a mapping"),  # a mapping, then more text
    ("{q: a}", "{r: b}", 14, "as a mapping"),  # two mappings for one call
])
def test_one_calls_arguments_as_a_mapping_and_otherwise_is_one_located_error(
        tmp_path: Path, second: str, third: str, line: int, already: str) -> None:
    lines = problem_lines(_write(tmp_path, _MAPPING_STREAM % ("requires: [streamed-mapping-arguments]", second,
                                                              third)))
    assert len(lines) == 1, lines  # not a second error for the stream that no longer adds up
    assert f":{line}:" in lines[0], lines
    assert "error[invalid-value]" in lines[0], lines
    assert "update 3 › content 1 › function_call › arguments" in lines[0], lines
    assert f"arrived {already}" in lines[0], lines


def test_the_json_schema_names_the_capability_and_the_mapping_form() -> None:
    text = json.dumps(scenario_schema())
    assert "streamed-mapping-arguments" in text
    assert "a mapping when the client delivers the call's whole arguments" in text

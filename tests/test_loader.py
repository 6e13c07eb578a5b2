"""Malformed scenario files: every problem is reported like a compiler diagnostic, and nothing else escapes."""

from __future__ import annotations

import asyncio
import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness import HarnessError, ScenarioFileError, discover, load_scenario, run_scenario
from harness.adapters.reference import ReferenceAdapter

VALID = textwrap.dedent("""\
    id: t.valid
    title: A valid scenario
    spec: [Single non-streaming call]
    tools:
      - name: get_weather
        returns: sunny
    turns:
      - input:
          - user: Weather?
        model:
          - contents:
              - function_call: {call_id: c1, name: get_weather, arguments: {city: Paris}}
          - contents:
              - text: Sunny.
        expect:
          executions:
            get_weather: 1
    """)


def _write(tmp_path: Path, text: str, name: str = "scenario.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def _error(path: Path) -> ScenarioFileError:
    with pytest.raises(ScenarioFileError) as caught:
        load_scenario(path)
    return caught.value


def _first_line(path: Path) -> str:
    return str(_error(path)).splitlines()[0]


def _heads(error: ScenarioFileError) -> list[str]:
    return [problem.render().splitlines()[0] for problem in error.problems]


def test_the_valid_baseline_loads(tmp_path: Path) -> None:
    scenario = load_scenario(_write(tmp_path, VALID))
    assert scenario.id == "t.valid"
    assert [tool.name for tool in scenario.tools] == ["get_weather"]


# --- one mistake each: the exact first line ------------------------------------------------------------------


def test_bad_yaml_syntax(tmp_path: Path) -> None:
    path = _write(tmp_path, """\
        id: t.syntax
        title: [unclosed
        spec: [Single non-streaming call]
        """)
    error = _error(path)
    assert str(error).splitlines()[0] == f"{path}:3:5: error[yaml-syntax]: expected ',' or ']', but got ':'"
    assert len(error.problems) == 1


def test_tab_indentation_is_a_syntax_error_at_the_tab(tmp_path: Path) -> None:
    path = _write(tmp_path, "id: t.x\nturns:\n\t- input: hi\n")
    assert _first_line(path) == f"{path}:3:1: error[yaml-syntax]: found character '\\t' that cannot start any token"


def test_unknown_key_renders_location_source_and_did_you_mean(tmp_path: Path) -> None:
    path = _write(tmp_path, VALID.replace("tools:", "tols:"))
    error = _error(path)
    assert str(error) == "\n".join([
        f"{path}:4:1: error[unknown-key]: the scenario has unknown key 'tols'",
        "     3 | spec: [Single non-streaming call]",
        ">    4 | tols:",
        "hint: did you mean 'tools'?",
    ])


def test_nested_unknown_key_names_the_item_it_is_in(tmp_path: Path) -> None:
    path = _write(tmp_path, VALID.replace("    model:", "    modle:"))
    error = _error(path)
    assert _heads(error) == [f"{path}:10:5: error[unknown-key]: turn 1 has unknown key 'modle'"]
    assert error.problems[0].hint == "did you mean 'model'?"


def test_unknown_key_far_from_any_allowed_one_lists_the_allowed_keys(tmp_path: Path) -> None:
    path = _write(tmp_path, VALID.replace("    returns: sunny", "    zzzzqqq: 1"))
    problem = _error(path).problems[0]
    assert (problem.line, problem.column, problem.code) == (6, 5, "unknown-key")
    assert problem.hint is not None
    assert problem.hint.startswith("allowed keys: name, description, parameters, returns")


def test_wrong_type(tmp_path: Path) -> None:
    path = _write(tmp_path, VALID.replace("tools:", "config:\n  max_iterations: many\ntools:"))
    assert _first_line(path) == (f"{path}:5:19: error[wrong-type]: config › max_iterations: Input should be a valid "
                                 "integer, unable to parse string as an integer (got 'many')")


def test_wrong_type_for_a_union_is_one_problem_naming_every_accepted_shape(tmp_path: Path) -> None:
    path = _write(tmp_path, VALID.replace("  - input:\n      - user: Weather?", "  - input: 5"))
    error = _error(path)
    assert _heads(error) == [f"{path}:8:12: error[wrong-type]: turn 1 › input: Input should be a valid string or a "
                             "valid list (got 5)"]


def test_out_of_range_and_empty_values_are_invalid_values(tmp_path: Path) -> None:
    path = _write(tmp_path, VALID.replace("title: A valid scenario", 'title: ""').replace(
        "get_weather: 1", "get_weather: 1\n      model_calls: -1"))
    assert _heads(_error(path)) == [
        f"{path}:2:8: error[invalid-value]: title: String should have at least 1 character (got '')",
        f"{path}:18:20: error[invalid-value]: turn 1 › expect › model_calls: Input should be greater than or equal "
        "to 0 (got -1)",
    ]


def test_missing_key(tmp_path: Path) -> None:
    path = _write(tmp_path, VALID.replace("title: A valid scenario\n", ""))
    assert _first_line(path) == f"{path}:1:1: error[missing-key]: the scenario is missing required key 'title'"


def test_missing_nested_key_points_at_its_parent(tmp_path: Path) -> None:
    path = _write(tmp_path, VALID.replace("  - input:\n      - user: Weather?\n    model:", "  - model:"))
    assert _first_line(path) == f"{path}:8:5: error[missing-key]: turn 1 is missing required key 'input'"


def test_dangling_approval_reference(tmp_path: Path) -> None:
    path = _write(tmp_path, VALID + textwrap.indent(textwrap.dedent("""\
        - input:
            - approvals: {c2: approve}
          model:
            - contents: [{text: ok}]
        """), "  "))
    error = _error(path)
    assert _heads(error) == [f"{path}:19:21: error[dangling-reference]: turn 2 › input item 1 › approvals refers to "
                             "unknown call id or label 'c2'"]
    assert error.problems[0].hint == "no earlier call id or label is named so"


def test_dangling_execution_tool(tmp_path: Path) -> None:
    path = _write(tmp_path, VALID.replace("get_weather: 1", "get_wether: 1"))
    error = _error(path)
    assert _heads(error) == [f"{path}:17:9: error[dangling-reference]: turn 1 › expect › executions refers to "
                             "unknown tool 'get_wether'"]
    assert error.problems[0].hint == "did you mean 'get_weather'?"


def test_dangling_tool_added_at_run_time(tmp_path: Path) -> None:
    path = _write(tmp_path, VALID.replace("    returns: sunny", "    behaviour:\n      - add_tools: [get_time]"))
    assert _first_line(path) == (f"{path}:7:21: error[dangling-reference]: tool 1 › behaviour 1 › add_tools refers "
                                 "to unknown tool 'get_time'")


def test_request_expectation_beyond_the_script(tmp_path: Path) -> None:
    path = _write(tmp_path, VALID.replace("get_weather: 1", "get_weather: 1\n      requests: [{call: 3}]"))
    assert _first_line(path) == (f"{path}:18:25: error[dangling-reference]: request expectation names model call #3, "
                                 "but turn 1 scripts 2")


def test_unknown_spec_row(tmp_path: Path) -> None:
    path = _write(tmp_path, VALID.replace("[Single non-streaming call]",
                                          "[Single non-streaming calls, Parallel calls]"))
    error = _error(path)
    assert _heads(error) == [
        f"{path}:3:8: error[unknown-spec-row]: 'Single non-streaming calls' is not a row of the spec matrix"]
    assert error.problems[0].hint == "did you mean 'Single non-streaming call'?"


def test_known_rows_can_be_supplied(tmp_path: Path) -> None:
    path = _write(tmp_path, VALID)
    assert load_scenario(path, known_rows=["Single non-streaming call"]).id == "t.valid"
    assert _heads(pytest.raises(ScenarioFileError, load_scenario, path, known_rows=["Other row"]).value) == [
        f"{path}:3:8: error[unknown-spec-row]: 'Single non-streaming call' is not a row of the spec matrix"]


def test_duplicate_key(tmp_path: Path) -> None:
    path = _write(tmp_path, VALID.replace("title: A valid scenario", "title: A valid scenario\ntitle: Again"))
    error = _error(path)
    assert _heads(error) == [f"{path}:3:1: error[duplicate-key]: duplicate key 'title'"]
    assert str(error).splitlines()[1:] == ["     2 | title: A valid scenario", ">    3 | title: Again"]


def test_duplicate_label(tmp_path: Path) -> None:
    path = _write(tmp_path, VALID.replace("arguments: {city: Paris}}", "arguments: {city: Paris}, label: a}").replace(
        "- text: Sunny.", "- function_call: {call_id: c2, name: get_weather, label: a}"))
    assert _first_line(path) == f"{path}:14:68: error[duplicate-label]: label 'a' is already used"


@pytest.mark.parametrize(("text", "head"), [
    ("", "1:1: error[wrong-type]: a scenario file must hold a mapping"),
    ("- a\n- b\n", "1:1: error[wrong-type]: a scenario file must hold a mapping"),
    ("just a string\n", "1:1: error[wrong-type]: a scenario file must hold a mapping"),
    ("id: t.x\n---\nid: t.y\n", "2:1: error[yaml-syntax]: but found another document"),
    ("id: !!python/object:os.system x\n",
     "1:5: error[yaml-syntax]: could not determine a constructor for the tag "
     "'tag:yaml.org,2002:python/object:os.system'"),
    ("id: t.x\nloop: &a [*a]\n",
     "2:7: error[yaml-syntax]: an alias refers to a collection that contains it (a recursive structure)"),
    ("a: &a {b: *a}\n",
     "1:4: error[yaml-syntax]: an alias refers to a collection that contains it (a recursive structure)"),
])
def test_unusable_documents(tmp_path: Path, text: str, head: str) -> None:
    path = _write(tmp_path, text)
    assert _first_line(path) == f"{path}:{head}"


def test_alias_bomb_is_refused_instead_of_expanded(tmp_path: Path) -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    error = _error(_write(tmp_path, "\n".join(lines) + "\n"))
    assert [p.code for p in error.problems] == ["yaml-syntax"]
    assert "expands to more than 100000 values" in error.problems[0].message


def test_shared_aliases_that_do_not_recurse_still_load(tmp_path: Path) -> None:
    text = VALID.replace("    returns: sunny", "    parameters: &params {type: object, properties: {}}\n"
                         "    returns: sunny\n  - name: get_time\n    parameters: *params")
    scenario = load_scenario(_write(tmp_path, text))
    assert scenario.tools[0].parameters == scenario.tools[1].parameters


def test_undecodable_file_is_unreadable(tmp_path: Path) -> None:
    path = tmp_path / "binary.yaml"
    path.write_bytes(b"id: t.x\ntitle: \xff\xfe\n")
    error = _error(path)
    assert [p.code for p in error.problems] == ["unreadable"]
    assert _heads(error)[0].startswith(f"{path}:1:1: error[unreadable]: 'utf-8' codec can't decode")


def test_missing_file_is_unreadable(tmp_path: Path) -> None:
    error = _error(tmp_path / "absent.yaml")
    assert [p.code for p in error.problems] == ["unreadable"]


# --- scripts the runner could not use -------------------------------------------------------------------------


def test_stream_chunks_that_are_not_json_are_reported_not_raised(tmp_path: Path) -> None:
    path = _write(tmp_path, VALID.replace("arguments: {city: Paris}}", 'stream_chunks: ["{bad", "json"]}'))
    assert _first_line(path) == f"{path}:12:76: error[invalid-value]: stream_chunks do not join to a JSON object"


def test_stream_chunks_must_join_to_the_arguments(tmp_path: Path) -> None:
    path = _write(tmp_path, VALID.replace("arguments: {city: Paris}}",
                                          'arguments: {city: Paris}, stream_chunks: [\'{"city": \', \'"Rome"}\']}'))
    assert _first_line(path).endswith("error[invalid-value]: stream_chunks do not join to the JSON of 'arguments'")


def test_stream_chunks_alone_give_the_arguments(tmp_path: Path) -> None:
    path = _write(tmp_path, VALID.replace("arguments: {city: Paris}}", 'stream_chunks: [\'{"city": \', \'"Rome"}\']}'))
    call = load_scenario(path).turns[0].steps[0].response.messages[0].contents[0]
    assert call.arguments == {"city": "Rome"}  # type: ignore[union-attr]


def test_approval_wrapper_in_a_script_must_name_an_earlier_call(tmp_path: Path) -> None:
    path = _write(tmp_path, VALID.replace("- text: Sunny.", "- approval_request: {call_id: zz}"))
    error = _error(path)
    assert _heads(error) == [f"{path}:14:41: error[dangling-reference]: turn 1 › model step 2 › content 1 › "
                             "approval_request refers to unknown call id or label 'zz'"]


def test_approval_wrapper_cannot_name_a_call_of_its_own_message(tmp_path: Path) -> None:
    path = _write(tmp_path, VALID.replace("arguments: {city: Paris}}",
                                          "arguments: {city: Paris}}\n          - approval_request: {call_id: c1}"))
    assert [p.code for p in _error(path).problems] == ["dangling-reference"]


def test_approval_wrapper_in_a_later_message_of_the_same_step_resolves(tmp_path: Path) -> None:
    path = _write(tmp_path, VALID.replace("""\
      - contents:
          - function_call: {call_id: c1, name: get_weather, arguments: {city: Paris}}""", """\
      - messages:
          - role: assistant
            contents: [{function_call: {call_id: c1, name: get_weather}}]
          - role: assistant
            contents: [{approval_request: {call_id: c1}}]"""))
    assert "messages:" in path.read_text()
    contents = [m.contents for m in load_scenario(path).turns[0].steps[0].response.messages]
    assert contents[1][0].function_call.call_id == "c1"  # type: ignore[union-attr]


def test_input_message_wrapper_location_points_at_the_wrapper(tmp_path: Path) -> None:
    path = _write(tmp_path, VALID.replace("      - user: Weather?", textwrap.indent(textwrap.dedent("""\
        - message:
            role: user
            contents:
              - approval_response: {call_id: c9, approved: true}"""), "      ")))
    assert _first_line(path) == (f"{path}:12:44: error[dangling-reference]: turn 1 › input item 1 › message › "
                                 "content 1 › approval_response refers to unknown call id or label 'c9'")


async def test_calls_from_hand_written_input_history_resolve_at_run_time(tmp_path: Path) -> None:
    path = _write(tmp_path, """\
        id: t.history
        title: Hand-written history with an approval decision
        spec: [Persisted approval replay]
        tools: [{name: f, approval: required, returns: done}]
        turns:
          - input:
              - user: hi
              - message:
                  role: assistant
                  contents: [{function_call: {call_id: h1, name: f}}]
              - message:
                  role: user
                  contents: [{approval_response: {call_id: h1, approved: true}}]
            model:
              - contents: [{text: ok}]
        """)
    result = await run_scenario(load_scenario(path), ReferenceAdapter(), "non-streaming")
    assert "completes" not in {c.id for c in result.failed_checks()}, result.failed_checks()


# --- matchers in expectations ---------------------------------------------------------------------------------


def _with_expected_text(text: str) -> str:
    block = "    expect:\n      executions:\n        get_weather: 1"
    return VALID.replace(block, "    expect:\n" + textwrap.indent(textwrap.dedent(f"""\
        response:
          $suffix:
            - role: assistant
              contents: [{{text: {text}}}]"""), "      "))


def test_matchers_in_expectations_load(tmp_path: Path) -> None:
    load_scenario(_write(tmp_path, _with_expected_text('{$regex: "^Sun"}')))


@pytest.mark.parametrize(("text", "head", "hint"), [
    ("{$regx: Sun}", "error[unknown-matcher]: turn 1 › expect › response › $suffix › 0 › content 1 › text "
     "uses unknown matcher '$regx'", "did you mean '$regex'?"),
    ('{$regex: "("}', "error[invalid-value]: turn 1 › expect › response › $suffix › 0 › content 1 › text: $regex "
     "pattern does not compile: missing ), unterminated subpattern at position 0", None),
    ("{$prefix: 5}", "error[invalid-value]: turn 1 › expect › response › $suffix › 0 › content 1 › text: $prefix "
     "takes a list (got 5)", None),
    ("{$any: true, x: 1}", "error[invalid-value]: turn 1 › expect › response › $suffix › 0 › content 1 › text: a "
     "matcher is a mapping with exactly one '$' key, got keys $any, x", None),
])
def test_broken_matchers_are_reported(tmp_path: Path, text: str, head: str, hint: str | None) -> None:
    error = _error(_write(tmp_path, _with_expected_text(text)))
    assert len(error.problems) == 1
    assert _heads(error)[0].split(": ", 1)[1] == head
    assert error.problems[0].hint == hint


@pytest.mark.parametrize("response", ["{$any: true}", "{a: 1, b: 2}", "{$suffix: [{role: tool, contnts: []}]}"])
def test_message_lists_accept_only_prefix_or_suffix_of_messages(tmp_path: Path, response: str) -> None:
    path = _write(tmp_path, VALID.replace("      executions:\n        get_weather: 1",
                                          f"      response: {response}"))
    assert _error(path).problems[0].code in {"invalid-value", "unknown-key", "missing-key"}


def test_request_expectation_tools_are_named_tools(tmp_path: Path) -> None:
    path = _write(tmp_path, VALID.replace("get_weather: 1",
                                          "get_weather: 1\n      requests: [{call: 1, tools: [get_wether, 3]}]"))
    assert _heads(_error(path)) == [
        f"{path}:18:36: error[dangling-reference]: turn 1 › expect › request 1 › tools refers to unknown tool "
        "'get_wether'",
        f"{path}:18:48: error[wrong-type]: turn 1 › expect › request 1 › tool 2: a list of tools names them as "
        "strings (got 3)",
    ]


def test_replayed_calls_need_an_id_a_name_and_object_arguments(tmp_path: Path) -> None:
    path = _write(tmp_path, VALID.replace("{call_id: c1, name: get_weather, arguments: {city: Paris}}",
                                          "{name: [get_weather], arguments: null}"))
    assert [(p.code, p.message.rsplit(": ", 1)[-1] if p.code == "wrong-type" else p.message)
            for p in _error(path).problems] == [
        ("missing-key", "turn 1 › model step 1 › content 1 › function_call is missing required key 'call_id'"),
        ("wrong-type", "a replayed call needs a plain string (got ['get_weather'])"),
        ("wrong-type", "a replayed call's arguments are a mapping, or raw JSON text (got None)"),
    ]


# --- several problems at once ---------------------------------------------------------------------------------


def test_every_schema_problem_of_a_file_is_reported(tmp_path: Path) -> None:
    path = _write(tmp_path, """\
        id: t.many
        id: t.many-again
        spec: [Single non-streaming call]
        tols: []
        config: {max_iterations: many}
        turns:
          - input: hi
            modle: []
        """)
    error = _error(path)
    assert sorted(_heads(error)) == sorted([
        f"{path}:2:1: error[duplicate-key]: duplicate key 'id'",
        f"{path}:1:1: error[missing-key]: the scenario is missing required key 'title'",
        f"{path}:4:1: error[unknown-key]: the scenario has unknown key 'tols'",
        f"{path}:5:26: error[wrong-type]: config › max_iterations: Input should be a valid integer, unable to parse "
        "string as an integer (got 'many')",
        f"{path}:8:5: error[unknown-key]: turn 1 has unknown key 'modle'",
    ])
    rendered = str(error)
    assert rendered.count("error[") == 5
    assert "hint: did you mean 'tools'?" in rendered
    assert "hint: did you mean 'model'?" in rendered


def test_every_reference_problem_of_a_file_is_reported(tmp_path: Path) -> None:
    path = _write(tmp_path, """\
        id: t.refs
        title: Many dangling references
        title: Twice
        spec: [Paralel calls, Single non-streaming call]
        tools: [{name: get_weather, approval: required}]
        turns:
          - input: hi
            model:
              - contents: [{function_call: {call_id: c1, name: get_weather}}]
            expect:
              executions: {get_wether: 0}
          - input:
              - approvals: {c2: approve}
            model:
              - contents: [{text: ok}]
        """)
    error = _error(path)
    assert [p.code for p in error.problems] == [
        "duplicate-key", "unknown-spec-row", "dangling-reference", "dangling-reference"]
    assert [(p.line, p.column) for p in error.problems] == [(3, 1), (4, 8), (11, 20), (13, 21)]


def test_the_error_is_a_harness_error_carrying_its_source(tmp_path: Path) -> None:
    path = _write(tmp_path, VALID.replace("tools:", "tols:"))
    error = _error(path)
    assert isinstance(error, HarnessError)
    assert error.path == path
    assert error.source == path.read_text()
    assert "Traceback" not in str(error)


# --- nothing but ScenarioFileError escapes ----------------------------------------------------------------------

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["", "x", "c1", "get_weather", "$any", "{"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["id", "call_id", "name", "text", "contents", "function_call", "$regex", "$suffix", "role",
                         "input", "model", "expect", "response", "label", "stream_chunks", "approvals", "x"]),
        inner, max_size=3),
    max_leaves=8,
)


def _paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(data, dict):
        for key, value in data.items():
            found.extend(_paths(value, (*prefix, key)))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found.extend(_paths(value, (*prefix, index)))
    return found


def _replaced(data: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(data, dict):
        return {k: _replaced(v, rest, value) if k == head else v for k, v in data.items()}
    return [_replaced(v, rest, value) if i == head else v for i, v in enumerate(data)]


def _check_reported(path: Path, error: ScenarioFileError) -> None:
    assert error.problems
    lines = path.read_text(encoding="utf-8", errors="replace").count("\n") + 1
    for problem in error.problems:
        assert 1 <= problem.line <= lines
        assert problem.column >= 1
    assert "Traceback" not in error.render()


VALID_DATA = yaml.safe_load(VALID)
VALID_PATHS = _paths(VALID_DATA)


def _load_or_report(path: Path) -> None:
    try:
        scenario = load_scenario(path)
    except ScenarioFileError as error:
        _check_reported(path, error)
        return
    # whatever loads must also run to a verdict without raising
    result = asyncio.run(run_scenario(scenario, ReferenceAdapter(), "non-streaming"))
    assert result.verdict in {"pass", "fail", "n/a"}


@settings(derandomize=True, max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(VALID_PATHS), value=_JSON)
def test_any_single_value_swapped_in_a_valid_file_loads_or_is_reported(tmp_path: Path, path: tuple[Any, ...],
                                                                        value: Any) -> None:
    file = tmp_path / "mutant.yaml"
    file.write_text(yaml.safe_dump(_replaced(VALID_DATA, path, value), sort_keys=False), encoding="utf-8")
    _load_or_report(file)


@settings(derandomize=True, max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(alphabet=st.sampled_from(list("ab:-[]{}&*!|>'\"#\n\t ,?%@`$")), max_size=60))
def test_arbitrary_text_loads_or_is_reported(tmp_path: Path, text: str) -> None:
    file = tmp_path / "noise.yaml"
    file.write_text(text, encoding="utf-8")
    _load_or_report(file)


def test_discover_finds_yaml_files_recursively_in_order(tmp_path: Path) -> None:
    for name in ["b/z.yaml", "a.yml", "b/c/y.yaml", "notes.txt"]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x: 1\n")
    single = tmp_path / "notes.txt"
    assert discover([tmp_path, single]) == sorted(
        [tmp_path / "a.yml", tmp_path / "b/c/y.yaml", tmp_path / "b/z.yaml", single])
    assert json.dumps([str(p) for p in discover([])]) == "[]"

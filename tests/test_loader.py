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
from harness.errors import ScenarioProblem
from harness.run.suite import load_all
from harness.scenario import loader
from harness.scenario.loader import load_many
from harness.scenario.source_text import MAX_FILE_BYTES
from harness.scenario.yaml_source import Position, SourceError, load_yaml

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
          cites: ["Single non-streaming call"]
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
    assert problem.hint.startswith("allowed keys: name, description, parameters, signature, returns")


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
    assert _heads(error) == [f"{path}:20:21: error[dangling-reference]: turn 2 › input item 1 › approvals refers to "
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
     "1:5: error[unsupported-tag]: the tag '!!python/object:os.system' is not supported"),
    ("id: t.x\nloop: &a [*a]\n",
     "2:11: error[alias-expansion]: an alias refers to a collection that contains it, so it would expand without "
     "end"),
    ("a: &a {b: *a}\n",
     "1:11: error[alias-expansion]: an alias refers to a collection that contains it, so it would expand without "
     "end"),
])
def test_unusable_documents(tmp_path: Path, text: str, head: str) -> None:
    path = _write(tmp_path, text)
    assert _first_line(path) == f"{path}:{head}"


def test_alias_bomb_is_refused_at_the_alias_that_passes_the_limit(tmp_path: Path) -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    error = _error(_write(tmp_path, "\n".join(lines) + "\n"))
    # a4 is the first anchor holding more than 20000 values: 1 + 10 * 11111
    assert _heads(error) == [f"{error.path}:5:10: error[alias-expansion]: aliases expand this value to 111111 values, "
                             "more than the 20000 a scenario may hold"]
    assert "write the values out" in (error.problems[0].hint or "")


def test_shared_aliases_that_do_not_recurse_still_load(tmp_path: Path) -> None:
    text = VALID.replace("    returns: sunny", "    parameters: &params {type: object, properties: {}}\n"
                         "    returns: sunny\n  - name: get_time\n    parameters: *params")
    scenario = load_scenario(_write(tmp_path, text))
    assert scenario.tools[0].parameters == scenario.tools[1].parameters


def test_undecodable_file_is_located_at_the_first_bad_byte(tmp_path: Path) -> None:
    path = tmp_path / "binary.yaml"
    path.write_bytes(b"id: t.x\ntitle: \xc3\xa9\xff\xfe\n")
    error = _error(path)
    assert _heads(error) == [f"{path}:2:9: error[not-utf8]: byte 0xFF is not valid UTF-8 (invalid start byte)"]
    assert (error.problems[0].hint or "").startswith("save the file as UTF-8")


def test_missing_file_is_unreadable(tmp_path: Path) -> None:
    error = _error(tmp_path / "absent.yaml")
    assert [p.code for p in error.problems] == ["unreadable"]


# --- hostile input: one located error each, never a traceback ---------------------------------------------------


def _only(path: Path) -> ScenarioProblem:
    """The single problem loading `path` reports."""
    problems = _error(path).problems
    assert len(problems) == 1, [p.render() for p in problems]
    return problems[0]


def _located(problem: ScenarioProblem) -> tuple[int, int, str]:
    return problem.line, problem.column, problem.code


def test_a_directory_is_unreadable(tmp_path: Path) -> None:
    problem = _only(tmp_path)
    assert _located(problem) == (1, 1, "unreadable")
    assert problem.message == "Is a directory"


def test_a_file_too_large_for_a_scenario_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_bytes(b"#" * (MAX_FILE_BYTES + 1))
    problem = _only(path)
    assert _located(problem) == (1, 1, "too-large")
    assert problem.message == f"the file is larger than {MAX_FILE_BYTES} bytes"


def test_a_utf16_file_is_not_utf8_at_its_first_byte(tmp_path: Path) -> None:
    path = tmp_path / "utf16.yaml"
    path.write_bytes(VALID.encode("utf-16"))
    problem = _only(path)
    assert _located(problem) == (1, 1, "not-utf8")
    assert problem.message == "byte 0xFF is not valid UTF-8 (invalid start byte)"


def test_a_truncated_utf8_sequence_is_located(tmp_path: Path) -> None:
    path = tmp_path / "cut.yaml"
    path.write_bytes(b"id: t.x\n\ntitle: caf\xc3")
    assert _located(_only(path)) == (3, 11, "not-utf8")


def test_a_utf8_byte_order_mark_is_allowed(tmp_path: Path) -> None:
    path = tmp_path / "bom.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + VALID.encode("utf-8"))
    assert load_scenario(path).id == "t.valid"


@pytest.mark.parametrize(("character", "message"), [
    ("\x07", "control character U+0007 is not allowed in YAML"),
    ("\x1b", "control character U+001B is not allowed in YAML"),
    ("\x7f", "control character U+007F is not allowed in YAML"),
    ("\x9f", "control character U+009F is not allowed in YAML"),
    ("\x00", "control character U+0000 is not allowed in YAML"),
    ("\ufffe", "character U+FFFE is not allowed in YAML"),
])
def test_control_characters_are_located(tmp_path: Path, character: str, message: str) -> None:
    path = _write(tmp_path, VALID.replace("title: A valid", f"title: A {character}valid"))
    problem = _only(path)
    assert _located(problem) == (2, 10, "invalid-character")
    assert problem.message == message
    assert (problem.hint or "").startswith("delete it")


def test_a_control_character_hint_says_how_to_write_it(tmp_path: Path) -> None:
    path = _write(tmp_path, "id: t.x\ntitle: bell\x07\n")
    assert _only(path).hint == 'delete it; to put it in a string, write the escape "\\x07" inside double quotes'


def test_control_characters_given_straight_to_the_yaml_reader_are_located() -> None:
    with pytest.raises(SourceError) as caught:
        load_yaml(Path("x.yaml"), "id: t.x\ntitle: a\x07b\n")
    assert (caught.value.code, caught.value.position) == ("invalid-character", Position(2, 9))
    assert caught.value.message == "control character U+0007 is not allowed in YAML"


@pytest.mark.parametrize(("value", "message"), [
    ("2024-02-30", "'2024-02-30' is not a valid timestamp: day is out of range for month"),
    ("2023-13-01", "'2023-13-01' is not a valid timestamp: month must be in 1..12"),
    ("!!timestamp yesterday", "'yesterday' is not a valid timestamp: not a valid value of this type"),
    ("!!int twelve", "'twelve' is not a valid int: invalid literal for int() with base 10: 'twelve'"),
    ("!!float many", "'many' is not a valid float: could not convert string to float: 'many'"),
    ("!!bool maybe", "'maybe' is not a valid bool: not a valid value of this type"),
])
def test_values_yaml_cannot_convert_are_invalid_scalars(tmp_path: Path, value: str, message: str) -> None:
    path = _write(tmp_path, VALID.replace("returns: sunny", f"returns: {value}"))
    problem = _only(path)
    assert _located(problem) == (6, 14, "invalid-scalar")
    assert problem.message == message
    assert problem.hint == "fix the value, or quote it (and drop any '!!' tag) to keep it as text"


@pytest.mark.parametrize(("value", "reason"), [
    ("!!binary AAA", "failed to decode base64 data: Incorrect padding"),
    ("!!binary 'é'", "failed to convert base64 data into ascii: 'ascii' codec can't encode character '\\xe9' in "
     "position 0: ordinal not in range(128)"),
])
def test_bad_binary_is_an_invalid_scalar(tmp_path: Path, value: str, reason: str) -> None:
    problem = _only(_write(tmp_path, VALID.replace("returns: sunny", f"returns: {value}")))
    assert _located(problem) == (6, 14, "invalid-scalar")
    assert problem.message.split(": ", 1)[1] == reason


@pytest.mark.parametrize("number", ["9" * 5_000, "-" + "1" * 101, "0x" + "f" * 200, "1:" * 60 + "0", "1." + "9" * 99])
def test_numbers_too_long_to_be_arguments_are_refused(tmp_path: Path, number: str) -> None:
    path = _write(tmp_path, VALID.replace("returns: sunny", f"returns: {number}"))
    problem = _only(path)
    assert _located(problem) == (6, 14, "invalid-scalar")
    assert problem.message == f"a number of {len(number)} characters is too long (at most 100)"


def test_a_quoted_long_number_is_text(tmp_path: Path) -> None:
    path = _write(tmp_path, VALID.replace("returns: sunny", f"returns: '{'9' * 5_000}'"))
    assert load_scenario(path).tools[0].behaviours[0].value == "9" * 5_000


@pytest.mark.parametrize(("text", "where"), [
    # the 101st level is the 101st '[' here: PyYAML's scanner runs ahead of the composer inside brackets
    ("id: " + "[" * 150 + "]" * 150 + "\n", (1, 105)),
    # keys count as a level: here the key 'a' inside the 99th '{'
    ("id: " + "{a: " * 150 + "1" + "}" * 150 + "\n", (1, 398)),
    ("id:" + "".join(f"\n{'  ' * (i + 1)}a:" for i in range(120)) + " 1\n", (100, 199)),
    ("id:\n" + "".join(f"{'  ' * i}-\n" for i in range(120)) + "\n", (101, 199)),
])
def test_nesting_deeper_than_the_limit_is_refused_where_it_passes_it(tmp_path: Path, text: str,
                                                                       where: tuple[int, int]) -> None:
    problem = _only(_write(tmp_path, text))
    assert _located(problem) == (*where, "too-deep")
    assert problem.message == "the document nests more than 100 levels deep"


def test_nesting_built_up_through_aliases_is_refused_at_the_alias(tmp_path: Path) -> None:
    lines = ["a0: &a0 " + "[" * 60 + "]" * 60, "a1: &a1 " + "[" * 60 + "*a0" + "]" * 60]
    problem = _only(_write(tmp_path, "\n".join(lines) + "\n"))
    assert _located(problem) == (2, 69, "too-deep")


def test_an_alias_of_a_long_text_is_refused_by_its_expanded_length(tmp_path: Path) -> None:
    text = "big: &big '" + "x" * 100_000 + "'\nmany: [" + ", ".join(["*big"] * 30) + "]\n"
    problem = _only(_write(tmp_path, text))
    assert _located(problem) == (2, 8, "alias-expansion")
    assert problem.message == ("aliases expand this value to 3000000 characters of text, more than the 2000000 a "
                               "scenario may hold")


def test_too_many_values_without_aliases_are_too_large(tmp_path: Path) -> None:
    problem = _only(_write(tmp_path, "id: [" + "1, " * 20_001 + "]\n"))
    assert _located(problem) == (1, 5, "too-large")
    assert problem.message == "the document holds more than the 20000 values a scenario may hold"


@pytest.mark.parametrize(("value", "tag"), [
    ("!!python/name:os.system x", "!!python/name:os.system"),
    ("!!python/object/apply:os.system [ls]", "!!python/object/apply:os.system"),
    ("!!set {a, b}", "!!set"),
    ("!!omap [a: 1]", "!!omap"),
    ("!custom [1]", "!custom"),
])
def test_tags_beyond_plain_data_are_unsupported(tmp_path: Path, value: str, tag: str) -> None:
    problem = _only(_write(tmp_path, VALID.replace("returns: sunny", f"returns: {value}")))
    assert _located(problem) == (6, 14, "unsupported-tag")
    assert problem.message == f"the tag '{tag}' is not supported"


def test_a_complex_mapping_key_is_refused(tmp_path: Path) -> None:
    problem = _only(_write(tmp_path, "id: t.x\n? [a, b]\n: 1\n"))
    assert _located(problem) == (2, 3, "invalid-key")


def test_plain_equals_and_merge_signs_are_text(tmp_path: Path) -> None:
    scenario = load_scenario(_write(tmp_path, VALID.replace("returns: sunny", "returns: '='").replace(
        "title: A valid scenario", "title: =")))
    assert scenario.spec.title == "="


@pytest.mark.parametrize(("text", "where", "hint"), [
    ("id: t.x\nturns:\n\t- input: hi\n", (3, 1), "YAML indents with spaces only: replace the tab with spaces"),
    ("id: t.x\ntitle: 'unclosed\nspec: []\n", (2, 8),
     "add the closing quote where the text ends (inside single quotes, write a quote as '')"),
    ("id: t.x\n  title: x\n", (2, 8),
     "a plain value cannot contain ': ': quote the value, or check that this key is indented under its parent"),
    ("id: t.x\ntools:\n  - name: a\n - name: b\n", (4, 2), "check the indentation: keys of one mapping, and the "
     "'- ' items of one list, start in the same column (spaces only)"),
    ("id: [a, b\ntitle: x\n", (2, 6), "close the list with ']', and quote any item that holds ':', ',', '[' or ']'"),
    ("id: @x\n", (1, 5), "'@' and '`' are reserved in YAML: quote the value (a plain value cannot start with "
     "this character)"),
    ("id: *nothing\n", (1, 5), "define the anchor with '&name' before using '*name'; to write a literal '*', "
     "quote the value"),
    ("a: &x 1\nb: &x 2\n", (2, 4), "each anchor ('&name') is defined once per file: rename one of them"),
    ('id: "\\q"\n', (1, 7), "in double quotes a backslash starts an escape: write '\\\\' for a backslash, or use "
     "single quotes"),
])
def test_yaml_syntax_errors_say_what_to_do(tmp_path: Path, text: str, where: tuple[int, int], hint: str) -> None:
    problem = _only(_write(tmp_path, text))
    assert _located(problem) == (*where, "yaml-syntax")
    assert problem.hint == hint


def test_every_yaml_syntax_error_has_a_hint(tmp_path: Path) -> None:
    problem = _only(_write(tmp_path, "id: t.x\ntitle: x\n- y\n"))
    assert problem.code == "yaml-syntax"
    assert problem.hint


def test_a_bug_of_the_harness_is_still_a_located_scenario_error(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_: Any) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(loader, "_build", broken)
    problem = _only(_write(tmp_path, VALID))
    assert _located(problem) == (1, 1, "internal-error")
    assert problem.message == "the harness failed while loading this file (RuntimeError: boom)"
    assert "bug in the harness" in (problem.hint or "")


# --- $regex patterns are compiled at load time ------------------------------------------------------------------


@pytest.mark.parametrize(("pattern", "code", "message"), [
    ("'[a-'", "invalid-value", "$regex pattern does not compile: unterminated character set at position 3"),
    ("'(?:(?:(?:a{100}){100}){100}){100}'", "invalid-value", "$regex pattern is too large: its counted repeats ({n}, "
     "{n,m}) would compile into more than 10000 items"),
    ("'" + "(" * 101 + "a" + ")" * 101 + "'", "invalid-value", "$regex pattern nests groups more than 100 deep"),
    ("[Sun]", "wrong-type", "$regex takes a string pattern (got ['Sun'])"),
    ("5", "wrong-type", "$regex takes a string pattern (got 5)"),
])
def test_unusable_regex_patterns_are_located_at_the_pattern(tmp_path: Path, pattern: str, code: str,
                                                            message: str) -> None:
    problem = _only(_write(tmp_path, _with_expected_text(f"{{$regex: {pattern}}}")))
    assert _located(problem) == (19, 40, code)  # the pattern itself
    assert problem.message == "turn 1 › expect › response › $suffix › 0 › content 1 › text: " + message


# --- stream_order names known calls -----------------------------------------------------------------------------


def _with_stream_order(*items: str) -> str:
    return VALID.replace("        get_weather: 1", "        get_weather: 1\n      stream_order:\n" + "".join(
        f"        - {item}\n" for item in items))


def test_a_stream_order_of_known_calls_loads(tmp_path: Path) -> None:
    path = _write(tmp_path, _with_stream_order("function_call c1", "function_result c1", "text"))
    assert load_scenario(path).turns[0].spec.expect.stream_order == ["function_call c1", "function_result c1", "text"]


@pytest.mark.parametrize(("item", "code", "message", "hint"), [
    ("function_result c11", "dangling-reference", "turn 1 › expect › stream_order refers to unknown call id 'c11'",
     "did you mean 'c1'?"),
    ("function_result zz", "dangling-reference", "turn 1 › expect › stream_order refers to unknown call id 'zz'",
     "no earlier call id is named so"),
    ("fuction_call c1", "invalid-value", "turn 1 › expect › stream_order item 2: 'fuction_call c1' does not start "
     "with a streamed content kind", "did you mean 'function_call'?"),
    ("text c1", "invalid-value", "turn 1 › expect › stream_order item 2: 'text' takes no call id (got 'text c1')",
     "write 'text'"),
    ("function_call", "invalid-value", "turn 1 › expect › stream_order item 2: 'function_call' needs the id of its "
     "call, e.g. 'function_call c1'", None),
    ("usage", "invalid-value", "turn 1 › expect › stream_order item 2: 'usage' does not start with a streamed "
     "content kind", None),
])
def test_stream_order_items_are_checked_like_approvals(tmp_path: Path, item: str, code: str, message: str,
                                                       hint: str | None) -> None:
    problem = _only(_write(tmp_path, _with_stream_order("function_call c1", item)))
    assert _located(problem) == (20, 11, code)
    assert problem.message == message
    if hint is not None:
        assert problem.hint == hint


def test_stream_order_names_calls_by_call_id_not_label(tmp_path: Path) -> None:
    text = _with_stream_order("function_result weather").replace("arguments: {city: Paris}}",
                                                                 "arguments: {city: Paris}, label: weather}")
    problem = _only(_write(tmp_path, text))
    assert _located(problem) == (19, 11, "dangling-reference")
    assert problem.hint == "a stream shows call ids: write 'function_result c1'"


def test_stream_order_may_name_a_call_of_an_earlier_turn(tmp_path: Path) -> None:
    text = VALID + textwrap.indent(textwrap.dedent("""\
        - input: again
          model:
            - contents: [{text: ok}]
          expect:
            stream_order: [function_result c1, text]
            cites: ["Single non-streaming call"]
        """), "  ")
    assert len(load_scenario(_write(tmp_path, text)).turns) == 2


# --- scenario ids are unique across files -----------------------------------------------------------------------


def test_duplicate_ids_are_errors_in_every_file_that_shares_them(tmp_path: Path) -> None:
    first = _write(tmp_path, VALID, "a.yaml")
    second = _write(tmp_path, VALID.replace("title: A valid scenario", "title: A copy"), "b.yaml")
    other = _write(tmp_path, VALID.replace("id: t.valid", "id: t.other"), "c.yaml")
    scenarios, errors = load_many([tmp_path])
    assert [s.path for s in scenarios] == [other]
    assert [_heads(e) for e in errors] == [
        [f"{first}:1:5: error[duplicate-id]: scenario id 't.valid' is also the id of {second}"],
        [f"{second}:1:5: error[duplicate-id]: scenario id 't.valid' is also the id of {first}"],
    ]
    assert errors[0].problems[0].hint == "ids are unique and never reused: rename one of them"


def test_a_file_named_twice_is_no_duplicate_of_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path, VALID)
    monkeypatch.chdir(tmp_path)
    scenarios, errors = load_many([path, Path(path.name)])
    assert ([s.id for s in scenarios], errors) == (["t.valid"], [])


def test_load_many_keeps_every_file_error(tmp_path: Path) -> None:
    good = _write(tmp_path, VALID, "good.yaml")
    bad = _write(tmp_path, "id: [", "bad.yaml")
    scenarios, errors = load_many([good, bad])
    assert [s.path for s in scenarios] == [good]
    assert [e.path for e in errors] == [bad]


def test_the_suite_reports_duplicate_ids(tmp_path: Path) -> None:
    _write(tmp_path, VALID, "a.yaml")
    _write(tmp_path, VALID, "b.yaml")
    scenarios, errors = load_all([tmp_path])
    assert scenarios == []
    assert [e.problems[0].code for e in errors] == ["duplicate-id", "duplicate-id"]


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
     "pattern does not compile: missing ) at position 1", "patterns use Python's regular-expression syntax: escape "
     "a literal '(', '[', '{', '*', '+' or '?' with a backslash"),
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
              cites: ["Single non-streaming call"]
          - input:
              - approvals: {c2: approve}
            model:
              - contents: [{text: ok}]
        """)
    error = _error(path)
    assert [p.code for p in error.problems] == [
        "duplicate-key", "unknown-spec-row", "dangling-reference", "dangling-reference"]
    assert [(p.line, p.column) for p in error.problems] == [(3, 1), (4, 8), (11, 20), (14, 21)]


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


def test_a_path_given_as_a_string_loads_and_a_missing_one_is_a_located_error(tmp_path: Path) -> None:
    bundled = Path(__file__).resolve().parents[1] / "scenarios" / "approval" / "user-input.yaml"
    assert load_scenario(str(bundled)).spec.id == "approval.user-input.all-requests"
    missing = str(tmp_path / "absent.yaml")
    with pytest.raises(ScenarioFileError) as caught:
        load_scenario(missing)
    assert caught.value.render().splitlines()[0] == f"{missing}:1:1: error[unreadable]: No such file or directory"

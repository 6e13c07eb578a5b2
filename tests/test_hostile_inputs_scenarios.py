"""Hostile scenario folders, adapters and loop output: links out of a scenario root are refused unread, tool schemas
are checked against the meta-schema at load, `$regex` time is budgeted per run, adapter identities are checked where
adapters load, and broken adapter output is a contract breach of that adapter."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest
from hostile_adapters import BREACHES, BreachingAdapter

from harness.cli import main
from harness.errors import ScenarioFileError
from harness.run.registry import AdapterIdentityError, load_adapter
from harness.run.runner import run_scenario
from harness.scenario.json_schema_check import json_schema_problems
from harness.scenario.loader import discover, discover_files, load_many, load_scenario, load_scenario_text
from harness.scenario.matchers import match, regex_budget

ROOT = Path(__file__).resolve().parent.parent
SINGLE_CALL = ROOT / "scenarios" / "normal" / "single-call.yaml"
SCENARIO = SINGLE_CALL.read_text(encoding="utf-8")
SECRET = "API_KEY=sk-very-secret-value"


def _folder_with_outside_link(tmp_path: Path) -> tuple[Path, Path]:
    """A scenario folder holding one real scenario and a link to a secret file outside it."""
    secret = tmp_path / "outside" / ".env.yaml"
    secret.parent.mkdir()
    secret.write_text(f"{SECRET}\n: [\n", encoding="utf-8")
    folder = tmp_path / "scenarios"
    folder.mkdir()
    (folder / "single-call.yaml").write_text(SCENARIO, encoding="utf-8")
    (folder / "leak.yaml").symlink_to(secret)
    return folder, secret


def test_a_link_out_of_the_scenario_folder_is_refused_unread(tmp_path: Path) -> None:
    folder, secret = _folder_with_outside_link(tmp_path)
    scenarios, errors = load_many([folder])
    assert [s.id for s in scenarios] == ["normal.single-call"]
    (error,) = errors
    assert error.path == folder / "leak.yaml"
    assert [p.code for p in error.problems] == ["outside-root"]
    assert SECRET not in error.render()
    assert str(secret.parent) not in error.render()
    assert error.render().startswith(f"{folder / 'leak.yaml'}:1:1: error[outside-root]")
    assert discover([folder]) == [folder / "single-call.yaml"]


def test_a_named_link_out_of_its_own_folder_is_refused_too(tmp_path: Path) -> None:
    folder, _ = _folder_with_outside_link(tmp_path)
    found, refused = discover_files([folder / "leak.yaml"])
    assert found == []
    assert [e.problems[0].code for e in refused] == ["outside-root"]


def test_a_link_inside_the_folder_is_loaded_once_by_its_own_name(tmp_path: Path) -> None:
    folder = tmp_path / "scenarios"
    (folder / "b").mkdir(parents=True)
    (folder / "b" / "single-call.yaml").write_text(SCENARIO, encoding="utf-8")
    (folder / "a-link.yaml").symlink_to(folder / "b" / "single-call.yaml")
    scenarios, errors = load_many([folder])
    assert errors == []
    assert [s.path for s in scenarios] == [folder / "b" / "single-call.yaml"]


def test_nothing_of_a_linked_secret_reaches_the_output_json_or_reports(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    folder, _ = _folder_with_outside_link(tmp_path)
    reports = tmp_path / "reports"
    code = main(["run", "--impl", "reference", "--mode", "non-streaming", "--scenarios", str(folder), "-j", "1",
                 "--json", str(tmp_path / "results.json"), "--reports", str(reports)])
    captured = capsys.readouterr()
    assert code == 1  # the refused file is an error run
    written = [captured.out, captured.err, (tmp_path / "results.json").read_text(encoding="utf-8"),
               *(path.read_text(encoding="utf-8") for path in sorted(reports.iterdir()))]
    assert "error[outside-root]" in captured.err
    assert not any("very-secret" in text for text in written)


# ----------------------------------------------------------------------------------------------- tool schemas

def _with_parameters(parameters: str) -> str:
    original = "    parameters:\n      type: object\n      properties: {city: {type: string}}\n      required: [city]\n"
    assert original in SCENARIO
    return SCENARIO.replace(original, f"    parameters:\n{parameters}")


@pytest.mark.parametrize(("parameters", "line", "message"), [
    ("      type: true\n", 10, "'type' is one of array, boolean"),
    ("      type: object\n      required: 5\n", 11, "'required' is a list of property names"),
    ("      type: object\n      required: [city, city]\n", 11, "'required' names each property once"),
    ("      type: object\n      properties: [city]\n", 11, "'properties' maps names to schemas"),
    ("      type: object\n      properties: {city: {type: strings}}\n", 11, "'type' is one of"),
    ("      type: object\n      properties: {city: {minLength: -1}}\n", 11, "'minLength' is a whole number"),
    ("      type: object\n      properties: {city: 5}\n", 11, "a schema is a mapping"),
    ("      anyOf: []\n", 10, "'anyOf' is a non-empty list of schemas"),
    ("      type: array\n      items: {uniqueItems: yes please}\n", 11, "'uniqueItems' is true or false"),
    ("      type: [string, string]\n", 10, "'type' lists each type once"),
])
def test_a_tool_schema_that_is_no_schema_is_a_located_load_error(tmp_path: Path, parameters: str, line: int,
                                                                 message: str) -> None:
    with pytest.raises(ScenarioFileError) as raised:
        load_scenario_text(tmp_path / "s.yaml", _with_parameters(parameters))
    (problem,) = raised.value.problems
    assert (problem.code, problem.line) == ("invalid-schema", line)
    assert message in problem.message


def test_a_rich_valid_schema_loads() -> None:
    schema = {"type": "object", "properties": {"a": {"type": ["string", "null"], "enum": ["x", None]},
                                               "b": {"type": "array", "items": {"type": "integer", "minimum": 0},
                                                     "minItems": 1, "uniqueItems": True},
                                               "c": {"anyOf": [{"type": "number", "multipleOf": 0.5}, True]},
                                               "d": {"$ref": "#/$defs/d"}},
              "required": ["a"], "additionalProperties": False, "$defs": {"d": {"const": 3}},
              "x-vendor-extension": {"anything": [1]}}
    assert list(json_schema_problems(schema)) == []


def test_a_surrogate_escape_anywhere_in_a_scenario_is_a_located_error(tmp_path: Path) -> None:
    text = SCENARIO.replace("    returns: sunny\n", '    returns: "sunny \\udc00"\n')
    with pytest.raises(ScenarioFileError) as raised:
        load_scenario_text(tmp_path / "s.yaml", text)
    (problem,) = raised.value.problems
    assert (problem.code, problem.line, problem.column) == ("lone-surrogate", 13, 14)


def test_every_bundled_tool_schema_is_valid() -> None:
    scenarios, errors = load_many([ROOT / "scenarios"])
    assert errors == []
    assert scenarios


# ------------------------------------------------------------------------------------------------------- regex

EVIL = {"$regex": "(a|a)*$"}
VALUE = "a" * 40 + "!"  # each a may be either branch: 2**40 paths before the pattern gives up at "!"


def test_regex_matches_of_a_run_share_one_budget() -> None:
    with regex_budget(0.05):
        reasons = [m.reason for _ in range(200) for m in match(EVIL, VALUE)]
    assert len(reasons) == 200
    # The first match runs until the limit, which spends the whole budget: no other is tried.
    assert reasons[0].startswith("$regex gave up")
    assert all(r.startswith("$regex not tried: this run's patterns have spent their budget") for r in reasons[1:])


def test_a_spent_budget_still_lets_plain_values_compare() -> None:
    with regex_budget(0):
        assert match({"a": 1, "b": {"$contains": "x"}}, {"a": 1, "b": "xyz"}) == []
        assert match({"$regex": "x"}, "x")[0].reason.startswith("$regex not tried")
    assert match({"$regex": "x"}, "x") == []  # outside a run, only the per-match limit applies


# ------------------------------------------------------------------------------------------ adapter identities

@pytest.mark.parametrize(("factory", "shown"), [("superscript_version", "the version '1.\\xb2'"),
                                                ("markup_name", "the name 'x<script>'")])
def test_an_adapter_with_an_unplain_identity_is_refused_where_it_loads(factory: str, shown: str) -> None:
    with pytest.raises(AdapterIdentityError, match=re.escape(f"the adapter of 'hostile_adapters:{factory}' is "
                                                             f"refused: {shown}")):
        load_adapter(f"hostile_adapters:{factory}")


def test_run_with_such_an_adapter_writes_its_error_runs_and_every_report(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "--impl", "reference", "--impl", "hostile_adapters:superscript_version", "--mode",
                 "non-streaming", "--scenarios", str(SINGLE_CALL), "-j", "1", "--json", str(tmp_path / "r.json"),
                 "--reports", str(tmp_path / "reports")])
    capsys.readouterr()
    assert code == 1
    runs = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["results"]
    verdicts = {run["implementation"]: run["verdict"] for run in runs}
    assert verdicts == {"reference": "pass", "hostile_adapters:superscript_version": "error"}
    assert len(list((tmp_path / "reports").iterdir())) == 7


# ------------------------------------------------------------------------------------ broken adapter output

@pytest.mark.parametrize("breach", BREACHES)
def test_broken_contents_are_a_contract_breach_of_the_adapter(breach: str) -> None:
    scenario = load_scenario(SINGLE_CALL)
    result = asyncio.run(run_scenario(scenario, BreachingAdapter(breach), "streaming"))
    assert result.verdict == "error"
    assert "judging" not in [check.id for check in result.checks]
    completes = next(check for check in result.checks if check.id == "completes")
    assert completes.verdict == "error"
    assert completes.message.startswith("adapter contract broken: run_turn of breaching returned a CallerView whose ")


def test_the_breach_names_the_place_and_what_is_there() -> None:
    scenario = load_scenario(SINGLE_CALL)
    result = asyncio.run(run_scenario(scenario, BreachingAdapter("list-arguments"), "streaming"))
    completes = next(check for check in result.checks if check.id == "completes")
    assert completes.message.endswith("updates[0].contents[0] (approval_request).function_call.arguments is a "
                                      "list, not a mapping or text")

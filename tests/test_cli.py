"""The loop-conformance command line."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from harness.cli import _parser, main

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "normal" / "single-call.yaml"


def _copy(tmp_path: Path, text: str, name: str = "single-call.yaml") -> Path:
    folder = tmp_path / "normal"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(text)
    return tmp_path


def test_run_passes_and_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _copy(tmp_path, SCENARIO.read_text())
    out = tmp_path / "results.json"
    reports = str(tmp_path / "reports")
    assert main(["run", "--impl", "reference", "--scenarios", str(root), "--json", str(out), "--reports", reports]) == 0
    printed = capsys.readouterr().out
    assert "normal       2      0      0      0        0      0" in printed
    document = json.loads(out.read_text())
    results = document["results"]
    assert {(r["implementation"], r["mode"], r["verdict"]) for r in results} == {
        ("reference", "non-streaming", "pass"), ("reference", "streaming", "pass")}
    first = results[0]
    assert first["scenario"] == "normal.single-call"
    assert first["spec_rows"] == ["Single non-streaming call"]
    assert any(c["id"] == "exactly-once" and c["verdict"] == "pass" and c["profile"] == "safety"
               for c in first["checks"])
    assert document["filtered"] is True
    written = sorted(p.name for p in (tmp_path / "reports").iterdir())
    assert written == ["coverage.html", "coverage.json", "coverage.md", "invariants.html", "invariants.md", "junit.xml",
                       "spec-matrix.md"]
    assert "Filtered run" in (tmp_path / "reports" / "coverage.md").read_text()


def test_run_fails_with_details_when_an_expectation_breaks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _copy(tmp_path, SCENARIO.read_text().replace("model_calls: 2", "model_calls: 3"))
    args = ["run", "--impl", "reference", "--scenarios", str(root), "--mode", "non-streaming", "--no-reports"]
    assert main(args) == 1
    printed = capsys.readouterr().out
    assert "FAIL normal.single-call [reference, non-streaming]" in printed
    assert "single-call.yaml:36:7: turn 1, check expect.model-calls: 2 model calls, expected 3" in printed


def test_malformed_file_is_reported_and_the_rest_still_runs(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    root = _copy(tmp_path, SCENARIO.read_text())
    _copy(tmp_path, "id: normal.x\ntitle: t\nspec: [Streaming call]\nturns: {}\n", "bad.yaml")
    assert main(["run", "--impl", "reference", "--scenarios", str(root), "--no-reports"]) == 1
    captured = capsys.readouterr()
    assert "bad.yaml:4:8: error[wrong-type]: turns: Input should be a valid list" in captured.err
    assert "normal       2      0      2      0        0      0" in captured.out


def test_unknown_implementation_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--impl", "missing"]) == 2
    assert "no implementation named 'missing'" in capsys.readouterr().err


def test_schema_is_a_json_schema_rejecting_unknown_keys(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["additionalProperties"] is False
    assert {"id", "title", "spec"} <= set(schema["required"])
    assert "not_observable" in schema["properties"]
    assert "TurnSpec" in schema["$defs"]


def test_list_names_the_reference_implementation(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list"]) == 0
    assert "reference" in capsys.readouterr().out.split()


def test_gate_and_diff_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _copy(tmp_path, SCENARIO.read_text())
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    assert main(["run", "--impl", "reference", "--scenarios", str(root), "--json", str(old), "--no-reports"]) == 0
    _copy(tmp_path, SCENARIO.read_text().replace("model_calls: 2", "model_calls: 3"))
    assert main(["run", "--impl", "reference", "--scenarios", str(root), "--json", str(new), "--no-reports"]) == 1
    empty = tmp_path / "baseline.yaml"
    empty.write_text("known_failures: []\n")
    capsys.readouterr()
    assert main(["gate", "--baseline", str(empty), str(old)]) == 0
    assert main(["gate", "--baseline", str(empty), str(new)]) == 1
    assert "expect.model-calls" in capsys.readouterr().out
    assert main(["diff", str(old), str(new)]) == 0
    table = capsys.readouterr().out
    assert "normal.single-call" in table
    assert "| `expect.model-calls` | pass → **fail** |" in table


def test_a_requests_failure_is_a_diff_of_one_message_per_line(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    asked = 'contents: [{text: "What is the weather in Paris?"}]'
    before, after = SCENARIO.read_text().rsplit(asked, 1)  # the last one is in the expectation of call #2
    root = _copy(tmp_path, before + asked.replace("Paris", "Rome") + after)
    args = ["run", "--impl", "reference", "--scenarios", str(root), "--mode", "non-streaming", "--no-reports"]
    assert main(args) == 1
    printed = capsys.readouterr().out
    assert ("check expect.requests: call #2.messages[0].contents[0].text: differs: expected \"What is the weather "
            "in Rome?\", got \"What is the weather in Paris?\"") in printed
    assert ("      -  - {role: user, contents: [{text: 'What is the weather in Rome?'}]}\n"
            "      +  - {role: user, contents: [{text: 'What is the weather in Paris?'}]}\n"
            "         - {role: assistant, contents: [{function_call: {call_id: c1, name: get_weather, arguments: "
            "{city: Paris}}}]}\n") in printed
    assert "see scenario" not in printed


def test_progress_is_a_few_plain_lines_off_a_terminal_and_quiet_prints_only_the_summary(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _copy(tmp_path, SCENARIO.read_text().replace("model_calls: 2", "model_calls: 3"))
    args = ["run", "--impl", "reference", "--scenarios", str(root), "--json", str(tmp_path / "r.json"),
            "--reports", str(tmp_path / "reports")]
    assert main(args) == 1
    printed = capsys.readouterr().out.splitlines()
    assert printed[:2] == ["progress: 1/2 (50%) runs finished: 1 fail", "progress: 2/2 (100%) runs finished: 2 fail"]
    assert "FAIL normal.single-call [reference, non-streaming]" in printed
    assert main([*args, "-q"]) == 1
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [
        "section   pass   fail  error  xfail  differs    n/a",
        "normal       0      2      0      0        0      0",
        "total        0      2      0      0        0      0",
        "(filtered run: not every implementation, mode, provider or scenario was selected)",
        "1 failing (scenario × implementation × provider, modes merged):",
        "FAIL normal.single-call [reference, non-streaming + streaming] expect.model-calls: 2 model calls, expected 3 "
        f"({root / 'normal' / 'single-call.yaml'}:36:7)",
    ]
    assert captured.err == ""
    assert (tmp_path / "reports" / "coverage.md").exists()


def test_quiet_and_verbose_exclude_each_other(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "-q", "-v"])
    assert exit_info.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


def _commands() -> dict[str, argparse.ArgumentParser]:
    parser = _parser()
    [commands] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(commands.choices)


def test_every_command_and_argument_has_a_plain_description() -> None:
    parser = _parser()
    [commands] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    listed = {action.dest: action.help for action in commands._choices_actions}
    assert set(listed) == {"run", "report", "gate", "diff", "version-matrix", "schema", "list", "fuzz", "mutate",
                           "coverage", "affected-rows", "check", "baseline-stub", "citations"}
    for name, command in _commands().items():
        assert listed[name], f"{name} has no one-line help"
        assert command.description, f"{name} --help has no description"
        undescribed = [a.option_strings or a.dest for a in command._actions if not a.help]
        assert undescribed == [], f"{name}: arguments without help: {undescribed}"
    for text in [parser.format_help(), *(c.format_help() for c in _commands().values())]:
        for markup in ("``", ":func:", ":class:", ":meth:", ".. "):
            assert markup not in text
    assert not parser.format_help().split("\n\n")[1].startswith("The ")  # not the module docstring


def test_existing_run_options_keep_their_meaning() -> None:
    args = _parser().parse_args(["run", "--impl", "a", "--impl", "b", "--mode", "streaming", "--scenarios", "x",
                                 "--json", "r.json", "--no-baseline", "--reports", "out", "--spec", "s.md", "-vv"])
    assert (args.impl, args.mode, args.scenarios, args.json, args.no_baseline, args.reports, args.spec,
            args.verbose, args.quiet) == (["a", "b"], "streaming", [Path("x")], Path("r.json"), True, Path("out"),
                                          Path("s.md"), 2, False)


def test_version_matrix_names_each_implementation_s_package(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    root = _copy(tmp_path, SCENARIO.read_text())
    results = tmp_path / "results.json"
    assert main(["run", "--impl", "reference", "--scenarios", str(root), "--json", str(results), "--no-reports"]) == 0
    markdown, document = tmp_path / "matrix.md", tmp_path / "matrix.json"
    assert main(["version-matrix", str(results), "--package", "reference=loop-conformance", "--markdown",
                 str(markdown), "--json", str(document)]) == 0
    assert "## reference (loop-conformance " in markdown.read_text(encoding="utf-8")
    assert json.loads(document.read_text(encoding="utf-8"))["implementations"]["reference"]["package"] == \
        "loop-conformance"
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_info:
        main(["version-matrix", str(results), "--package", "reference", "--markdown", "m", "--json", "j"])
    assert exit_info.value.code == 2
    assert "expected IMPL=PACKAGE" in capsys.readouterr().err

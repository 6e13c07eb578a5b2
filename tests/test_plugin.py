"""The pytest plugin, exercised through pytester as a user would run it."""

from __future__ import annotations

from pathlib import Path

import pytest

REFERENCE = ("--lc-impl", "reference", "-p", "no:cacheprovider")
SCENARIO = (Path(__file__).resolve().parent.parent / "scenarios" / "normal" / "single-call.yaml").read_text()


@pytest.fixture(autouse=True)
def _quiet_ini(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")


def _write(pytester: pytest.Pytester, name: str, text: str) -> Path:
    path = pytester.path / "scenarios" / "normal" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_scenario_yields_one_item_per_implementation_and_mode(pytester: pytest.Pytester) -> None:
    _write(pytester, "single-call.yaml", SCENARIO)
    result = pytester.runpytest("-v", *REFERENCE)
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines([
        "*normal.single-call*reference*non-streaming*PASSED*",
        "*normal.single-call*reference*streaming*PASSED*",
    ])


def test_mode_option_narrows_items(pytester: pytest.Pytester) -> None:
    _write(pytester, "single-call.yaml", SCENARIO)
    result = pytester.runpytest("--lc-mode", "streaming", *REFERENCE)
    result.assert_outcomes(passed=1)


def test_unknown_implementation_is_a_usage_error(pytester: pytest.Pytester) -> None:
    _write(pytester, "single-call.yaml", SCENARIO)
    result = pytester.runpytest("--lc-impl", "nope", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*no implementation named 'nope'*"])


def test_failure_names_turn_check_and_yaml_location(pytester: pytest.Pytester) -> None:
    wrong = SCENARIO.replace("- text: It is sunny in Paris.\n      executions", "- text: It rains.\n      executions")
    assert wrong != SCENARIO
    path = _write(pytester, "single-call.yaml", wrong)
    result = pytester.runpytest(*REFERENCE)
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines([
        "FAIL normal.single-call [[]reference, non-streaming[]]",
        f"  scenario: {path}:1",
        "  - turn 1 (line 15), check expect.response: [[]2[]].contents[[]0[]].text: differs: expected \"It rains.\"*",
    ])
    assert "Traceback" not in result.stdout.str()


def test_malformed_scenario_is_one_clear_error_and_others_still_run(pytester: pytest.Pytester) -> None:
    _write(pytester, "single-call.yaml", SCENARIO)
    _write(pytester, "broken.yaml", SCENARIO.replace("    expect:", "    exepct:"))
    result = pytester.runpytest(*REFERENCE)
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines([
        "*broken.yaml:*: error[[]unknown-key[]]: turn 1 has unknown key 'exepct'",
        "hint: did you mean 'expect'?",
    ])
    assert "Traceback" not in result.stdout.str()


def test_junit_carries_spec_rows(pytester: pytest.Pytester) -> None:
    _write(pytester, "single-call.yaml", SCENARIO)
    pytester.runpytest("--junitxml=out.xml", *REFERENCE)
    xml = (pytester.path / "out.xml").read_text()
    assert '<property name="spec_row" value="Single non-streaming call" />' in xml
    assert '<property name="mode" value="streaming" />' in xml


def test_yaml_outside_scenario_roots_is_not_collected(pytester: pytest.Pytester) -> None:
    (pytester.path / "other.yaml").write_text("not: a scenario\n")
    _write(pytester, "single-call.yaml", SCENARIO)
    result = pytester.runpytest(*REFERENCE)
    result.assert_outcomes(passed=2)

"""The pytest plugin, exercised through pytester as a user would run it."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.bundled import BUNDLED_SCENARIOS

REFERENCE = ("--lc-impl", "reference", "-p", "no:cacheprovider")
LOCAL = ("--lc-scenarios=scenarios", *REFERENCE)  # the scenarios/ folder `_write` fills
SCENARIO = (BUNDLED_SCENARIOS / "normal" / "single-call.yaml").read_text()


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
    result = pytester.runpytest("-v", *LOCAL)
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines([
        "*normal.single-call*reference*non-streaming*PASSED*",
        "*normal.single-call*reference*streaming*PASSED*",
    ])


def test_mode_option_narrows_items(pytester: pytest.Pytester) -> None:
    _write(pytester, "single-call.yaml", SCENARIO)
    result = pytester.runpytest("--lc-mode", "streaming", *LOCAL)
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
    result = pytester.runpytest(*LOCAL)
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines([
        "FAIL normal.single-call [[]reference, non-streaming[]]",
        f"  scenario: *{path.name}:1",
        f"  - *{path.name}:24:7: turn 1, check expect.response: "
        "[[]2[]].contents[[]0[]].text: differs: expected \"It rains.\"*",
    ])
    assert "Traceback" not in result.stdout.str()


def test_malformed_scenario_is_one_clear_error_and_others_still_run(pytester: pytest.Pytester) -> None:
    _write(pytester, "single-call.yaml", SCENARIO)
    _write(pytester, "broken.yaml", SCENARIO.replace("    expect:", "    exepct:"))
    result = pytester.runpytest(*LOCAL)
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines([
        "*broken.yaml:*: error[[]unknown-key[]]: turn 1 has unknown key 'exepct'",
        "hint: did you mean 'expect'?",
    ])
    assert "Traceback" not in result.stdout.str()


def test_junit_carries_spec_rows(pytester: pytest.Pytester) -> None:
    _write(pytester, "single-call.yaml", SCENARIO)
    pytester.runpytest("--junitxml=out.xml", *LOCAL)
    xml = (pytester.path / "out.xml").read_text()
    assert '<property name="spec_row" value="Single non-streaming call" />' in xml
    assert '<property name="mode" value="streaming" />' in xml


def test_yaml_outside_scenario_roots_is_not_collected(pytester: pytest.Pytester) -> None:
    (pytester.path / "other.yaml").write_text("not: a scenario\n")
    _write(pytester, "single-call.yaml", SCENARIO)
    result = pytester.runpytest(*LOCAL)
    result.assert_outcomes(passed=2)


def test_without_options_no_folder_beyond_the_bundled_one_is_collected(pytester: pytest.Pytester) -> None:
    _write(pytester, "single-call.yaml", SCENARIO)
    result = pytester.runpytest(*REFERENCE)
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


@pytest.fixture
def elsewhere(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A scenario folder beside the pytester rootdir, not under it, holding one scenario."""
    folder = tmp_path_factory.mktemp("elsewhere")
    (folder / "normal").mkdir()
    (folder / "normal" / "single-call.yaml").write_text(SCENARIO.replace("id: normal.", "id: elsewhere.", 1))
    return folder


def test_a_folder_outside_rootdir_and_testpaths_is_collected_and_run(pytester: pytest.Pytester,
                                                                     elsewhere: Path) -> None:
    pytester.makeini("[pytest]\ntestpaths = tests\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makepyfile(**{"tests/test_own": "def test_own():\n    pass\n"})
    assert not elsewhere.is_relative_to(pytester.path)
    result = pytester.runpytest("-v", f"--lc-scenarios={elsewhere}", *REFERENCE)
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines([
        f"rootdir: {pytester.path}",
        "*test_own.py::test_own PASSED*",
        "*single-call.yaml::elsewhere.single-call[[]reference-non-streaming[]] PASSED*",
        "*single-call.yaml::elsewhere.single-call[[]reference-streaming[]] PASSED*",
    ])


def test_a_folder_outside_rootdir_is_collected_by_every_xdist_worker(pytester: pytest.Pytester,
                                                                     elsewhere: Path) -> None:
    result = pytester.runpytest("-n", "2", f"--lc-scenarios={elsewhere}", *REFERENCE)
    result.assert_outcomes(passed=2)


@pytest.mark.parametrize(("options", "ran"), [
    ((), ["elsewhere.single-call"]),
    (("--lc-bundled",), ["elsewhere.single-call", "normal.single-call"]),
], ids=["named-folder-only", "with-bundled"])
def test_bundled_scenarios_join_a_named_folder_only_when_asked(pytester: pytest.Pytester, elsewhere: Path,
                                                                options: tuple[str, ...], ran: list[str]) -> None:
    result = pytester.runpytest("-v", f"--lc-scenarios={elsewhere}", *options, "--lc-mode", "streaming",
                                "-k", "single-call", *REFERENCE)
    result.assert_outcomes(passed=len(ran))
    for scenario in ran:
        result.stdout.fnmatch_lines([f"*::{scenario}[[]reference-streaming[]] PASSED*"])


@pytest.mark.parametrize(("options", "outcome"), [((), pytest.ExitCode.OK),
                                                  (("--lc-no-bundled",), pytest.ExitCode.NO_TESTS_COLLECTED)],
                         ids=["default", "lc-no-bundled"])
def test_lc_no_bundled_drops_the_bundled_scenarios_pytest_reaches(pytester: pytest.Pytester,
                                                                  options: tuple[str, ...],
                                                                  outcome: pytest.ExitCode) -> None:
    # `-c tox.ini`: an argument outside the rootdir would otherwise make pytest look for its ini file from there.
    result = pytester.runpytest("-c", "tox.ini", str(BUNDLED_SCENARIOS / "normal"), "-k", "single-call",
                                "--lc-mode", "streaming", *options, *REFERENCE)
    assert result.ret == outcome


def test_naming_part_of_a_folder_runs_only_that_part(pytester: pytest.Pytester, elsewhere: Path) -> None:
    item = f"{elsewhere / 'normal' / 'single-call.yaml'}::elsewhere.single-call[reference-streaming]"
    # `-c tox.ini`: an argument outside the rootdir would otherwise make pytest look for its ini file from there.
    result = pytester.runpytest("-c", "tox.ini", item, f"--lc-scenarios={elsewhere}", *REFERENCE)
    result.assert_outcomes(passed=1)


def test_a_missing_scenario_folder_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--lc-scenarios=nowhere", *REFERENCE)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*--lc-scenarios: {pytester.path / 'nowhere'} is not a folder"])


ASYNC_TEST = "import pytest\n\n@pytest.mark.asyncio\nasync def test_async():\n    assert True\n"


@pytest.mark.parametrize(("ini", "options"), [
    ("asyncio_mode = strict\nasyncio_default_fixture_loop_scope = function", ()),
    ("asyncio_mode = auto\nasyncio_default_fixture_loop_scope = function", ()),
    ("", ("-p", "no:asyncio")),
], ids=["strict", "auto", "without-pytest-asyncio"])
def test_scenarios_run_whatever_the_asyncio_setup(pytester: pytest.Pytester, elsewhere: Path, ini: str,
                                                  options: tuple[str, ...]) -> None:
    pytester.makeini(f"[pytest]\n{ini}\n")
    own = 0 if options else 1  # with pytest-asyncio, one of the project's own async tests in the same session
    if own:
        pytester.makepyfile(test_async=ASYNC_TEST)
    result = pytester.runpytest(f"--lc-scenarios={elsewhere}", *options, *REFERENCE)
    result.assert_outcomes(passed=2 + own)


def test_scenarios_run_from_a_rootdir_without_an_ini_file(pytester: pytest.Pytester, elsewhere: Path) -> None:
    (pytester.path / "tox.ini").unlink()  # written by `_quiet_ini`
    # A fresh interpreter, as a user runs it: no settings, plugin state or warning filters of this session.
    result = pytester.runpytest_subprocess(f"--lc-scenarios={elsewhere}", *REFERENCE)
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines([f"rootdir: {pytester.path}"])
    assert "configfile:" not in result.stdout.str()


def test_a_loop_that_never_yields_fails_its_item_and_the_session_goes_on(pytester: pytest.Pytester) -> None:
    _write(pytester, "single-call.yaml", SCENARIO)
    tests_folder = str(Path(__file__).resolve().parent)
    pytester.syspathinsert(tests_folder)
    result = pytester.runpytest("--lc-scenarios=scenarios", "--lc-impl", "misbehaving_adapters:spin",
                                "--lc-impl", "reference", "--lc-mode", "non-streaming", "--lc-timeout", "2",
                                "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*killed after 2 s: the run did not finish*"])

"""The pytest plugin refuses what the command line refuses: links out of a scenario folder (unread), a file reached
twice (collected once), and scenario files that share an id (each an error naming the others)."""

from __future__ import annotations

from fnmatch import fnmatch
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = (ROOT / "scenarios" / "normal" / "single-call.yaml").read_text(encoding="utf-8")
OPTIONS = ("--lc-scenarios=scenarios", "--lc-impl", "reference", "--lc-mode", "non-streaming",
           "-p", "no:cacheprovider")
SECRET = "API_KEY=sk-very-secret-value"


@pytest.fixture(autouse=True)
def _quiet_ini(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")


def _scenarios(pytester: pytest.Pytester) -> Path:
    folder = pytester.path / "scenarios"
    folder.mkdir()
    return folder


def test_a_link_out_of_the_folder_is_an_error_item_that_shows_nothing_of_its_target(
        pytester: pytest.Pytester) -> None:
    folder = _scenarios(pytester)
    secret = pytester.path / "elsewhere" / "secret.yaml"
    secret.parent.mkdir()
    secret.write_text(f"{SECRET}\n: [\n", encoding="utf-8")
    (folder / "leak.yaml").symlink_to(secret)
    result = pytester.runpytest("--junitxml=junit.xml", *OPTIONS)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*leak.yaml:1:1: error[[]outside-root[]]: this is a symbolic link to a file outside "
                                 "the scenario folder*"])
    output = result.stdout.str() + result.stderr.str() + (pytester.path / "junit.xml").read_text(encoding="utf-8")
    assert "very-secret" not in output
    assert "elsewhere" not in output


def test_a_file_reached_twice_is_collected_once(pytester: pytest.Pytester) -> None:
    folder = _scenarios(pytester)
    (folder / "single-call.yaml").write_text(SCENARIO, encoding="utf-8")
    (folder / "again.yaml").symlink_to(folder / "single-call.yaml")
    result = pytester.runpytest("--collect-only", "-q", *OPTIONS)
    items = [line for line in result.stdout.lines if "normal.single-call[" in line]
    assert len(items) == 1


def test_files_that_share_an_id_are_each_an_error_naming_the_other(pytester: pytest.Pytester) -> None:
    folder = _scenarios(pytester)
    (folder / "one.yaml").write_text(SCENARIO, encoding="utf-8")
    (folder / "two.yaml").write_text(SCENARIO.replace("title: One call", "title: The same call"), encoding="utf-8")
    (folder / "other.yaml").write_text(SCENARIO.replace("id: normal.single-call", "id: normal.other"),
                                       encoding="utf-8")
    result = pytester.runpytest(*OPTIONS)
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines_random([
        f"*one.yaml:1:5: error[[]duplicate-id[]]: scenario id 'normal.single-call' is also the id of {folder}/two.yaml",
        f"*two.yaml:1:5: error[[]duplicate-id[]]: scenario id 'normal.single-call' is also the id of {folder}/one.yaml",
    ])


@pytest.mark.parametrize(("factory", "said"), [
    ("factory_segfaults", "*implementation 'hostile_adapters:factory_segfaults' cannot be built: its factory*"),
    ("factory_sleeps", "*implementation 'hostile_adapters:factory_sleeps' cannot be built: its factory did not "
                       "return*"),
])
def test_a_factory_that_crashes_or_hangs_is_a_usage_error_not_a_dead_pytest(pytester: pytest.Pytester, factory: str,
                                                                             said: str) -> None:
    folder = _scenarios(pytester)
    (folder / "single-call.yaml").write_text(SCENARIO, encoding="utf-8")
    result = pytester.runpytest("--lc-scenarios=scenarios", "--lc-impl", f"hostile_adapters:{factory}",
                                "--lc-timeout", "3", "-p", "no:cacheprovider")
    assert result.ret in (pytest.ExitCode.USAGE_ERROR, pytest.ExitCode.INTERRUPTED)
    assert any(fnmatch(line, said) for line in result.stdout.lines + result.stderr.lines), result.stderr.str()

"""A missing outside requirement skips with its reason, and fails instead under LC_REQUIRE_ALL (as in CI)."""

from __future__ import annotations

from pathlib import Path

import pytest

HELPER = (Path(__file__).resolve().parent / "requirements_helper.py").read_text(encoding="utf-8")
TEST = """
from requirements_helper import require

def test_needs_something():
    require(False, "the widget is missing: apt-get install widget")
    assert False, "never reached"

def test_has_everything():
    require(True, "unused")
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(requirements_helper=HELPER, test_it=TEST)
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    return pytester


def test_a_missing_requirement_skips_with_its_reason(project: pytest.Pytester,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LC_REQUIRE_ALL", raising=False)
    result = project.runpytest("-rs", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["*the widget is missing: apt-get install widget*"])


@pytest.mark.parametrize(("value", "outcome"), [("1", "failed"), ("0", "skipped"), ("", "skipped")])
def test_ci_turns_a_missing_requirement_into_a_failure(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                       value: str, outcome: str) -> None:
    monkeypatch.setenv("LC_REQUIRE_ALL", value)
    result = project.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, **{outcome: 1})
    if outcome == "failed":
        result.stdout.fnmatch_lines(["*the widget is missing*LC_REQUIRE_ALL is set*"])

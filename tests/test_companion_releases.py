"""Which companion release goes with which agent-framework-core release, decided on metadata recorded from the
registry (tests/data/companion-releases.json: core releases and companion releases from June 2026 on), no network."""

from __future__ import annotations

from pathlib import Path

import pytest
from tool_loader import load_tool

ROOT = Path(__file__).resolve().parent.parent
RECORDED = ROOT / "tests" / "data" / "companion-releases.json"


companions = load_tool("companion_releases")
OPENAI, GEMINI = "agent-framework-openai", "agent-framework-gemini"
AG_UI, HOSTING = "agent-framework-ag-ui", "agent-framework-foundry-hosting"


@pytest.fixture(scope="module")
def recorded() -> tuple[list[object], dict[str, list[object]]]:
    return companions.load_metadata(RECORDED)


def _pair(core: str, recorded: tuple[list[object], dict[str, list[object]]]) -> dict[str, str | None]:
    core_releases, others = recorded
    return companions.pair_companions(core, core_releases, others)


def test_each_core_release_gets_the_companions_published_with_it(recorded: tuple[list[object], dict[str, list[object]]]
                                                                 ) -> None:
    assert _pair("1.10.0", recorded) == {AG_UI: "1.0.0rc7", HOSTING: "1.0.0a260630", GEMINI: "1.0.0a260630",
                                         OPENAI: "1.10.0"}
    assert _pair("1.20.0", recorded) == {AG_UI: "1.5.0", HOSTING: "1.0.0b261002", GEMINI: "1.0.0b261002",
                                         OPENAI: "1.15.0"}


def test_a_companion_of_the_next_batch_uploaded_seconds_before_its_core_is_not_taken(
        recorded: tuple[list[object], dict[str, list[object]]]) -> None:
    # agent-framework-ag-ui 1.0.0 accepts core 1.12.0 but went up with core 1.12.1, four seconds before it.
    assert _pair("1.12.0", recorded)[AG_UI] == "1.0.0rc9"
    assert _pair("1.12.1", recorded)[AG_UI] == "1.0.0"


def test_a_core_release_without_a_companion_in_its_batch_keeps_the_newest_earlier_one(
        recorded: tuple[list[object], dict[str, list[object]]]) -> None:
    assert _pair("1.15.0", recorded)[GEMINI] == "1.0.0b260813"  # no Gemini release with core 1.15.0
    assert _pair("1.23.0", recorded)[OPENAI] == "1.17.0"  # nor an OpenAI one with 1.23.0, the newest core


def test_a_core_release_no_companion_accepts_has_none(recorded: tuple[list[object], dict[str, list[object]]]) -> None:
    # Every recorded Gemini release asks for core >= 1.10.0.
    assert _pair("1.9.0", recorded)[GEMINI] is None


Release = companions.Release
CORE = [Release("1.0.0", "2026-01-01T00:00:00Z"), Release("1.1.0", "2026-02-01T00:00:00Z"),
        Release("1.2.0", "2026-03-01T00:00:00Z")]


def _only(releases: list[object], core: str = "1.1.0") -> str | None:
    return companions.pair_companions(core, CORE, {"p": releases})["p"]


def test_a_final_release_wins_over_a_newer_pre_release() -> None:
    releases = [Release("1.0.0", "2026-02-01T00:10:00Z", ">=1.1.0"), Release("1.1.0b1", "2026-02-02T00:00:00Z",
                                                                           ">=1.1.0")]
    assert _only(releases) == "1.0.0"


def test_a_pre_release_serves_where_no_final_release_qualifies() -> None:
    releases = [Release("0.9.0", "2026-01-01T00:10:00Z", ">=1.0.0,<1.1"),
                Release("1.0.0a2", "2026-02-01T00:10:00Z", ">=1.1.0")]
    assert _only(releases) == "1.0.0a2"


def test_yanked_releases_and_releases_naming_no_core_requirement_are_never_paired() -> None:
    assert _only([Release("1.0.0", "2026-02-01T00:10:00Z", ">=1.1.0", yanked=True)]) is None
    assert _only([Release("1.0.0", "2026-02-01T00:10:00Z", None)]) is None
    assert _only([Release("1.0.0", "2026-02-01T00:10:00Z", "")]) == "1.0.0"  # no bound: any core release


def test_a_fix_between_two_core_releases_counts_and_the_next_batch_does_not() -> None:
    releases = [Release("1.0.0", "2026-02-01T00:10:00Z", ">=1.1.0"),
                Release("1.0.1", "2026-02-15T00:00:00Z", ">=1.1.0"),
                Release("1.1.0", "2026-02-28T23:59:50Z", ">=1.1.0")]  # the next core release's batch
    assert _only(releases) == "1.0.1"
    assert _only(releases, "1.2.0") == "1.1.0"


def test_the_core_requirement_is_read_from_requires_dist_and_extras_lines_are_not() -> None:
    lines = ["openai<4,>=2.25.0", 'agent-framework-core[all]>=9; extra == "all"', "agent_framework_core<2,>=1.22.0"]
    assert companions.core_requirement(lines) == "<2,>=1.22.0"
    assert companions.core_requirement(["openai", "not a requirement ((("]) is None

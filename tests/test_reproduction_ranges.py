"""The reproduction-range audit's verdicts, on recorded exits: a range claiming a release where its script shows the
fix is unproven; a script showing the defect outside every range naming it is reported as such; entries naming one
scenario and script are judged together."""

from __future__ import annotations

from tool_loader import load_tool

from harness.reporting.baseline import KnownFailure

load_tool("companion_releases")
load_tool("sweep_versions")
ranges = load_tool("reproduction_ranges")
CORE = ranges.FRAMEWORKS["agent-framework-core"]
SCRIPT = "repro/agent_framework/example.py"


def _entry(first: str | None, until: str | None, checks: list[str], intermittent: bool = False) -> KnownFailure:
    return KnownFailure(scenario="normal.example", implementation="agent_framework", checks=checks,
                        versions_from=first, versions_until=until, reproduction=SCRIPT,
                        reason="an example defect, present on the releases of the range and fixed after",
                        intermittent=intermittent)


def test_entries_of_one_defect_are_judged_together() -> None:
    # Split by the checks each range fails, together they claim 1.10.0 up to (not including) 1.13.0.
    entries = [_entry("1.10.0", "1.12.0", ["exactly-once"]), _entry("1.12.0", "1.13.0", ["no-orphans"])]
    exits = {SCRIPT: {"1.10.0": 1, "1.12.0": 1, "1.13.0": 0}}
    assert ranges.disagreements(entries, CORE, exits) == []


def test_a_range_over_a_release_where_the_script_passes_is_unproven() -> None:
    exits = {SCRIPT: {"1.10.0": 1, "1.12.0": 0, "1.13.0": 0}}
    found = ranges.disagreements([_entry("1.10.0", "1.13.0", ["exactly-once"])], CORE, exits)
    assert [(d.kind, d.releases) for d in found] == [("unproven", ("1.12.0",))]


def test_an_intermittent_entry_is_not_unproven_by_one_passing_script() -> None:
    exits = {SCRIPT: {"1.10.0": 0}}
    entries = [_entry("1.10.0", None, ["parallel-order"], intermittent=True)]
    assert ranges.disagreements(entries, CORE, exits) == []


def test_the_defect_outside_every_range_is_reported_and_a_script_that_cannot_run_proves_nothing() -> None:
    exits = {SCRIPT: {"1.10.0": 2, "1.12.0": 1, "1.13.0": 1, "1.14.0": 0}}
    found = ranges.disagreements([_entry("1.13.0", "1.14.0", ["exactly-once"])], CORE, exits)
    assert [(d.kind, d.releases) for d in found] == [("wider", ("1.12.0",))]


def test_entries_of_other_frameworks_are_left_out() -> None:
    entry = KnownFailure(scenario="normal.example", implementation="pydantic_ai", checks=["exactly-once"],
                         reproduction="repro/pydantic_ai/example.py",
                         reason="a defect of another framework, which this sweep does not run at all")
    assert ranges.reproductions_of([entry], CORE) == []


def test_an_endpoint_entry_is_judged_by_the_companion_release_each_environment_holds() -> None:
    # The AG-UI endpoint's range is in agent-framework-ag-ui releases: core 1.11.0 holds ag-ui 1.0.0rc8, which a
    # range from 1.4.0 leaves out, although 1.11.0 itself is past 1.4.0.
    entry = KnownFailure(scenario="agui.example", implementation="agent_framework_ag_ui", checks=["expect.events"],
                         versions_from="1.4.0", versions_until=None, reproduction=SCRIPT,
                         reason="an example endpoint defect, present from ag-ui 1.4.0 on")
    paired = {"1.11.0": {"agent_framework_ag_ui": "1.0.0rc8"}, "1.19.0": {"agent_framework_ag_ui": "1.4.0"}}
    exits = {SCRIPT: {"1.11.0": 0, "1.19.0": 1}}
    assert ranges.disagreements([entry], CORE, exits, paired) == []
    found = ranges.disagreements([entry], CORE, {SCRIPT: {"1.11.0": 1, "1.19.0": 0}}, paired)
    assert [(d.kind, d.releases) for d in found] == [("unproven", ("1.19.0",)), ("wider", ("1.11.0",))]


def test_an_endpoint_entry_claims_nothing_where_its_package_is_missing() -> None:
    entry = KnownFailure(scenario="agui.example", implementation="agent_framework_ag_ui", checks=["expect.events"],
                         versions_from="1.0.0rc7", versions_until=None, reproduction=SCRIPT,
                         reason="an example endpoint defect, present on every ag-ui release")
    found = ranges.disagreements([entry], CORE, {SCRIPT: {"1.10.0": 0}}, {})
    assert found == []

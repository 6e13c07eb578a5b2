"""A restricted run of the google_adk adapter: ADK's Runner over the scripted model, both modes, offline."""

from __future__ import annotations

import importlib.util
import socket
from pathlib import Path

import pytest

# An optional extra: installed by `pip install -e '.[google-adk]'`.
pytest.importorskip("google.adk", reason="google-adk is not installed: pip install -e '.[google-adk]'")

from harness.adapters.google_adk import adapter  # noqa: E402
from harness.contract import adapter_profiles, adapter_unexpressible  # noqa: E402
from harness.run.suite import run_suite  # noqa: E402

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any connection attempt fails the run: ADK must not reach Google (or anything else)."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"network access attempted: {args!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


@pytest.mark.usefixtures("no_network")
def test_core_and_approval_scenarios_pass_in_both_modes_offline() -> None:
    paths = [SCENARIOS / "normal" / "single-call.yaml", SCENARIOS / "normal" / "streaming-call.yaml",
             SCENARIOS / "normal" / "sequential-rounds.yaml", SCENARIOS / "approval" / "approved-resume.yaml",
             SCENARIOS / "approval" / "approved-resume-session.yaml", SCENARIOS / "approval" / "rejected-resume.yaml"]
    results = run_suite([adapter()], paths).results
    assert {(r.scenario, r.mode) for r in results if r.verdict != "pass"} == set()
    assert {r.mode for r in results} == {"streaming", "non-streaming"}
    assert len(results) == 2 * len(paths)


def test_the_adapter_claims_safety_only_and_names_what_it_cannot_express() -> None:
    adk = adapter()
    assert adapter_profiles(adk) == frozenset({"safety"})
    reason = adapter_unexpressible(adk, "limits.max-function-calls.parallel-overshoot")
    assert reason is not None
    assert "max_function_calls" in reason
    assert adapter_unexpressible(adk, "normal.single-call") is None


def test_a_setting_without_counterpart_makes_its_scenario_na_not_a_pass() -> None:
    results = run_suite([adapter()], [SCENARIOS / "errors" / "consecutive-errors-cap.yaml"]).results
    assert {r.verdict for r in results} == {"n/a"}
    # The setting is a capability the adapter does not declare (harness.contract.SETTING_CAPABILITIES).
    assert all("consecutive-error-cap" in r.reason for r in results)


def test_the_loop_modules_name_the_installed_releases_flow() -> None:
    modules = adapter().loop_modules
    assert modules[0] == "google.adk.flows.llm_flows.base_llm_flow"
    assert len(modules) > 1
    assert all(importlib.util.find_spec(name) is not None for name in modules)

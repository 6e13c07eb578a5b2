"""The provider dimension of a run: scenario × implementation × mode × provider, from the runner to the two faces.

An in-test adapter declares the ``openai-chat`` dialect and ignores the wire (`wire_adapters`), and stand-ins take the
place of the wire fakes, so these tests prove the plumbing whatever the wire fakes can do.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from wire_adapters import TrivialEndpoint, WireIgnoringAdapter, missing_wire_endpoint, trivial_wire_endpoint

import fakes.wire
from harness.cli import main
from harness.contract import adapter_dialects
from harness.reporting.baseline import KnownFailure
from harness.run.runner import run_scenario
from harness.run.suite import run_isolated_suite, run_suite
from harness.scenario.loader import load_scenario

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "normal" / "single-call.yaml"
FACTORY = "wire_adapters:adapter"


@pytest.fixture
def trivial_wire(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fakes.wire, "make_wire_endpoint", trivial_wire_endpoint)


@pytest.fixture
def worker_wire(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stand-in `LC_TEST_WIRE` names reaches worker processes; `fakes.wire` is restored here afterwards."""
    monkeypatch.setattr(fakes.wire, "make_wire_endpoint", fakes.wire.make_wire_endpoint)


def test_an_adapter_runs_over_neutral_and_every_dialect_it_declares() -> None:
    assert adapter_dialects(WireIgnoringAdapter()) == ("neutral", "openai-chat")


@pytest.mark.usefixtures("trivial_wire")
def test_a_wire_run_is_produced_labelled_and_given_its_endpoint() -> None:
    adapter = WireIgnoringAdapter()
    suite = run_suite([adapter], [SCENARIO])
    assert [(r.provider, r.mode, r.verdict) for r in suite.results] == [
        ("neutral", "non-streaming", "pass"), ("neutral", "streaming", "pass"),
        ("openai-chat", "non-streaming", "pass"), ("openai-chat", "streaming", "pass")]
    assert adapter.opened[0] == ("neutral", None)
    assert adapter.opened[-1] == ("openai-chat", TrivialEndpoint("openai-chat"))
    assert suite.results[-1].to_json()["provider"] == "openai-chat"


@pytest.mark.usefixtures("trivial_wire")
def test_providers_narrow_the_runs() -> None:
    suite = run_suite([WireIgnoringAdapter()], [SCENARIO], providers=["openai-chat"])
    assert {r.provider for r in suite.results} == {"openai-chat"}
    assert run_suite([WireIgnoringAdapter()], [SCENARIO], providers=["gemini"]).results == []


async def test_a_missing_dialect_dependency_makes_the_run_n_a(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fakes.wire, "make_wire_endpoint", missing_wire_endpoint)
    adapter = WireIgnoringAdapter()
    result = await run_scenario(load_scenario(SCENARIO), adapter, "streaming", dialect="openai-chat")
    assert (result.verdict, result.provider) == ("n/a", "openai-chat")
    assert result.reason == "openai-chat provider not installed: No module named 'openai'"
    assert adapter.opened == []  # nothing ran


async def test_a_wire_endpoint_that_cannot_be_built_is_an_error_never_a_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_: object) -> object:
        raise NotImplementedError("the openai-chat wire endpoint is not written yet")

    monkeypatch.setattr(fakes.wire, "make_wire_endpoint", broken)
    result = await run_scenario(load_scenario(SCENARIO), WireIgnoringAdapter(), "non-streaming",
                                dialect="openai-chat")
    assert (result.verdict, result.provider) == ("error", "openai-chat")
    assert result.checks[0].id == "completes"
    assert result.checks[0].message.startswith("the openai-chat wire endpoint could not be built: "
                                               "NotImplementedError: the openai-chat wire endpoint is not written")


async def test_n_a_results_carry_their_provider(tmp_path: Path) -> None:
    needs_approval = tmp_path / "single-call.yaml"
    needs_approval.write_text(SCENARIO.read_text().replace("tools:\n", "requires: [approval]\ntools:\n", 1))
    adapter = WireIgnoringAdapter()
    adapter.capabilities = frozenset()
    result = await run_scenario(load_scenario(needs_approval), adapter, "streaming", dialect="openai-chat")
    assert (result.verdict, result.provider, result.reason) == (
        "n/a", "openai-chat", "wire_ignoring lacks capability: approval")


@pytest.mark.usefixtures("trivial_wire")
def test_a_baseline_entry_of_every_provider_does_not_go_stale_on_a_passing_wire_run() -> None:
    entry = KnownFailure(scenario="normal.single-call", implementation="wire_ignoring", checks=["expect.response"],
                         reason="A stand-in failure documented for every provider, as a loop's own defect is.",
                         reproduction="repro/none.py")
    results = run_suite([WireIgnoringAdapter()], [SCENARIO], known_failures=[entry]).results
    verdicts = {(r.provider, r.mode): r.verdict for r in results}
    assert verdicts[("neutral", "streaming")] == "fail"  # a passing neutral run marks the entry stale, as before
    assert verdicts[("openai-chat", "streaming")] == "pass"  # over a wire the gate judges it with the others


def test_the_dialect_crosses_the_worker_boundary(monkeypatch: pytest.MonkeyPatch) -> None:
    # The wire endpoint is built beside the judge, in this process, whatever process the loop runs in.
    monkeypatch.setattr(fakes.wire, "make_wire_endpoint", missing_wire_endpoint)
    suite = run_isolated_suite([FACTORY, "reference"], [SCENARIO], ("streaming",), jobs=2)
    assert [(r.implementation, r.provider, r.verdict) for r in suite.results] == [
        ("wire_ignoring", "neutral", "pass"), ("wire_ignoring", "openai-chat", "n/a"), ("reference", "neutral", "pass")]
    assert suite.results[1].reason == "openai-chat provider not installed: No module named 'openai'"
    assert suite.unsupported == []


def test_a_broken_adapter_is_an_error_over_every_provider_asked_for() -> None:
    suite = run_isolated_suite(["misbehaving_adapters:factory_raises"], [SCENARIO], ("streaming",),
                               providers=["neutral", "gemini"], jobs=1)
    assert [(r.provider, r.verdict) for r in suite.results] == [("neutral", "error"), ("gemini", "error")]
    assert suite.unsupported == []


@pytest.mark.usefixtures("worker_wire")
def test_run_provider_narrows_labels_and_notes_what_an_implementation_lacks(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("LC_TEST_WIRE", "trivial")
    out = tmp_path / "results.json"
    args = ["run", "--impl", FACTORY, "--impl", "reference", "--provider", "openai-chat", "--scenarios", str(SCENARIO),
            "--json", str(out), "--reports", str(tmp_path / "reports"), "-j", "2"]
    assert main(args) == 0
    captured = capsys.readouterr()
    assert "note: reference does not run over the openai-chat provider" in captured.err
    assert "(filtered run: not every implementation, mode, provider or scenario was selected)" in captured.out
    results = json.loads(out.read_text())["results"]
    assert {(r["implementation"], r["provider"], r["verdict"]) for r in results} == {
        ("wire_ignoring", "openai-chat", "pass")}
    assert "<br>streaming<br>openai-chat |" in (tmp_path / "reports" / "coverage.md").read_text()


def test_run_refuses_an_unknown_provider(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "--provider", "anthropic"])
    assert exit_info.value.code == 2
    assert ("argument --provider: invalid choice: 'anthropic' (choose from 'neutral', 'openai-responses', "
            "'openai-chat', 'gemini')") in capsys.readouterr().err


def test_list_shows_each_implementation_s_providers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.split() == ["reference", "providers:", "neutral"] for line in lines), lines


def test_plugin_items_name_the_provider_only_when_it_is_not_neutral(pytester: pytest.Pytester,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fakes.wire, "make_wire_endpoint", fakes.wire.make_wire_endpoint)  # the factory patches it
    monkeypatch.setenv("LC_TEST_WIRE", "trivial")
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    folder = pytester.path / "scenarios" / "normal"
    folder.mkdir(parents=True)
    (folder / "single-call.yaml").write_text(SCENARIO.read_text())
    arguments = ("--lc-scenarios=scenarios", "--lc-impl", FACTORY, "-p", "no:cacheprovider")
    result = pytester.runpytest("-v", *arguments)
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines_random([
        "*normal.single-call?wire_ignoring-non-streaming? PASSED*",
        "*normal.single-call?wire_ignoring-streaming? PASSED*",
        "*normal.single-call?wire_ignoring-non-streaming-openai-chat? PASSED*",
        "*normal.single-call?wire_ignoring-streaming-openai-chat? PASSED*",
    ])
    narrowed = pytester.runpytest("--lc-provider", "neutral", *arguments)
    narrowed.assert_outcomes(passed=2)
    refused = pytester.runpytest("--lc-provider", "anthropic", *arguments)
    assert refused.ret == pytest.ExitCode.USAGE_ERROR

"""The short fuzz profile, with a fixed seed, on every installed implementation: findings are judged against the
baseline and the fuzz allowances exactly as `loop-conformance fuzz` judges them, so a new failure fails this test.
Deliberately broken loops are found within the same profile, and the scenario file exported for each reproduces it
through `loop-conformance run`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from fuzz_controls import reverses_parallel_results, runs_each_call_twice

from harness.adapters.reference import ReferenceAdapter
from harness.adapters.reference import adapter as reference_adapter
from harness.bundled import BUNDLED_BASELINE, BUNDLED_FUZZ_ALLOWANCES
from harness.cli import main
from harness.fuzz.allowances import load_allowances
from harness.fuzz.oracle import Judge
from harness.fuzz.session import PROFILES, fuzz
from harness.reporting.baseline import load_baseline
from harness.run.registry import installed_adapters
from harness.run.runner import run_scenario
from harness.scenario.loader import load_many, load_scenario

# Since the generator also draws hosted approval requests, seed 20260601's eight conversations no longer give
# ReversesParallelResults a parallel batch; 20260602 gives both controls theirs.
SEED = 20260602
SHORT = PROFILES["short"]
BUNDLED = Path(__file__).resolve().parent.parent / "scenarios"


def _judge() -> Judge:
    return Judge(load_baseline(BUNDLED_BASELINE).known_failures, load_allowances(BUNDLED_FUZZ_ALLOWANCES),
                 reference_adapter())


INSTALLED, NOT_LOADED = installed_adapters()
ADAPTERS = {adapter.name: adapter for adapter in INSTALLED}


def test_every_installed_implementation_is_fuzzed() -> None:
    # Every implementation that loads gates below, none excused: its findings on the short profile were triaged as
    # fixes of ours, accepted differences (harness/fuzz/differences.py) or known defects
    # (baselines/fuzz-allowances.yaml). One that does not load may only be missing its extra: a broken factory
    # would take an implementation out of this gate silently.
    assert {"reference", "reference_stateless"} <= set(ADAPTERS)
    assert [problem for problem in NOT_LOADED if ": not available (" not in problem] == []


@pytest.mark.parametrize("name", sorted(ADAPTERS))
def test_short_profile_finds_nothing_beyond_the_baseline(name: str, tmp_path: Path) -> None:
    bundled = load_many([BUNDLED])[0]
    report = fuzz(ADAPTERS[name], _judge(), max_examples=SHORT.max_examples, seed_value=SEED, out=tmp_path,
                  database=None, max_findings=SHORT.max_findings, bundled=bundled)
    assert report.examples >= SHORT.max_examples
    found = [(c.finding.mode, c.finding.checks, c.finding.message, str(c.path)) for c in report.counterexamples]
    assert found == []


CONTROLS: dict[str, tuple[Callable[[], ReferenceAdapter], str]] = {
    "runs-each-call-twice": (runs_each_call_twice, "exactly-once"),
    "reverses-parallel-results": (reverses_parallel_results, "parallel-order"),
}


@pytest.mark.parametrize("control", sorted(CONTROLS))
def test_short_profile_finds_a_broken_loop_and_its_file_reproduces_it(control: str, tmp_path: Path) -> None:
    factory, check = CONTROLS[control]
    adapter = factory()
    report = fuzz(adapter, _judge(), max_examples=SHORT.max_examples, seed_value=SEED, out=tmp_path,
                  database=tmp_path / "db", max_findings=1)
    assert report.counterexamples, f"the short profile missed {adapter.name}"
    found = report.counterexamples[0]
    assert check in found.finding.checks
    assert found.path is not None
    assert found.path.exists()
    scenario = load_scenario(found.path)
    import asyncio

    replayed = asyncio.run(run_scenario(scenario, adapter, found.finding.mode))
    assert check in {c.id for c in replayed.checks if c.verdict == "fail"}
    assert asyncio.run(run_scenario(scenario, reference_adapter(), found.finding.mode)).verdict == "pass"
    assert found.spec.id.startswith("fuzz.")
    assert found.spec.spec
    assert found.spec.title


def test_exported_file_reproduces_through_the_command_line(tmp_path: Path) -> None:
    adapter = runs_each_call_twice()
    report = fuzz(adapter, _judge(), max_examples=SHORT.max_examples, seed_value=SEED, out=tmp_path / "found",
                  database=None, max_findings=1)
    path = report.counterexamples[0].path
    assert path is not None
    broken = ["run", "--scenarios", str(path), "--no-reports", "--no-baseline", "-q", "-j", "1"]
    assert main([*broken, "--impl", "fuzz_controls:runs_each_call_twice"]) == 1
    assert main([*broken, "--impl", "reference"]) == 0


def test_fuzz_command_writes_counterexamples_and_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Seed 2: since the generator also draws declaration-only and hosted calls, the five conversations of seed 1
    # no longer give this control a call to run twice.
    code = main(["fuzz", "--impl", "fuzz_controls:runs_each_call_twice", "--max-examples", "5", "--seed", "2",
                 "--out", str(tmp_path / "out"), "--database", str(tmp_path / "db"), "--no-stream-splits"])
    printed = capsys.readouterr().out
    assert code == 1
    assert "FOUND [control-runs-each-call-twice" in printed
    assert "exactly-once" in printed
    assert list((tmp_path / "out").glob("*.yaml"))
    assert (tmp_path / "db").is_dir()  # the example database is kept, so the failure replays first next time


def test_fuzz_command_exits_0_when_nothing_is_found(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["fuzz", "--impl", "reference", "--max-examples", "3", "--seed", "1", "--out", str(tmp_path / "out"),
                 "--database", str(tmp_path / "db"), "--no-stream-splits"])
    assert code == 0
    assert "0 counterexample(s)" in capsys.readouterr().out

"""A run survives any loop: every deliberately broken adapter ends as an `error` verdict for its own scenarios,
within the hard limit, while every other run still happens and the results and reports are written."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harness.cli import main
from harness.results import ScenarioResult
from harness.run.suite import IsolatedSuiteRun, run_isolated_suite

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "normal" / "single-call.yaml"
# Small limits keep the suite fast; the killed runs cost about RUN_LIMIT each, two at a time.
RUN_LIMIT = 4.0
TURN_LIMIT = 0.5

KILLED = ("spin", "blocking_sleep", "swallowed_cancellation", "endless_model_calls", "print_flood", "hanging_close")
CONTRACT_BROKEN = ("wrong_return_type", "wrong_field_type", "cancelled_error", "sys_exit")
FACTORY_BROKEN = ("factory_raises", "factory_exits", "factory_returns_nonsense")


@pytest.fixture(scope="module")
def suite() -> IsolatedSuiteRun:
    names = ["reference", *(f"misbehaving_adapters:{n}" for n in (*KILLED, *CONTRACT_BROKEN, *FACTORY_BROKEN))]
    return run_isolated_suite(names, [SCENARIO], ("non-streaming",), jobs=2, run_timeout=RUN_LIMIT,
                              turn_timeout=TURN_LIMIT)


def _result(suite: IsolatedSuiteRun, implementation: str) -> ScenarioResult:
    (result,) = [r for r in suite.results if r.implementation in (implementation, implementation.replace("_", "-"),
                                                                   f"misbehaving_adapters:{implementation}")]
    return result


def test_the_correct_loop_still_passes_beside_broken_ones(suite: IsolatedSuiteRun) -> None:
    assert _result(suite, "reference").verdict == "pass"
    assert len(suite.results) == 1 + len(KILLED) + len(CONTRACT_BROKEN) + len(FACTORY_BROKEN)


@pytest.mark.parametrize("behaviour", KILLED)
def test_a_loop_that_never_finishes_is_killed_with_its_partial_record(suite: IsolatedSuiteRun,
                                                                      behaviour: str) -> None:
    result = _result(suite, behaviour)
    assert result.verdict == "error"
    (check,) = result.checks
    assert check.id == "completes"
    assert check.message == f"killed after {RUN_LIMIT:g} s: the run did not finish"
    assert check.details[0].startswith("model calls so far: ")
    assert any(line.startswith("executions so far: ") for line in check.details)


def test_a_runaway_loop_reports_how_far_it_got_and_prints_nothing(suite: IsolatedSuiteRun,
                                                                  capfd: pytest.CaptureFixture[str]) -> None:
    endless = _result(suite, "endless_model_calls").checks[0]
    calls = int(endless.details[0].rsplit(": ", 1)[1])
    assert calls > 0  # it made model calls before it was killed: at full speed, for the whole limit
    shown = [line for line in endless.details[1:] if line.startswith("  turn 1, model call #")]
    assert len(shown) == min(calls, 10)
    assert (f"  … and {calls - 10} more" in endless.details) == (calls > 10)
    flood = _result(suite, "print_flood")
    assert 0 < len(flood.log) <= 20
    assert flood.log[-1].startswith("runaway line ")
    assert "runaway line" not in capfd.readouterr().out


@pytest.mark.parametrize("behaviour", CONTRACT_BROKEN)
def test_an_adapter_breaking_the_contract_is_an_error(suite: IsolatedSuiteRun, behaviour: str) -> None:
    result = _result(suite, behaviour)
    assert result.verdict == "error", result.checks
    assert any(c.id == "completes" and c.verdict == "error" for c in result.checks)


@pytest.mark.parametrize("factory", FACTORY_BROKEN)
def test_a_broken_factory_is_an_error_for_its_own_scenarios(suite: IsolatedSuiteRun, factory: str) -> None:
    result = _result(suite, factory)
    assert result.verdict == "error"
    assert result.checks[0].message.startswith("the adapter could not be built: ")


def test_the_cli_writes_results_and_reports_despite_a_hanging_loop(tmp_path: Path) -> None:
    results = tmp_path / "results.json"
    code = main(["run", "--impl", "reference", "--impl", "misbehaving_adapters:spin", "--scenarios", str(SCENARIO),
                 "--mode", "non-streaming", "--timeout", str(RUN_LIMIT), "--json", str(results),
                 "--reports", str(tmp_path / "reports"), "--no-baseline"])
    assert code == 1
    verdicts = {r["implementation"]: r["verdict"] for r in json.loads(results.read_text())["results"]}
    assert verdicts == {"reference": "pass", "spin": "error"}
    assert (tmp_path / "reports" / "coverage.md").exists()


def test_one_and_two_workers_give_identical_results(tmp_path: Path) -> None:
    files: list[str] = []
    for jobs in (1, 2):
        out = tmp_path / f"j{jobs}.json"
        main(["run", "--impl", "reference", "-j", str(jobs), "--json", str(out), "--no-reports"])
        # Everything but how long each run took (`seconds`, JUnit's time), which no two runs share.
        files.append(re.sub(r'\n *"seconds": [0-9.e-]+,', "", out.read_text(encoding="utf-8")))
    assert '"seconds"' not in files[0]
    assert files[0] == files[1]

"""Known failures applied to one run: xfail, stale, fails beyond, and several entries covering one run."""

from __future__ import annotations

from harness.reporting.baseline import KnownFailure, apply_baseline
from harness.results import CheckResult, ScenarioResult

REASON = "Results of parallel calls that finish together are streamed in an order left to chance."


def _known(checks: list[str], *, intermittent: bool = False, reproduction: str = "repro/x.py") -> KnownFailure:
    return KnownFailure(scenario="normal.parallel-calls.distinct-tools", implementation="pydantic_ai",
                        checks=checks, modes=["streaming"], versions_from="2.60.0", versions_until="2.68.0",
                        intermittent=intermittent, reason=REASON, reproduction=reproduction)


def _run(*failing: str, version: str = "2.60.0") -> ScenarioResult:
    checks = tuple(CheckResult(c, "fail" if c in failing else "pass")
                   for c in ("completes", "parallel-order", "stream-agreement", "expect.requests"))
    return ScenarioResult("normal.parallel-calls.distinct-tools", "t", ("Parallel calls",), "normal", "pydantic_ai",
                          version, "streaming", "fail" if failing else "pass", checks)


def test_a_run_failing_the_known_checks_is_xfail_with_the_reason_and_reproduction() -> None:
    known = [_known(["parallel-order", "stream-agreement"])]
    result = apply_baseline(_run("parallel-order", "stream-agreement"), known)
    assert result.verdict == "xfail"
    assert result.reason == f"known failure: {REASON} Reproduction: repro/x.py"


def test_a_run_failing_only_some_known_checks_reports_the_rest_stale() -> None:
    result = apply_baseline(_run("parallel-order"), [_known(["parallel-order", "stream-agreement"])])
    assert result.verdict == "fail"
    assert result.checks[-1].id == "baseline"
    assert "now passes stream-agreement" in result.checks[-1].message


def test_a_passing_run_makes_a_steady_entry_stale_but_not_an_intermittent_one() -> None:
    steady = apply_baseline(_run(), [_known(["parallel-order"])])
    assert steady.verdict == "fail"
    assert steady.checks[-1].id == "baseline"
    intermittent = apply_baseline(_run(), [_known(["parallel-order"], intermittent=True)])
    assert intermittent == _run()


def test_outside_its_releases_an_entry_covers_nothing() -> None:
    assert apply_baseline(_run("parallel-order", version="2.68.0"), [_known(["parallel-order"])]).verdict == "fail"


def test_several_entries_covering_one_run_are_judged_together() -> None:
    """A steady defect plus an intermittent one on the same run: xfail whether the intermittent one shows or not,
    stale when the steady one is gone, a plain failure for any check neither names."""
    entries = [_known(["expect.requests"], reproduction="repro/steady.py"),
               _known(["parallel-order", "stream-agreement"], intermittent=True, reproduction="repro/order.py")]
    both = apply_baseline(_run("expect.requests", "parallel-order"), entries)
    assert both.verdict == "xfail"
    assert "repro/steady.py" in both.reason
    assert "repro/order.py" in both.reason
    steady_only = apply_baseline(_run("expect.requests"), entries)
    assert steady_only.verdict == "xfail"
    assert "repro/order.py" not in steady_only.reason
    fixed = apply_baseline(_run("parallel-order"), entries)
    assert fixed.verdict == "fail"
    assert "repro/steady.py" in fixed.checks[-1].message
    beyond = apply_baseline(_run("expect.requests", "completes"), entries)
    assert (beyond.verdict, beyond.reason) == ("fail", "fails beyond its known failure: completes")

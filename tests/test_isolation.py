"""A run survives any loop: every deliberately broken adapter ends as an `error` verdict for its own scenarios,
within the hard limit, while every other run still happens and the results and reports are written."""

from __future__ import annotations

import copy
import json
import os
import re
import socket
import struct
import time
from pathlib import Path
from typing import Any, cast

import pytest
from misbehaving_adapters import PID_FILE

from harness.cli import main
from harness.results import ScenarioResult
from harness.run import codec
from harness.run.channel import MAX_FRAME_BYTES, TAIL_BYTES, Channel, ChannelProtocolError, OutputTail
from harness.run.isolation import RunRequest, WorkerPool, run_requests
from harness.run.suite import IsolatedSuiteRun, run_isolated_suite, run_suite
from harness.scenario.loader import load_scenario

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "normal" / "single-call.yaml"
# Small limits keep the suite fast; the killed runs cost about RUN_LIMIT each, two at a time.
RUN_LIMIT = 4.0
TURN_LIMIT = 0.5

KILLED = ("spin", "blocking_sleep", "swallowed_cancellation", "endless_model_calls", "print_flood", "hanging_close")
CONTRACT_BROKEN = ("wrong_return_type", "wrong_field_type", "cancelled_error", "sys_exit")
FACTORY_BROKEN = ("factory_raises", "factory_exits", "factory_returns_nonsense")
# Loops that attack the judge, the next run or the machine, with the verdict each one's own behaviour earns: those
# that then run the turn correctly pass, those that do nothing else fail (patching the judge in their own process
# changes nothing), and a forged message is a breach of the contract.
HOSTILE = {"close_stdout": "pass", "close_fds": "pass", "mutate_scenario": "fail", "patch_judge": "fail",
           "patch_invariants": "fail", "delete_records": "fail", "forge_result": "error", "fork_child": "pass",
           "spawn_child": "pass", "flood_output": "pass",
           # These fail a run that meets what an earlier run of theirs left (in the same template, one at a time).
           "leaks_environment": "pass", "leaks_patch": "pass"}
SECOND = ROOT / "scenarios" / "normal" / "parallel-calls.yaml"


@pytest.fixture(scope="module")
def suite() -> IsolatedSuiteRun:
    names = ["reference", *(f"misbehaving_adapters:{n}" for n in (*KILLED, *CONTRACT_BROKEN, *FACTORY_BROKEN))]
    return run_isolated_suite(names, [SCENARIO], ("non-streaming",), jobs=2, run_timeout=RUN_LIMIT,
                              turn_timeout=TURN_LIMIT)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> tuple[IsolatedSuiteRun, Path]:
    """Every hostile loop on two scenarios, one run at a time (each template serves both of its runs), with the
    reference first and last; the ids of the processes the loops start are written to a file."""
    pids = tmp_path_factory.mktemp("hostile") / "pids"
    pids.touch()
    os.environ[PID_FILE] = str(pids)  # inherited by the templates, started below
    try:
        names = ["reference", *(f"misbehaving_adapters:{n}" for n in HOSTILE), "reference_stateless"]
        suite = run_isolated_suite(names, [SCENARIO, SECOND], ("non-streaming",), jobs=1, run_timeout=60.0)
    finally:
        del os.environ[PID_FILE]
    return suite, pids


def _result(suite: IsolatedSuiteRun, implementation: str, scenario: str = "normal.single-call") -> ScenarioResult:
    (result,) = [r for r in suite.results if r.implementation in (implementation, implementation.replace("_", "-"),
                                                                   f"misbehaving_adapters:{implementation}")
                 and r.scenario.startswith(scenario)]
    return result


@pytest.mark.parametrize("behaviour", HOSTILE)
def test_a_hostile_loop_gets_the_verdict_its_own_behaviour_earns(hostile: tuple[IsolatedSuiteRun, Path],
                                                                 behaviour: str) -> None:
    suite, _ = hostile
    for scenario in ("normal.single-call", "normal.parallel-calls"):
        result = _result(suite, behaviour, scenario)
        assert result.verdict == HOSTILE[behaviour], (scenario, result.reason, result.checks)


def test_the_runs_beside_hostile_loops_keep_their_verdicts(hostile: tuple[IsolatedSuiteRun, Path]) -> None:
    suite, _ = hostile
    for implementation in ("reference", "reference_stateless"):
        for scenario in ("normal.single-call", "normal.parallel-calls"):
            assert _result(suite, implementation, scenario).verdict == "pass"


def test_a_patched_judge_changes_nothing_of_the_judgement(hostile: tuple[IsolatedSuiteRun, Path]) -> None:
    suite, _ = hostile
    for behaviour in ("patch_judge", "patch_invariants", "delete_records"):
        checks = {c.id: c for c in _result(suite, behaviour).checks}
        assert checks["script"].verdict == "fail"
        assert checks["script"].message == "turn 1: 2 scripted model response(s) never requested (line 18, line 20)"


def test_a_forged_result_is_refused_as_a_breach_of_the_contract(hostile: tuple[IsolatedSuiteRun, Path]) -> None:
    (check,) = _result(hostile[0], "forge_result").checks
    assert check.message.startswith("adapter contract broken: the loop's process sent not JSON")


def test_no_process_a_loop_started_outlives_its_run(hostile: tuple[IsolatedSuiteRun, Path]) -> None:
    pids = [int(line) for line in hostile[1].read_text().split()]
    assert len(pids) == 4  # fork_child and spawn_child, once per scenario
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_a_loop_that_mutates_its_scenario_leaves_the_judges_copy_alone() -> None:
    scenario = load_scenario(SCENARIO)
    before = copy.deepcopy((scenario.tools, scenario.config, scenario.turns))
    with WorkerPool(1) as pool:
        (result,) = run_requests(pool, [RunRequest(scenario, "misbehaving_adapters:mutate_scenario",
                                                   "non-streaming")])
        (again,) = run_requests(pool, [RunRequest(scenario, "reference", "non-streaming")])
    assert result.verdict == "fail"
    assert again.verdict == "pass"
    assert (scenario.tools, scenario.config, scenario.turns) == before


@pytest.mark.parametrize(("factory", "verdict"), [("open_raises", "fail"), ("open_cancelled", "error")])
def test_an_open_that_raises_is_judged_as_in_process(factory: str, verdict: str) -> None:
    import misbehaving_adapters

    local = run_suite([getattr(misbehaving_adapters, factory)()], [SCENARIO], ("non-streaming",)).results[0]
    isolated = run_isolated_suite([f"misbehaving_adapters:{factory}"], [SCENARIO], ("non-streaming",),
                                  jobs=1).results[0]
    assert isolated.verdict == local.verdict == verdict
    assert [c.message for c in isolated.checks] == [c.message for c in local.checks]
    # The traceback is the one raised in the loop's process, ending as the in-process one does.
    assert (isolated.checks[0].actual or "").splitlines()[-1] == (local.checks[0].actual or "").splitlines()[-1]


def test_what_a_loop_process_sends_is_read_strictly() -> None:
    from harness.contents import FunctionCall, Message, Response, Text
    from harness.contract import CallerView

    view = CallerView(response=Response((Message("assistant", (Text("hi"), FunctionCall("c1", "f", {"a": [1]}))),)))
    assert codec.decode(codec.loads(codec.dumps(view)), CallerView) == view
    forged = json.loads(codec.dumps(view))
    forged["response"]["messages"][0]["role"] = "judge"
    with pytest.raises(codec.CodecError, match=r"\$\.response\.messages\[0\]\.role: expected one of"):
        codec.decode(forged, CallerView)
    forged = json.loads(codec.dumps(view))
    forged["response"]["messages"][0]["contents"][0] = {"$": "ScenarioResult", "verdict": "pass"}
    with pytest.raises(codec.CodecError, match=r"contents\[0\]"):
        codec.decode(forged, CallerView)
    with pytest.raises(codec.CodecError, match="nested deeper"):
        codec.loads(b"[" * 300 + b"]" * 300)


def _nested(inner: object, levels: int) -> bytes:
    for level in range(levels):
        inner = [inner] if level % 2 else {"k": inner}
    return json.dumps(inner).encode()


def test_the_depth_limit_counts_every_level_whatever_the_containers() -> None:
    for innermost in ("x", [], {}):  # a scalar or an empty container at the limit's depth is read
        assert codec.loads(_nested(innermost, codec.MAX_DEPTH))
    for innermost in ("x", ["x"], {"k": 1}):  # anything one level deeper is not
        with pytest.raises(codec.CodecError, match="nested deeper"):
            codec.loads(_nested(innermost, codec.MAX_DEPTH + (innermost == "x")))


def test_what_a_loop_process_writes_is_json_whatever_it_holds() -> None:
    """The quick writer and the slow path (taken for a key of no JSON type) give the same keys and values."""
    from harness.contents import FunctionResult

    odd = FunctionResult("c1", cast(Any, {True: None, None: 1, 1.5: float("inf"), "s": {2: (1, 2)}}))
    written = json.loads(codec.dumps(odd))
    assert written == {"$": "FunctionResult", "call_id": "c1", "error": False, "occurrence_id": None,
                       "result": {"true": None, "null": 1, "1.5": float("inf"), "s": {"2": [1, 2]}}}
    with_tuple_key = FunctionResult("c1", cast(Any, {(1, 2): {True: object}}))
    assert json.loads(codec.dumps(with_tuple_key))["result"] == {"(1, 2)": {"true": repr(object)}}


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
    assert flood.log[0].startswith("[… output cut here: ")
    assert flood.log[0].endswith(" earlier bytes not kept …]")
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


def test_a_frame_over_the_limit_is_refused_before_it_is_read() -> None:
    ours, theirs = socket.socketpair()
    output_read, output_write = os.pipe()
    channel = Channel(ours, output_read)
    try:
        theirs.sendall(struct.pack("!I", MAX_FRAME_BYTES + 1))
        with pytest.raises(ChannelProtocolError, match="at most"):
            channel.receive(time.monotonic() + 60)
    finally:
        channel.close()
        theirs.close()
        os.close(output_write)


def test_output_is_kept_as_a_capped_tail_with_a_marker_where_it_was_cut() -> None:
    tail = OutputTail()
    for line in range(20_000):
        tail.add(f"line {line}\n".encode())
    lines = tail.lines()
    assert len(lines) == 20
    assert lines[0] == f"[… output cut here: {tail.dropped} earlier bytes not kept …]"
    assert tail.dropped == sum(len(f"line {n}\n") for n in range(20_000)) - TAIL_BYTES
    assert lines[-1] == "line 19999"

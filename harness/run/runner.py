"""Running one scenario against one implementation in one mode, and judging it."""

from __future__ import annotations

import asyncio
import traceback
from dataclasses import replace

from fakes.provider import ScriptedProvider
from fakes.tools import ScriptedToolbox
from harness.checks.expectations import check_turn
from harness.checks.invariants import INVARIANTS
from harness.contract import CallerView, Conversation, ConversationSetup, LoopAdapter, Mode, TurnInput
from harness.records import RunRecord, RunSubject, TurnRecord
from harness.results import CheckResult, ScenarioResult, overall
from harness.run.inputs import TurnInputError, build_input
from harness.scenario.model import Scenario
from harness.transcript import messages_form

TURN_TIMEOUT_SECONDS = 30.0  # a safety net for hanging loops, never an assertion on speed


async def execute(scenario: Scenario, adapter: LoopAdapter, mode: Mode,
                  turn_timeout: float = TURN_TIMEOUT_SECONDS) -> RunRecord:
    """Drive every turn of `scenario` through `adapter` and record what happened."""
    provider = ScriptedProvider([turn.steps for turn in scenario.turns])
    toolbox = ScriptedToolbox(scenario.tools)
    setup = ConversationSetup(scenario.id, mode, scenario.config, provider, toolbox, scenario.spec.session,
                              scenario.spec.tool_choice)
    record = RunRecord(subject(scenario), adapter.name, mode)
    conversation = adapter.open(setup)
    try:
        for turn in scenario.turns:
            try:
                caller_input = build_input(turn, record.turns, scenario.labels, scenario.calls)
            except TurnInputError as problem:
                record.input_problem = f"turn {turn.index + 1}: {problem}"
                break
            provider.begin_turn(turn.index)
            toolbox.turn = turn.index
            requests_before, executions_before = len(provider.requests), len(toolbox.executions)
            earlier = tuple(r.response_messages() for r in record.turns if r.view.response is not None)
            view, crash = await _run_turn(conversation, TurnInput(turn.index, caller_input, turn.spec.kwargs),
                                          turn_timeout)
            record.turns.append(TurnRecord(
                turn.index, caller_input, earlier, view,
                tuple(provider.requests[requests_before:]), tuple(toolbox.executions[executions_before:]),
                tuple(provider.served_steps()), tuple(provider.unused_steps()),
                tuple(v for v in provider.violations if v.turn == turn.index), crash,
                replays_history=not isinstance(turn.spec.input, str) and any(i.history for i in turn.spec.input),
            ))
            if crash is not None:
                break
    finally:
        await conversation.close()
    return record


async def _run_turn(conversation: Conversation, turn: TurnInput, timeout: float) -> tuple[CallerView, str | None]:
    try:
        view = await asyncio.wait_for(conversation.run_turn(turn), timeout)
    except TimeoutError:
        return CallerView(), f"the turn did not finish within {timeout:g}s (hang or runaway loop)"
    except Exception as error:  # noqa: BLE001 - a crashing loop is a verdict, not a harness failure
        detail = "".join(traceback.format_exception_only(type(error), error)).strip()
        return CallerView(), f"run_turn raised {detail}"
    return view, None


def subject(scenario: Scenario) -> RunSubject:
    """What the checks may know of `scenario`."""
    return RunSubject(scenario.id, scenario.config, scenario.tools, scenario.spec.session)


def judge(scenario: Scenario, record: RunRecord) -> list[CheckResult]:
    """Every check of one run: completion, script use, the invariants, then the scenario's expectations."""
    checks: list[CheckResult] = [_completion(record), _script(record)]
    for invariant in INVARIANTS:
        checks.extend(invariant(record))
    tool_names = [tool.name for tool in scenario.tools]
    for turn in record.turns:
        if turn.crash is None:
            spec = scenario.turns[turn.index].spec.expect
            checks.extend(check_turn(spec, turn, tool_names, record.mode == "streaming"))
    return checks


def _completion(record: RunRecord) -> CheckResult:
    for turn in record.turns:
        if turn.crash is not None:
            return CheckResult("completes", "fail", turn.crash, turn.index + 1)
    if record.input_problem is not None:
        return CheckResult("completes", "fail", record.input_problem)
    return CheckResult("completes", "pass")


def _script(record: RunRecord) -> CheckResult:
    problems: list[str] = []
    for turn in record.turns:
        problems.extend(f"turn {turn.index + 1}: {v.message}" for v in turn.violations)
        if turn.crash is None and turn.unused:
            lines = ", ".join(f"line {s.source_line}" for s in turn.unused)
            problems.append(f"turn {turn.index + 1}: {len(turn.unused)} scripted model response(s) never "
                            f"requested ({lines})")
    if problems:
        return CheckResult("script", "fail", problems[0], details=tuple(problems))
    return CheckResult("script", "pass")


async def run_scenario(scenario: Scenario, adapter: LoopAdapter, mode: Mode) -> ScenarioResult:
    """Run and judge one scenario × implementation × mode. Never raises for the loop's misbehaviour."""
    base = ScenarioResult(scenario.id, scenario.spec.title, tuple(scenario.spec.spec), scenario.section,
                          adapter.name, adapter.version, mode, "pass", path=str(scenario.path), line=scenario.line,
                          turn_lines=tuple(turn.line for turn in scenario.turns))
    if scenario.spec.not_observable is not None:
        return replace(base, verdict="n/a", reason=f"not observable from outside: {scenario.spec.not_observable}")
    missing = sorted(set(scenario.spec.requires) - set(adapter.capabilities))
    if missing:
        return replace(base, verdict="n/a", reason=f"{adapter.name} lacks capability: {', '.join(missing)}")
    if mode not in scenario.modes():
        reason = scenario.spec.modes.reason if scenario.spec.modes else ""
        return replace(base, verdict="n/a", reason=f"scenario runs only in {scenario.modes()[0]} mode: {reason}")
    try:
        record = await execute(scenario, adapter, mode)
        if mode == "streaming" and "non-streaming" in scenario.modes():
            record.shadow = await execute(scenario, adapter, "non-streaming")
    except Exception as error:  # noqa: BLE001 - a crash in open/close of the adapter still ends in a verdict
        detail = "".join(traceback.format_exception(type(error), error, error.__traceback__))
        check = CheckResult("completes", "fail", f"the adapter raised: {type(error).__name__}: {error}",
                            actual=detail)
        return replace(base, verdict="fail", checks=(check,))
    checks = judge(scenario, record)
    logs = tuple(line for turn in record.turns for line in turn.view.log)
    transcript = tuple({"turn": t.index + 1, "response": messages_form(t.response_messages())} for t in record.turns)
    return replace(base, verdict=overall(checks), checks=tuple(checks), log=logs, transcript=transcript)

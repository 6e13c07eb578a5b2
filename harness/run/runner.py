"""Running one scenario against one implementation in one mode over one provider, and judging it."""

from __future__ import annotations

import asyncio
import functools
import importlib.metadata
import json
import re
import time
import traceback
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, cast

from fakes.approval_rules import ScriptedApprovalRules
from fakes.provider import ScriptedProvider
from fakes.tools import ScriptedToolbox
from harness.checks.attribution import attribute
from harness.checks.expectations import check_turn
from harness.checks.invariants import INVARIANTS
from harness.checks.wire import check_provider_accepts, check_wire
from harness.contents import JSON, Message
from harness.contract import (
    ApprovalPolicy,
    CallerView,
    Conversation,
    ConversationSetup,
    Dialect,
    HostedServer,
    LoopAdapter,
    Mode,
    TurnInput,
    WireEndpoint,
    adapter_approval_controls,
    adapter_modes,
    adapter_profiles,
    adapter_provider_package,
    adapter_response_shape,
    adapter_unexpressible,
)
from harness.records import RunRecord, RunSubject, TurnRecord
from harness.results import CheckResult, ScenarioResult, Verdict, overall
from harness.run.inputs import TurnInputError, build_input
from harness.run.turns import CONTRACT_BROKEN, close_conversation, malformed_view, one_line, run_one_turn
from harness.scenario.matchers import regex_budget
from harness.scenario.model import Scenario, Turn
from harness.scenario.schema import SessionChangesSpec
from harness.script import Exchange, ModelRequest, ToolExecution
from harness.transcript import messages_form

# Ids an implementation generates at random (uuid4 hex, with or without dashes) differ on every run; they are
# masked in logs, check texts and transcripts so the same suite gives the same results file and reports.
_GENERATED_ID = re.compile(r"[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}")
TURN_TIMEOUT_SECONDS = 30.0  # a safety net for hanging loops, never an assertion on speed


class ProviderNotInstalledError(Exception):
    """The optional dependency of the dialect (or hosting server) a run asks for is missing: the run is n/a, never a
    pass."""


class WireEndpointError(Exception):
    """The wire endpoint of a dialect could not be built for another reason: a harness problem, not the loop's."""


@dataclass(frozen=True)
class RunObserver:
    """Told of each model request and tool execution as it happens (the worker forwards them to the parent, so a
    run that is killed still reports how far it got)."""

    on_request: Callable[[ModelRequest], None] | None = None
    on_execution: Callable[[ToolExecution], None] | None = None


async def execute(scenario: Scenario, adapter: LoopAdapter, mode: Mode,
                  turn_timeout: float = TURN_TIMEOUT_SECONDS, observer: RunObserver | None = None,
                  dialect: Dialect = "neutral") -> RunRecord:
    """Drive every turn of `scenario` through `adapter` and record what happened.

    Unless `dialect` is neutral, the adapter reaches the scripted provider through that dialect's wire endpoint;
    raises `ProviderNotInstalledError` when the dialect's optional dependency is missing and `WireEndpointError`
    when the endpoint cannot be built otherwise, before the adapter is opened."""
    observer = observer or RunObserver()
    toolbox = ScriptedToolbox(scenario.tools, observer.on_execution)
    ran_before: list[int] = []  # per model request: executions recorded so far in the run, in call order

    def on_request(request: ModelRequest) -> None:
        ran_before.append(len(toolbox.executions))
        if observer.on_request is not None:
            observer.on_request(request)

    provider = ScriptedProvider([turn.steps for turn in scenario.turns], on_request)
    stores = any(step.response.conversation_id is not None for turn in scenario.turns for step in turn.steps)
    rules = ScriptedApprovalRules(scenario.approval_rules)
    policy = ApprovalPolicy(rules.rules) if scenario.spec.approval_policy is not None else None
    wire = None if dialect == "neutral" else wire_endpoint(dialect, provider)
    setup = ConversationSetup(scenario.id, mode, scenario.config, provider, toolbox, scenario.spec.session,
                              scenario.spec.tool_choice, stores, policy, scenario.context,
                              scenario.spec.history_provider.id if scenario.spec.history_provider else None,
                              dialect=dialect, wire=wire,
                              compaction=scenario.spec.compaction.keep_last_groups if scenario.spec.compaction
                              else None,
                              host=HostedServer(scenario.spec.host.persistence) if scenario.spec.host else None)
    record = RunRecord(subject(scenario), adapter.name, mode, dialect=dialect,
                       response_shape=adapter_response_shape(adapter))
    try:
        conversation = adapter.open(setup)
    except ImportError as error:
        if setup.host is not None:
            # The hosting server is an optional dependency of the adapter.
            raise ProviderNotInstalledError(f"hosting server not installed: {error}") from error
        if wire is None:
            raise
        # The adapter's client for this provider is an optional dependency too.
        raise ProviderNotInstalledError(f"{dialect} provider not installed: {error}") from error
    try:
        for turn in scenario.turns:
            try:
                caller_input = build_input(turn, record.turns, scenario.labels, scenario.calls)
            except TurnInputError as problem:
                record.input_problem = f"turn {turn.index + 1}: {problem}"
                break
            provider.begin_turn(turn.index)
            toolbox.turn = rules.turn = turn.index
            requests_before, executions_before = len(provider.requests), len(toolbox.executions)
            asked_before = len(rules.asked)
            earlier = tuple(r.response_messages() for r in record.turns if r.view.response is not None)
            view, crash = await _turn_outcome(conversation, _turn_input(turn, caller_input), turn_timeout,
                                               adapter.name)
            record.turns.append(TurnRecord(
                turn.index, caller_input, earlier, view,
                tuple(provider.requests[requests_before:]), tuple(toolbox.executions[executions_before:]),
                tuple(provider.served_steps()), tuple(provider.unused_steps()),
                tuple(v for v in provider.violations if v.turn == turn.index), crash,
                replays_history=not isinstance(turn.spec.input, str) and any(i.history for i in turn.spec.input),
                ran_before_requests=tuple(n - executions_before for n in ran_before[requests_before:]),
                rules_asked=tuple(rules.asked[asked_before:]),
                exchanges=_exchanges(wire, turn.index),
            ))
            if crash is not None:
                break
    finally:
        closing = await (conversation.close_outcome(turn_timeout)
                         if isinstance(conversation, OutOfProcessConversation)
                         else close_conversation(conversation, turn_timeout))
    if closing is not None:
        record.close_problem = closing
    return record


class OutOfProcessConversation(ABC):
    """A conversation whose loop runs in another process (`harness.run.host`): that process applies the same turn
    and close limits and reports each outcome, which the judge's process validates."""

    @abstractmethod
    async def run_turn_outcome(self, turn: TurnInput, timeout: float) -> tuple[CallerView, str | None]:
        """What the caller saw in one turn, and the crash that ended it (as `run_one_turn` words it), if any."""

    @abstractmethod
    async def close_outcome(self, timeout: float) -> str | None:
        """What went wrong closing the conversation (as `close_conversation` words it), if anything."""

    async def run_turn(self, turn: TurnInput) -> CallerView:
        """`Conversation.run_turn`, for a caller other than the runner: the view alone."""
        view, _ = await self.run_turn_outcome(turn, TURN_TIMEOUT_SECONDS)
        return view

    async def close(self) -> None:
        await self.close_outcome(TURN_TIMEOUT_SECONDS)


async def _turn_outcome(conversation: Conversation, turn: TurnInput, timeout: float,
                        adapter_name: str = "the adapter") -> tuple[CallerView, str | None]:
    if isinstance(conversation, OutOfProcessConversation):
        view, crash = await conversation.run_turn_outcome(turn, timeout)
        # The view crossed as checked JSON; its contents are checked here too, in the judge's own process.
        problem = None if crash is not None else malformed_view(view, adapter_name)
        return (CallerView(), CONTRACT_BROKEN + problem) if problem is not None else (view, crash)
    return await run_one_turn(conversation, turn, timeout, adapter_name)


def _exchanges(wire: WireEndpoint | None, turn: int) -> tuple[Exchange, ...]:
    recorded = cast(list[Exchange], getattr(wire, "exchanges", []))
    return tuple(e for e in recorded if e.turn == turn)


@functools.cache  # read once per process: every wire run asks, and reading a package's metadata parses files
def installed_version(package: str) -> str:
    """The installed release of `package`; "" when it is not installed (its runs are then n/a) or not named."""
    if not package:
        return ""
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return ""


def unexpressible(scenario: Scenario, dialect: Dialect) -> str | None:
    """Why `scenario` cannot be played over `dialect`'s wire format at all, if it cannot (None when the dialect is
    not installed: the run then says so itself)."""
    try:
        from fakes.wire import wire_dialect

        codec = wire_dialect(dialect)
    except ImportError:
        return None
    judge_expressible = getattr(codec, "unexpressible", None)
    return None if judge_expressible is None else cast(str | None, judge_expressible(scenario))


def wire_endpoint(dialect: Dialect, provider: ScriptedProvider) -> WireEndpoint:
    """The endpoint serving `provider`'s script in `dialect`'s wire format, from `fakes.wire`, imported only when a
    run asks for a wire, so that neutral runs never need the dialects' optional dependencies."""
    try:
        from fakes.wire import make_wire_endpoint

        return make_wire_endpoint(dialect, provider)
    except ImportError as error:
        raise ProviderNotInstalledError(f"{dialect} provider not installed: {error}") from error
    except Exception as error:  # noqa: BLE001 - reported as the harness's problem, with what it was
        raise WireEndpointError(f"the {dialect} wire endpoint could not be built: {one_line(error)}") from error


def _caller_written_approvals(scenario: Scenario, adapter: LoopAdapter) -> str | None:
    """Why an adapter that takes decisions only on its own pauses cannot play `scenario`, if it writes approval
    requests into the caller's history."""
    if adapter_approval_controls(adapter) != "own-pauses" or not scenario.writes_approval_requests():
        return None
    return (f"the caller writes approval requests into its own history; {adapter.name} takes approval decisions "
            "only on the pauses its own loop issued and holds (approval_controls = 'own-pauses')")


def subject(scenario: Scenario) -> RunSubject:
    """What the checks may know of `scenario`."""
    return RunSubject(scenario.id, scenario.config, scenario.tools, scenario.spec.session,
                      scenario.spec.approval_policy is not None)


def judge(scenario: Scenario, record: RunRecord) -> list[CheckResult]:
    """Every check of one run: completion, script use, the invariants, then the scenario's expectations; its
    `$regex` matchers share one budget of matching time (`regex_budget`)."""
    with regex_budget():
        return _judged(scenario, record)


def _judged(scenario: Scenario, record: RunRecord) -> list[CheckResult]:
    checks: list[CheckResult] = [_completion(record), _script(record)]
    for invariant in INVARIANTS:
        checks.extend(invariant(record))
    checks.extend(check_provider_accepts(record))
    tool_names = [tool.name for tool in scenario.tools]
    for turn in record.turns:
        if turn.crash is None:
            spec = scenario.turns[turn.index].spec.expect
            checks.extend(check_turn(spec, turn, tool_names, record.mode == "streaming",
                                     record.response_shape == "one-message-per-model-call"))
            checks.extend(check_wire(spec.wire or [], turn, record.dialect))
    return attribute(checks, scenario)


def _completion(record: RunRecord) -> CheckResult:
    for turn in record.turns:
        if turn.crash is not None:
            verdict: Verdict = "error" if turn.crash.startswith(CONTRACT_BROKEN) else "fail"
            return CheckResult("completes", verdict, turn.crash, turn.index + 1)
    if record.input_problem is not None:
        # The loop neither crashed nor hung: what it returned cannot carry the caller's next input as the scenario
        # writes it (a pause without the request the caller answers), which is the scenario's own expectation.
        return CheckResult("completes", "fail", record.input_problem, profile="contract")
    if record.close_problem is not None:
        verdict = "error" if record.close_problem.startswith(CONTRACT_BROKEN) else "fail"
        return CheckResult("completes", verdict, record.close_problem)
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


async def run_scenario(scenario: Scenario, adapter: LoopAdapter, mode: Mode, *,
                       turn_timeout: float = TURN_TIMEOUT_SECONDS,
                       observer: RunObserver | None = None, dialect: Dialect = "neutral") -> ScenarioResult:
    """`_run_scenario`, with how long it took (`ScenarioResult.seconds`, reported as JUnit's `time`)."""
    started = time.perf_counter()
    result = await _run_scenario(scenario, adapter, mode, turn_timeout=turn_timeout, observer=observer,
                                 dialect=dialect)
    return replace(result, seconds=round(time.perf_counter() - started, 3))


async def _run_scenario(scenario: Scenario, adapter: LoopAdapter, mode: Mode, *,
                        turn_timeout: float = TURN_TIMEOUT_SECONDS,
                        observer: RunObserver | None = None, dialect: Dialect = "neutral") -> ScenarioResult:
    """Run and judge one scenario × implementation × mode × provider. Never raises for the loop's misbehaviour.

    `turn_timeout` bounds each turn and `close()` for loops that hang while awaiting; a loop that never awaits
    can only be stopped from outside the process (`harness.run.isolation`). A `dialect` whose optional dependency
    is missing makes the run n/a."""
    package = adapter_provider_package(adapter, dialect)
    base = ScenarioResult(scenario.id, scenario.spec.title, tuple(scenario.spec.spec), scenario.section,
                          adapter.name, adapter.version, mode, "pass", path=str(scenario.path), line=scenario.line,
                          turn_lines=tuple(turn.line for turn in scenario.turns), provider=dialect,
                          provider_package=package, provider_version=installed_version(package),
                          claims=tuple(sorted(adapter_profiles(adapter))))
    if scenario.spec.not_observable is not None:
        return replace(base, verdict="n/a", reason=f"not observable from outside: {scenario.spec.not_observable}")
    missing = sorted(set(scenario.needs()) - set(adapter.capabilities))
    if missing:
        return replace(base, verdict="n/a", reason=f"{adapter.name} lacks capability: {', '.join(missing)}")
    inexpressible = adapter_unexpressible(adapter, scenario.id) or _caller_written_approvals(scenario, adapter)
    if inexpressible is not None:
        return replace(base, verdict="n/a", reason=f"not expressible to {adapter.name}: {inexpressible}")
    driven, why_not = adapter_modes(adapter)
    if mode not in driven:
        return replace(base, verdict="n/a", reason=f"{adapter.name} has no {mode} mode: {why_not}")
    if mode not in scenario.modes():
        reason = scenario.spec.modes.reason if scenario.spec.modes else ""
        return replace(base, verdict="n/a", reason=f"scenario runs only in {scenario.modes()[0]} mode: {reason}")
    providers = scenario.spec.providers
    if providers is not None and dialect not in providers.only:
        return replace(base, verdict="n/a",
                       reason=f"scenario runs only over {', '.join(providers.only)}: {providers.reason}")
    if dialect != "neutral" and (why := unexpressible(scenario, dialect)) is not None:
        return replace(base, verdict="n/a", reason=f"not expressible over {dialect}: {why}")
    try:
        record = await execute(scenario, adapter, mode, turn_timeout, observer, dialect)
        if mode == "streaming" and "non-streaming" in scenario.modes() and "non-streaming" in driven:
            record.shadow = await execute(scenario, adapter, "non-streaming", turn_timeout, dialect=dialect)
    except ProviderNotInstalledError as absent:
        return replace(base, verdict="n/a", reason=str(absent))
    except WireEndpointError as broken:
        check = CheckResult("completes", "error", f"{broken} (a harness problem, not the loop's)",
                            actual=_traceback_text(broken.__cause__ or broken))
        return replace(base, verdict="error", reason=str(broken), checks=(check,))
    except (Exception, asyncio.CancelledError) as error:  # noqa: BLE001 - a crash in open() is a verdict too
        detail = _traceback_text(error)
        verdict: Verdict = "error" if isinstance(error, asyncio.CancelledError) else "fail"
        check = CheckResult("completes", verdict, f"the adapter raised: {type(error).__name__}: {error}",
                            actual=detail)
        return replace(base, verdict=verdict, checks=(check,))
    try:
        checks = judge(scenario, record)
    except Exception as error:  # noqa: BLE001 - a harness bug on one run must not end the whole run
        detail = _traceback_text(error)
        check = CheckResult("judging", "error", f"a check crashed (a harness bug): {type(error).__name__}: {error}",
                            actual=detail)
        return replace(base, verdict="error", reason="a check crashed", checks=(check,))
    logs = tuple(_mask(line) for turn in record.turns for line in turn.view.log)
    transcript = tuple({"turn": t.index + 1, "response": _masked_form(messages_form(t.response_messages()))}
                       for t in record.turns)
    return replace(base, verdict=overall(checks), checks=tuple(_masked_check(c) for c in checks), log=logs,
                   transcript=transcript)


def _traceback_text(error: BaseException) -> str:
    remote = getattr(error, "remote_traceback", None)  # raised in the loop's process: its own traceback
    if isinstance(remote, str):
        return remote
    return "".join(traceback.format_exception(type(error), error, error.__traceback__))


def _mask(text: str) -> str:
    return _GENERATED_ID.sub("<generated id>", text)


def _masked_check(check: CheckResult) -> CheckResult:
    return replace(check, message=_mask(check.message),
                   expected=None if check.expected is None else _mask(check.expected),
                   actual=None if check.actual is None else _mask(check.actual),
                   diff=tuple(_mask(line) for line in check.diff), details=tuple(_mask(line) for line in check.details))


def _masked_form(form: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return cast(list[dict[str, Any]], json.loads(_mask(json.dumps(form))))


def _transport_messages(turn: Turn, written: int) -> tuple[tuple[int, Mapping[str, JSON]], ...]:
    """The turn's wire-form messages, each with the number of the turn's other messages before it (`written` in
    all: every item but a history replay makes one, and the replays share the rest)."""
    items = () if isinstance(turn.spec.input, str) else turn.spec.input
    replays = sum(1 for item in items if item.history is not None)
    single = sum(1 for item in items if item.history is None and item.transport_message is None)
    per_replay = (written - single) // replays if replays else 0
    placed: list[tuple[int, Mapping[str, JSON]]] = []
    before = 0
    for item in items:
        if item.transport_message is not None:
            placed.append((before, cast(Mapping[str, JSON], item.transport_message)))
        else:
            before += per_replay if item.history is not None else 1
    return tuple(placed)


def _turn_input(turn: Turn, caller_input: str | tuple[Message, ...]) -> TurnInput:
    restore = turn.spec.restore_session
    changes: dict[str, JSON] = {}
    if isinstance(restore, SessionChangesSpec):
        changes = {key: getattr(restore, key) for key in restore.model_fields_set}
    transport = _transport_messages(turn, 0 if isinstance(caller_input, str) else len(caller_input))
    options = turn.spec.options
    return TurnInput(turn.index, caller_input, turn.spec.kwargs, restore_session=restore is not False,
                     session_changes=changes, transport_messages=transport,
                     tool_choice=options.tool_choice if options is not None else None)

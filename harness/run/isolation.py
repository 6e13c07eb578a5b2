"""Running scenarios isolated from each other and from the judge, each run under a hard limit enforced from outside.

Each scenario × implementation × mode × provider runs in a fresh fork of its implementation's template process
(`harness.run.worker`), so one run's state (closed stdout, patched modules, a changed scenario, the environment)
never reaches another. The judge stays here: `run_scenario` runs in this process with the scripted fakes and their
records, and only the loop runs in the fork (`harness.run.host`, `harness.run.child`). A run that overruns its limit
is killed with everything it started, gets an `error` verdict with how far it got, and the rest goes on. Results
come back in job order, so the same suite gives the same results whatever the number of runs at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from typing import cast

from harness.contract import Dialect, Mode
from harness.results import CheckResult, ScenarioResult
from harness.run import codec
from harness.run.channel import Channel, OutputTail
from harness.run.host import (
    AdapterInfo,
    RemoteAdapter,
    RunDiedError,
    RunEscapedError,
    RunInterruptedError,
    RunProcess,
    finish,
)
from harness.run.runner import TURN_TIMEOUT_SECONDS, RunObserver, run_scenario
from harness.run.worker import CONTROL_BYTES, LEARNED_AT_ONCE, Crashed, ProbeJob, ProbeOutcome, RunJob
from harness.scenario.model import Scenario
from harness.script import ModelRequest, ToolExecution

# Generous: a correct scenario run takes milliseconds; this only has to catch loops that never finish.
RUN_TIMEOUT_SECONDS = 120.0
# Starting a template interpreter and building an adapter (imports included) has a limit of its own, so that a slow
# machine does not eat into a run's limit and a factory that never returns is still stopped.
START_TIMEOUT_SECONDS = 120.0
# How long a template may take to fork a run or to end one (it only has to kill and reap).
CONTROL_TIMEOUT_SECONDS = 30.0
PROGRESS_SHOWN = 10


@dataclass
class Progress:
    """How far a job got, as the judge's own records show it."""

    started: bool = False
    version: str = ""
    model_calls: list[str] = field(default_factory=lambda: [])
    executions: list[str] = field(default_factory=lambda: [])


@dataclass(frozen=True)
class Stopped:
    """The job did not finish: its process was killed at the limit, died, or broke the protocol."""

    reason: str
    progress: Progress
    output_tail: tuple[str, ...]


Outcome = ScenarioResult | ProbeOutcome | Crashed | Stopped
Job = ProbeJob | RunJob


class _TemplateGoneError(Exception):
    """The template process did not answer: it is replaced."""


class _Template:
    """One template process (`harness.run.worker`) of one implementation, joined to us by a control socket.

    A plain subprocess, not `multiprocessing`'s spawn: spawn re-imports the parent's main module, which fails or
    misbehaves when the harness is driven from `python -c`, a notebook or an embedding program. Its own output goes
    nowhere: a run's output is the run's (`harness.run.channel`)."""

    def __init__(self, implementation: str) -> None:
        self.implementation = implementation
        self.live: RunProcess | None = None  # a run process a clean run left, to serve the next run
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.control = ours
        command = [sys.executable, "-m", "harness.run.worker", implementation, str(theirs.fileno())]
        self.process = subprocess.Popen(command, pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
        theirs.close()

    def receive(self, timeout: float) -> tuple[dict[str, object], list[int]]:
        self.control.settimeout(timeout)
        try:
            data, fds, _, _ = socket.recv_fds(self.control, CONTROL_BYTES, 2)
        except OSError as error:  # a timeout too
            raise _TemplateGoneError(str(error) or "timed out") from None
        try:
            message = json.loads(data) if data else None
        except ValueError:
            message = None
        if not isinstance(message, dict):
            for descriptor in fds:
                os.close(descriptor)
            raise _TemplateGoneError("it closed its socket" if not data else "it sent something unreadable")
        return cast(dict[str, object], message), fds

    def tell(self, message: Mapping[str, object]) -> None:
        try:
            self.control.send(json.dumps(message).encode())
        except OSError as error:
            raise _TemplateGoneError(str(error)) from None

    def fork(self, run_timeout: float) -> RunProcess:
        self.tell({"kind": "fork"})
        message, fds = self.receive(CONTROL_TIMEOUT_SECONDS)
        pid = message.get("pid")
        if message.get("kind") != "forked" or len(fds) != 2 or not isinstance(pid, int) or pid <= 1:
            for descriptor in fds:
                os.close(descriptor)
            raise _TemplateGoneError("it did not fork the run")
        channel = Channel(socket.socket(fileno=fds[0]), fds[1])
        return RunProcess(pid, channel, time.monotonic() + run_timeout,
                          f"killed after {run_timeout:g} s: the run did not finish")

    def end(self, pid: int) -> int | None:
        """Have the template kill the run and all it started; the run's exit code (None: unknown)."""
        self.tell({"kind": "end", "pid": pid})
        message, _ = self.receive(CONTROL_TIMEOUT_SECONDS)
        code = message.get("code")
        return code if isinstance(code, int) else None

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        if self.live is not None:
            self.live.channel.close()
            self.live = None
        with contextlib.suppress(OSError):
            self.control.shutdown(socket.SHUT_RDWR)  # the template ends its run and exits
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(5)
        if self.alive():
            self.process.kill()
        self.process.wait()
        self.control.close()


class WorkerPool:
    """Up to `size` runs at once, each in its own fork of its implementation's template; `run` returns each job's
    outcome in job order. Templates are started on first need, one per implementation and concurrent run."""

    def __init__(self, size: int, run_timeout: float = RUN_TIMEOUT_SECONDS,
                 start_timeout: float = START_TIMEOUT_SECONDS) -> None:
        self.size = max(1, size)
        self.run_timeout = run_timeout
        self.start_timeout = start_timeout
        self._lock = threading.Lock()
        self._idle: dict[str, list[_Template]] = {}
        self._described: dict[str, AdapterInfo | ProbeOutcome] = {}
        self._templates: list[_Template] = []

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            templates, self._templates, self._idle = self._templates, [], {}
        for template in templates:
            template.stop()

    def run(self, jobs: Sequence[Job], on_outcome: Callable[[int, Outcome], None] | None = None) -> list[Outcome]:
        outcomes: dict[int, Outcome] = {}
        with ThreadPoolExecutor(self.size, thread_name_prefix="loop-conformance-run") as executor:
            futures = {executor.submit(self._do, job): job for job in jobs}
            try:
                for future in as_completed(futures):
                    index = futures[future].index
                    outcomes[index] = future.result()
                    if on_outcome is not None:
                        on_outcome(index, outcomes[index])
            except BaseException:
                # Interrupted (Ctrl-C): end every run now rather than wait for each to reach its limit.
                executor.shutdown(wait=False, cancel_futures=True)
                self.close()
                raise
        return [outcomes[job.index] for job in jobs]

    def _do(self, job: Job) -> Outcome:
        try:
            template, described = self._acquire(job.implementation)
            if isinstance(job, ProbeJob) or template is None:
                if template is not None:
                    self._release(template)
                return _probed(job, described)
            try:
                return self._run_on(template, cast(AdapterInfo, described), job)
            finally:
                self._release(template)
        except Exception as error:  # noqa: BLE001 - a harness bug on one job must not end the whole run
            detail = "".join(traceback.format_exception(type(error), error, error.__traceback__))
            return Crashed(f"the harness failed running it: {type(error).__name__}: {error}", detail)

    def _acquire(self, implementation: str) -> tuple[_Template | None, AdapterInfo | ProbeOutcome]:
        with self._lock:
            described = self._described.get(implementation)
            if isinstance(described, ProbeOutcome):
                return None, described
            idle = self._idle.setdefault(implementation, [])
            if idle and described is not None:
                return idle.pop(), described
        template = _Template(implementation)
        outcome = self._describe(template, implementation)
        with self._lock:
            if isinstance(outcome, ProbeOutcome):
                self._described.setdefault(implementation, outcome)
                return None, outcome
            self._templates.append(template)
            return template, self._described.setdefault(implementation, outcome)

    def _describe(self, template: _Template, implementation: str) -> AdapterInfo | ProbeOutcome:
        try:
            message, _ = template.receive(self.start_timeout)
        except _TemplateGoneError:
            if template.alive():
                reason = f"killed after {self.start_timeout:g} s: the adapter was not built"
            else:
                reason = f"the worker process exited with code {template.process.wait()} during the run"
            template.stop()
            return ProbeOutcome(implementation, broken=f"its factory did not return: {reason}")
        kind, text = message.get("kind"), str(message.get("message", ""))[:2000]
        if kind == "ready":
            try:
                return AdapterInfo.read(message.get("adapter"))
            except codec.CodecError as problem:
                text, kind = f"its declarations could not be read: {problem}", "broken"
        template.stop()
        if kind == "unavailable":
            return ProbeOutcome(implementation, unavailable=text)
        return ProbeOutcome(implementation, broken=text or "its template process sent nothing readable")

    def _release(self, template: _Template) -> None:
        with self._lock:
            if template.alive() and template in self._templates:
                self._idle.setdefault(template.implementation, []).append(template)
                return
        template.stop()
        with self._lock, contextlib.suppress(ValueError):
            self._templates.remove(template)

    def _run_on(self, template: _Template, info: AdapterInfo, job: RunJob) -> Outcome:
        progress = Progress(True, info.version)
        adapter = RemoteAdapter(info, lambda: self._fork(template))
        stopped: str | None = None
        outcome: Outcome | None = None
        kept = False
        try:
            outcome = asyncio.run(run_scenario(job.scenario, adapter, job.mode, turn_timeout=job.turn_timeout,
                                               observer=_observer(progress), dialect=job.dialect))
            kept = adapter.process is not None and self._kept(template, adapter.process)
        except RunEscapedError as escaped:
            outcome = Crashed(escaped.reason, escaped.detail)
        except RunDiedError:
            stopped = "died"
        except RunInterruptedError as interrupted:
            stopped = interrupted.reason
        finally:
            code, tail = (None, ()) if kept else self._end(template, adapter.process)
        if stopped == "died":
            stopped = f"the worker process exited with code {code} during the run"
        if stopped is not None or outcome is None:
            return Stopped(stopped or "the run did not report back", progress, tail)
        return outcome

    def _kept(self, template: _Template, process: RunProcess) -> bool:
        """Whether the run process that just ran well may serve the template's next run: the run changed nothing
        the next one could meet (it left no child process either: the run process is its descendants' subreaper,
        so even an escaped one comes back to it and is seen)."""
        try:
            modules, changed = finish(process)
            if modules:
                named = [name for name in modules if len(name) <= 200][:LEARNED_AT_ONCE]  # within a control message
                template.tell({"kind": "learn", "modules": named})
            if changed is not None:
                return False
            process.channel.drain_output()  # what it printed last is its own, not the next run's
        except (RunInterruptedError, _TemplateGoneError):
            return False
        template.live = process
        return True

    def _fork(self, template: _Template) -> RunProcess:
        process, template.live = template.live, None
        if process is not None:
            process.deadline = time.monotonic() + self.run_timeout
            process.channel.tail = OutputTail()
            return process
        try:
            return template.fork(self.run_timeout)
        except _TemplateGoneError as gone:
            template.stop()
            raise RunInterruptedError(f"the template process could not fork the run: {gone}") from None

    def _end(self, template: _Template, process: RunProcess | None) -> tuple[int | None, tuple[str, ...]]:
        if process is None:
            return None, ()
        try:
            code = template.end(process.pid)
        except _TemplateGoneError:
            template.stop()  # its runs die with it (they are set to)
            code = None
        process.channel.drain_output()
        tail = process.channel.tail.lines()
        process.channel.close()
        return code, tail


def _observer(progress: Progress) -> RunObserver:
    def on_request(request: ModelRequest) -> None:
        progress.model_calls.append(f"turn {request.turn + 1}, model call #{request.number}")

    def on_execution(execution: ToolExecution) -> None:
        arguments = json.dumps(execution.arguments, sort_keys=True, default=str)[:200]
        progress.executions.append(f"turn {execution.turn + 1}: {execution.tool}({arguments})")

    return RunObserver(on_request, on_execution)


def _probed(job: Job, described: AdapterInfo | ProbeOutcome) -> Outcome:
    if isinstance(described, AdapterInfo):
        return ProbeOutcome(job.implementation, version=described.version, name=described.name,
                            dialects=described.dialects)
    if isinstance(job, ProbeJob):
        return described
    return Crashed(f"the adapter could not be built: {described.unavailable or described.broken}", "")


@dataclass(frozen=True)
class RunRequest:
    scenario: Scenario
    implementation: str
    mode: Mode
    dialect: Dialect = "neutral"


def run_requests(pool: WorkerPool, requests: Sequence[RunRequest],
                 identities: Mapping[str, tuple[str, str]] | None = None,
                 turn_timeout: float = TURN_TIMEOUT_SECONDS,
                 on_result: Callable[[ScenarioResult], None] | None = None) -> list[ScenarioResult]:
    """Run every request in the pool; a run that never reports back still gets a result, in request order.

    `identities` maps an implementation reference to the (name, version) its adapter reports, for the results
    of runs that never reported back."""
    jobs = [RunJob(i, r.implementation, r.scenario, r.mode, min(turn_timeout, pool.run_timeout), r.dialect)
            for i, r in enumerate(requests)]

    def result_of(index: int, outcome: Outcome) -> ScenarioResult:
        request = requests[index]
        name, version = (identities or {}).get(request.implementation, (request.implementation, ""))
        return _as_result(replace(request, implementation=name), outcome, version)

    def notify(index: int, outcome: Outcome) -> None:
        if on_result is not None:
            on_result(result_of(index, outcome))

    outcomes = pool.run(jobs, notify)
    return [result_of(i, outcome) for i, outcome in enumerate(outcomes)]


def probe(pool: WorkerPool, implementations: Sequence[str]) -> list[ProbeOutcome]:
    """Build each adapter once in a worker: installed or not, its version, or why its factory is broken."""
    outcomes = pool.run([ProbeJob(i, name) for i, name in enumerate(implementations)])
    probed: list[ProbeOutcome] = []
    for name, outcome in zip(implementations, outcomes, strict=True):
        if isinstance(outcome, ProbeOutcome):
            probed.append(outcome)
        elif isinstance(outcome, Stopped):
            probed.append(ProbeOutcome(name, broken=f"its factory did not return: {outcome.reason}"))
        elif isinstance(outcome, Crashed):
            probed.append(ProbeOutcome(name, broken=f"its factory raised {outcome.message}"))
        else:
            probed.append(ProbeOutcome(name, broken="its factory reported a result instead of an adapter"))
    return probed


def base_result(request: RunRequest, version: str) -> ScenarioResult:
    scenario = request.scenario
    return ScenarioResult(scenario.id, scenario.spec.title, tuple(scenario.spec.spec), scenario.section,
                          request.implementation, version, request.mode, "error", path=str(scenario.path),
                          line=scenario.line, turn_lines=tuple(turn.line for turn in scenario.turns),
                          provider=request.dialect)


def broken_adapter_result(request: RunRequest, reason: str) -> ScenarioResult:
    check = CheckResult("completes", "error", f"the adapter could not be built: {reason}")
    return replace(base_result(request, "unknown"), reason=f"adapter broken: {reason}", checks=(check,))


def _as_result(request: RunRequest, outcome: Outcome, version: str) -> ScenarioResult:
    if isinstance(outcome, ScenarioResult):
        return outcome
    if isinstance(outcome, Crashed):
        check = CheckResult("completes", "error", f"the run escaped the harness: {outcome.message}",
                            actual=outcome.detail)
        return replace(base_result(request, version), reason=outcome.message, checks=(check,))
    if isinstance(outcome, ProbeOutcome):
        return broken_adapter_result(request, "a probe answered a run")
    progress = outcome.progress
    details = (*_shown("model calls so far", progress.model_calls), *_shown("executions so far", progress.executions))
    check = CheckResult("completes", "error", outcome.reason, details=details)
    return replace(base_result(request, progress.version or version), reason=outcome.reason, checks=(check,),
                   log=outcome.output_tail)


def _shown(title: str, items: Sequence[str]) -> tuple[str, ...]:
    lines = [f"{title}: {len(items)}", *(f"  {item}" for item in items[:PROGRESS_SHOWN])]
    if len(items) > PROGRESS_SHOWN:
        lines.append(f"  … and {len(items) - PROGRESS_SHOWN} more")
    return tuple(lines)

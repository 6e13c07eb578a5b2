"""Running scenarios in worker processes, each run under a hard wall-clock limit enforced from outside.

A loop that spins the CPU, blocks in `time.sleep`, swallows cancellation or calls `sys.exit` cannot be stopped from
inside its own process. Here every scenario × implementation × mode × provider runs in a pooled worker; when a run
overruns, its worker is killed and replaced, the run gets an `error` verdict with how far it got, and the rest goes
on. Results come back in job order, so the same suite gives the same results whatever the number of workers.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any, cast

from harness.contract import Dialect, Mode
from harness.results import CheckResult, ScenarioResult
from harness.run.runner import TURN_TIMEOUT_SECONDS
from harness.run.worker import Crashed, ProbeJob, ProbeOutcome, RunJob
from harness.scenario.model import Scenario

# Generous: a correct scenario run takes milliseconds; this only has to catch loops that never finish.
RUN_TIMEOUT_SECONDS = 120.0
# Starting a worker interpreter and building an adapter (imports included) has a limit of its own, so that a slow
# machine does not eat into a run's limit and a factory that never returns is still stopped.
START_TIMEOUT_SECONDS = 120.0
LOG_TAIL_LINES = 20
PROGRESS_SHOWN = 10


@dataclass
class Progress:
    """How far a job got, as the worker reported it."""

    started: bool = False
    version: str = ""
    output_offset: int = 0
    model_calls: list[str] = field(default_factory=lambda: [])
    executions: list[str] = field(default_factory=lambda: [])


@dataclass(frozen=True)
class Stopped:
    """The job did not report back: its worker was killed at the limit, or died."""

    reason: str
    progress: Progress
    output_tail: tuple[str, ...]


Outcome = ScenarioResult | ProbeOutcome | Crashed | Stopped
Job = ProbeJob | RunJob


class _Worker:
    """One worker: a fresh interpreter running `harness.run.worker`, joined to us by a socket pair.

    A plain subprocess, not `multiprocessing`'s spawn: spawn re-imports the parent's main module, which fails or
    misbehaves when the harness is driven from `python -c`, a notebook or an embedding program."""

    def __init__(self, folder: Path, number: int) -> None:
        self.output = folder / f"worker-{number}.log"
        ours, theirs = socket.socketpair()
        self.connection: Connection[Any, Any] = Connection(ours.detach())
        command = [sys.executable, "-m", "harness.run.worker", str(theirs.fileno()), str(self.output)]
        self.process = subprocess.Popen(command, pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL,
                                        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
        theirs.close()
        self.job: Job | None = None
        self.deadline = 0.0
        self.progress = Progress()

    def alive(self) -> bool:
        return self.process.poll() is None

    def give(self, job: Job, limit: float) -> None:
        self.job, self.progress = job, Progress()
        self.deadline = time.monotonic() + limit
        # A worker that died before taking the job is noticed by the pool's next look, like one dying mid-run.
        with contextlib.suppress(OSError):
            self.connection.send(job)

    def output_tail(self) -> tuple[str, ...]:
        try:
            with self.output.open("rb") as stream:
                stream.seek(max(self.progress.output_offset, stream.seek(0, os.SEEK_END) - 64 * 1024))
                text = stream.read().decode("utf-8", errors="replace")
        except OSError:
            return ()
        lines = [line[:300] for line in text.splitlines()]
        return tuple(lines[-LOG_TAIL_LINES:])

    def stop(self) -> None:
        if self.alive():
            self.process.kill()
        self.process.wait()
        self.connection.close()


class WorkerPool:
    """`size` worker processes; `run` hands them jobs and returns each job's outcome in job order."""

    def __init__(self, size: int, run_timeout: float = RUN_TIMEOUT_SECONDS,
                 start_timeout: float = START_TIMEOUT_SECONDS) -> None:
        self.size = max(1, size)
        self.run_timeout = run_timeout
        self.start_timeout = start_timeout
        self._folder = Path(tempfile.mkdtemp(prefix="loop-conformance-"))
        self._spawned = 0
        self._workers: list[_Worker] = []

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        for worker in self._workers:
            with contextlib.suppress(OSError):
                worker.connection.send(None)
        for worker in self._workers:
            with contextlib.suppress(subprocess.TimeoutExpired):
                worker.process.wait(2)
            worker.stop()
        self._workers = []
        for path in self._folder.glob("*"):
            path.unlink(missing_ok=True)
        self._folder.rmdir()

    def run(self, jobs: Sequence[Job], on_outcome: Callable[[int, Outcome], None] | None = None) -> list[Outcome]:
        outcomes: dict[int, Outcome] = {}
        pending = list(reversed(jobs))
        while pending or any(w.job is not None for w in self._workers):
            self._fill(pending)
            busy = [w for w in self._workers if w.job is not None]
            timeout = max(0.0, min(w.deadline for w in busy) - time.monotonic())
            ready = wait([w.connection for w in busy], min(timeout, 1.0))  # also notices workers that died
            for worker in busy:
                finished = self._collect(worker, ready)
                if finished is not None:
                    outcomes[finished[0]] = finished[1]
                    if on_outcome is not None:
                        on_outcome(*finished)
        return [outcomes[job.index] for job in jobs]

    def _fill(self, pending: list[Job]) -> None:
        while pending and (len(self._workers) < self.size or any(w.job is None for w in self._workers)):
            idle = next((w for w in self._workers if w.job is None), None)
            if idle is None:
                idle = self._spawn()
            idle.give(pending.pop(), self.start_timeout)

    def _spawn(self) -> _Worker:
        self._spawned += 1
        worker = _Worker(self._folder, self._spawned)
        self._workers.append(worker)
        return worker

    def _collect(self, worker: _Worker, ready: Sequence[object]) -> tuple[int, Outcome] | None:
        job = worker.job
        assert job is not None
        if worker.connection in ready:
            try:
                while worker.connection.poll():
                    message = cast(tuple[object, ...], worker.connection.recv())
                    if message[0] == "done":
                        worker.job = None
                        return job.index, cast(Outcome, message[2])
                    self._note(worker, message)
            except (EOFError, OSError):
                pass
        if not worker.alive() or worker.connection.closed:
            code = worker.process.wait()
            return job.index, self._replace(worker, f"the worker process exited with code {code} during the run")
        if time.monotonic() >= worker.deadline:
            if not worker.progress.started:
                limit = f"killed after {self.start_timeout:g} s: the adapter was not built"
                return job.index, self._replace(worker, limit)
            return job.index, self._replace(worker, f"killed after {self.run_timeout:g} s: the run did not finish")
        return None

    def _note(self, worker: _Worker, message: tuple[object, ...]) -> None:
        kind, progress = message[0], worker.progress
        if kind == "start":
            progress.started, progress.version, progress.output_offset = True, str(message[2]), int(str(message[3]))
            # The limit is the run's own: starting the interpreter and building the adapter had a limit of theirs.
            worker.deadline = time.monotonic() + self.run_timeout
        elif kind == "request":
            progress.model_calls.append(f"turn {int(str(message[2])) + 1}, model call #{message[3]}")
        elif kind == "execution":
            progress.executions.append(f"turn {int(str(message[2])) + 1}: {message[3]}")

    def _replace(self, worker: _Worker, reason: str) -> Stopped:
        stopped = Stopped(reason, worker.progress, worker.output_tail())
        worker.stop()
        self._workers.remove(worker)
        return stopped


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
    jobs = [RunJob(i, r.implementation, str(r.scenario.path), r.mode, min(turn_timeout, pool.run_timeout),
                   r.dialect) for i, r in enumerate(requests)]

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

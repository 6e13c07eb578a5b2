"""The worker process: runs scenario jobs one at a time and reports back through a pipe.

The parent (`harness.run.isolation`) owns the clock: a worker never times itself out beyond the soft per-turn
limit, it is killed and replaced when a job overruns. Everything the loop under test prints goes to a file, never
to the terminal; the parent shows the tail of it when a run fails to finish.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import sys
import traceback
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path

from harness.contract import Dialect, LoopAdapter, Mode, adapter_dialects
from harness.results import ScenarioResult
from harness.run.registry import load_adapter
from harness.run.runner import RunObserver, run_scenario
from harness.scenario.loader import load_scenario
from harness.scenario.model import Scenario
from harness.script import ModelRequest, ToolExecution

# A loop that allocates without end is stopped by the kernel rather than the machine.
MEMORY_LIMIT_BYTES = 6 * 1024**3


@dataclass(frozen=True)
class ProbeJob:
    """Build the adapter once, to learn whether it is installed, its version and whether it works at all."""

    index: int
    implementation: str


@dataclass(frozen=True)
class RunJob:
    index: int
    implementation: str
    scenario_path: str
    mode: Mode
    turn_timeout: float
    dialect: Dialect = "neutral"


@dataclass(frozen=True)
class ProbeOutcome:
    implementation: str
    version: str = ""
    name: str = ""  # the adapter's own name, which results carry
    dialects: tuple[Dialect, ...] = ("neutral",)  # the providers it runs over, neutral first
    unavailable: str | None = None  # the extra is not installed (ImportError)
    broken: str | None = None  # the factory failed otherwise


@dataclass(frozen=True)
class Crashed:
    """Something escaped the job itself (`sys.exit` in the loop, a scenario that no longer loads)."""

    message: str
    detail: str


def serve(connection: Connection, output_path: str) -> None:
    """Worker main loop: jobs in, progress and outcomes out, until the parent sends None or goes away."""
    _capture_output(output_path)
    _limit_memory()
    adapters: dict[str, LoopAdapter] = {}
    scenarios: dict[str, Scenario] = {}
    while True:
        try:
            job: ProbeJob | RunJob | None = connection.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        try:
            outcome = _probe(job, adapters) if isinstance(job, ProbeJob) else _run(job, connection, adapters,
                                                                                 scenarios)
        except (EOFError, BrokenPipeError):
            return
        except BaseException as error:  # noqa: BLE001 - SystemExit or KeyboardInterrupt from the loop: its verdict
            detail = "".join(traceback.format_exception(type(error), error, error.__traceback__))
            outcome = Crashed(_one_line(error), detail)
        try:
            connection.send(("done", job.index, outcome))
        except (EOFError, OSError):
            return


def _probe(job: ProbeJob, adapters: dict[str, LoopAdapter]) -> ProbeOutcome:
    try:
        adapter = load_adapter(job.implementation)
    except ImportError as error:
        return ProbeOutcome(job.implementation, unavailable=f"not available ({error})")
    except BaseException as error:  # noqa: BLE001 - sys.exit and KeyboardInterrupt in a factory are its fault too
        return ProbeOutcome(job.implementation, broken=f"its factory raised {_one_line(error)}")
    try:
        dialects = adapter_dialects(adapter)
    except Exception as error:  # noqa: BLE001 - a `dialects` that is no set of names breaks this adapter only
        return ProbeOutcome(job.implementation, broken=f"its dialects could not be read: {_one_line(error)}")
    adapters[job.implementation] = adapter
    return ProbeOutcome(job.implementation, version=str(adapter.version), name=str(adapter.name),
                        dialects=dialects)


def _run(job: RunJob, connection: Connection, adapters: dict[str, LoopAdapter],
         scenarios: dict[str, Scenario]) -> ScenarioResult:
    adapter = adapters.get(job.implementation) or load_adapter(job.implementation)
    adapters[job.implementation] = adapter
    scenario = scenarios.get(job.scenario_path) or load_scenario(Path(job.scenario_path))
    scenarios[job.scenario_path] = scenario
    sys.stdout.flush()
    sys.stderr.flush()
    connection.send(("start", job.index, adapter.version, os.lseek(1, 0, os.SEEK_END)))

    def on_request(request: ModelRequest) -> None:
        connection.send(("request", job.index, request.turn, request.number))

    def on_execution(execution: ToolExecution) -> None:
        arguments = json.dumps(execution.arguments, sort_keys=True, default=str)[:200]
        connection.send(("execution", job.index, execution.turn, f"{execution.tool}({arguments})"))

    observer = RunObserver(on_request, on_execution)
    return asyncio.run(run_scenario(scenario, adapter, job.mode, turn_timeout=job.turn_timeout, observer=observer,
                                    dialect=job.dialect))


def _one_line(error: BaseException) -> str:
    return "".join(traceback.format_exception_only(type(error), error)).strip()


def _capture_output(output_path: str) -> None:
    descriptor = os.open(output_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(descriptor, 1)
    os.dup2(descriptor, 2)
    os.close(descriptor)
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(line_buffering=True)


def _limit_memory() -> None:
    try:
        import resource
    except ImportError:  # not on this platform: the parent's wall-clock limit still applies
        return
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = MEMORY_LIMIT_BYTES if hard == resource.RLIM_INFINITY else min(hard, MEMORY_LIMIT_BYTES)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def main(argv: list[str]) -> None:
    """`python -m harness.run.worker FD OUTPUT`: serve jobs on the inherited socket FD."""
    serve(Connection(int(argv[0])), argv[1])


if __name__ == "__main__":
    # Run the importable copy of this module, so that the job classes unpickled from the parent are the same
    # classes `serve` checks against (this file also runs as `__main__`).
    import harness.run.worker

    harness.run.worker.main(sys.argv[1:])

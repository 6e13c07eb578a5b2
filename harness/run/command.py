"""`loop-conformance run`: run the selected suite, print what failed and a summary, write the results and reports.

The console output ends, in this order, with the summary per section, one line per failing run (also under -q),
the runs that differ, a footer on the n/a runs, and with GITHUB_ACTIONS=true the workflow commands that annotate each
failure in the pull request. The exit status follows harness/exit_codes.py: it is never 0 when nothing ran.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console

from harness.contract import MODES, Dialect, Mode
from harness.errors import UnknownImplementationError
from harness.exit_codes import ExitCode
from harness.reporting.baseline import BUNDLED_BASELINE, BaselineError, KnownFailure, load_baseline
from harness.reporting.colour import console, echo
from harness.reporting.commands import SpecFileError, append_step_summary, load_rows, write_reports
from harness.reporting.documents import ResultsDocument
from harness.reporting.json_report import write_json
from harness.reporting.not_applicable import render_footer, render_reasons
from harness.reporting.progress import RunProgress
from harness.reporting.run_listing import github_annotations, render_listing
from harness.reporting.text import render_failure, render_summary
from harness.results import ScenarioResult
from harness.run.registry import check_known, implementation_names
from harness.run.runner import TURN_TIMEOUT_SECONDS
from harness.run.suite import BUNDLED_SCENARIOS, IsolatedSuiteRun, run_isolated_suite
from harness.scenario.loader import discover


def run_command(args: argparse.Namespace) -> int:
    """Run what `args` (parsed `run` options) select; returns the exit status."""
    out, err = console(), console(stderr=True)
    try:
        for name in args.impl:
            check_known(name)
        known = _known_failures(args)
        rows = load_rows(args.spec)
    except (UnknownImplementationError, BaselineError, SpecFileError) as error:
        err.print(f"error: {error}")
        return ExitCode.USAGE_ERROR
    names: list[str] = list(dict.fromkeys(args.impl)) or implementation_names()
    modes: tuple[Mode, ...] = (args.mode,) if args.mode else MODES
    providers: list[Dialect] | None = list(dict.fromkeys(args.provider)) or None
    paths: list[Path] = args.scenarios or [BUNDLED_SCENARIOS]
    progress = RunProgress(out, quiet=args.quiet)
    try:
        suite = run_isolated_suite(names, paths, modes, known, providers=providers, jobs=args.jobs,
                                   profiles=args.profile, run_timeout=args.timeout,
                                   turn_timeout=min(TURN_TIMEOUT_SECONDS, args.timeout), on_result=progress.advance,
                                   on_total=progress.start)
    finally:
        progress.finish()
    for note in (*suite.unavailable, *suite.unsupported):
        err.print(f"note: {note}")
    for error in suite.file_errors:
        err.print(error.render())
    _print_results(out, suite.results, args)
    filtered = bool(args.impl or args.mode or args.scenarios or args.provider)
    if args.json:
        write_json(args.json, suite.results, filtered=filtered, references=suite.references)
        _say(out, args, f"results written to {args.json}")
    document = ResultsDocument(tuple(suite.results), filtered, references=suite.references)
    if not args.no_reports:
        written = write_reports(document, args.reports, rows)
        _say(out, args, f"coverage reports written to {args.reports}/ "
                        f"({', '.join(p.name for p in written.values())})")
    append_step_summary(document, rows)  # when running as a GitHub Actions step
    return _exit_status(err, suite, args.impl, paths)


def _print_results(out: Console, results: Sequence[ScenarioResult], args: argparse.Namespace) -> None:
    if not args.quiet:
        for result in results:  # malformed scenario files were printed as compiler errors already
            if result.verdict in ("fail", "error") and result.checks and result.checks[0].id != "scenario-file":
                echo(out, render_failure(result, verbose=args.verbose >= 1, verbose_flag="-v"))
                out.print()
    if args.verbose >= 1 and any(r.verdict == "n/a" for r in results):
        echo(out, ["n/a runs and why:", *render_reasons(results), ""])
    out.print(render_summary(results))
    if bool(args.impl or args.mode or args.scenarios or args.provider):
        out.print("(filtered run: not every implementation, mode, provider or scenario was selected)")
    echo(out, render_listing(results))
    if not args.quiet:
        echo(out, render_footer(results))
    if os.environ.get("GITHUB_ACTIONS") == "true":
        for line in github_annotations(results):
            print(line)  # workflow commands: plain, never styled or wrapped


def _exit_status(err: Console, suite: IsolatedSuiteRun, named: Sequence[str], paths: Sequence[Path]) -> int:
    """1 when a run failed; else 5 when nothing ran or a named implementation is missing; else 0."""
    if any(r.verdict in ("fail", "error") for r in suite.results):
        return ExitCode.FAILED
    missing = [note for note in suite.unavailable if any(note.startswith(f"{name}: ") for name in named)]
    if missing:
        err.print(f"error: {len(missing)} implementation(s) named with --impl cannot run, so their runs are "
                  f"missing: {'; '.join(missing)}")
        err.print("hint: install what it needs, e.g. its extra: pip install 'loop-conformance[pydantic-ai]' for "
                  "pydantic_ai ('loop-conformance list' shows what is installed)")
        return ExitCode.NOTHING_RAN
    if not suite.results:
        if not discover(paths):
            where = ", ".join(str(p) for p in paths)
            err.print(f"error: nothing ran: no scenario files (*.yaml, *.yml) under {where}")
        else:
            err.print("error: nothing ran: no installed implementation runs the selected scenarios in the selected "
                      "modes and providers ('loop-conformance list' shows what is installed)")
        return ExitCode.NOTHING_RAN
    return ExitCode.OK


def _say(out: Console, args: argparse.Namespace, text: str) -> None:
    """A note on what the run wrote; --quiet leaves only the summary, the failing runs and errors."""
    if not args.quiet:
        out.print(text)


def _known_failures(args: argparse.Namespace) -> list[KnownFailure]:
    if args.no_baseline:
        return []
    path: Path | None = args.baseline or (BUNDLED_BASELINE if BUNDLED_BASELINE.exists() else None)
    return list(load_baseline(path).known_failures) if path is not None else []


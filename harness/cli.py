"""The ``loop-conformance`` command line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from harness.contract import MODES, LoopAdapter, Mode
from harness.errors import UnknownImplementationError
from harness.reporting.baseline import BUNDLED_BASELINE, BaselineError, KnownFailure, load_baseline
from harness.reporting.commands import (
    SpecFileError,
    append_step_summary,
    diff_command,
    gate_command,
    load_rows,
    report_command,
    write_reports,
)
from harness.reporting.documents import ResultsDocument
from harness.reporting.json_report import write_json
from harness.reporting.text import render_failure, render_summary
from harness.reporting.version_matrix import load_results, render_json, render_markdown
from harness.run.registry import implementation_names, installed_adapters, load_adapter
from harness.run.suite import BUNDLED_SCENARIOS, run_suite
from harness.scenario.schema import ScenarioSpec


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="loop-conformance", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run scenarios against implementations")
    run.add_argument("--impl", action="append", default=[], metavar="NAME",
                     help="implementation to run (repeatable; default: every installed one)")
    run.add_argument("--mode", choices=MODES, help="only this response mode (default: both)")
    run.add_argument("--scenarios", action="append", type=Path, default=[], metavar="PATH",
                     help="scenario file or folder (repeatable; default: the bundled scenarios)")
    run.add_argument("--json", type=Path, metavar="FILE", help="write machine-readable results here")
    run.add_argument("--baseline", type=Path, metavar="FILE",
                     help="known failures to report as xfail (default: the bundled baselines/known-failures.yaml)")
    run.add_argument("--no-baseline", action="store_true", help="report known failures as plain failures")
    run.add_argument("--reports", type=Path, default=Path("reports"), metavar="DIR",
                     help="write coverage.md/.html/.json and junit.xml here (default: reports)")
    run.add_argument("--no-reports", action="store_true", help="write no coverage reports")
    run.add_argument("--spec", type=Path, metavar="FILE", help="spec Markdown whose matrix rows the reports list")
    report = commands.add_parser("report", help="coverage reports (md, html, json, junit) from results files")
    report.add_argument("results", nargs="+", type=Path)
    report.add_argument("--spec", type=Path, metavar="FILE", help="spec Markdown whose matrix rows to list")
    report.add_argument("--out", type=Path, required=True, metavar="DIR")
    gate = commands.add_parser("gate", help="fail on failing checks not in the baseline and on entries that now pass")
    gate.add_argument("--baseline", type=Path, required=True, metavar="FILE")
    gate.add_argument("results", type=Path)
    diff = commands.add_parser("diff", help="regressions and fixes between two results files, as Markdown")
    diff.add_argument("old", type=Path)
    diff.add_argument("new", type=Path)
    run.add_argument("-v", "--verbose", action="count", default=0, help="show expected/actual and full diffs")
    matrix = commands.add_parser("version-matrix", help="spec row × release × mode from per-release results")
    matrix.add_argument("results", nargs="+", type=Path, help="results files, one per release")
    matrix.add_argument("--markdown", type=Path, required=True, metavar="FILE")
    matrix.add_argument("--json", type=Path, required=True, metavar="FILE")
    commands.add_parser("schema", help="print the JSON Schema of scenario files")
    commands.add_parser("list", help="list installed implementations")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "schema":
        print(json.dumps(ScenarioSpec.model_json_schema(by_alias=True), indent=2))
        return 0
    if args.command == "report":
        return report_command(args.results, args.out, args.spec)
    if args.command == "gate":
        return gate_command(args.results, args.baseline)
    if args.command == "diff":
        return diff_command(args.old, args.new)
    if args.command == "version-matrix":
        by_version = load_results(args.results)
        args.markdown.write_text(render_markdown(by_version), encoding="utf-8")
        args.json.write_text(render_json(by_version), encoding="utf-8")
        print(f"version matrix of {len(by_version)} releases written to {args.markdown} and {args.json}")
        return 0
    if args.command == "list":
        for name in implementation_names():
            print(name)
        return 0
    return _run(args)


def _run(args: argparse.Namespace) -> int:
    try:
        adapters = _adapters(args.impl)
    except UnknownImplementationError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    modes: tuple[Mode, ...] = (args.mode,) if args.mode else MODES
    paths: list[Path] = args.scenarios or [BUNDLED_SCENARIOS]
    try:
        known = _known_failures(args)
        rows = load_rows(args.spec)
    except (BaselineError, SpecFileError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    suite = run_suite(adapters, paths, modes, known)
    for error in suite.file_errors:
        print(error.render(), file=sys.stderr)
    for result in suite.results:
        if result.verdict in ("fail", "error") and result.checks and result.checks[0].id != "scenario-file":
            print(render_failure(result, verbose=args.verbose >= 1))
            print()
    filtered = bool(args.impl or args.mode or args.scenarios)
    print(render_summary(suite.results))
    if filtered:
        print("(filtered run: not every implementation, mode or scenario was selected)")
    if args.json:
        write_json(args.json, suite.results, filtered=filtered)
        print(f"results written to {args.json}")
    if not args.no_reports:
        written = write_reports(ResultsDocument(tuple(suite.results), filtered), args.reports, rows)
        append_step_summary(written["markdown"])
        print(f"coverage reports written to {args.reports}/ ({', '.join(p.name for p in written.values())})")
    return 1 if any(r.verdict in ("fail", "error") for r in suite.results) else 0


def _known_failures(args: argparse.Namespace) -> list[KnownFailure]:
    if args.no_baseline:
        return []
    path: Path | None = args.baseline or (BUNDLED_BASELINE if BUNDLED_BASELINE.exists() else None)
    return list(load_baseline(path).known_failures) if path is not None else []


def _adapters(names: Sequence[str]) -> list[LoopAdapter]:
    if names:
        return [load_adapter(name) for name in names]
    adapters, problems = installed_adapters()
    for problem in problems:
        print(f"note: {problem}", file=sys.stderr)
    return adapters


if __name__ == "__main__":
    raise SystemExit(main())

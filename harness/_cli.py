"""The ``loop-conformance`` command line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from harness._registry import implementation_names, installed_adapters, load_adapter
from harness._schema import ScenarioSpec
from harness._suite import BUNDLED_SCENARIOS, run_suite
from harness.baseline import BUNDLED_BASELINE, BaselineError, KnownFailure, load_baseline
from harness.contract import MODES, LoopAdapter, Mode
from harness.errors import UnknownImplementationError
from harness.reporting.json_report import write_json
from harness.reporting.text import render_failure, render_summary
from harness.reporting.version_matrix import load_results, render_json, render_markdown


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
    except BaselineError as error:
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

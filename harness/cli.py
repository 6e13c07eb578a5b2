"""The loop-conformance command line: argument parsing, then one call per subcommand."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from harness.contract import DIALECTS, MODES
from harness.errors import HarnessError
from harness.exit_codes import ExitCode, exit_code_table
from harness.fuzz.options import add_fuzz_parser
from harness.power.cli import POWER_COMMANDS, add_power_commands, run_power_command
from harness.reporting.baseline import load_baseline
from harness.reporting.baseline_stub import render_stub
from harness.reporting.commands import diff_command, gate_command, report_command
from harness.reporting.documents import ResultsFileError, combine, load_results_document
from harness.reporting.spec_view import SUMMARY_LIMIT
from harness.reporting.version_matrix import load_results, render_json, render_markdown
from harness.run.command import run_command
from harness.run.isolation import RUN_TIMEOUT_SECONDS, WorkerPool, probe
from harness.run.registry import implementation_names
from harness.scenario.loader import discover, load_many
from harness.scenario.schema import ScenarioSpec

DESCRIPTION = """\
Conformance harness for LLM function-calling loops: runs YAML scenarios against loop
implementations in streaming and non-streaming mode, over the neutral provider and the provider
wire formats each implementation supports, checks universal invariants and each scenario's
expectations, and reports the verdicts per spec row."""

EXAMPLES = """\
examples:
  loop-conformance run                      every scenario, every installed implementation, both modes,
                                            every provider each implementation supports
  loop-conformance run --impl reference -v  one implementation, failures in full detail
  loop-conformance gate --baseline baselines/known-failures.yaml results.json
  loop-conformance check scenarios/         validate scenario files only (e.g. in pre-commit)
  loop-conformance COMMAND --help           what one command does and every option it takes

exit codes:
"""

RUN_EXAMPLES = """\
Exits 0 when every run passes (or is xfail, differs or n/a), 1 when any fails or errors, 2 on a usage
error (an unknown implementation, an unreadable baseline or spec file), 5 when nothing ran or an
implementation named with --impl is not installed. 'loop-conformance --help' lists every exit code.

examples:
  loop-conformance run --json results.json
  loop-conformance run --impl agent_framework --mode streaming --scenarios scenarios/approval
  loop-conformance run --impl agent_framework --provider openai-chat   one wire format only
  loop-conformance run --no-baseline --no-reports -q   summary only; known failures count as failures"""

GATE_EXAMPLES = """\
Exits 0 when the gate passes, 1 when it fails, 2 when a file cannot be read.

example:
  loop-conformance run --impl agent_framework --json pr.json --no-baseline
  loop-conformance gate --baseline baselines/known-failures.yaml pr.json"""

DIFF_EXAMPLES = """\
example:
  loop-conformance diff base.json pr.json >> "$GITHUB_STEP_SUMMARY"
"""

MATRIX_EXAMPLES = """\
example:
  loop-conformance version-matrix results-1.22.0.json results-1.23.0.json \\
      --package agent_framework=agent-framework-core --baseline baselines/known-failures.yaml \\
      --markdown results/version-matrix.md --json results/version-matrix.json"""

CHECK_EXAMPLES = """\
Exits 0 when every file loads, 1 when any is broken (each problem printed as path:line:col), 5 when
no scenario file was found.

examples:
  loop-conformance check scenarios/
  loop-conformance check my-scenarios/approval/resume.yaml"""

STUB_EXAMPLES = """\
example:
  loop-conformance run --impl my_loop --no-baseline --json results.json
  loop-conformance baseline-stub results.json > baselines/my-loop.yaml   then edit every TODO"""

# The scenario format's version: the last part of the schema's $id. It changes when a valid scenario file stops
# being valid (a key removed or narrowed), not with every release of the package.
SCENARIO_FORMAT_VERSION = 1
SCHEMA_ID = f"https://github.com/loop-conformance/loop-conformance/schemas/scenario/v{SCENARIO_FORMAT_VERSION}.json"

_FORMAT = argparse.RawDescriptionHelpFormatter  # descriptions and examples keep their line breaks


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="loop-conformance", description=DESCRIPTION,
                                     epilog=EXAMPLES + exit_code_table(), formatter_class=_FORMAT)
    parser.add_argument("--version", action="version", version=f"%(prog)s {package_version()}",
                        help="print the installed version and exit")
    commands = parser.add_subparsers(dest="command", required=True, title="commands", metavar="COMMAND")
    run = commands.add_parser(
        "run", help="run scenarios against implementations, print failures and a summary, write reports",
        description="Run every selected scenario against every selected implementation in each mode and over\n"
                    "each provider, print each failure, a summary per scenario section, and write the coverage\n"
                    "reports.",
        epilog=RUN_EXAMPLES, formatter_class=_FORMAT)
    run.add_argument("--impl", action="append", default=[], metavar="NAME",
                     help="implementation to run, as 'loop-conformance list' names it (repeatable; default: every "
                          "installed one)")
    run.add_argument("--mode", choices=MODES, help="run only this response mode (default: both)")
    run.add_argument("--provider", action="append", choices=DIALECTS, default=[], metavar="PROVIDER",
                     help="reach the model only through this provider: neutral (the in-process scripted provider) "
                          f"or a wire format, one of {', '.join(DIALECTS[1:])} (repeatable; default: every "
                          "provider each implementation supports, as 'loop-conformance list' shows)")
    run.add_argument("--scenarios", action="append", type=Path, default=[], metavar="PATH",
                     help="scenario file, or folder searched for them (repeatable; default: the bundled scenarios)")
    run.add_argument("--json", type=Path, metavar="FILE",
                     help="also write every result, check by check, to this JSON file (what report, gate and diff "
                          "read)")
    run.add_argument("--baseline", type=Path, metavar="FILE",
                     help="known failures to report as xfail (default: the bundled baselines/known-failures.yaml)")
    run.add_argument("--no-baseline", action="store_true",
                     help="apply no baseline: known failures are reported as plain failures")
    run.add_argument("--profile", action="append", choices=("safety", "contract", "tentative"), default=None,
                     help="judge every implementation by these profiles instead of the ones it claims (repeatable; "
                          "safety always gates): '--profile contract' holds every loop to spec 004's mechanisms, "
                          "'--profile tentative' gates our readings too; failures of other profiles are 'differs'")
    run.add_argument("--reports", type=Path, default=Path("reports"), metavar="DIR",
                     help="folder for coverage.md, coverage.html, coverage.json and junit.xml (default: reports)")
    run.add_argument("--no-reports", action="store_true", help="write no coverage reports")
    run.add_argument("--spec", type=Path, metavar="FILE",
                     help="spec Markdown file whose scenario-to-test matrix rows the reports list (default: the "
                          "built-in row list)")
    run.add_argument("-j", "--jobs", type=_positive_int, default=None, metavar="N",
                     help="worker processes running scenarios in parallel (default: the number of cores)")
    run.add_argument("--timeout", type=_positive_float, default=RUN_TIMEOUT_SECONDS, metavar="SECONDS",
                     help="hard limit on one scenario run; an overrunning worker is killed and the run is an error "
                          f"(default: {RUN_TIMEOUT_SECONDS:g})")
    output = run.add_mutually_exclusive_group()
    output.add_argument("-v", "--verbose", action="count", default=0,
                        help="show each failure in full (every problem, whole diffs, expected and actual values) and "
                             "why each n/a run is n/a")
    output.add_argument("-q", "--quiet", action="store_true",
                        help="print only the summary, one line per failing run and errors: no progress, no failure "
                             "details")
    report = commands.add_parser(
        "report", help="coverage reports (Markdown, HTML, JSON, JUnit) from saved results files",
        description="Write the coverage reports, as 'run' does, from results files saved by 'run --json';\n"
                    "several files (e.g. one per implementation) make one report.", formatter_class=_FORMAT)
    report.add_argument("results", nargs="+", type=Path, metavar="RESULTS",
                        help="results file written by 'run --json' (one or more)")
    report.add_argument("--spec", type=Path, metavar="FILE",
                        help="spec Markdown file whose scenario-to-test matrix rows the reports list (default: the "
                             "built-in row list)")
    report.add_argument("--out", type=Path, metavar="DIR",
                        help="folder to write coverage.md, coverage.html, coverage.json, junit.xml, spec-matrix.md "
                             "and the invariant table into (needed unless --step-summary is given)")
    report.add_argument("--matrix-only", action="store_true",
                        help="write only spec-matrix.md: the spec's matrix, one status column per implementation "
                             "family, each cell linking to its detail in coverage.html (short enough for the spec)")
    report.add_argument("--step-summary", type=Path, metavar="FILE",
                        help="append a capped job summary to FILE (e.g. \"$GITHUB_STEP_SUMMARY\"): failing runs "
                             "first, the counts per implementation, the spec matrix, then where the full reports are")
    report.add_argument("--summary-limit", type=_positive_int, default=SUMMARY_LIMIT, metavar="BYTES",
                        help=f"largest job summary written, in bytes (default: {SUMMARY_LIMIT}; GitHub drops a "
                             "summary over 1 MiB)")
    report.add_argument("--artifact", default="", metavar="TEXT",
                        help="where the full reports are, for the summary's last line (default: this workflow "
                             "run's artifacts on GitHub, else the reports folder)")
    report.add_argument("--by-scenario", action="store_true",
                        help="also write verdicts-by-scenario.md: per spec row, each scenario's verdict on the row's "
                             "own requirement and the general invariants it tripped, per column")
    gate = commands.add_parser(
        "gate", help="fail on failing checks not in the baseline and on baseline entries that now pass",
        description="Compare a results file with a per-check baseline: any failing check the baseline does not\n"
                    "hold fails the gate (a regression), and so does any baseline entry whose check now passes\n"
                    "(a fix that must leave the baseline).", epilog=GATE_EXAMPLES, formatter_class=_FORMAT)
    gate.add_argument("--baseline", type=Path, required=True, metavar="FILE",
                      help="baseline YAML with check_failures and/or known_failures entries")
    gate.add_argument("results", type=Path, metavar="RESULTS", help="results file written by 'run --json'")
    diff = commands.add_parser(
        "diff", help="regressions and fixes between two results files, as Markdown for a PR comment",
        description="Compare two results files check by check and print the regressions, fixes and other\n"
                    "changes as Markdown tables.", epilog=DIFF_EXAMPLES, formatter_class=_FORMAT)
    diff.add_argument("old", type=Path, metavar="OLD", help="results file of the base, before the change")
    diff.add_argument("new", type=Path, metavar="NEW", help="results file of the change")
    matrix = commands.add_parser(
        "version-matrix", help="spec row × release × mode table from results files of several releases",
        description="Build the version matrix (every covered spec row × framework release × mode) from one\n"
                    "results file per release.", epilog=MATRIX_EXAMPLES, formatter_class=_FORMAT)
    matrix.add_argument("results", nargs="+", type=Path, metavar="RESULTS",
                        help="results file written by 'run --json', one per release")
    matrix.add_argument("--package", action="append", default=[], type=_package, metavar="IMPL=PACKAGE",
                        help="the package whose releases IMPL's results are of, named in its table's heading "
                             "(repeatable)")
    matrix.add_argument("--baseline", type=Path, metavar="FILE",
                        help="judge every run against this baseline's known failures instead of keeping the "
                             "verdicts stored when it was swept")
    matrix.add_argument("--markdown", type=Path, required=True, metavar="FILE", help="write the Markdown table here")
    matrix.add_argument("--json", type=Path, required=True, metavar="FILE", help="write the JSON form here")
    add_fuzz_parser(commands)
    add_power_commands(commands)
    commands.add_parser("schema", help="print the JSON Schema of scenario files",
                        description="Print the JSON Schema of scenario files, e.g. for an editor's YAML language "
                                    f"server. Its $id names the scenario format's version: {SCHEMA_ID}")
    check = commands.add_parser(
        "check", help="validate scenario files without running them (for editors and pre-commit)",
        description="Load each scenario file as 'run' would (YAML, schema, references between its parts, unique\n"
                    "ids) and print every problem as path:line:col; run nothing.", epilog=CHECK_EXAMPLES,
        formatter_class=_FORMAT)
    check.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="scenario file, or folder searched for them")
    stub = commands.add_parser(
        "baseline-stub", help="print known-failure entries for the failing runs of results files, to edit",
        description="Print a baseline (known_failures YAML) with one entry per defect the failing runs of the\n"
                    "results files show: scenario, implementation, checks, modes, providers and release filled in,\n"
                    "the reason and the reproduction left as TODO for you to write.", epilog=STUB_EXAMPLES,
        formatter_class=_FORMAT)
    stub.add_argument("results", nargs="+", type=Path, metavar="RESULTS", help="results file written by 'run --json'")
    citations = commands.add_parser(
        "citations", help="list the ids a scenario's 'cites:' and a check can name, with the words they cite",
        description="List every citation id, one a line with where it is written and its words: the spec's matrix\n"
                    "rows (row:<title>), the sentences of its normative contract (sentence:<section>/<first six\n"
                    "words>) and the external documents a check enforces. A word given keeps only the citations\n"
                    "whose id, source or words contain it (any case).", formatter_class=_FORMAT)
    citations.add_argument("words", nargs="*", metavar="WORD", help="keep only citations containing every word")
    commands.add_parser("list", help="list the installed implementations, by the names --impl takes",
                        description="List the installed implementations, one a line: the name 'run --impl' takes,\n"
                                    "then the providers it runs over (the values 'run --provider' takes), or why it\n"
                                    "is not available.", formatter_class=_FORMAT)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: parses `argv` (default: sys.argv), runs the command, returns the exit status."""
    try:
        args = _parser().parse_args(argv)
        status = _dispatch(args)
        sys.stdout.flush()  # a closed pipe shows here, where it is handled, not at interpreter exit
        return status
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:  # the reader went away (`schema | head`): stop quietly, as a shell tool does
        _silence_stdout()
        return ExitCode.BROKEN_PIPE
    except OSError as error:  # an unwritable report folder, an unreadable results file: the user's to fix
        where = f" {error.filename}" if error.filename else ""
        print(f"error: cannot use{where}: {error.strerror or error}", file=sys.stderr)
        return ExitCode.USAGE_ERROR
    except HarnessError as error:
        print(f"error: {error}", file=sys.stderr)
        return ExitCode.USAGE_ERROR


def package_version() -> str:
    """The installed distribution's version, or that of the source tree when run from a checkout."""
    try:
        return version("loop-conformance")
    except PackageNotFoundError:
        return "unknown (not installed)"


def scenario_schema() -> dict[str, object]:
    """The JSON Schema of scenario files, with its dialect and the scenario format's versioned $id."""
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID,
            **ScenarioSpec.model_json_schema(by_alias=True)}


def _citations(words: Sequence[str]) -> int:
    """Print the citation ids (filtered by `words`); exit 5, as a run with nothing to run, when none matches."""
    from harness.citations import CITATIONS  # only this command reads the citation table

    wanted = [word.casefold() for word in words]
    shown = [c for c in CITATIONS.values()
             if all(word in f"{c.id} {c.source} {c.text}".casefold() for word in wanted)]
    for citation in shown:
        print(f"{citation.id}\n    {citation.source}: {citation.text}")
    if not shown:
        print(f"no citation contains {' '.join(words)!r}", file=sys.stderr)
        return ExitCode.NOTHING_RAN
    return ExitCode.OK


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush at exit cannot fail on the closed pipe again."""
    with open(os.devnull, "w") as devnull:  # noqa: PTH123 - a descriptor to duplicate, not a path to read
        os.dup2(devnull.fileno(), sys.stdout.fileno())


def _dispatch(args: argparse.Namespace) -> int:
    if args.command == "schema":
        print(json.dumps(scenario_schema(), indent=2))
        return ExitCode.OK
    if args.command == "report":
        return _report(args)
    if args.command == "check":
        return _check(args.paths)
    if args.command == "baseline-stub":
        return _baseline_stub(args.results)
    if args.command == "gate":
        return gate_command(args.results, args.baseline)
    if args.command == "diff":
        return diff_command(args.old, args.new)
    if args.command == "version-matrix":
        return _version_matrix(args)
    if args.command == "list":
        return _list()
    if args.command == "citations":
        return _citations(args.words)
    if args.command == "fuzz":
        try:
            from harness.fuzz.command import fuzz_command  # needs Hypothesis: imported only when fuzzing
        except ImportError as error:
            print(f"error: fuzzing needs Hypothesis ({error}): pip install 'loop-conformance[fuzz]'", file=sys.stderr)
            return ExitCode.USAGE_ERROR
        return fuzz_command(args)
    if args.command in POWER_COMMANDS:
        return run_power_command(args)
    return run_command(args)


def _report(args: argparse.Namespace) -> int:
    if args.out is None and args.step_summary is None:
        print("error: report needs --out DIR, --step-summary FILE or both", file=sys.stderr)
        return ExitCode.USAGE_ERROR
    return report_command(args.results, args.out, args.spec, by_scenario=args.by_scenario,
                          matrix_only=args.matrix_only, step_summary=args.step_summary,
                          summary_limit=args.summary_limit, artifact=args.artifact)


def _check(paths: Sequence[Path]) -> int:
    """Load every scenario file under `paths`, print each broken file's problems; run nothing."""
    files = discover(paths)
    if not files:
        print(f"error: no scenario files (*.yaml, *.yml) under {', '.join(map(str, paths))}", file=sys.stderr)
        return ExitCode.NOTHING_RAN
    scenarios, errors = load_many(files)
    for error in errors:
        print(error.render(), file=sys.stderr)
    broken = len({error.path for error in errors})
    print(f"checked {len(files)} scenario file(s): {len(scenarios)} valid, {broken} broken")
    return ExitCode.FAILED if errors else ExitCode.OK


def _baseline_stub(results: Sequence[Path]) -> int:
    try:
        document = combine([load_results_document(path) for path in results])
    except ResultsFileError as error:
        print(f"error: {error}", file=sys.stderr)
        return ExitCode.USAGE_ERROR
    print(render_stub(document.results), end="")
    return ExitCode.OK


def _version_matrix(args: argparse.Namespace) -> int:
    known = load_baseline(args.baseline).known_failures if args.baseline is not None else None
    by_implementation = load_results(args.results, known)
    packages = dict(args.package)
    args.markdown.write_text(render_markdown(by_implementation, packages=packages), encoding="utf-8")
    args.json.write_text(render_json(by_implementation, packages=packages), encoding="utf-8")
    releases = len({v for by_version in by_implementation.values() for v in by_version})
    print(f"version matrix of {len(by_implementation)} implementation(s) over {releases} releases written to "
          f"{args.markdown} and {args.json}")
    return ExitCode.OK


def _list() -> int:
    """Each installed implementation and the providers it runs over, its adapter built in a worker process."""
    names = implementation_names()
    with WorkerPool(min(4, len(names)) or 1) as pool:
        probed = probe(pool, names)
    width = max((len(name) for name in names), default=0)
    for outcome in probed:
        if outcome.unavailable is not None:
            print(f"{outcome.implementation:<{width}}  {outcome.unavailable}")
        elif outcome.broken is not None:
            print(f"{outcome.implementation:<{width}}  broken: {outcome.broken}")
        else:
            print(f"{outcome.implementation:<{width}}  providers: {', '.join(outcome.dialects)}")
    return ExitCode.OK


def _package(text: str) -> tuple[str, str]:
    implementation, _, package = text.partition("=")
    if not implementation or not package:
        raise argparse.ArgumentTypeError(f"expected IMPL=PACKAGE, e.g. pydantic_ai=pydantic-ai-slim, got {text!r}")
    return implementation, package


def _positive_int(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return int(text)


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


if __name__ == "__main__":
    raise SystemExit(main())

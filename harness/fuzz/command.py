"""`loop-conformance fuzz`: fuzz one implementation, print each shrunk counterexample and where it was written."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.bundled import BUNDLED_FUZZ_ALLOWANCES
from harness.errors import HarnessError
from harness.fuzz.allowances import Allowance, load_allowances
from harness.fuzz.oracle import Judge
from harness.fuzz.session import DEFAULT_DATABASE, PROFILES, Counterexample, fuzz
from harness.reporting.baseline import BUNDLED_BASELINE, KnownFailure, load_baseline
from harness.run.registry import load_adapter
from harness.run.suite import BUNDLED_SCENARIOS
from harness.scenario.loader import load_many

FUZZ_EXAMPLES = """\
Exits 0 when nothing beyond the baseline and the fuzz allowances was found, 1 when a counterexample was
written, 2 on a usage error.

examples:
  loop-conformance fuzz --impl agent_framework --out fuzz-findings
  loop-conformance fuzz --impl pydantic_ai --profile long --seed 7 --out fuzz-findings
  loop-conformance run --impl agent_framework --scenarios fuzz-findings/FILE.yaml   replays one"""


def add_fuzz_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:  # pyright: ignore[reportPrivateUsage]
    fuzz_parser = commands.add_parser(
        "fuzz", help="generate conversations and stream splits, shrink every failure into a scenario file",
        description="Property-based testing of one implementation: generated conversations and re-split\n"
                    "streams of the bundled scenarios, judged by the invariants and against the reference loop;\n"
                    "each failure is shrunk and written as a scenario file that reproduces it.",
        epilog=FUZZ_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    fuzz_parser.add_argument("--impl", required=True, metavar="NAME",
                             help="implementation to fuzz, a registered name or module:factory")
    fuzz_parser.add_argument("--profile", choices=sorted(PROFILES), default="short",
                             help="how long to search: short (the test suite's) or long (default: short)")
    fuzz_parser.add_argument("--max-examples", type=_positive, metavar="N",
                             help="examples per search, overriding the profile's")
    fuzz_parser.add_argument("--max-findings", type=_positive, metavar="N",
                             help="counterexamples to look for before stopping, overriding the profile's")
    fuzz_parser.add_argument("--seed", type=int, default=0, metavar="S", help="Hypothesis seed (default: 0)")
    fuzz_parser.add_argument("--out", type=Path, default=Path("fuzz-findings"), metavar="DIR",
                             help="folder for the counterexample scenario files (default: fuzz-findings)")
    fuzz_parser.add_argument("--database", type=Path, default=DEFAULT_DATABASE, metavar="DIR",
                             help=f"Hypothesis example database, replayed first (default: {DEFAULT_DATABASE})")
    fuzz_parser.add_argument("--no-stream-splits", action="store_true",
                             help="fuzz generated conversations only, not stream splits of the bundled scenarios")


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return int(text)


def fuzz_command(args: argparse.Namespace) -> int:
    try:
        adapter = load_adapter(args.impl)
    except ImportError as error:
        raise HarnessError(f"{args.impl} is not available: {error}") from None
    profile = PROFILES[args.profile]
    judge = Judge(_known(), _allowances(), load_adapter("reference"))  # the differential check's reference
    bundled = [] if args.no_stream_splits else load_many([BUNDLED_SCENARIOS])[0]
    report = fuzz(adapter, judge, max_examples=args.max_examples or profile.max_examples, seed_value=args.seed,
                  out=args.out, database=args.database, max_findings=args.max_findings or profile.max_findings,
                  bundled=bundled, on_finding=_print_finding)
    print(f"{report.implementation}: {report.examples} examples run, {len(report.counterexamples)} "
          f"counterexample(s)" + (f" written to {args.out}/" if report.counterexamples else ""))
    return 1 if report.counterexamples else 0


def _print_finding(found: Counterexample) -> None:
    finding = found.finding
    print(f"FOUND [{finding.implementation}, {finding.mode}] {', '.join(finding.checks)}: {finding.message}")
    if found.path is not None:
        print(f"  reproduce: loop-conformance run --impl {finding.implementation} --mode {finding.mode} "
              f"--scenarios {found.path}")


def _known() -> list[KnownFailure]:
    return list(load_baseline(BUNDLED_BASELINE).known_failures) if BUNDLED_BASELINE.exists() else []


def _allowances() -> list[Allowance]:
    return load_allowances(BUNDLED_FUZZ_ALLOWANCES) if BUNDLED_FUZZ_ALLOWANCES.exists() else []

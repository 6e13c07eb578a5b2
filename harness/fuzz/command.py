"""`loop-conformance fuzz`: fuzz one implementation, print each shrunk counterexample and where it was written."""

from __future__ import annotations

import argparse

from harness.bundled import BUNDLED_FUZZ_ALLOWANCES
from harness.errors import HarnessError
from harness.fuzz.allowances import Allowance, load_allowances
from harness.fuzz.options import FUZZ_EXAMPLES as FUZZ_EXAMPLES
from harness.fuzz.options import add_fuzz_parser as add_fuzz_parser
from harness.fuzz.oracle import Judge
from harness.fuzz.session import PROFILES, Counterexample, fuzz
from harness.reporting.baseline import BUNDLED_BASELINE, KnownFailure, load_baseline
from harness.run.registry import load_adapter
from harness.run.suite import BUNDLED_SCENARIOS
from harness.scenario.loader import load_many


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

"""The `fuzz` command's options, registered whether or not Hypothesis (the fuzz extra) is installed: the command
line then says what the options are, and running the command says how to install the extra."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.fuzz.profiles import DEFAULT_DATABASE, PROFILES

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

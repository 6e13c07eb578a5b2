"""The ``mutate``, ``coverage`` and ``affected-rows`` subcommands' arguments, kept out of the main command line."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from harness.contract import MODES
from harness.power.commands import Selection, affected_rows_command, coverage_command, mutate_command
from harness.power.equivalents import DEFAULT_EQUIVALENTS
from harness.run.suite import BUNDLED_SCENARIOS

POWER_COMMANDS = ("mutate", "coverage", "affected-rows")

MUTATE_EXAMPLES = """\
Linux and macOS only (each mutant runs in a forked child). Needs the [power] extra (cosmic-ray).

examples:
  loop-conformance mutate --impl reference                  every mutant: reports/mutation-reference.*
  loop-conformance mutate --impl agent_framework --max-mutants 20 --seed 1   a seeded sample"""

AFFECTED_EXAMPLES = """\
examples:
  loop-conformance affected-rows --impl agent_framework --repo FRAMEWORK_CLONE d98ac2911
  loop-conformance affected-rows --impl agent_framework fix.patch \\
      --coverage reports/loop-coverage-agent_framework.json"""


def _selection_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--impl", required=True, metavar="NAME", help="implementation, as 'loop-conformance list' "
                        "names it; its adapter must name its loop modules")
    parser.add_argument("--scenarios", action="append", type=Path, default=[], metavar="PATH",
                        help="scenario file or folder (repeatable; default: the bundled scenarios)")
    parser.add_argument("--mode", action="append", choices=MODES, default=[], help="response mode (default: both)")
    parser.add_argument("--reports", type=Path, default=Path("reports"), metavar="DIR",
                        help="folder to write the reports into (default: reports)")


def add_power_commands(commands: Any) -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    mutate = commands.add_parser(
        "mutate", help="mutation score per spec row: mutants of the loop modules against the scenarios reaching them",
        description="Mutate the implementation's loop modules (in a copy, never the installed files) with\n"
                    "cosmic-ray's operators, run each mutant against the scenarios that execute its lines, and write\n"
                    "mutation-NAME.md/.html/.json: the overall score, the score per spec row and every survivor.",
        epilog=MUTATE_EXAMPLES, formatter_class=formatter)
    _selection_arguments(mutate)
    mutate.add_argument("--max-mutants", type=int, metavar="N", help="run a seeded sample of N mutants")
    mutate.add_argument("--seed", type=int, default=0, help="the sample's seed (default: 0)")
    mutate.add_argument("-j", "--jobs", type=int, metavar="N", help="mutants run at once (default: the cores)")
    mutate.add_argument("--all-kills", action="store_true", help="run every selected scenario on each mutant, "
                        "not only those up to the first that kills it (slower; names every killing scenario)")
    mutate.add_argument("--equivalents", type=Path, default=DEFAULT_EQUIVALENTS, metavar="FILE",
                        help=f"reviewed equivalent mutants (default: {DEFAULT_EQUIVALENTS})")
    coverage = commands.add_parser(
        "coverage", help="loop coverage per spec row: the loop lines each row's scenarios execute",
        description="Run every scenario × mode once under coverage.py, one dynamic context each, over the\n"
                    "implementation's loop modules; write loop-coverage-NAME.md/.html/.json: the lines each spec row\n"
                    "exercises and the lines no scenario reaches.", formatter_class=formatter)
    _selection_arguments(coverage)
    affected = commands.add_parser(
        "affected-rows", help="the spec rows whose scenarios execute the lines a change touches",
        description="Map the changed lines of a diff of the loop's source (a patch file, or a commit or range\n"
                    "of a git repository) onto the installed loop modules and name the spec rows whose scenarios\n"
                    "execute them.", epilog=AFFECTED_EXAMPLES, formatter_class=formatter)
    affected.add_argument("--impl", required=True, metavar="NAME", help="implementation whose loop the diff changes")
    affected.add_argument("diff", metavar="PATCH_OR_GIT_RANGE",
                          help="a patch file, or with --repo a commit or A..B range in that repository")
    affected.add_argument("--repo", type=Path, metavar="DIR", help="git repository (bare or not) the range is in")
    affected.add_argument("--coverage", type=Path, metavar="FILE",
                          help="reuse a loop-coverage-NAME.json report instead of measuring again")
    affected.add_argument("--scenarios", action="append", type=Path, default=[], metavar="PATH",
                          help="scenario file or folder when measuring (default: the bundled scenarios)")
    affected.add_argument("--json", type=Path, metavar="FILE", help="also write the answer as JSON")


def run_power_command(args: argparse.Namespace) -> int:
    scenarios = tuple(args.scenarios) or (BUNDLED_SCENARIOS,)
    if args.command == "affected-rows":
        return affected_rows_command(args.impl, args.diff, args.repo, coverage_file=args.coverage,
                                     scenarios=scenarios, json_out=args.json)
    selection = Selection(args.impl, scenarios, tuple(dict.fromkeys(args.mode)) or MODES)
    if args.command == "coverage":
        return coverage_command(selection, args.reports)
    return mutate_command(selection, args.reports, limit=args.max_mutants, seed=args.seed, jobs=args.jobs,
                          equivalents=args.equivalents, all_kills=args.all_kills)

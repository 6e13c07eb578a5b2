"""What ``loop-conformance mutate``, ``coverage`` and ``affected-rows`` do, minus argument parsing."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO, cast

from harness.contents import JSON
from harness.contract import MODES, Mode
from harness.data_files import load_json_file
from harness.errors import HarnessError
from harness.power.coverage_report import write_coverage_report
from harness.power.diffmap import MappedHunk, map_hunks, parse_diff, read_diff
from harness.power.engine import DEFAULT_OPERATORS
from harness.power.equivalents import load_equivalents
from harness.power.line_coverage import LoopCoverage, coverage_from_json, measure, source_hash
from harness.power.mutation import MutantResult, run_mutation
from harness.power.mutation_report import score, write_mutation_report
from harness.power.probe import probe
from harness.power.ranges import line_ranges
from harness.power.specificity import BROAD_REACH, SPECIFIC_LIFT, line_reach, rank_rows
from harness.run.registry import check_known
from harness.run.suite import BUNDLED_SCENARIOS, load_all
from harness.scenario.model import Scenario


@dataclass(frozen=True)
class Selection:
    """Which implementation, scenarios and modes a power command measures."""

    implementation: str
    scenarios: tuple[Path, ...] = (BUNDLED_SCENARIOS,)
    modes: tuple[Mode, ...] = MODES

    def command(self, verb: str, extra: str = "") -> str:
        """The command line that regenerates a report, as the report states it."""
        parts = [f"loop-conformance {verb} --impl {self.implementation}"]
        parts += [f"--scenarios {p}" for p in self.scenarios if p != BUNDLED_SCENARIOS]
        if self.modes != MODES:
            parts += [f"--mode {m}" for m in self.modes]
        return " ".join(parts) + extra


def _scenarios(selection: Selection, err: TextIO) -> list[Scenario]:
    scenarios, errors = load_all(selection.scenarios)
    for error in errors:
        print(f"note: skipped a malformed scenario file: {error.path}", file=err)
    return scenarios


def _measure(selection: Selection, err: TextIO) -> tuple[LoopCoverage, list[Scenario]]:
    check_known(selection.implementation)
    found = probe(selection.implementation)
    scenarios = _scenarios(selection, err)
    return measure(found, scenarios, selection.modes), scenarios


def coverage_command(selection: Selection, out_dir: Path, *, stdout: TextIO | None = None,
                     stderr: TextIO | None = None) -> int:
    out, err = stdout or sys.stdout, stderr or sys.stderr
    try:
        coverage, _ = _measure(selection, err)
    except HarnessError as error:
        print(f"error: {error}", file=err)
        return 2
    for path in write_coverage_report(coverage, out_dir, selection.command("coverage")):
        print(f"wrote {path}", file=out)
    return 0


def mutate_command(selection: Selection, out_dir: Path, *, limit: int | None = None, seed: int = 0,
                   jobs: int | None = None, equivalents: Path | None = None,
                   operators: Sequence[str] = DEFAULT_OPERATORS, all_kills: bool = False, stdout: TextIO | None = None,
                   stderr: TextIO | None = None) -> int:
    """Run the mutants (all, or a seeded sample of `limit`) and write the mutation report; 0 unless it could not
    run. A low score is a finding, not a failure of the command."""
    out, err = stdout or sys.stdout, stderr or sys.stderr
    started = time.monotonic()
    try:
        reviewed = load_equivalents(equivalents)
        check_known(selection.implementation)
        found = probe(selection.implementation)
        scenarios = _scenarios(selection, err)
        coverage = measure(found, scenarios, selection.modes)
        parallel = jobs or os.cpu_count() or 1

        def progress(result: MutantResult) -> None:
            print(f"{result.status:<12} {result.mutant.id}", file=err)

        run = run_mutation(found, coverage, scenarios, operators=operators, limit=limit, seed=seed,
                           parallel=parallel, equivalents=reviewed, all_kills=all_kills, on_result=progress)
    except HarnessError as error:
        print(f"error: {error}", file=err)
        return 2
    run.seconds = time.monotonic() - started
    extra = (f" --max-mutants {limit} --seed {seed}" if limit is not None else "") + (
        " --all-kills" if all_kills else "")
    for path in write_mutation_report(run, out_dir, selection.command("mutate", extra)):
        print(f"wrote {path}", file=out)
    print(f"mutation score of {run.implementation}: {score(run.results).text()} over {len(run.results)} mutants",
          file=out)
    return 0


def load_coverage_report(path: Path, implementation: str) -> LoopCoverage:
    """The coverage a loop-coverage JSON report holds; refused when the installed source has changed since."""
    raw = load_json_file(path, HarnessError)  # bounded and located, as every data file the harness reads
    try:
        document = cast(dict[str, JSON], raw)
        coverage = coverage_from_json(str(document["implementation"]), cast(dict[str, JSON], document["raw"]))
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise HarnessError(f"{path}: not a loop-coverage report ({error})") from None
    if coverage.implementation != implementation:
        raise HarnessError(f"{path} measures {coverage.implementation}, not {implementation}")
    for module in coverage.modules:
        if not Path(module.path).exists() or source_hash(module.path) != module.sha256:
            raise HarnessError(f"{path} was measured on another version of {module.name}; run 'loop-conformance "
                               f"coverage --impl {implementation}' again")
    return coverage


def affected_rows(coverage: LoopCoverage, mapped: Sequence[MappedHunk]) -> dict[str, JSON]:
    """The spec rows whose scenarios execute the changed lines, ranked by how specifically they do (see
    `harness.power.specificity`), with the scenarios and lines behind each."""
    hunks: list[JSON] = []
    changed: list[tuple[str, Sequence[int]]] = []
    for hunk in mapped:
        reaches = [line_reach(coverage, hunk.module, line) for line in hunk.lines]
        contexts = {c for r in reaches for c in r.contexts}
        by_line = coverage.module(hunk.module).contexts_by_line
        unreached = [line for line in hunk.lines if line not in by_line]
        # Lines run only at import (a `def`, a module constant) change what every run imports: no row more than
        # another; the hunk's other lines still name rows.
        at_import = [line for line, r in zip(hunk.lines, reaches, strict=True) if line in by_line and not r.contexts]
        changed.append((hunk.module, hunk.lines))
        hunks.append({"path": hunk.hunk.path, "header": hunk.hunk.header, "module": hunk.module,
                      "installed_lines": list[JSON](hunk.lines), "side": hunk.side,
                      "matched": round(hunk.matched, 2), "unreached_lines": list[JSON](unreached),
                      "import_only_lines": list[JSON](at_import),
                      "runs": len(contexts), "total_runs": len(coverage.runs),
                      "scenarios": list[JSON](sorted({coverage.runs[c].scenario for c in contexts}))})
    rows: list[JSON] = [{"row": r.row, "broad": r.broad, "lift": round(r.lift, 2), "module": r.line.module,
                         "line": r.line.line, "line_runs": len(r.line.contexts), "total_runs": r.line.total_runs,
                         "row_runs": r.row_runs, "row_runs_executing": r.row_runs_executing,
                         "scenarios": list[JSON](r.scenarios)} for r in rank_rows(coverage, changed)]
    return {"rows": rows, "hunks": hunks}


def affected_rows_command(implementation: str, diff: str, repo: Path | None, *, coverage_file: Path | None = None,
                          scenarios: tuple[Path, ...] = (BUNDLED_SCENARIOS,), json_out: Path | None = None,
                          stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    out, err = stdout or sys.stdout, stderr or sys.stderr
    try:
        text = read_diff(diff, repo)
        if coverage_file is not None:
            coverage = load_coverage_report(coverage_file, implementation)
        else:
            coverage, _ = _measure(Selection(implementation, scenarios), err)
    except HarnessError as error:
        print(f"error: {error}", file=err)
        return 2
    sources = {m.name: Path(m.path).read_text(encoding="utf-8") for m in coverage.modules}
    hunks = parse_diff(text)
    mapped = map_hunks(hunks, sources)
    answer = affected_rows(coverage, mapped)
    answer["implementation"], answer["diff"] = implementation, diff
    print(render_affected(answer, len(hunks)), end="", file=out)
    if json_out is not None:
        json_out.write_text(json.dumps(answer, indent=1) + "\n", encoding="utf-8")
    return 0


def render_affected(answer: dict[str, JSON], total_hunks: int) -> str:
    rows = cast(list[dict[str, JSON]], answer["rows"])
    hunks = cast(list[dict[str, JSON]], answer["hunks"])
    lines = [f"## Spec rows affected by {answer['diff']} ({answer['implementation']})", ""]
    lines.append(f"{len(hunks)} of {total_hunks} hunks touch the loop modules.")
    lines.append("")
    specific = [r for r in rows if not r["broad"]]
    broad = [r for r in rows if r["broad"]]
    if specific:
        lines += ["Rows ranked by specificity. Lift = the share of the row's runs executing a changed line / the "
                  "share of all runs doing so (1: no more than any run), on the changed line where it is highest; "
                  f"rows with a lift of at least {SPECIFIC_LIFT:g} on a line at most {BROAD_REACH:.0%} of all runs "
                  "execute are listed here.", "",
                  "| rank | spec row | lift | changed line | runs executing it | row's runs executing it | "
                  "its scenarios executing changed lines |", "|---|---|---|---|---|---|---|"]
        for rank, row in enumerate(specific, start=1):
            scenarios = cast(list[str], row["scenarios"])
            shown = ", ".join(scenarios[:4]) + (f" and {len(scenarios) - 4} more" if len(scenarios) > 4 else "")
            lines.append(f"| {rank} | {row['row']} | {row['lift']} | {row['module']}:{row['line']} | "
                         f"{row['line_runs']}/{row['total_runs']} | {row['row_runs_executing']}/{row['row_runs']} | "
                         f"{shown} |")
    if broad:
        lines += ["", f"Broad: {len(broad)} rows reach the changed lines only as runs at large do (lift below "
                  f"{SPECIFIC_LIFT:g}, or lines more than {BROAD_REACH:.0%} of all runs execute: shared code, "
                  "nothing row-specific): " + "; ".join(str(r["row"]) for r in broad) + "."]
    if not rows:
        lines.append("No scenario executes the changed lines: no row would notice this change.")
    lines += ["", "| hunk | module | installed lines | side | matched | unreached | run at import only | "
              "runs executing it |", "|---|---|---|---|---|---|---|---|"]
    for hunk in hunks:
        installed = line_ranges(cast(list[int], hunk["installed_lines"]))
        unreached = line_ranges(cast(list[int], hunk["unreached_lines"]))
        at_import = line_ranges(cast(list[int], hunk["import_only_lines"]))
        lines.append(f"| `{hunk['header']}` | {hunk['module']} | {installed} | {hunk['side']} | {hunk['matched']} | "
                     f"{unreached} | {at_import} | {hunk['runs']}/{hunk['total_runs']} |")
    return "\n".join(lines) + "\n"

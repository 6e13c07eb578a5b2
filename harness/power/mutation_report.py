"""The mutation report: overall score, score per spec row, and every surviving mutant with its diff and rows."""

from __future__ import annotations

import json
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from harness.contents import JSON
from harness.power.document import Code, Heading, Paragraph, Part, Table, to_html, to_markdown
from harness.power.mutation import KILLED, MutantResult, MutationRun

MODULE_LEVEL = "(module-level code: every row)"


@dataclass(frozen=True)
class Score:
    killed: int
    scored: int  # killed + survived + no-coverage: incompetent and equivalent mutants are not scored

    @property
    def percent(self) -> float | None:
        return None if self.scored == 0 else 100.0 * self.killed / self.scored

    def text(self) -> str:
        percent = self.percent
        return "n/a" if percent is None else f"{percent:.1f}% ({self.killed}/{self.scored})"


def score(results: list[MutantResult]) -> Score:
    scored = [r for r in results if r.status not in ("incompetent", "equivalent")]
    return Score(sum(r.status in KILLED for r in scored), len(scored))


def _row_results(run: MutationRun) -> dict[str, list[MutantResult]]:
    """Row -> the mutants sitting in code its scenarios execute (a mutant may sit in several rows' code)."""
    by_row: dict[str, list[MutantResult]] = defaultdict(list)
    for result in run.results:
        if result.module_level:
            by_row[MODULE_LEVEL].append(result)
            continue
        for row in result.rows:
            by_row[row].append(result)
    return by_row


def _specific_results(run: MutationRun) -> dict[str, list[MutantResult]]:
    """Row -> the mutants in the row's own code: lines its runs execute at least twice as often as runs at large,
    leaving out shared plumbing nearly every run executes (see `harness.power.specificity`)."""
    by_row: dict[str, list[MutantResult]] = defaultdict(list)
    for result in run.results:
        for row in result.specific_rows:
            by_row[row].append(result)
    return by_row


MIN_WEAKEST = 3  # a row needs this many mutants in its own code before its score ranks it among the weakest


def weakest_rows(run: MutationRun, count: int = 10) -> list[tuple[str, Score, int]]:
    """The rows with the lowest score over the mutants in their own code (row, score, survivors)."""
    scored = [(row, score(results), sum(r.status in ("survived", "no-coverage") for r in results))
              for row, results in _specific_results(run).items()]
    ranked = [(row, found, left) for row, found, left in scored
              if found.scored >= MIN_WEAKEST and found.percent is not None]
    ranked.sort(key=lambda item: (item[1].percent or 0.0, -item[2], item[0]))
    return ranked[:count]


def _parts(run: MutationRun, command: str) -> list[Part]:
    statuses = Counter(r.status for r in run.results)
    overall = score(run.results)
    covered = score([r for r in run.results if r.status != "no-coverage"])
    ran = [r for r in run.results if r.status in ("killed", "survived", "timeout", "crashed", "incompetent")]
    mean = sum(len(r.contexts) for r in ran) / len(ran) if ran else 0.0
    made = [r for r in ran if r.status in ("killed", "survived")]
    mean_made = sum(r.ran for r in made) / len(made) if made else 0.0
    stopping = ("every selected run was made (--all-kills)" if run.all_kills else
                "a mutant's runs stop at the first that kills it, cheapest first")
    sample = (f" A seeded sample of {len(run.results)} of the {run.total_mutants} mutants: the figures describe the "
              "sample only." if run.sampled else "")
    parts: list[Part] = [
        Paragraph(f"Implementation `{run.implementation}` {run.version}. Engine: cosmic-ray, operators: "
                  f"{', '.join(o.removeprefix('core/') for o in run.operators)}. {run.total_mutants} mutants of the "
                  f"loop modules.{sample} Each mutant ran only the scenario × mode runs (neutral provider) that "
                  f"execute its lines: {mean:.1f} selected on average, {mean_made:.1f} made ({stopping}). "
                  f"{run.seconds:.0f}s on {run.parallel} process(es). "
                  f"Regenerate with `{command}`."),
        Heading("Score"),
        Table(("measure", "value"), (
            ("mutation score (killed / scored)", overall.text()),
            ("score over mutants a scenario reaches", covered.text()),
            *((status, str(statuses[status])) for status in
              ("killed", "timeout", "crashed", "survived", "no-coverage", "incompetent", "equivalent")),
        )),
        Paragraph("killed: a scenario failed a check the unmutated loop passes; timeout: killed by timeout (the "
                  "child did not finish in time); crashed: killed by crash (the child died); no-coverage: no "
                  "scenario executes the line, so it survives unrun; incompetent (the mutant does not import) and "
                  "reviewed equivalents are not scored."),
        Heading("Score per spec row"),
        Paragraph("A row's own code is the lines its runs execute at least twice as often as all runs do (lines "
                  "more than half of all runs execute are shared plumbing and belong to no row); its score counts "
                  "the mutants there. The last two columns count every mutant on a line any of its runs executes, "
                  "which for shared code is nearly every mutant. 'Killed by its own scenarios' counts kills by the "
                  "row's own scenarios" + ("." if run.all_kills else
                  " among the recorded kills (only the first killing run is made, so this undercounts; "
                  "--all-kills records every one).")),
    ]
    specific = _specific_results(run)
    table: list[tuple[str, ...]] = []
    for row, results in sorted(_row_results(run).items()):
        own_code = specific.get(row, [])
        own = sum(1 for r in own_code if any(row in run.rows_by_context.get(k.context, ()) for k in r.kills))
        table.append((row, str(len(own_code)), score(own_code).text(),
                      str(sum(r.status == "survived" for r in own_code)), str(own), str(len(results)),
                      score(results).text()))
    parts.append(Table(("spec row", "mutants in its own code", "score", "survived", "killed by its own scenarios",
                        "mutants on any line its runs execute", "score"), tuple(table)))
    weakest = weakest_rows(run)
    parts.append(Heading("Weakest rows"))
    parts.append(Paragraph(f"The lowest scores over the mutants in a row's own code (rows with at least {MIN_WEAKEST} "
                           "such mutants): where a new scenario would add the most."))
    parts.append(Table(("spec row", "score", "surviving or unreached"), tuple(
        (row, found.text(), str(left)) for row, found, left in weakest)))
    parts.append(Heading("Surviving mutants"))
    survivors = [r for r in run.results if r.status == "survived"]
    if not survivors:
        parts.append(Paragraph("None."))
    for result in survivors:
        where = f"{result.mutant.module} line {result.mutant.start_line}"
        if result.mutant.function:
            where += f" in {result.mutant.function}"
        own = "; ".join(result.specific_rows) or "none (shared code)"
        parts.append(Heading(f"{result.mutant.id} ({where})", 3))
        parts.append(Paragraph(f"Ran {len(result.contexts)} scenario × mode runs of {len(result.rows)} rows. "
                               f"The rows whose own code it sits in: {own}."))
        parts.append(Code(result.diff, "diff"))
    unrun = [r for r in run.results if r.status == "no-coverage"]
    parts.append(Heading("Mutants no scenario reaches"))
    parts.append(Table(("mutant", "line", "function"), tuple(
        (r.mutant.id, str(r.mutant.start_line), r.mutant.function or "") for r in unrun)))
    parts.append(Heading("Reviewed equivalents"))
    parts.append(Table(("mutant", "line", "reason"), tuple(
        (r.mutant.id, str(r.mutant.start_line), r.detail) for r in run.results if r.status == "equivalent")))
    if run.stale_equivalents:
        parts.append(Paragraph("Stale entries (their line no longer matches, so the mutant was scored): " + ", ".join(
            f"{e.mutant} (line {e.line})" for e in run.stale_equivalents)))
    return parts


def _json(run: MutationRun) -> dict[str, JSON]:
    specific = _specific_results(run)
    per_row: dict[str, JSON] = {
        row: {"mutants": len(results), "killed": score(results).killed, "scored": score(results).scored,
              "own_code": {"mutants": len(specific.get(row, [])), "killed": score(specific.get(row, [])).killed,
                           "scored": score(specific.get(row, [])).scored}}
        for row, results in sorted(_row_results(run).items())}
    # Shared code is executed by nearly every row's runs, so each mutant's rows are given as indices into
    # `row_names`: spelled out they made the report megabytes long.
    names = sorted({row for r in run.results for row in r.rows})
    index = {row: number for number, row in enumerate(names)}
    return {
        "implementation": run.implementation, "version": run.version, "operators": list[JSON](run.operators),
        "total_mutants": run.total_mutants, "sampled": run.sampled, "seconds": round(run.seconds, 1),
        "parallel": run.parallel, "all_kills": run.all_kills,
        "score": {"killed": score(run.results).killed, "scored": score(run.results).scored},
        "rows": per_row, "row_names": list[JSON](names),
        "mutants": [{"id": r.mutant.id, "module": r.mutant.module, "operator": r.mutant.operator,
                     "line": r.mutant.start_line, "function": r.mutant.function, "status": r.status,
                     "detail": portable_text(r.detail), "rows": list[JSON](index[row] for row in r.rows),
                     "own_code_rows": list[JSON](r.specific_rows), "scenario_runs": len(r.contexts),
                     "runs_made": r.ran,
                     "kills": [{"run": k.context, "checks": list[JSON](k.checks)} for k in r.kills],
                     "diff": r.diff} for r in run.results],
        "stale_equivalents": [e.mutant for e in run.stale_equivalents],
    }


def portable_text(text: str) -> str:
    """`text` (a mutant's error, which names the files it came from) with this machine's folders named for what
    they are: the temporary folder a mutant was written to, the Python installation, the checkout."""
    text = re.sub(r"/(?:[\w.-]+/)*loop-mutant-[\w]+/", "<mutant folder>/", text)
    for folder, name in ((sys.base_prefix, "<python>"), (sys.prefix, "<environment>"), (str(Path.cwd()), ".")):
        text = text.replace(folder.rstrip("/") + "/", name + "/")
    return text


def write_mutation_report(run: MutationRun, out_dir: Path, command: str) -> list[Path]:
    """mutation-<impl>.md, .html and .json under `out_dir`."""
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = out_dir / f"mutation-{run.implementation}"
    title = f"Mutation score: {run.implementation}"
    parts = _parts(run, command)
    paths = [stem.with_suffix(".md"), stem.with_suffix(".html"), stem.with_suffix(".json")]
    paths[0].write_text(f"# {title}\n\n" + to_markdown(parts), encoding="utf-8")
    paths[1].write_text(to_html(title, parts), encoding="utf-8")
    paths[2].write_text(json.dumps(_json(run), separators=(",", ":")) + "\n", encoding="utf-8")
    return paths

"""loop-conformance mutate, coverage and affected-rows: the engine, the copy, the child limits and a small run."""

from __future__ import annotations

import difflib
import json
import time
from pathlib import Path

import pytest

from harness.power.commands import Selection, affected_rows, mutate_command, render_affected
from harness.power.coverage_report import write_coverage_report
from harness.power.diffmap import map_hunks, parse_diff
from harness.power.engine import ParsedModule, list_mutants, mutant_diff, reparsed_source
from harness.power.forked import ForkJob, run_forked
from harness.power.line_coverage import (
    ContextRun,
    LoopCoverage,
    ModuleLines,
    context_key,
    coverage_from_json,
    source_hash,
)
from harness.power.specificity import rank_rows, specific_lines

ROOT = Path(__file__).resolve().parent.parent
LOOP = ROOT / "harness/adapters/reference/loop.py"


def test_every_mutant_changes_the_line_it_names_and_matches_cosmic_rays_own_mutation() -> None:
    source = LOOP.read_text(encoding="utf-8")
    parsed = ParsedModule("harness.adapters.reference.loop", source)
    mutants = parsed.mutants
    assert len(mutants) > 100
    assert mutants == list_mutants("harness.adapters.reference.loop", source)
    original = source.splitlines()
    # Every operator's first and last mutant, and every 41st: the one-parse splice must give exactly the text
    # cosmic-ray gives by parsing the module afresh.
    firsts = {m.operator: m for m in reversed(mutants)}
    lasts = {m.operator: m for m in mutants}
    for mutant in {*mutants[::41], *firsts.values(), *lasts.values()}:
        mutated = parsed.mutated(mutant)
        assert mutated is not None
        assert mutated != source
        assert mutated == reparsed_source(mutant, source), mutant
        whole = "".join(difflib.unified_diff(source.splitlines(keepends=True), mutated.splitlines(keepends=True),
                                             "a/harness/adapters/reference/loop.py",
                                             "b/harness/adapters/reference/loop.py", n=1))
        assert mutant_diff(mutant, source, mutated) == whole, mutant
        # Lines of the original the mutation replaced (a skipped loop may fold a multi-line iterable into one line).
        opcodes = difflib.SequenceMatcher(None, original, mutated.splitlines(), autojunk=False).get_opcodes()
        changed = {i + 1 for tag, i1, i2, _, _ in opcodes if tag != "equal" for i in range(i1, i2)}
        assert changed, mutant
        assert changed <= set(mutant.lines), mutant
    # Making mutants never edits the shared tree: the first mutant comes out the same after all the others.
    first = parsed.mutated(mutants[0])
    for mutant in mutants:
        parsed.mutated(mutant)
    assert parsed.mutated(mutants[0]) == first


def _spin() -> None:
    while True:  # a mutant that never awaits: only killing the child stops it
        pass


def test_a_child_that_never_finishes_is_timed_out_and_one_that_dies_is_a_crash() -> None:
    jobs = [ForkJob("spins", lambda: _spin(), 1.0), ForkJob("fine", lambda: {"ok": True}, 30.0),
            ForkJob("exits", lambda: __import__("os")._exit(3), 30.0)]
    outcomes = {o.key: o for o in run_forked(jobs, parallel=2)}
    assert outcomes["spins"].status == "timeout"
    assert outcomes["fine"].status == "done"
    assert outcomes["fine"].value == {"ok": True}
    assert outcomes["exits"].status == "crashed"
    assert "status 3" in outcomes["exits"].detail


def test_affected_lines_are_found_by_content_whatever_the_line_numbers() -> None:
    source = LOOP.read_text(encoding="utf-8").splitlines(keepends=True)
    target = next(i for i, line in enumerate(source) if "def _layered" in line)
    changed = source.copy()
    changed[target + 1] = changed[target + 1].rstrip("\n") + "  # changed\n"
    patch = "".join(difflib.unified_diff(source, changed, "a/src/harness/adapters/reference/loop.py",
                                         "b/src/harness/adapters/reference/loop.py"))
    # The same change against a file that has since grown by ten lines above it.
    shifted = patch.replace(f"@@ -{target - 1}", f"@@ -{target + 9}")
    for text in (patch, shifted):
        mapped = map_hunks(parse_diff(text), {"harness.adapters.reference.loop": "".join(source)})
        assert [m.lines for m in mapped] == [(target + 2,)]


def test_mutate_runs_a_sample_in_copies_and_reports_each_mutant(tmp_path: Path) -> None:
    before = {path: source_hash(path) for path in LOOP.parent.glob("*.py")}
    selection = Selection("reference", (ROOT / "scenarios/normal/calls-across-messages.yaml",
                                        ROOT / "scenarios/errors"))
    started = time.monotonic()
    code = mutate_command(selection, tmp_path, limit=3, seed=3, jobs=2, equivalents=None)
    assert code == 0
    assert time.monotonic() - started < 600
    report = json.loads((tmp_path / "mutation-reference.json").read_text(encoding="utf-8"))
    assert report["sampled"]
    assert len(report["mutants"]) == 3
    assert {m["status"] for m in report["mutants"]} <= {"killed", "timeout", "crashed", "survived", "no-coverage"}
    for mutant in report["mutants"]:
        assert mutant["diff"].startswith("--- a/harness/adapters/reference/")
        assert mutant["runs_made"] <= mutant["scenario_runs"]
        if mutant["status"] == "killed":
            # Runs stop at the first kill: exactly one killing run is recorded, and it is the last run made.
            assert len(mutant["kills"]) == 1
            assert all(k["checks"] for k in mutant["kills"])
            assert mutant["runs_made"] >= 1
        if mutant["status"] == "survived":
            assert mutant["runs_made"] == mutant["scenario_runs"]
    assert report["score"]["scored"] == 3
    assert "## Score per spec row" in (tmp_path / "mutation-reference.md").read_text(encoding="utf-8")
    assert (tmp_path / "mutation-reference.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    # The mutants were made in copies: the repository's loop files are unchanged.
    assert before == {path: source_hash(path) for path in LOOP.parent.glob("*.py")}


@pytest.mark.parametrize("operator_occurrence", ["core/AddNot"])
def test_a_mutant_that_breaks_the_loop_is_killed_and_the_unmutated_loop_is_not(
        operator_occurrence: str, tmp_path: Path) -> None:
    from harness.power.line_coverage import measure
    from harness.power.mutation import run_mutation
    from harness.power.probe import probe
    from harness.run.suite import load_all

    found = probe("reference")
    scenarios, errors = load_all([ROOT / "scenarios/normal/calls-across-messages.yaml"])
    assert not errors
    coverage = measure(found, scenarios, ("non-streaming",))
    # The correct loop passes every selected run: no baseline failure can hide a kill.
    assert coverage.runs
    assert all(not r.failing for r in coverage.runs.values())
    run = run_mutation(found, coverage, scenarios, operators=(operator_occurrence,), parallel=2)
    reached = [r for r in run.results if r.status != "no-coverage"]
    killed = [r for r in reached if r.status == "killed"]
    # Negating the check that decides whether a call is approved (or any condition every call passes through)
    # must be caught; at least one negated condition on the executed path is.
    assert killed, [r.mutant.id for r in reached]
    assert all(k.checks for r in killed for k in r.kills)


def _coverage(lines: dict[int, tuple[str, ...]]) -> LoopCoverage:
    """Ten runs: scenario `a` names row A, `b` names B, the eight `other-N` name C; `lines` says which runs execute
    each line of one module ("" is import time)."""
    runs = {context_key(s, "non-streaming"): ContextRun(s, "non-streaming", (row,), "pass", (), 0.1)
            for s, row in [("a", "A"), ("b", "B"), *((f"other-{n}", "C") for n in range(8))]}
    module = ModuleLines("loop", "loop.py", "", tuple(lines), {line: tuple(c) for line, c in lines.items()})
    return LoopCoverage("toy", "1", (module,), runs)


def _all_runs() -> tuple[str, ...]:
    return ("a|non-streaming", "b|non-streaming", *(f"other-{n}|non-streaming" for n in range(8)))


def test_rows_are_ranked_by_how_specifically_their_runs_execute_the_changed_lines() -> None:
    shared = _all_runs()  # plumbing every run executes
    coverage = _coverage({1: ("",), 10: shared, 20: ("a|non-streaming",), 30: ("a|non-streaming", "b|non-streaming")})
    # Only the shared line changed: every row reaches it, none specifically.
    ranked = rank_rows(coverage, [("loop", (10,))])
    assert {r.row for r in ranked} == {"A", "B", "C"}
    assert all(r.broad for r in ranked)
    # A's own line and a line A and B share: A first (lift 10 on line 20), then B (lift 5 on line 30), C not named.
    ranked = rank_rows(coverage, [("loop", (10, 20, 30))])
    assert [(r.row, r.broad) for r in ranked] == [("A", False), ("B", False), ("C", True)]
    assert (ranked[0].line.line, round(ranked[0].lift, 6)) == (20, 10.0)
    assert (ranked[1].line.line, round(ranked[1].lift, 6)) == (30, 5.0)
    # A line run only at import names no row.
    assert rank_rows(coverage, [("loop", (1,))]) == []


def test_the_affected_rows_answer_lists_specific_rows_ranked_and_broad_ones_apart() -> None:
    source = "".join(f"line_{n} = {n}\n" for n in range(1, 41))
    coverage = _coverage({10: _all_runs(), 20: ("a|non-streaming",)})
    patch = "".join(difflib.unified_diff(source.splitlines(keepends=True),
                                         source.replace("line_20 = 20", "line_20 = 21").replace(
                                             "line_10 = 10", "line_10 = 11").splitlines(keepends=True),
                                         "a/loop.py", "b/loop.py"))
    answer = affected_rows(coverage, map_hunks(parse_diff(patch), {"loop": source}))
    answer["implementation"], answer["diff"] = "toy", "fix.patch"
    rows = answer["rows"]
    assert isinstance(rows, list)
    assert [(r["row"], r["broad"]) for r in rows if isinstance(r, dict)] == [("A", False), ("B", True), ("C", True)]
    text = render_affected(answer, 1)
    ranked, _, broad = text.partition("Broad:")
    assert "| 1 | A |" in ranked
    assert "| B |" not in ranked
    assert "| C |" not in ranked
    assert "B; C." in broad


def test_the_coverage_report_shows_each_rows_own_lines_not_the_shared_ones(tmp_path: Path) -> None:
    coverage = _coverage({10: _all_runs(), 20: ("a|non-streaming",), 30: ("a|non-streaming", "b|non-streaming")})
    assert specific_lines(coverage) == {"A": {"loop": [20, 30]}, "B": {"loop": [30]}}
    paths = write_coverage_report(coverage, tmp_path, "loop-conformance coverage --impl toy")
    document = json.loads(paths[2].read_text(encoding="utf-8"))
    assert document["rows"]["C"] == {"loop": [10]}
    assert document["row_specific"] == {"A": {"loop": [20, 30]}, "B": {"loop": [30]}}
    # The report holds everything to rebuild the coverage (affected-rows --coverage reuses it).
    rebuilt = coverage_from_json(document["implementation"], document["raw"])
    assert rebuilt.modules == coverage.modules
    assert rebuilt.runs == coverage.runs
    markdown = paths[0].read_text(encoding="utf-8")
    assert "| A | 1 | 3 | 2 | loop: 20, 30 |" in markdown
    assert "| C | 8 | 1 | 0 | none (only shared lines) |" in markdown

"""loop-conformance mutate, coverage and affected-rows: the engine, the copy, the child limits and a small run."""

from __future__ import annotations

import difflib
import json
import time
from pathlib import Path

import pytest

from harness.power.commands import Selection, mutate_command
from harness.power.diffmap import map_hunks, parse_diff
from harness.power.engine import ParsedModule, list_mutants, reparsed_source
from harness.power.forked import ForkJob, run_forked
from harness.power.line_coverage import source_hash

ROOT = Path(__file__).resolve().parent.parent
LOOP = ROOT / "harness/adapters/reference/loop.py"


def test_every_mutant_changes_the_line_it_names_and_matches_cosmic_rays_own_mutation() -> None:
    source = LOOP.read_text(encoding="utf-8")
    parsed = ParsedModule("harness.adapters.reference.loop", source)
    mutants = parsed.mutants
    assert len(mutants) > 100
    assert mutants == list_mutants("harness.adapters.reference.loop", source)
    original = source.splitlines()
    # Every operator's first and last mutant, and every 17th: the one-parse splice must give exactly the text
    # cosmic-ray gives by parsing the module afresh.
    firsts = {m.operator: m for m in reversed(mutants)}
    lasts = {m.operator: m for m in mutants}
    for mutant in {*mutants[::17], *firsts.values(), *lasts.values()}:
        mutated = parsed.mutated(mutant)
        assert mutated is not None
        assert mutated != source
        assert mutated == reparsed_source(mutant, source), mutant
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
        if mutant["status"] == "killed":
            assert mutant["kills"]
            assert all(k["checks"] for k in mutant["kills"])
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

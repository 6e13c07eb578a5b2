"""What a run prints: the listing of failing runs, locations, annotations, colour, progress and the n/a footer."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from harness.cli import main
from harness.reporting.colour import echo, styled
from harness.reporting.locations import Location, check_location
from harness.reporting.not_applicable import missing_capabilities, render_footer, render_reasons
from harness.reporting.progress import RunProgress
from harness.reporting.run_listing import MAX_ANNOTATIONS, github_annotations, listed_runs, render_listing
from harness.results import CheckResult, ScenarioResult

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "normal" / "single-call.yaml"
TOY_LOOP = ROOT / "examples" / "toy_loop"


def _result(verdict: str = "fail", mode: str = "streaming", *, message: str = "2 model calls, expected 3",
            scenario: str = "normal.single-call", reason: str = "", provider: str = "neutral",
            implementation: str = "reference", checks: tuple[CheckResult, ...] | None = None) -> ScenarioResult:
    if checks is None:
        checks = (CheckResult("exactly-once", "pass"), CheckResult("expect.model-calls", "fail", message, 1))
    return ScenarioResult(scenario, "t", (), "normal", implementation, "0.1.0", mode, verdict,  # type: ignore[arg-type]
                          checks=checks, path=str(SCENARIO), line=1, reason=reason, turn_lines=(15,),
                          provider=provider)


def _broken_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "normal"
    folder.mkdir()
    (folder / "single-call.yaml").write_text(SCENARIO.read_text().replace("model_calls: 2", "model_calls: 3"))
    return tmp_path


def test_a_failure_points_at_the_failing_expectation_key() -> None:
    result = _result()
    here = "scenarios/normal/single-call.yaml"
    assert check_location(result, result.checks[1]) == Location(here, 36, 7)  # `model_calls:` under turn 1's expect
    assert check_location(result, CheckResult("exactly-once", "fail", "", 1)) == Location(here, 15, 5)  # the turn
    assert check_location(result, CheckResult("completes", "error", "")) == Location(here, 1, 1)  # the file
    moved = ScenarioResult("x.y", "t", (), "x", "reference", "0", "streaming", "fail", path="gone/x.yaml", line=1,
                           turn_lines=(9,))
    assert check_location(moved, CheckResult("expect.response", "fail", "", 1)) == Location("gone/x.yaml", 9, 1)


def test_one_line_per_failing_run_with_identical_modes_merged() -> None:
    results = [_result(mode="non-streaming"), _result(mode="streaming"), _result(mode="streaming", provider="gemini"),
               _result(mode="streaming", message="other", scenario="normal.b"), _result("pass"),
               _result("xfail"), _result("n/a", checks=())]
    lines = [run.render() for run in listed_runs(results)]
    where = "(scenarios/normal/single-call.yaml:36:7)"
    assert lines == [
        f"FAIL normal.single-call [reference, non-streaming + streaming] expect.model-calls: 2 model calls, "
        f"expected 3 {where}",
        f"FAIL normal.single-call [reference, streaming, gemini] expect.model-calls: 2 model calls, expected 3 {where}",
        f"FAIL normal.b [reference, streaming] expect.model-calls: other {where}",
    ]


def test_differing_runs_get_their_own_listing_never_fail() -> None:
    checks = (CheckResult("expect.stream-order", "fail", "order differs", 1, profile="tentative"),
              CheckResult("expect.response", "fail", "second", 1))
    lines = render_listing([_result(), _result("differs", checks=checks, reason="tentative reading")])
    assert lines[0] == "1 failing (scenario × implementation × provider, modes merged):"
    assert lines[2].startswith("1 differing: ")
    assert lines[3].startswith("DIFFERS normal.single-call [reference, streaming] expect.stream-order: order "
                               "differs (+1 more check) (")
    assert sum(line.startswith("FAIL") for line in lines) == 1
    assert render_listing([_result("pass")]) == []


def test_listed_messages_are_one_clipped_line_and_errors_name_their_reason() -> None:
    long = _result(message="first line\n" + "x" * 500)
    [run] = listed_runs([long])
    assert run.message == "first line"
    broken = _result("error", checks=(), reason="adapter broken: boom")
    [run] = listed_runs([broken])
    assert run.render().startswith("ERROR normal.single-call [reference, streaming] adapter broken: boom (")


def test_github_annotations_are_escaped_workflow_commands() -> None:
    [line] = github_annotations([_result(message="50% of calls, then\nmore")])
    assert line == ("::error file=scenarios/normal/single-call.yaml,line=36,col=7,title=FAIL normal.single-call "
                    "[reference%2C streaming]::expect.model-calls: 50%25 of calls, then")
    many = [_result(scenario=f"normal.s{n}") for n in range(MAX_ANNOTATIONS + 3)]
    lines = github_annotations(many)
    assert len(lines) == MAX_ANNOTATIONS + 1
    assert lines[-1] == "::warning::3 more errors not annotated: see the job log"
    assert github_annotations([_result("differs")])[0].startswith("::notice file=")


def test_the_run_prints_annotations_only_on_github_actions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    args = ["run", "--impl", "reference", "--scenarios", str(_broken_copy(tmp_path)), "--no-reports", "-q",
            "--mode", "streaming"]
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    assert main(args) == 1
    assert "::error" not in capsys.readouterr().out
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert main(args) == 1
    out = capsys.readouterr().out
    assert f"::error file={tmp_path / 'normal' / 'single-call.yaml'},line=36,col=7," in out.replace("%3A", ":")
    assert "\x1b[" not in out  # captured output is no terminal: no colour codes


def test_colour_only_on_a_terminal() -> None:
    lines = ["FAIL normal.x [reference, streaming]", "      -expected", "      +actual", "section   pass"]
    plain, coloured = io.StringIO(), io.StringIO()
    echo(Console(file=plain, force_terminal=False), lines)
    echo(Console(file=coloured, force_terminal=True, color_system="standard"), lines)
    assert plain.getvalue() == "\n".join(lines) + "\n"
    assert "\x1b[1;31mFAIL\x1b[0m" in coloured.getvalue()
    assert "\x1b[32m      +actual\x1b[0m" in coloured.getvalue()
    assert styled("      +++ actual").spans == []  # the diff's header is not an added line
    assert [span.style for span in styled("DIFFERS a [b]").spans] == ["bold yellow"]


def test_the_bar_is_green_while_every_run_passes_and_shows_the_time_left() -> None:
    screen = io.StringIO()
    progress = RunProgress(Console(file=screen, force_terminal=True, width=120))
    progress.start(4)
    progress.advance(_result("pass"))
    progress.advance(_result("n/a"))
    assert progress.bar_style == "green"
    progress.advance(_result("fail"))
    assert progress.bar_style == "red"
    progress.finish()
    assert "eta" in screen.getvalue()


def test_plain_progress_names_the_time_left_once_an_estimate_means_something() -> None:
    now = [0.0]
    log = io.StringIO()
    progress = RunProgress(Console(file=log, force_terminal=False), clock=lambda: now[0])
    progress.start(4)
    progress.advance(_result("pass"))  # after 0 s: no estimate yet
    now[0] = 60.0
    progress.advance(_result("pass"))  # 2 runs in 60 s, 2 left: about a minute
    now[0] = 200.0
    progress.advance(_result("pass"))
    progress.advance(_result("pass"))
    assert log.getvalue().splitlines() == [
        "progress: 1/4 (25%) runs finished: 1 pass",
        "progress: 2/4 (50%) runs finished: 2 pass, about 1m 00s left",
        "progress: 3/4 (75%) runs finished: 3 pass, about 1m 07s left",
        "progress: 4/4 (100%) runs finished: 4 pass",
    ]


def test_the_n_a_footer_counts_what_each_missing_capability_unlocks() -> None:
    def lacking(*names: str) -> ScenarioResult:
        return _result("n/a", checks=(), implementation="toy", reason=f"toy lacks capability: {', '.join(names)}")

    results = [lacking("approval"), lacking("approval"), lacking("approval", "sessions"), lacking("sessions"),
               _result("n/a", checks=(), reason="scenario runs only in streaming mode: why"), _result("pass")]
    assert missing_capabilities(results[2]) == ("approval", "sessions")
    assert render_footer(results) == [
        "n/a: 5 of 6 runs.",
        "  capabilities that would unlock them (implementation: capability → runs it alone unlocks):",
        "    toy: approval → 2 (+1 needing other capabilities too)",
        "    toy: sessions → 1 (+1 needing other capabilities too)",
        "  1 n/a for other reasons (a mode or provider the scenario or implementation does not have, a step not "
        "observable from outside; -v lists them)",
    ]
    assert render_footer([_result("pass")]) == []


def test_verbose_lists_every_n_a_reason_and_the_footer_follows_the_summary(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.syspath_prepend(str(TOY_LOOP))  # the toy loop example lacks approvals, among others
    scenarios = ROOT / "scenarios" / "approval" / "approved-resume.yaml"
    assert main(["run", "--impl", "toy_loop.conformance:adapter", "--scenarios", str(scenarios), "--no-reports",
                 "-v"]) == 0
    out = capsys.readouterr().out
    assert ("n/a runs and why:\nN/A approval.approved-resume.caller-history [toy_loop, non-streaming + streaming] "
            "toy_loop lacks capability: ") in out
    assert "n/a: 2 of 2 runs.\n" in out
    assert "    toy_loop: approval → 2" in out
    reasons = render_reasons([_result("n/a", checks=(), reason="r", mode=m) for m in ("non-streaming", "streaming")])
    assert reasons == ["N/A normal.single-call [reference, non-streaming + streaming] r"]


def test_a_malformed_file_is_listed_at_its_first_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "normal"
    folder.mkdir()
    (folder / "bad.yaml").write_text("id: normal.x\ntitle: t\nspec: [Streaming call]\nturns: {}\n")
    assert main(["run", "--impl", "reference", "--scenarios", str(tmp_path), "--no-reports", "-q"]) == 1
    last = capsys.readouterr().out.splitlines()[-1]
    assert last == (f"ERROR {folder / 'bad.yaml'} [reference, non-streaming + streaming] scenario-file: "
                    f"error[wrong-type]: turns: Input should be a valid list (got {{}}) ({folder / 'bad.yaml'}:4:8)")

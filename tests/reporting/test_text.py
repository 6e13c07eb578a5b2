"""Console text of a failed run: capped without verbose output, complete with it; request forms shown as a diff."""

from __future__ import annotations

from harness.reporting.text import (
    MAX_DIFF_LINES,
    MAX_LINE_CHARS,
    MAX_LINES,
    MAX_PROBLEMS,
    check_diff,
    render_failure,
)
from harness.results import CheckResult, ScenarioResult

EXPECTED = """\
tool_choice: auto
messages:
  - {role: user, contents: [{text: What is the weather in Rome?}]}
  - {role: assistant, contents: [{function_call: {call_id: c1, name: get_weather, arguments: {city: Paris}}}]}
  - {role: tool, contents: [{function_result: {call_id: c1, result: sunny}}]}"""


def _failed(*checks: CheckResult, log: tuple[str, ...] = ()) -> ScenarioResult:
    return ScenarioResult("normal.single-call", "Title", ("Single non-streaming call",), "normal", "reference",
                          "0.1.0", "streaming", "fail", checks, "scenarios/normal/single-call.yaml", 1, log=log,
                          turn_lines=(15,))


def _runaway(calls: int) -> CheckResult:
    details = tuple(f"turn 1: model call #{n} was not scripted" for n in range(2, calls + 2))
    return CheckResult("script", "fail", details[0], details=details)


def test_a_requests_failure_shows_a_unified_diff_of_the_message_forms() -> None:
    actual = EXPECTED.replace("Rome", "Paris")
    check = CheckResult("expect.requests", "fail", 'call #2.messages[0].contents[0].text: differs', 1, EXPECTED,
                        actual)
    assert check_diff(check)[:3] == ["--- expected", "+++ actual", "@@ -1,5 +1,5 @@"]
    text = render_failure(_failed(check))
    assert "      -  - {role: user, contents: [{text: What is the weather in Rome?}]}\n" \
           "      +  - {role: user, contents: [{text: What is the weather in Paris?}]}" in text
    assert "see scenario" not in text


def test_a_diff_is_folded_and_capped_unless_verbose() -> None:
    expected = "\n".join(f"  - {{role: user, contents: [{{text: message {n}}}]}}" for n in range(200))
    actual = "\n".join(f"  - {{role: user, contents: [{{text: message {n * (n % 2)}}}]}}" for n in range(200))
    check = CheckResult("expect.requests", "fail", "differs", 1, expected, actual)
    capped = render_failure(_failed(check)).splitlines()
    diff_lines = [line for line in capped if line.startswith("      ")]
    assert len(diff_lines) == MAX_DIFF_LINES
    assert diff_lines[-1].startswith("      … and ")
    assert diff_lines[-1].endswith(" more diff line(s) (-vv shows all)")
    full = render_failure(_failed(check), verbose=True)
    assert "         - {role: user, contents: [{text: message 199}]}" in full  # equal lines unfolded, nothing cut
    assert "      -  - {role: user, contents: [{text: message 198}]}" in full
    assert "… and" not in full


def test_a_runaway_loop_lists_its_first_problems_then_how_many_more() -> None:
    text = render_failure(_failed(_runaway(500)), verbose_flag="-v")
    lines = text.splitlines()
    listed = [line for line in lines if line.startswith("      turn 1: model call #")]
    assert len(listed) == MAX_PROBLEMS - 1
    assert f"      … and {500 - MAX_PROBLEMS + 1} more problem(s) (-v shows all)" in lines
    verbose = render_failure(_failed(_runaway(500)), verbose=True)
    assert verbose.count("was not scripted") == 501  # the check's message, then every detail


def test_the_whole_failure_is_capped_in_lines_and_in_line_length() -> None:
    huge = "x" * 100_000
    checks = [CheckResult(f"check-{n}", "fail", huge, details=(huge, huge)) for n in range(200)]
    log = tuple(f"log line {n}" for n in range(1000))
    text = render_failure(_failed(*checks, log=log))
    lines = text.splitlines()
    assert len(lines) == MAX_LINES
    assert lines[-1].startswith("  … and ")
    assert lines[-1].endswith(" more line(s) of this failure (-vv shows all)")
    assert max(len(line) for line in lines) < MAX_LINE_CHARS + 100
    assert len(text) < 100_000
    assert len(render_failure(_failed(*checks, log=log), verbose=True)) > 200 * 300_000


def test_the_implementation_log_is_capped() -> None:
    log = tuple(f"log line {n}" for n in range(50))
    text = render_failure(_failed(CheckResult("completes", "fail", "crashed", 1), log=log))
    assert "    log line 18" in text
    assert "    log line 19" not in text
    assert "    … and 31 more log line(s) (-vv shows all)" in text


def test_single_line_values_show_only_when_verbose() -> None:
    check = CheckResult("expect.model-calls", "fail", "2 model calls, expected 3", 1, "3", "2")
    assert check_diff(check) == []
    assert "expected: 3" not in render_failure(_failed(check))
    verbose = render_failure(_failed(check), verbose=True)
    assert "      expected: 3\n      actual:   2" in verbose
    # the failing expectation's own key in the (bundled) file the result names, not the turn's first line
    assert ("  - scenarios/normal/single-call.yaml:36:7: turn 1, check expect.model-calls: 2 model calls, expected 3"
            in verbose)

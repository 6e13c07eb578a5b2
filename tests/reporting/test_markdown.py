"""The Markdown coverage report: every row of the spec, links to scenarios, gaps, the filtered-run banner."""

from __future__ import annotations

import re

from requirements_helper import SPEC_MISSING, require

from harness.reporting.coverage import build_coverage
from harness.reporting.documents import parse_results_document
from harness.reporting.markdown import markdown_code, markdown_text, render_markdown
from harness.reporting.wording import FILTERED_BANNER
from harness.scenario.spec_rows import SPEC_ROWS, SpecRow, parse_spec_rows

from .helpers import SPEC_FILE, both_modes, check, document, run

FEW_ROWS = document(
    both_modes("normal.single-call", ["Single non-streaming call"]),
    both_modes("normal.streaming-call", ["Streaming call"], impl="agent_framework", version="1.23.0"),
    run("approval.approved-resume", ["Initial approval request", "Approved non-streaming resume"],
        impl="agent_framework", version="1.23.0", verdict="fail",
        checks=[check("completes"), check("inputs-unmutated", "fail", "the caller's input messages changed", turn=2)]),
    run("normal.typo", ["Not a row of the spec"]),
)


def _table_rows(markdown: str) -> list[str]:
    """First cells of the matrix tables' body rows (the Scenarios table at the end is left out)."""
    body = markdown.split("# Gaps")[0]
    rows: list[str] = []
    in_counts = False  # the table of runs per implementation by profile is no matrix table
    for line in body.splitlines():
        in_counts = line.startswith("| Implementation |") or (in_counts and line.startswith("|"))
        if line.startswith("| ") and not line.startswith("| Spec row") and not in_counts:
            rows.append(line.split(" | ")[0].removeprefix("| "))
    return rows


def test_lists_every_row_of_the_spec_when_results_cover_a_few() -> None:
    require(SPEC_FILE.exists(), SPEC_MISSING)
    rows = parse_spec_rows(SPEC_FILE.read_text(encoding="utf-8"))
    assert len(rows) == 84 + 1  # the matrix and the required-gaps table
    markdown = render_markdown(build_coverage(parse_results_document(FEW_ROWS), rows))
    assert _table_rows(markdown) == [row.name.replace("|", "\\|") for row in rows]
    for section in dict.fromkeys(row.section for row in rows):
        assert f"\n## {section}\n" in markdown
    assert "4 of 85 spec rows are covered by at least one scenario; 81 are not." in markdown
    assert "## Rows no scenario covers (81)" in markdown


def test_marks_cells_and_links_scenarios() -> None:
    markdown = render_markdown(build_coverage(parse_results_document(FEW_ROWS), SPEC_ROWS))
    single = next(line for line in markdown.splitlines() if line.startswith("| Single non-streaming call |"))
    # reference non-streaming, reference streaming, agent_framework non-streaming, agent_framework streaming
    assert single.split(" | ")[1:5] == ["✅", "✅", "·", "·"]
    assert "[normal.single-call](#scenario-normal-single-call)" in single
    assert '<a id="scenario-normal-single-call"></a>' in markdown
    initial = next(line for line in markdown.splitlines() if line.startswith("| Initial approval request |"))
    # The run failed only inputs-unmutated, a general invariant that is not this row's requirement: the row's own
    # requirement holds, and the mark says a general invariant tripped.
    assert initial.split(" | ")[1:5] == ["·", "·", "✅⚑", "·"]
    assert ("  - inputs-unmutated (turn 2) [fail, general]: the caller's input messages changed" in markdown)
    assert "| `inputs-unmutated` | general | The function invocation layer normalizes a private copy" in markdown


def test_every_gap_list_is_present_and_names_its_items() -> None:
    rows = (SpecRow("S", "Single non-streaming call"), SpecRow("S", "Streaming call"), SpecRow("S", "Orphan row"))
    doc = document(
        run("normal.single-call", ["Single non-streaming call"], verdict="n/a"),
        run("normal.streaming", ["Streaming call"], verdict="xfail", reason="known failure: documented"),
        run("normal.typo", ["Streaming cal"]),
    )
    markdown = render_markdown(build_coverage(parse_results_document(doc), rows))
    assert "### Rows no scenario covers (1)\n\n_no scenario in these results names the row._\n\n- S › Orphan row" \
        in markdown
    assert "- [normal.typo](#scenario-normal-typo) names “Streaming cal”" in markdown
    assert "### Rows covered only by known failures (1)" in markdown
    assert "- S › Streaming call: reference 0.1.0 non-streaming" in markdown
    assert "- S › Single non-streaming call, reference 0.1.0 non-streaming: normal.single-call" in markdown
    assert "### Scenarios covering no row (0)" in markdown


def test_a_filtered_run_says_so_first_and_never_claims_full_coverage() -> None:
    everything = [run(f"s{i}", [row.name]) for i, row in enumerate(SPEC_ROWS)]
    full = render_markdown(build_coverage(parse_results_document(document(*everything)), SPEC_ROWS))
    total = len(SPEC_ROWS)
    assert f"All {total} spec rows are covered by at least one scenario." in full
    assert FILTERED_BANNER not in full

    filtered = render_markdown(build_coverage(parse_results_document(document(*everything, filtered=True)),
                                              SPEC_ROWS))
    head = filtered.splitlines()[:4]
    assert head[2] == f"> ⚠️ **{FILTERED_BANNER}**"
    assert f"All {total}" not in filtered
    assert re.search(rf"{total} of {total} spec rows are named by a scenario in this filtered selection; "
                     r"coverage of the full suite is not established\.", filtered)


def test_heading_level_nests_the_report_under_a_spec_heading() -> None:
    markdown = render_markdown(build_coverage(parse_results_document(FEW_ROWS), SPEC_ROWS), heading_level=3)
    assert markdown.startswith("### Spec coverage\n")
    assert "\n#### Normal function invocation\n" in markdown


HOSTILE_TITLE = 'Pipes | and `ticks` <img src=x onerror="alert(1)"> *bold* [link](javascript:alert(1))'
HOSTILE_REASON = "<script>alert('reason')</script> a | b ``code`` _x_"


def test_scenario_text_is_escaped_never_rendered_as_html_or_markup() -> None:
    hostile = run("normal.hostile", ["Single non-streaming call"], verdict="fail", reason=HOSTILE_REASON,
                  checks=[check("expect.response", "fail", "expected <b>x</b>, got `y` | z", turn=1)])
    hostile["title"] = HOSTILE_TITLE
    hostile["implementation"] = "impl<i>"
    na = run("normal.hostile-na", ["Streaming call"], verdict="n/a", reason="lacks <iframe src=x> | approval")
    markdown = render_markdown(build_coverage(parse_results_document(document(hostile, na)), SPEC_ROWS))
    for raw in ("<img", "<script", "<iframe", "<b>", "<i>", "*bold*", "[link](", "``code``", "_x_"):
        assert raw not in markdown, raw
    assert ("| Title of normal.hostile-na |" in markdown)
    row = next(line for line in markdown.splitlines() if line.startswith('| <a id="scenario-normal-hostile">'))
    assert _cells(row) == [
        '<a id="scenario-normal-hostile"></a>`normal.hostile`',
        "Pipes \\| and \\`ticks\\` &lt;img src=x onerror=\"alert(1)\"&gt; \\*bold\\* "
        "[link\\](javascript:alert(1))",
        "Single non-streaming call",
        "`scenarios/normal/hostile.yaml:1`",
    ]
    assert "  - reason: &lt;script&gt;alert('reason')&lt;/script&gt; a \\| b \\`\\`code\\`\\` \\_x\\_" in markdown
    assert "  - expect.response (turn 1) [fail, row]: expected &lt;b&gt;x&lt;/b&gt;, got \\`y\\` \\| z" in markdown
    assert "lacks &lt;iframe src=x&gt; \\| approval" in markdown
    assert "impl&lt;i&gt; 0.1.0<br>non-streaming" in markdown  # the column header's own <br> stays


def _cells(row: str) -> list[str]:
    """The cells of a table row as GitHub splits them: at pipes not escaped with a backslash."""
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", row)[1:-1]]


def test_escaping_keeps_ordinary_text_as_it_is() -> None:
    assert markdown_text("agent_framework 1.23.0 non-streaming") == "agent_framework 1.23.0 non-streaming"
    assert markdown_text('call #1.messages[1].contents: expected "a"') == 'call #1.messages[1].contents: expected "a"'
    assert markdown_text("![x](y) [a][b] [c]: d") == "![x\\](y) [a\\][b] [c\\]: d"
    assert markdown_text("a\nb   c") == "a b c"
    assert markdown_code("path/with `tick`|pipe") == "``path/with `tick`\\|pipe``"
    assert markdown_code("`x`") == "`` `x` ``"

"""What the ``report``, ``gate`` and ``diff`` subcommands (and ``run``'s reports) do, minus argument parsing.

Each function takes paths and a stream and returns the exit code, so the command line only has to parse arguments
and call one of them, and tests can call them directly.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TextIO

from harness.errors import HarnessError
from harness.reporting.baseline import BaselineError
from harness.reporting.by_scenario import REPORT_FILE as BY_SCENARIO_FILE
from harness.reporting.by_scenario import render_by_scenario
from harness.reporting.coverage import build_coverage
from harness.reporting.coverage_json import render_json
from harness.reporting.diffing import diff
from harness.reporting.documents import ResultsDocument, ResultsFileError, combine, load_results_document
from harness.reporting.gate import gate, load_gate_baseline
from harness.reporting.html_page import render_html
from harness.reporting.invariant_table import build_invariant_table
from harness.reporting.invariant_table import render_html as invariants_html
from harness.reporting.invariant_table import render_markdown as invariants_markdown
from harness.reporting.junit import render_junit
from harness.reporting.markdown import render_markdown
from harness.scenario.spec_rows import EXTRA_ROWS, SPEC_ROWS, SpecRow, parse_spec_rows

REPORT_FILES = {"markdown": "coverage.md", "html": "coverage.html", "json": "coverage.json", "junit": "junit.xml",
                "invariants-markdown": "invariants.md", "invariants-html": "invariants.html"}


class SpecFileError(HarnessError):
    """A spec file with no scenario-to-test matrix rows."""


def load_rows(spec: Path | None) -> tuple[SpecRow, ...]:
    """The rows of a spec Markdown file, or the built-in catalogue when none is given."""
    if spec is None:
        return SPEC_ROWS
    try:
        rows = parse_spec_rows(spec.read_text(encoding="utf-8"))
    except OSError as error:
        raise SpecFileError(f"{spec}: {error}") from None
    if not rows:
        # An empty row list would make every scenario "unknown" and every report vacuous; stop instead.
        raise SpecFileError(f"{spec}: no rows found under a '## Scenario-to-test matrix' heading")
    # The harness's own extra section follows whichever spec file is read.
    return rows + EXTRA_ROWS


def write_reports(documents: ResultsDocument | Sequence[ResultsDocument], out_dir: Path,
                  rows: Sequence[SpecRow] = SPEC_ROWS) -> dict[str, Path]:
    """Markdown, HTML, JSON and JUnit coverage reports of the results, and the invariant table (Markdown, HTML),
    into `out_dir`; returns format -> path."""
    matrix = build_coverage(documents, rows)
    out_dir.mkdir(parents=True, exist_ok=True)
    parts = [documents] if isinstance(documents, ResultsDocument) else list(documents)
    invariants = build_invariant_table(combine(parts))
    rendered = {"markdown": render_markdown(matrix), "html": render_html(matrix), "json": render_json(matrix),
                "junit": render_junit(matrix), "invariants-markdown": invariants_markdown(invariants),
                "invariants-html": invariants_html(invariants)}
    written: dict[str, Path] = {}
    for key, text in rendered.items():
        path = out_dir / REPORT_FILES[key]
        path.write_text(text, encoding="utf-8")
        written[key] = path
    return written


def append_step_summary(markdown_path: Path, env: Mapping[str, str] | None = None) -> Path | None:
    """Append a Markdown report to the GitHub Actions job summary when running there."""
    target = (os.environ if env is None else env).get("GITHUB_STEP_SUMMARY")
    if not target:
        return None
    with Path(target).open("a", encoding="utf-8") as summary:
        summary.write(markdown_path.read_text(encoding="utf-8") + "\n")
    return Path(target)


def report_command(results: Sequence[Path], out_dir: Path, spec: Path | None = None, *,
                   stdout: TextIO | None = None, stderr: TextIO | None = None, by_scenario: bool = False) -> int:
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    try:
        rows = load_rows(spec)
        documents = [load_results_document(path) for path in results]
    except (SpecFileError, ResultsFileError) as error:
        print(f"error: {error}", file=err)
        return 2
    written = write_reports(documents, out_dir, rows)
    if by_scenario:
        path = out_dir / BY_SCENARIO_FILE
        path.write_text(render_by_scenario(build_coverage(documents, rows)), encoding="utf-8")
        written["by-scenario"] = path
    for path in written.values():
        print(f"wrote {path}", file=out)
    if any(d.filtered for d in documents):
        print("note: filtered results; the reports do not claim full coverage", file=out)
    return 0


def gate_command(results: Path, baseline: Path, *, stdout: TextIO | None = None,
                 stderr: TextIO | None = None) -> int:
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    try:
        document = load_results_document(results)
        entries = load_gate_baseline(baseline)
    except (ResultsFileError, BaselineError) as error:
        print(f"error: {error}", file=err)
        return 2
    outcome = gate(document, entries)
    print(outcome.render(), end="", file=out)
    runs = len(document.results)
    print(f"Judged {runs} run{'' if runs == 1 else 's'} (scenario × implementation × mode × provider) of {results} "
          f"against {len(entries)} baseline entr{'y' if len(entries) == 1 else 'ies'} of {baseline} "
          "(one entry per scenario, check, implementation and mode, for one provider or every one).", file=out)
    return outcome.exit_code


def diff_command(old: Path, new: Path, *, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    try:
        before = load_results_document(old)
        after = load_results_document(new)
    except ResultsFileError as error:
        print(f"error: {error}", file=err)
        return 2
    print(diff(before, after), end="", file=out)
    return 0

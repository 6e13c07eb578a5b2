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
from harness.reporting.spec_view import MATRIX_FILE, SUMMARY_LIMIT, render_matrix_only, render_step_summary
from harness.scenario.spec_rows import EXTRA_ROWS, SPEC_ROWS, SpecRow, parse_spec_rows

REPORT_FILES = {"markdown": "coverage.md", "html": "coverage.html", "json": "coverage.json", "junit": "junit.xml",
                "matrix": MATRIX_FILE, "invariants-markdown": "invariants.md", "invariants-html": "invariants.html"}


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
                "junit": render_junit(matrix), "matrix": render_matrix_only(matrix),
                "invariants-markdown": invariants_markdown(invariants),
                "invariants-html": invariants_html(invariants)}
    written: dict[str, Path] = {}
    for key, text in rendered.items():
        path = out_dir / REPORT_FILES[key]
        path.write_text(text, encoding="utf-8")
        written[key] = path
    return written


def artifact_pointer(env: Mapping[str, str] | None = None) -> str:
    """Where the full reports of a CI run are: the run's artifacts on GitHub, else the reports folder."""
    environ = os.environ if env is None else env
    server, repository, run_id = (environ.get(k, "") for k in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY",
                                                               "GITHUB_RUN_ID"))
    if server and repository and run_id:
        return f"the artifacts of this workflow run, {server}/{repository}/actions/runs/{run_id}#artifacts"
    return "the reports folder this run wrote (coverage.html opens in a browser)"


def write_step_summary(documents: ResultsDocument | Sequence[ResultsDocument], target: Path, *,
                       rows: Sequence[SpecRow] = SPEC_ROWS, limit: int = SUMMARY_LIMIT, artifact: str = "",
                       link: str = "") -> Path:
    """Append the capped job summary (`spec_view.render_step_summary`) to `target` (GitHub's step summary file is
    shared by the job's steps, so it is appended to, never replaced)."""
    summary = render_step_summary(build_coverage(documents, rows), artifact=artifact or artifact_pointer(),
                                  limit=limit, link=link)
    with target.open("a", encoding="utf-8") as out:
        out.write(summary)
    return target


def append_step_summary(documents: ResultsDocument | Sequence[ResultsDocument], rows: Sequence[SpecRow] = SPEC_ROWS,
                        env: Mapping[str, str] | None = None) -> Path | None:
    """The capped job summary appended to GitHub's step summary when running there (`GITHUB_STEP_SUMMARY`)."""
    target = (os.environ if env is None else env).get("GITHUB_STEP_SUMMARY")
    if not target:
        return None
    return write_step_summary(documents, Path(target), rows=rows, artifact=artifact_pointer(env))


def report_command(results: Sequence[Path], out_dir: Path | None, spec: Path | None = None, *,
                   stdout: TextIO | None = None, stderr: TextIO | None = None, by_scenario: bool = False,
                   matrix_only: bool = False, step_summary: Path | None = None, summary_limit: int = SUMMARY_LIMIT,
                   artifact: str = "") -> int:
    """The reports of saved results into `out_dir` (only the spec-author matrix with `matrix_only`), and the capped
    job summary appended to `step_summary` when given."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    try:
        rows = load_rows(spec)
        documents = [load_results_document(path) for path in results]
    except (SpecFileError, ResultsFileError) as error:
        print(f"error: {error}", file=err)
        return 2
    written: dict[str, Path] = {}
    if out_dir is not None and matrix_only:
        out_dir.mkdir(parents=True, exist_ok=True)
        written["matrix"] = out_dir / MATRIX_FILE
        written["matrix"].write_text(render_matrix_only(build_coverage(documents, rows)), encoding="utf-8")
    elif out_dir is not None:
        written = write_reports(documents, out_dir, rows)
    if by_scenario and out_dir is not None:
        path = out_dir / BY_SCENARIO_FILE
        path.write_text(render_by_scenario(build_coverage(documents, rows)), encoding="utf-8")
        written["by-scenario"] = path
    if step_summary is not None:
        written["step-summary"] = write_step_summary(documents, step_summary, rows=rows, limit=summary_limit,
                                                     artifact=artifact)
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

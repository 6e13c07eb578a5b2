"""The coverage matrix: spec rows × (implementation, version, mode, provider), each cell judged from the scenario runs.

This module only builds the data; `markdown`, `html_page`, `coverage_json` and `junit` render it. Everything a
report says about coverage — cell verdicts, the gap analysis, whether the run was filtered — is decided here once,
so the formats cannot disagree.

A column names its provider (the `Dialect` the model was reached through) only when it is not the neutral one, so a
matrix of neutral runs reads, and renders, exactly as before providers existed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from harness.contract import DIALECTS, MODES
from harness.reporting.documents import ResultsDocument, combine
from harness.requirements import requirement
from harness.results import NEUTRAL_PROVIDER, CheckResult, ScenarioResult, Verdict, with_provider
from harness.scenario.spec_rows import SPEC_ROWS, SpecRow

CellStatus = Literal["pass", "fail", "error", "xfail", "differs", "n/a", "not-covered"]
CELL_STATUSES: tuple[CellStatus, ...] = ("pass", "fail", "error", "xfail", "differs", "n/a", "not-covered")

# Worst first: a cell shows the worst verdict among the runs covering it, so one failing scenario is never hidden
# behind a passing one. A known failure outranks a pass because the row is then not fully met; n/a ranks last
# because a run that could not apply says nothing about the row. `differs` (the loop fails only what it does not
# claim) is shown below a known failure and above a pass: the row is met as the implementation promises it.
_SEVERITY: tuple[Verdict, ...] = ("error", "fail", "xfail", "differs", "pass", "n/a")

LABELS: Mapping[CellStatus, str] = {
    "pass": "pass", "fail": "fail", "error": "error", "xfail": "known failure", "differs": "differs", "n/a": "n/a",
    "not-covered": "not covered",
}


@dataclass(frozen=True)
class Column:
    implementation: str
    version: str
    mode: str
    provider: str = NEUTRAL_PROVIDER

    @classmethod
    def of(cls, run: ScenarioResult) -> Column:
        """The column a run belongs to."""
        return cls(run.implementation, run.version, run.mode, run.provider)

    @property
    def id(self) -> str:
        return "/".join(with_provider([self.implementation, self.version, self.mode], self.provider))

    @property
    def label(self) -> str:
        return run_label(self.implementation, self.version, self.mode, self.provider)


def run_label(implementation: str, version: str, mode: str, provider: str) -> str:
    """``implementation version mode``, then the provider unless it is neutral: how reports name a run's column."""
    return " ".join(with_provider([implementation, version, mode], provider)).replace("  ", " ")


@dataclass(frozen=True)
class Cell:
    """One row in one column. `status` is the row's own verdict: the worst, over the runs of scenarios naming the
    row, of the checks that judge the row's own requirement (`harness.requirements`). `general` is the worst
    verdict of the general invariants those runs tripped, which are not the row's requirement: shown beside the
    status, never as it, so a row whose own requirement holds does not read as failing."""

    row: SpecRow
    column: Column
    status: CellStatus
    runs: tuple[ScenarioResult, ...]  # every run of a scenario naming this row, in this column
    general: Verdict | None = None  # fail or xfail when a run tripped a general invariant; None when none did

    @property
    def scenarios(self) -> tuple[str, ...]:
        return tuple(sorted({run.scenario for run in self.runs}))

    def own_verdict(self, run: ScenarioResult) -> Verdict:
        return own_verdict(run, self.row)

    def general_checks(self, run: ScenarioResult) -> tuple[CheckResult, ...]:
        return general_checks(run, self.row)


_PROBLEMS: frozenset[Verdict] = frozenset({"fail", "error", "xfail", "differs"})


def cites_rows(run: ScenarioResult) -> bool:
    """Whether the run's checks name the rows they enforce (`row:<title>` citations); results older than
    citations do not, and their row attribution falls back on `harness.requirements`."""
    return any(cite.startswith("row:") for check in run.checks for cite in check.cites)


def judges_row(check: CheckResult, row: SpecRow, by_citation: bool) -> bool:
    """Whether `check` judges `row`'s own requirement: it cites the row (a check of one turn cites the rows of
    that turn), or, in results without citations, `harness.requirements` says it is the row's."""
    return f"row:{row.name}" in check.cites if by_citation else requirement(check.id).owned_by(row.name)


def own_verdict(run: ScenarioResult, row: SpecRow) -> Verdict:
    """The run's verdict on `row`'s own requirement: the worst of its checks that judge it (those citing the row;
    in results without citations, the scenario's own expectations and run checks, and the general invariants that
    are also this row's requirement). A `differs` run differs on the row, never fails it."""
    problems = [c for c in run.checks if c.verdict in _PROBLEMS]
    if run.verdict not in _PROBLEMS or not problems:
        return run.verdict  # n/a, pass, or a failure no check explains: nothing to split
    by_citation = cites_rows(run)
    owned: list[Verdict] = [c.verdict for c in problems if judges_row(c, row, by_citation)]
    if not owned:
        return "pass"
    return "differs" if run.verdict == "differs" else _worst(owned)


def _worst(verdicts: Iterable[Verdict]) -> Verdict:
    return min(verdicts, key=_SEVERITY.index)


def general_checks(run: ScenarioResult, row: SpecRow) -> tuple[CheckResult, ...]:
    """The failing checks of the run that are not `row`'s own requirement (general invariants, or checks citing
    other rows)."""
    by_citation = cites_rows(run)
    return tuple(c for c in run.checks if c.verdict in _PROBLEMS and not judges_row(c, row, by_citation))


@dataclass(frozen=True)
class ScenarioInfo:
    id: str
    title: str
    path: str
    line: int
    section: str
    spec_rows: tuple[str, ...]


@dataclass(frozen=True)
class UnknownRow:
    scenario: str
    row: str  # the name as the scenario spells it


@dataclass(frozen=True)
class XfailOnly:
    row: SpecRow
    columns: tuple[Column, ...]  # where every applicable run is a known failure


@dataclass(frozen=True)
class UnexplainedNa:
    row: SpecRow
    column: Column
    scenarios: tuple[str, ...]  # the n/a runs that give no reason


@dataclass(frozen=True)
class RowlessScenario:
    scenario: str
    verdicts: tuple[Verdict, ...]  # e.g. a malformed scenario file reports `error` and names no row


@dataclass(frozen=True)
class Gaps:
    uncovered_rows: tuple[SpecRow, ...]
    unknown_rows: tuple[UnknownRow, ...]
    xfail_only: tuple[XfailOnly, ...]
    unexplained_na: tuple[UnexplainedNa, ...]
    rowless_scenarios: tuple[RowlessScenario, ...]

    @property
    def empty(self) -> bool:
        return not (self.uncovered_rows or self.unknown_rows or self.xfail_only or self.unexplained_na
                    or self.rowless_scenarios)


@dataclass(frozen=True)
class CoverageMatrix:
    rows: tuple[SpecRow, ...]
    columns: tuple[Column, ...]
    cells: Mapping[tuple[str, str], Cell]  # (row id, column id) -> cell; every pair is present
    scenarios: Mapping[str, ScenarioInfo]
    gaps: Gaps
    filtered: bool
    results: tuple[ScenarioResult, ...] = ()  # every run, including those in no cell (unknown or no rows)
    sources: str = ""

    def runs(self) -> list[ScenarioResult]:
        """Every run once, in a stable order (a run covering several rows sits in several cells)."""
        return sorted(self.results, key=lambda r: (r.scenario, r.implementation, sort_key_of_version(r.version),
                                                   provider_key(r.provider), sort_key_of_mode(r.mode)))

    def cell(self, row: SpecRow, column: Column) -> Cell:
        return self.cells[(row.id, column.id)]

    def sections(self) -> list[tuple[str, list[SpecRow]]]:
        """Rows grouped by section, sections in the order they first appear."""
        grouped: dict[str, list[SpecRow]] = {}
        for row in self.rows:
            grouped.setdefault(row.section, []).append(row)
        return list(grouped.items())

    def row_scenarios(self, row: SpecRow) -> tuple[str, ...]:
        return tuple(sorted({s for column in self.columns for s in self.cell(row, column).scenarios}))

    def status_counts(self) -> Counter[CellStatus]:
        return Counter(cell.status for cell in self.cells.values())

    @property
    def covered_rows(self) -> tuple[SpecRow, ...]:
        uncovered = set(self.gaps.uncovered_rows)
        return tuple(row for row in self.rows if row not in uncovered)

    @property
    def claims_full_coverage(self) -> bool:
        """Only an unfiltered run in which a scenario names every row may be reported as covering the spec."""
        return not self.filtered and not self.gaps.uncovered_rows and bool(self.rows)

    @property
    def implementations(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c.implementation for c in self.columns))

    @property
    def modes(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c.mode for c in self.columns))

    @property
    def providers(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c.provider for c in self.columns))

    @property
    def several_providers(self) -> bool:
        """True when runs reached their model through more than one provider, so providers matter in filters."""
        return len(set(self.providers)) > 1

    @property
    def versions(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c.version for c in self.columns))

    @property
    def several_versions(self) -> bool:
        """True when some implementation was run at more than one version, so versions matter in the columns."""
        pairs = {(c.implementation, c.version) for c in self.columns}
        return any(n > 1 for n in Counter(impl for impl, _ in pairs).values())


def build_coverage(documents: ResultsDocument | Sequence[ResultsDocument],
                   rows: Sequence[SpecRow] = SPEC_ROWS) -> CoverageMatrix:
    """The matrix over the given rows (the built-in catalogue, or rows parsed from a spec file)."""
    document = documents if isinstance(documents, ResultsDocument) else combine(documents)
    results = document.results
    row_list = tuple(rows)
    by_name: dict[str, list[SpecRow]] = {}
    for row in row_list:
        by_name.setdefault(row.name, []).append(row)

    columns = _columns(results)
    runs: dict[tuple[str, str], list[ScenarioResult]] = {}
    for result in results:
        column = Column.of(result)
        for name in result.spec_rows:
            for row in by_name.get(name, []):
                runs.setdefault((row.id, column.id), []).append(result)

    cells = {
        (row.id, column.id): _cell(row, column, runs.get((row.id, column.id), []))
        for row in row_list for column in columns
    }
    gaps = _gaps(row_list, columns, cells, results, set(by_name))
    return CoverageMatrix(row_list, columns, cells, _scenarios(results), gaps, document.filtered, results,
                          document.source)


def sort_key_of_version(version: str) -> tuple[tuple[int, str], ...]:
    # Numeric parts compare as numbers so 1.10.0 sorts after 1.9.0; anything else sorts as text after them.
    return tuple((int(part), "") if part.isdigit() else (1 << 30, part) for part in version.split("."))


def sort_key_of_mode(mode: str) -> tuple[int, str]:
    return (MODES.index(mode), "") if mode in MODES else (len(MODES), mode)


def provider_key(provider: str) -> tuple[int, str]:
    """Providers in `DIALECTS` order, neutral first; a name this release does not know after them."""
    known: tuple[str, ...] = DIALECTS
    return (known.index(provider), "") if provider in known else (len(known), provider)


def _columns(results: Iterable[ScenarioResult]) -> tuple[Column, ...]:
    seen = {Column.of(r) for r in results}
    # The embedded reference loop first: it is the yardstick the other implementations are read against. Each
    # provider's columns, both modes, follow the neutral ones of the same implementation and version.
    return tuple(sorted(seen, key=lambda c: (c.implementation != "reference", c.implementation,
                                             sort_key_of_version(c.version), provider_key(c.provider),
                                             sort_key_of_mode(c.mode))))


def _cell(row: SpecRow, column: Column, runs: list[ScenarioResult]) -> Cell:
    ordered = tuple(sorted(runs, key=lambda r: r.scenario))
    if not ordered:
        return Cell(row, column, "not-covered", ())
    worst = _worst(own_verdict(r, row) for r in ordered)
    tripped: list[Verdict] = ["differs" if r.verdict == "differs" else c.verdict
                              for r in ordered for c in general_checks(r, row)]
    general = _worst(tripped) if tripped else None
    return Cell(row, column, worst, ordered, general)


def _scenarios(results: Iterable[ScenarioResult]) -> dict[str, ScenarioInfo]:
    infos: dict[str, ScenarioInfo] = {}
    for r in results:
        infos.setdefault(r.scenario, ScenarioInfo(r.scenario, r.title, r.path, r.line, r.section, r.spec_rows))
    return dict(sorted(infos.items()))


def _gaps(rows: tuple[SpecRow, ...], columns: tuple[Column, ...], cells: Mapping[tuple[str, str], Cell],
          results: Sequence[ScenarioResult], known_names: set[str]) -> Gaps:
    uncovered = tuple(row for row in rows if all(cells[(row.id, c.id)].status == "not-covered" for c in columns))
    unknown = sorted({UnknownRow(r.scenario, name) for r in results for name in r.spec_rows
                      if name not in known_names}, key=lambda u: (u.scenario, u.row))
    xfail_only: list[XfailOnly] = []
    unexplained: list[UnexplainedNa] = []
    for row in rows:
        only: list[Column] = []
        for column in columns:
            cell = cells[(row.id, column.id)]
            applicable = [cell.own_verdict(run) for run in cell.runs if run.verdict != "n/a"]
            if applicable and all(v == "xfail" for v in applicable):
                only.append(column)
            if cell.status == "n/a":
                silent = tuple(sorted({run.scenario for run in cell.runs if not run.reason.strip()}))
                if silent:
                    unexplained.append(UnexplainedNa(row, column, silent))
        if only:
            xfail_only.append(XfailOnly(row, tuple(only)))
    rowless: dict[str, list[Verdict]] = {}
    for r in results:
        if not r.spec_rows:
            rowless.setdefault(r.scenario, []).append(r.verdict)
    rowless_list = tuple(RowlessScenario(s, tuple(sorted(set(v), key=_SEVERITY.index)))
                         for s, v in sorted(rowless.items()))
    return Gaps(uncovered, tuple(unknown), tuple(xfail_only), tuple(unexplained), rowless_list)

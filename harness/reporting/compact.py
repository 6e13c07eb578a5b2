"""The compact form of a results file: what the gate and the version matrix need of each run, and nothing else.

A release file of the version sweep holds a few thousand runs. Its full form (``run --json``) keeps every check's
message, diff and log and the scenario's absolute path: 8-14 MB a release, most of it text no reader of a release
file uses. The compact form keeps, per run, its scenario, implementation and release, mode, provider, verdict, the
checks it judged, its failing checks (with their profile and citations when known) and the baseline entries that
cover it; per file, the release and its companion packages. It drops messages, diffs, logs, titles and paths.

Layout, chosen so that a re-sweep's diff shows only what changed:

* ``columns``: one object per (implementation, release, mode, provider), sorted;
* ``check_sets``: the sets of check ids runs judged, each named by a hash of its content (a name never shifts when
  another set comes or goes), ``{"judged": [...], "n/a": [...]}``, the ids whose every instance was n/a apart;
* ``scenarios``: one line per scenario: its spec rows and one cell per column, in column order. A cell is ``null``
  (no run there), a bare verdict (a run that judged no check: n/a), or ``[verdict, check set, failing, entries]``
  with the trailing empty parts left out; a failing check is its bare id when it has the run's verdict and no
  known profile or citation, else ``[id, verdict, profile, cite, ...]``. A judged check that is not failing passed.

Expanding gives `ScenarioResult`s with one check per judged id (the per-turn repetition is gone), which is all the
gate (`harness.reporting.gate`), a rejudging baseline (`harness.reporting.baseline.rejudge`) and the version matrix
read.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from harness.reporting.coverage import provider_key, sort_key_of_mode, sort_key_of_version
from harness.reporting.documents import (
    COMPACT_FORMAT,
    ResultsDocument,
    ResultsFileError,
    claims_of,
    load_results_document,
    parse_profile,
    parse_verdict,
)
from harness.requirements import profile_of, requirement
from harness.results import NEUTRAL_PROVIDER, CheckResult, ScenarioResult

# Verdicts of a check that a run "judged and did not fail": kept as sets of ids, not one by one.
_QUIET = ("pass", "n/a")
# Why no run of a column went over its provider's wire (the version matrix lists these releases).
PROVIDER_MISSING = ("not released for this core release", "provider not installed")


@dataclass(frozen=True)
class _ColumnKey:
    implementation: str
    version: str
    mode: str
    provider: str
    provider_package: str
    provider_version: str
    claims: tuple[str, ...] = ("contract", "safety")  # the profiles the implementation claims

    @classmethod
    def of(cls, run: ScenarioResult) -> _ColumnKey:
        return cls(run.implementation, run.version, run.mode, run.provider, run.provider_package,
                   run.provider_version, tuple(sorted(run.claims)))

    def sort_key(self) -> tuple[Any, ...]:
        return (self.implementation, sort_key_of_version(self.version), provider_key(self.provider),
                sort_key_of_mode(self.mode), self.provider_package, self.provider_version)


def compact_document(document: ResultsDocument) -> dict[str, Any]:
    """The compact form of a results document (full or already compact)."""
    columns = sorted({_ColumnKey.of(run) for run in document.results}, key=_ColumnKey.sort_key)
    index = {column: position for position, column in enumerate(columns)}
    check_sets: dict[str, dict[str, list[str]]] = {}
    scenarios: dict[str, dict[str, Any]] = {}
    for run in document.results:
        entry = scenarios.setdefault(run.scenario, _scenario_entry(run, len(columns)))
        position = index[_ColumnKey.of(run)]
        if entry["runs"][position] is not None:
            raise ResultsFileError(f"{document.source or 'results document'}: two runs of {run.scenario} in "
                                   f"{' '.join(_column_label(columns[position]))}")
        entry["runs"][position] = _cell(run, check_sets)
    data: dict[str, Any] = {"format": COMPACT_FORMAT, "release": document.release, "filtered": document.filtered}
    if document.companions:
        data["companions"] = dict(sorted(document.companions.items()))
    data["columns"] = [_column_json(column, _not_run(column, document.results)) for column in columns]
    data["check_sets"] = dict(sorted(check_sets.items()))
    data["scenarios"] = dict(sorted(scenarios.items()))
    return data


def _column_label(column: _ColumnKey) -> list[str]:
    return [column.implementation, column.version, column.mode, column.provider]


def _scenario_entry(run: ScenarioResult, width: int) -> dict[str, Any]:
    entry: dict[str, Any] = {"rows": list(run.spec_rows)}
    if run.section != _section_of(run.scenario):
        entry["section"] = run.section
    entry["runs"] = [None] * width
    return entry


def _section_of(scenario: str) -> str:
    return scenario.split(".", 1)[0]


def _column_json(column: _ColumnKey, not_run: str | None) -> dict[str, str]:
    data = {"implementation": column.implementation, "version": column.version, "mode": column.mode,
            "provider": column.provider}
    if column.provider_package:
        data |= {"provider_package": column.provider_package, "provider_version": column.provider_version}
    if not_run:
        data["not_run"] = not_run
    if column.claims != ("contract", "safety"):
        data["claims"] = ",".join(column.claims)
    return data


def _not_run(column: _ColumnKey, results: Iterable[ScenarioResult]) -> str | None:
    """Why no run of the column went over its provider's wire, when that is why every one of them is n/a: the one
    n/a reason the compact form keeps, since the version matrix names such releases."""
    runs = [run for run in results if _ColumnKey.of(run) == column]
    if column.provider == NEUTRAL_PROVIDER or any(run.verdict != "n/a" for run in runs):
        return None
    missing = sorted({run.reason for run in runs if any(marker in run.reason for marker in PROVIDER_MISSING)})
    return missing[0] if missing else None


def _cell(run: ScenarioResult, check_sets: dict[str, dict[str, list[str]]]) -> str | list[Any]:
    failing = _failing(run)
    present = {check.id for check in run.checks}
    only_na = sorted(present - {check.id for check in run.checks if check.verdict != "n/a"})
    judged = sorted(present - set(only_na))
    key = _set_name({"judged": judged, **({"n/a": only_na} if only_na else {})}, check_sets) if present else ""
    cell: list[Any] = [run.verdict, key, failing, list(run.entries)]
    while len(cell) > 1 and not cell[-1]:
        cell.pop()
    return run.verdict if len(cell) == 1 else cell


def _failing(run: ScenarioResult) -> list[Any]:
    """Each distinct failing check once (a check failing on several turns is one entry): its bare id when it has
    the run's verdict and no known profile or citation, else ``[id, verdict, profile, cite, ...]``."""
    seen: dict[tuple[Any, ...], Any] = {}
    for check in run.checks:
        if check.verdict in _QUIET:
            continue
        encoded: list[Any] = [check.id, check.verdict]
        # A full file written before profiles tells some profiles by their message only (`profile_of`): they are
        # resolved here, while the message is at hand, and kept where they differ from the check's usual one.
        profile = profile_of(check)
        if check.profile is not None or check.cites or profile != requirement(check.id).profile:
            encoded += [profile, *check.cites]
        plain = len(encoded) == 2 and check.verdict == run.verdict
        seen.setdefault(tuple(encoded), check.id if plain else encoded)
    return list(seen.values())


def _set_name(content: dict[str, list[str]], check_sets: dict[str, dict[str, list[str]]]) -> str:
    """A name that depends only on the set's content, so adding or removing another set renames nothing."""
    digest = hashlib.sha1(json.dumps(content, sort_keys=True).encode()).hexdigest()
    length = 8
    while check_sets.get(digest[:length], content) != content:  # a clash of prefixes: take a longer one
        length += 2
    check_sets[digest[:length]] = content
    return digest[:length]


def render_compact(data: Mapping[str, Any]) -> str:
    """The compact document as text: one line per column, check set and scenario, keys sorted, so that the diff of
    a refreshed file shows the scenarios whose runs changed and nothing else."""

    def one_line(value: object) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)

    def block(items: Iterable[str]) -> str:
        lines = list(items)
        return "\n" + ",\n".join(f"    {line}" for line in lines) + "\n  " if lines else ""

    parts = [f'  "{key}": {one_line(data[key])}' for key in ("format", "release", "filtered", "companions")
             if key in data]
    parts.append('  "columns": [' + block(one_line(c) for c in data["columns"]) + "]")
    parts.append('  "check_sets": {' + block(f"{one_line(k)}: {one_line(v)}"
                                              for k, v in data["check_sets"].items()) + "}")
    parts.append('  "scenarios": {' + block(f"{one_line(k)}: {one_line(v)}"
                                             for k, v in data["scenarios"].items()) + "}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def write_compact(source: Path, target: Path) -> bool:
    """Write the compact form of the results file `source` (full or compact) to `target`; True when that changed
    the file. Converting the same results twice writes the same bytes."""
    text = render_compact(compact_document(load_results_document(source)))
    if target.exists() and target.read_text(encoding="utf-8") == text:
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return True


def expand_compact(data: Mapping[str, Any], *, source: str = "") -> ResultsDocument:
    """The runs of a compact document as results, each with one check per id it judged."""
    where = source or "compact results document"
    try:
        columns = [cast(Mapping[str, str], c) for c in cast(list[object], data["columns"])]
        check_sets = cast(Mapping[str, Mapping[str, list[str]]], data.get("check_sets") or {})
        results: list[ScenarioResult] = []
        for scenario, raw in cast(Mapping[str, Mapping[str, Any]], data["scenarios"]).items():
            cells = cast(list[object], raw["runs"])
            if len(cells) != len(columns):
                raise ValueError(f"{len(cells)} cells for {len(columns)} columns")
            for column, cell in zip(columns, cells, strict=True):
                if cell is not None:
                    results.append(_run(str(scenario), raw, column, cell, check_sets))
    except (KeyError, TypeError, ValueError) as error:
        raise ResultsFileError(f"{where}: {error}") from None
    return ResultsDocument(tuple(results), bool(data.get("filtered", True)), source,
                           release=str(data.get("release") or ""),
                           companions=cast(Mapping[str, Any], data.get("companions") or {}))


def _run(scenario: str, raw: Mapping[str, Any], column: Mapping[str, str], cell: object,
         check_sets: Mapping[str, Mapping[str, list[str]]]) -> ScenarioResult:
    parts: list[object] = [cell] if isinstance(cell, str) else list(cast(list[object], cell))
    parts += [""] * (4 - len(parts))
    verdict, set_name = str(parts[0]), str(parts[1])
    failing, entries = cast(list[object], parts[2] or []), cast(list[object], parts[3] or [])
    judged: Mapping[str, list[str]] = check_sets[set_name] if set_name else {}
    failed = [_check(c, verdict) for c in failing]
    failed_ids = {check.id for check in failed}
    checks = [CheckResult(str(i), "pass") for i in judged.get("judged", []) if i not in failed_ids]
    checks += [CheckResult(str(i), "n/a") for i in judged.get("n/a", [])]
    checks += failed
    run_verdict = parse_verdict(verdict)
    return ScenarioResult(
        scenario=scenario, title="", spec_rows=tuple(str(r) for r in cast(list[object], raw.get("rows") or [])),
        section=str(raw.get("section") or _section_of(scenario)), implementation=str(column["implementation"]),
        version=str(column["version"]), mode=str(column["mode"]), verdict=run_verdict,
        provider=str(column.get("provider") or NEUTRAL_PROVIDER),
        provider_package=str(column.get("provider_package") or ""),
        provider_version=str(column.get("provider_version") or ""),
        checks=tuple(checks), reason=str(column.get("not_run") or "") if run_verdict == "n/a" else "",
        entries=tuple(str(e) for e in entries),
        claims=claims_of(column.get("claims", "").split(",") if column.get("claims") else None,
                         str(column["implementation"])))


def _check(encoded: object, run_verdict: str) -> CheckResult:
    if isinstance(encoded, str):
        return CheckResult(encoded, parse_verdict(run_verdict))
    parts = cast(list[Any], encoded)
    profile = parse_profile(parts[2]) if len(parts) > 2 else None
    return CheckResult(str(parts[0]), parse_verdict(parts[1]), profile=profile,
                       cites=tuple(str(c) for c in parts[3:]))

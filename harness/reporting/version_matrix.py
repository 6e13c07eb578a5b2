"""The version matrix: spec row × release × mode, from one results file per release, one table per implementation
(the variants of one framework — a caller with a session, a stateless caller — each get theirs) and provider: a
table of runs over a provider's wire is named ``implementation provider``, one of neutral runs by the implementation
alone. Each table's columns are the releases of the package its implementation drives; frameworks number their
releases apart, so a table never shares its columns with another framework's. A provider's client comes from a
package numbered apart again (agent-framework-openai 1.15.0 beside agent-framework-core 1.20.0), so a table over a
provider's wire heads each column with both releases, ``1.20.0 / openai 1.15.0``, and lists the releases it could not
run on with the reason (``not released for this core release``, ``not installed``). An implementation reached
through a companion package (the loop behind agent-framework-ag-ui's endpoint) reports that package's release, and
in a sweep's results file (which names the core release it ran, `release`) its columns are the core releases, each
headed with both, ``1.16.0 / ag-ui 1.2.1``."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

from harness.reporting.baseline import KnownFailure, rejudge, release_key
from harness.reporting.compact import PROVIDER_MISSING
from harness.reporting.documents import load_results_document
from harness.reporting.markdown import markdown_text
from harness.results import ScenarioResult, Verdict, with_provider
from harness.scenario.spec_rows import SPEC_ROWS, SpecRow

# Worst first: a cell shows the worst verdict among the scenarios covering its row. `differs` (the loop does
# something the implementation does not claim to do otherwise) ranks below a known failure and above a pass.
_SEVERITY: tuple[Verdict, ...] = ("error", "fail", "xfail", "differs", "pass", "n/a")
_SYMBOL = {"pass": "✅", "fail": "❌", "error": "💥", "xfail": "⚠️", "differs": "≠", "n/a": "–"}
_MODES = ("non-streaming", "streaming")
_FAILING: frozenset[str] = frozenset({"fail", "error"})


@dataclass
class Cell:
    verdict: Verdict
    scenarios: list[str] = field(default_factory=lambda: [])
    failures: list[str] = field(default_factory=lambda: [])  # "scenario: check", with the check's profile if known


@dataclass
class Release:
    """The runs of one release in one table, and what they were judged against."""

    runs: list[ScenarioResult] = field(default_factory=lambda: [])
    companion: str = ""  # the companion package's release the runs drove ("" when they drove the release itself)
    known: Sequence[KnownFailure] | None = None  # the baseline the runs were judged against, when one was given


ByVersion = dict[str, Release]


def load_results(paths: Sequence[Path], known: Sequence[KnownFailure] | None = None) -> dict[str, ByVersion]:
    """Results by implementation (with its provider unless neutral), then by its version; each file is a results
    document, full (`loop-conformance run --json`) or compact (`harness.reporting.compact`): the matrix reads only
    what the compact form keeps, so both give the same matrix. With `known`, every run is judged against those known
    failures instead of keeping the verdict its sweep gave it (`rejudge`)."""
    by_implementation: dict[str, ByVersion] = {}
    for path in paths:
        document = load_results_document(path)  # a located error for a file that is not a results document
        for result in document.results:
            judged = result if known is None else rejudge(result, known)
            companion = ""
            if document.release and judged.version != document.release:
                # A companion's release beside the core release the file is of: the column is the core release.
                companion, judged = judged.version, replace(judged, version=document.release)
            table = " ".join(with_provider([judged.implementation], judged.provider))
            release = by_implementation.setdefault(table, {}).setdefault(judged.version, Release(known=known))
            release.runs.append(judged)
            release.companion = release.companion or companion
    return {implementation: dict(sorted(versions.items(), key=lambda item: release_key(item[0])))
            for implementation, versions in sorted(by_implementation.items())}


def build_matrix(by_version: ByVersion) -> dict[tuple[str, str, str], Cell]:
    """(row name, version, mode) -> cell."""
    cells: dict[tuple[str, str, str], Cell] = {}
    for version, release in by_version.items():
        for result in release.runs:
            for row in result.spec_rows:
                cell = cells.setdefault((row, version, result.mode), Cell("n/a"))
                if _SEVERITY.index(result.verdict) < _SEVERITY.index(cell.verdict):
                    cell.verdict = result.verdict
                cell.scenarios.append(result.scenario)
                cell.failures.extend(f"{result.scenario}: {check.id}" + (f" ({check.profile})" if check.profile
                                                                          else "")
                                     for check in result.checks if check.verdict in _FAILING)
    return cells


def render_markdown(by_implementation: Mapping[str, ByVersion], rows: Sequence[SpecRow] = SPEC_ROWS,
                    packages: Mapping[str, str] | None = None) -> str:
    """`packages` names, per implementation, the package whose releases its results are of (headings show it).
    Every name, release, scenario id and reason is escaped (`markdown_text`): nothing from a results file or a
    baseline renders as HTML, a link or a heading."""
    lines = [
        "# Version matrix",
        "",
        "Each cell is `non-streaming streaming`: the worst verdict over the scenarios covering that spec row, for that",
        "release. ✅ pass · ❌ fail · 💥 error · ⚠️ known failure · ≠ differs (fails only what the implementation does",
        "not claim) · – n/a (the release lacks a capability the scenario needs, or the caller variant cannot ask for",
        "it). Uncovered rows are not listed. One table per implementation, its columns the releases of the package it",
        "drives. Regenerate with `nox -s versions` (or, from the committed release files, `nox -s version_matrix`).",
    ]
    for implementation, by_version in by_implementation.items():
        lines.extend(["", f"## {_heading(implementation, by_version, packages or {})}", ""])
        package = (packages or {}).get(implementation) or (packages or {}).get(implementation.split(" ")[0], "")
        lines.extend(_table(by_version, rows, package))
    return "\n".join(lines) + "\n"


def _heading(implementation: str, by_version: ByVersion, packages: Mapping[str, str]) -> str:
    versions = list(by_version)
    span = versions[0] if len(versions) == 1 else f"{versions[0]} – {versions[-1]}"
    # A table over a provider's wire ("agent_framework openai-chat") has the releases of its implementation's package.
    package = packages.get(implementation) or packages.get(implementation.split(" ")[0])
    name = markdown_text(implementation)
    if package and any(release.companion for release in by_version.values()):
        return f"{name} (agent-framework-core {markdown_text(span)}, with {markdown_text(package)})"
    return f"{name} ({markdown_text(f'{package} {span}' if package else span)})"


def companion_release(release: Release) -> str:
    """The companion release a core release's runs drove ("" when they drove core itself)."""
    return release.companion


def _table(by_version: ByVersion, rows: Sequence[SpecRow], package: str = "") -> list[str]:
    cells = build_matrix(by_version)
    versions = list(by_version)
    covered = [row for row in rows if any((row.name, v, m) in cells for v in versions for m in _MODES)]
    headers = [markdown_text(_column(version, release, package)) for version, release in by_version.items()]
    lines = [
        f"{len(covered)} of {len(rows)} spec rows are covered by scenarios.",
        "",
        "| Section | Spec row | " + " | ".join(headers) + " |",
        "|---|---|" + "---|" * len(versions),
    ]
    for row in covered:
        marks = [" ".join(_symbol(cells.get((row.name, v, m))) for m in _MODES) for v in versions]
        lines.append(f"| {_row_text(row.section)} | {_row_text(row.name)} | " + " | ".join(marks) + " |")
    lines.extend(_providers_missing(by_version))
    lines.extend(_known_failures(by_version))
    lines.extend(_differences(by_version))
    lines.extend(["", "### Failures", ""])
    failures = [(key, cell) for key, cell in cells.items() if cell.failures]
    if not failures:
        lines.append("None.")
    for (row, version, mode), cell in sorted(failures, key=lambda item: (item[0][0], release_key(item[0][1]))):
        lines.append(f"- **{_row_text(row)}** — {markdown_text(version)}, {mode}:")
        lines.extend(f"  - {markdown_text(failure)}" for failure in sorted(set(cell.failures)))
    return lines


def _row_text(text: str) -> str:
    """A spec row's name or section: the spec's own Markdown, on one line, pipes escaped for the table."""
    return " ".join(text.split()).replace("|", "\\|")


def provider_release(release: Release) -> tuple[str, str]:
    """The provider package a release's runs over a wire went through and its installed release ("" when it was
    not installed); ("", "") for neutral runs and files from before provider packages were recorded."""
    package = next((r.provider_package for r in release.runs if r.provider_package), "")
    version = next((r.provider_version for r in release.runs if r.provider_version), "")
    return package, version


def provider_missing(release: Release) -> str | None:
    """Why no run of a release went over its provider's wire: the provider package's absence, when that is the
    reason every run is n/a; None when any ran."""
    if any(r.verdict != "n/a" for r in release.runs):
        return None
    reasons = {r.reason for r in release.runs}
    missing = sorted(reason for reason in reasons if any(marker in reason for marker in PROVIDER_MISSING))
    return missing[0] if missing else None


def _column(version: str, release: Release, package_name: str = "") -> str:
    if release.companion:
        return f"{version} / {package_name.removeprefix('agent-framework-') or 'companion'} {release.companion}"
    package, provider_version = provider_release(release)
    if not package:
        return version
    return f"{version} / {package.removeprefix('agent-framework-')} {provider_version or '–'}"


def _providers_missing(by_version: ByVersion) -> list[str]:
    missing = [(version, why) for version, release in by_version.items()
               if (why := provider_missing(release)) is not None]
    if not missing:
        return []
    return ["", "### Releases without a provider run", "",
            *(f"- {markdown_text(version)}: {markdown_text(why)}" for version, why in missing)]


def _known_failures(by_version: ByVersion) -> list[str]:
    """Each documented defect once, with the releases and modes where it showed, and each reason of the entries
    covering it on a line of its own."""
    seen: dict[tuple[str, tuple[str, ...]], list[tuple[str, str]]] = {}
    for version, release in by_version.items():
        for result in release.runs:
            if result.verdict == "xfail":
                seen.setdefault((result.scenario, _reasons(result, release.known)), []).append((version, result.mode))
    return _grouped("Known failures", seen)


def _differences(by_version: ByVersion) -> list[str]:
    """Runs that fail only what the implementation does not claim: shown, never a defect."""
    seen: dict[tuple[str, tuple[str, ...]], list[tuple[str, str]]] = {}
    for version, release in by_version.items():
        for result in release.runs:
            if result.verdict == "differs":
                what = tuple(sorted({f"{c.id} ({c.profile or 'contract'})" for c in result.checks
                                     if c.verdict not in ("pass", "n/a")})) + result.entries
                seen.setdefault((result.scenario, what), []).append((version, result.mode))
    return _grouped("Differs", seen) if seen else []


def _grouped(title: str, seen: Mapping[tuple[str, tuple[str, ...]], list[tuple[str, str]]]) -> list[str]:
    lines = ["", f"### {title}", ""]
    if not seen:
        lines.append("None.")
    for (scenario, reasons), where in sorted(seen.items()):
        versions = sorted({version for version, _ in where}, key=release_key)
        modes = sorted({mode for _, mode in where})
        span = markdown_text(f"{', '.join(modes)}; {versions[0]} – {versions[-1]}")
        lines.append(f"- **{markdown_text(scenario)}** ({span}):")
        lines.extend(f"  - {markdown_text(reason)}" for reason in reasons or ("(no reason recorded)",))
    return lines


def _reasons(result: ScenarioResult, known: Sequence[KnownFailure] | None) -> tuple[str, ...]:
    """Why a run is a known failure: the reason and reproduction of each baseline entry covering it when the
    matrix judged against a baseline, else the entries the run recorded."""
    if known is None:
        return result.entries
    failed = {check.id for check in result.checks if check.verdict == "xfail"}
    return tuple(f"{' '.join(entry.reason.split())} Reproduction: {entry.reproduction}" for entry in known
                 if entry.matches(result) and failed & set(entry.checks))


def _symbol(cell: Cell | None) -> str:
    return _SYMBOL[cell.verdict] if cell is not None else "·"


def render_json(by_implementation: Mapping[str, ByVersion], rows: Sequence[SpecRow] = SPEC_ROWS,
                packages: Mapping[str, str] | None = None) -> str:
    document = {"modes": list(_MODES),
                "implementations": {name: {"package": (packages or {}).get(name), **_json_table(by_version, rows)}
                                    for name, by_version in by_implementation.items()}}
    return _compact_json(document) + "\n"


def _json_table(by_version: ByVersion, rows: Sequence[SpecRow]) -> dict[str, Any]:
    cells = build_matrix(by_version)
    document: dict[str, Any] = {"versions": list(by_version), "rows": []}
    providers = {version: {"package": package, "version": provider_version or None,
                           "not_run": provider_missing(release)}
                 for version, release in by_version.items()
                 for package, provider_version in [provider_release(release)] if package}
    if providers:
        document["provider_releases"] = providers
    companions = {version: release.companion for version, release in by_version.items() if release.companion}
    if companions:
        document["companion_releases"] = companions
    for row in rows:
        entry: dict[str, Any] = {"section": row.section, "row": row.name, "id": row.id, "cells": {}}
        scenarios: set[str] = set()
        for version in by_version:
            for mode in _MODES:
                cell = cells.get((row.name, version, mode))
                if cell is not None:
                    scenarios.update(cell.scenarios)
                    entry["cells"].setdefault(version, {})[mode] = {"verdict": cell.verdict, **(
                        {"failures": sorted(set(cell.failures))} if cell.failures else {})}
        entry["scenarios"] = sorted(scenarios)  # the row's scenarios once, not again in every cell
        document["rows"].append(entry)
    return document


def _compact_json(value: object, depth: int = 0) -> str:
    """JSON with one line per row of a table (its cells on that line): small, and a diff shows the rows whose
    verdicts changed."""
    if isinstance(value, dict) and depth < 3:
        items = cast(dict[str, Any], value).items()
        pad = "  " * (depth + 1)
        inner = ",\n".join(f"{pad}{json.dumps(k)}: {_compact_json(v, depth + 1)}" for k, v in sorted(items))
        return "{\n" + inner + "\n" + "  " * depth + "}" if inner else "{}"
    if isinstance(value, list) and depth < 3 and any(isinstance(v, dict) for v in cast(list[Any], value)):
        pad = "  " * (depth + 1)
        inner = ",\n".join(pad + json.dumps(v, ensure_ascii=False, sort_keys=True) for v in cast(list[Any], value))
        return "[\n" + inner + "\n" + "  " * depth + "]"
    return json.dumps(value, ensure_ascii=False, sort_keys=True)

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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from harness.reporting.baseline import KnownFailure, rejudge, release_key
from harness.reporting.documents import load_results_document
from harness.results import NEUTRAL_PROVIDER, Verdict, with_provider
from harness.scenario.spec_rows import SPEC_ROWS, SpecRow

# Worst first: a cell shows the worst verdict among the scenarios covering its row.
_SEVERITY: tuple[Verdict, ...] = ("error", "fail", "xfail", "differs", "pass", "n/a")
_SYMBOL = {"pass": "✅", "fail": "❌", "error": "💥", "xfail": "⚠️", "differs": "≠", "n/a": "–"}
_MODES = ("non-streaming", "streaming")
# The reasons a run over a provider's wire never started: its package is missing beside that release.
_PROVIDER_MISSING = ("not released for this core release", "provider not installed")


@dataclass
class Cell:
    verdict: Verdict
    scenarios: list[str] = field(default_factory=lambda: [])
    failures: list[str] = field(default_factory=lambda: [])  # "scenario: check (message)"


ByVersion = dict[str, list[dict[str, Any]]]


def load_results(paths: Sequence[Path], known: Sequence[KnownFailure] | None = None) -> dict[str, ByVersion]:
    """Results by implementation (with its provider unless neutral), then by its version; each file is a
    `loop-conformance run --json` document. With `known`, every run is judged against those known failures instead
    of keeping the verdict its sweep gave it (`rejudge`)."""
    by_implementation: dict[str, ByVersion] = {}
    for path in paths:
        parsed = load_results_document(path)  # a located error for a file that is not a results document
        document = cast(dict[str, Any], json.loads(path.read_text(encoding="utf-8")))
        release = str(document.get("release") or "")
        results = cast(list[dict[str, Any]], document["results"]) if known is None else [
            rejudge(result, known).to_json() for result in parsed.results]
        for result in results:
            if release and str(result["version"]) != release:
                # A companion's release beside the core release the file is of: the column is the core release.
                result = {**result, "version": release, "companion_release": str(result["version"])}
            provider = str(result.get("provider") or NEUTRAL_PROVIDER)
            table = " ".join(with_provider([str(result["implementation"])], provider))
            versions = by_implementation.setdefault(table, {})
            versions.setdefault(str(result["version"]), []).append(result)
    return {implementation: dict(sorted(versions.items(), key=lambda item: release_key(item[0])))
            for implementation, versions in sorted(by_implementation.items())}


def build_matrix(by_version: ByVersion) -> dict[tuple[str, str, str], Cell]:
    """(row name, version, mode) -> cell."""
    cells: dict[tuple[str, str, str], Cell] = {}
    for version, results in by_version.items():
        for result in results:
            verdict = cast(Verdict, result["verdict"])
            for row in cast(list[str], result["spec_rows"]):
                key = (row, version, str(result["mode"]))
                cell = cells.setdefault(key, Cell("n/a"))
                if _SEVERITY.index(verdict) < _SEVERITY.index(cell.verdict):
                    cell.verdict = verdict
                cell.scenarios.append(str(result["scenario"]))
                for check in cast(list[dict[str, Any]], result["checks"]):
                    if check["verdict"] in ("fail", "error"):
                        cell.failures.append(f"{result['scenario']}: {check['id']} ({check.get('message', '')})")
    return cells


def render_markdown(by_implementation: Mapping[str, ByVersion], rows: Sequence[SpecRow] = SPEC_ROWS,
                    packages: Mapping[str, str] | None = None) -> str:
    """`packages` names, per implementation, the package whose releases its results are of (headings show it)."""
    lines = [
        "# Version matrix",
        "",
        "Each cell is `non-streaming streaming`: the worst verdict over the scenarios covering that spec row, for that",
        "release. ✅ pass · ❌ fail · 💥 error · ⚠️ known failure · – n/a (the release lacks a capability the scenario",
        "needs, or the caller variant cannot ask for it). Uncovered rows are not listed. One table per implementation,",
        "its columns the releases of the package it drives. Regenerate with `nox -s versions`.",
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
    if package and any(companion_release(results) for results in by_version.values()):
        return f"{implementation} (agent-framework-core {span}, with {package})"
    return f"{implementation} ({package} {span})" if package else f"{implementation} ({span})"


def companion_release(results: Sequence[Mapping[str, Any]]) -> str:
    """The companion release a core release's runs drove ("" when they drove core itself)."""
    return next((str(r["companion_release"]) for r in results if r.get("companion_release")), "")


def _table(by_version: ByVersion, rows: Sequence[SpecRow], package: str = "") -> list[str]:
    cells = build_matrix(by_version)
    versions = list(by_version)
    covered = [row for row in rows if any((row.name, v, m) in cells for v in versions for m in _MODES)]
    headers = [_column(version, results, package) for version, results in by_version.items()]
    lines = [
        f"{len(covered)} of {len(rows)} spec rows are covered by scenarios.",
        "",
        "| Section | Spec row | " + " | ".join(headers) + " |",
        "|---|---|" + "---|" * len(versions),
    ]
    for row in covered:
        marks = [" ".join(_symbol(cells.get((row.name, v, m))) for m in _MODES) for v in versions]
        lines.append(f"| {row.section} | {row.name} | " + " | ".join(marks) + " |")
    lines.extend(_providers_missing(by_version))
    lines.extend(_known_failures(by_version))
    lines.extend(["", "### Failures", ""])
    failures = [(key, cell) for key, cell in cells.items() if cell.failures]
    if not failures:
        lines.append("None.")
    for (row, version, mode), cell in sorted(failures, key=lambda item: (item[0][0], release_key(item[0][1]))):
        lines.append(f"- **{row}** — {version}, {mode}:")
        lines.extend(f"  - {failure}" for failure in sorted(set(cell.failures)))
    return lines


def provider_release(results: Sequence[Mapping[str, Any]]) -> tuple[str, str]:
    """The provider package a release's runs over a wire went through and its installed release ("" when it was
    not installed); ("", "") for neutral runs and files from before provider packages were recorded."""
    package = next((str(r["provider_package"]) for r in results if r.get("provider_package")), "")
    version = next((str(r["provider_version"]) for r in results if r.get("provider_version")), "")
    return package, version


def provider_missing(results: Sequence[Mapping[str, Any]]) -> str | None:
    """Why no run of a release went over its provider's wire: the provider package's absence, when that is the
    reason every run is n/a; None when any ran."""
    reasons = {str(r.get("reason", "")) for r in results}
    if any(r["verdict"] != "n/a" for r in results):
        return None
    missing = sorted(reason for reason in reasons if any(marker in reason for marker in _PROVIDER_MISSING))
    return missing[0] if missing else None


def _column(version: str, results: Sequence[Mapping[str, Any]], package_name: str = "") -> str:
    companion = companion_release(results)
    if companion:
        return f"{version} / {package_name.removeprefix('agent-framework-') or 'companion'} {companion}"
    package, provider_version = provider_release(results)
    if not package:
        return version
    return f"{version} / {package.removeprefix('agent-framework-')} {provider_version or '–'}"


def _providers_missing(by_version: ByVersion) -> list[str]:
    missing = [(version, why) for version, results in by_version.items()
               if (why := provider_missing(results)) is not None]
    if not missing:
        return []
    return ["", "### Releases without a provider run", "", *(f"- {version}: {why}" for version, why in missing)]


def _known_failures(by_version: ByVersion) -> list[str]:
    """Each documented defect once, with the releases and modes where it showed."""
    seen: dict[tuple[str, str], list[str]] = {}
    for version, results in by_version.items():
        for result in results:
            if result["verdict"] == "xfail":
                key = (str(result["scenario"]), str(result.get("reason", "")))
                seen.setdefault(key, []).append(f"{version} {result['mode']}")
    lines = ["", "### Known failures", ""]
    if not seen:
        lines.append("None.")
    for (scenario, reason), where in sorted(seen.items()):
        versions = sorted({w.split()[0] for w in where}, key=release_key)
        modes = sorted({w.split()[1] for w in where})
        lines.append(f"- **{scenario}** ({', '.join(modes)}; {versions[0]} – {versions[-1]}): {reason}")
    return lines


def _symbol(cell: Cell | None) -> str:
    return _SYMBOL[cell.verdict] if cell is not None else "·"


def render_json(by_implementation: Mapping[str, ByVersion], rows: Sequence[SpecRow] = SPEC_ROWS,
                packages: Mapping[str, str] | None = None) -> str:
    document = {"modes": list(_MODES),
                "implementations": {name: {"package": (packages or {}).get(name), **_json_table(by_version, rows)}
                                    for name, by_version in by_implementation.items()}}
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


def _json_table(by_version: ByVersion, rows: Sequence[SpecRow]) -> dict[str, Any]:
    cells = build_matrix(by_version)
    document: dict[str, Any] = {"versions": list(by_version), "rows": []}
    providers = {version: {"package": package, "version": provider_version or None,
                           "not_run": provider_missing(results)}
                 for version, results in by_version.items()
                 for package, provider_version in [provider_release(results)] if package}
    if providers:
        document["provider_releases"] = providers
    companions = {version: release for version, results in by_version.items()
                  if (release := companion_release(results))}
    if companions:
        document["companion_releases"] = companions
    for row in rows:
        entry: dict[str, Any] = {"section": row.section, "row": row.name, "id": row.id, "cells": {}}
        for version in by_version:
            for mode in _MODES:
                cell = cells.get((row.name, version, mode))
                if cell is not None:
                    entry["cells"].setdefault(version, {})[mode] = {
                        "verdict": cell.verdict, "scenarios": sorted(set(cell.scenarios)),
                        "failures": sorted(set(cell.failures)),
                    }
        document["rows"].append(entry)
    return document

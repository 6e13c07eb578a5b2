"""Per-implementation findings pages, generated from the baselines.

`baselines/known-failures.yaml` holds every known failure (scenario, implementation, checks, modes, providers,
release range, reason, reproduction); `baselines/design-differences.yaml`, when present, the framework behaviours
their own documentation names as intended (id, implementation, releases, scenarios, checks, quote, where it is
documented, reason). Each implementation gets one page: its design entries, then its known failures grouped by the
reproduction that shows the defect, each group's reason once, with a table of the runs it covers. The files are
read as plain YAML, so a field added to an entry shows in a notes column rather than breaking the build.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from markdown_text import cell, code, table

KNOWN_FAILURES = Path("baselines/known-failures.yaml")
DESIGN_DIFFERENCES = Path("baselines/design-differences.yaml")
FOLDER = "reference/findings"
_SHOWN = {"scenario", "implementation", "checks", "modes", "providers", "versions_from", "versions_until",
          "intermittent", "reason", "reproduction"}


@dataclass(frozen=True)
class Baselines:
    known: tuple[Mapping[str, Any], ...]
    design: tuple[Mapping[str, Any], ...]
    design_present: bool


def _entries(path: Path, key: str) -> tuple[Mapping[str, Any], ...]:
    if not path.exists():
        return ()
    data: Any = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    entries: Any = data.get(key, []) if isinstance(data, dict) else data
    return tuple(entry for entry in entries or () if isinstance(entry, dict))  # pyright: ignore[reportUnknownVariableType]


def load(root: Path) -> Baselines:
    design_path = root / DESIGN_DIFFERENCES
    design = _entries(design_path, "design_differences") or _entries(design_path, "entries")
    return Baselines(_entries(root / KNOWN_FAILURES, "known_failures"), design, design_path.exists())


def implementations_of(entry: Mapping[str, Any]) -> tuple[str, ...]:
    named = entry.get("implementation", ())
    return (named,) if isinstance(named, str) else tuple(str(name) for name in named)


def releases(entry: Mapping[str, Any]) -> str:
    first, fixed = entry.get("versions_from"), entry.get("versions_until")
    if first and fixed:
        return f"{first} … before {fixed}"
    if first:
        return f"from {first}"
    if fixed:
        return f"before {fixed}"
    return "every release"


def _listed(value: Any) -> str:
    if value is None:
        return ""
    items: Iterable[Any] = [value] if isinstance(value, str) else value
    return ", ".join(code(item) for item in items)


def _modes(value: Any) -> str:
    if not value or set(value) == {"streaming", "non-streaming"}:
        return "both"
    return _listed(value)


def _notes(entry: Mapping[str, Any]) -> str:
    extra = [f"{key}: {value}" for key, value in entry.items() if key not in _SHOWN]
    if entry.get("intermittent"):
        extra.insert(0, "intermittent")
    return cell("; ".join(extra))


def _known_failure_sections(entries: Sequence[Mapping[str, Any]]) -> str:
    groups: dict[str, dict[str, list[Mapping[str, Any]]]] = {}
    for entry in entries:
        reason = " ".join(str(entry.get("reason", "")).split())
        groups.setdefault(str(entry.get("reproduction", "")), {}).setdefault(reason, []).append(entry)
    notes = any(_notes(entry) for entry in entries)
    header = ["scenario", "checks", "modes", "providers", "releases", *(["notes"] if notes else [])]
    parts: list[str] = []
    for reproduction in sorted(groups):
        parts.append(f"### {code(reproduction) or 'no reproduction'}\n")
        for reason, covered in groups[reproduction].items():
            rows = [[code(e.get("scenario", "")), _listed(e.get("checks")), _modes(e.get("modes")),
                     _listed(e.get("providers")) or "every provider", cell(releases(e)),
                     *([_notes(e)] if notes else [])] for e in covered]
            parts.append(f"{reason}\n\n" + table(header, rows))
    return "\n".join(parts)


def _design_section(entry: Mapping[str, Any]) -> str:
    lines = [f"### {code(entry.get('id', 'unnamed'))}\n",
             f"- **Releases:** {cell(releases(entry))}",
             f"- **Scenarios:** {_listed(entry.get('scenarios')) or 'none named'}",
             f"- **Checks:** {_listed(entry.get('checks')) or 'none named'}",
             f"- **Modes:** {_modes(entry.get('modes'))}; **providers:** "
             f"{_listed(entry.get('providers')) or 'every provider'}",
             f"- **Documented at:** {cell(entry.get('documented_at', 'not given'))}", ""]
    if entry.get("quote"):
        lines += ["> " + " ".join(str(entry["quote"]).split()), ""]
    if entry.get("reason"):
        lines += [" ".join(str(entry["reason"]).split()), ""]
    return "\n".join(lines)


def implementation_page(name: str, baselines: Baselines) -> str:
    known = [e for e in baselines.known if name in implementations_of(e)]
    design = [e for e in baselines.design if name in implementations_of(e)]
    scenarios = {e.get("scenario") for e in known}
    scripts = {e.get("reproduction") for e in known}
    parts = [f"# Findings: `{name}`\n",
             f"Generated from `{KNOWN_FAILURES.as_posix()}`"
             + (f" and `{DESIGN_DIFFERENCES.as_posix()}`" if baselines.design_present else "")
             + f" when the docs were built. {len(known)} known-failure entries over {len(scenarios)} scenarios, "
             f"shown by {len(scripts)} reproductions; {len(design)} documented design difference(s). How to read "
             "them: [Triage a finding](../../how-to/triage-a-finding.md); how to add one: "
             "[Add a known failure](../../how-to/add-a-known-failure.md).\n"]
    if design:
        parts += ["## Documented design differences\n", *(_design_section(entry) for entry in design)]
    parts.append("## Known failures\n")
    parts.append(_known_failure_sections(known) if known else "None: every run of this implementation passes, "
                 "is n/a, or differs by design.\n")
    return "\n".join(parts)


def page_names(baselines: Baselines, installed: Iterable[str]) -> list[str]:
    named = {name for entry in (*baselines.known, *baselines.design) for name in implementations_of(entry)}
    return sorted(named | set(installed))


def index_page(names: Sequence[str], baselines: Baselines) -> str:
    rows = []
    for name in names:
        known = [e for e in baselines.known if name in implementations_of(e)]
        design = [e for e in baselines.design if name in implementations_of(e)]
        rows.append([f"[`{name}`]({name}.md)", str(len(known)), str(len({e.get("scenario") for e in known})),
                     str(len({e.get("reproduction") for e in known})), str(len(design))])
    return ("# Findings by implementation\n\n"
            "Every framework behaviour the suite records against the spec, one page per implementation, generated "
            f"from `{KNOWN_FAILURES.as_posix()}` and `{DESIGN_DIFFERENCES.as_posix()}` each time the docs are "
            "built. A known failure is a defect with a release range and a standalone reproduction under `repro/`; a "
            "design difference is behaviour the framework's own documentation names as intended.\n\n"
            + table(["implementation", "known-failure entries", "scenarios", "reproductions", "design entries"], rows))


def findings_pages(root: Path, installed: Iterable[str]) -> dict[str, str]:
    """Page path (under the docs folder) -> Markdown, for the index and every implementation."""
    baselines = load(root)
    names = page_names(baselines, installed)
    pages = {f"{FOLDER}/index.md": index_page(names, baselines)}
    pages.update({f"{FOLDER}/{name}.md": implementation_page(name, baselines) for name in names})
    return pages

"""Which release of each companion package (agent-framework-openai, -gemini, -ag-ui, -foundry-hosting) was built for a
release of agent-framework-core, decided from the registry's metadata alone.

The companions are numbered apart from core (agent-framework-openai 1.13.0 goes with core 1.20.0, the Gemini and
Foundry hosting packages are pre-releases only), so the pairing is read from two facts every release publishes: its
`Requires-Dist` on agent-framework-core, and when it was uploaded. The rule, for core release C:

1. Candidates are the companion's releases that are not yanked, whose requirement on agent-framework-core accepts C,
   and that were uploaded before the next core release after C was published (any time, for the newest core
   release). A release is published as a batch, core and companions within minutes of each other and some companions
   a little before core (agent-framework-ag-ui 1.0.0 went up 4 s before core 1.12.1, which it was built for), so
   "before the next core release" means more than `BATCH_WINDOW` (an hour) before it. A companion release that names
   no requirement on agent-framework-core is never a candidate: nothing says which core it was built for.
2. The newest final release among them wins; only where no final release qualifies does the newest pre-release
   (the Gemini and Foundry hosting packages have pre-releases only; before its 1.0.0 the AG-UI package too).
3. No candidate: the companion was not released for C, and the version matrix says so instead of a verdict.

The upload bound keeps a later companion, built for a later core and still accepting C through a loose lower bound,
from standing in for the one that shipped with C; a companion fix published between two core releases still counts.
`pair_companions` is pure: the sweep gives it the metadata it read from the registry (`fetch_releases`), the tests
give it metadata recorded from the registry (tests/data/companion-releases.json).
"""

from __future__ import annotations

import io
import json
import urllib.request
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, cast

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import InvalidSdistFilename, InvalidWheelFilename, parse_sdist_filename, parse_wheel_filename
from packaging.version import InvalidVersion, Version

CORE = "agent-framework-core"
# Every companion the sweep installs beside a core release; the dialects are the wire providers a package serves.
COMPANIONS: dict[str, tuple[str, ...]] = {
    "agent-framework-openai": ("openai-responses", "openai-chat"),
    "agent-framework-gemini": ("gemini",),
    "agent-framework-ag-ui": (),
    "agent-framework-foundry-hosting": (),
}
SIMPLE_INDEX = "https://pypi.org/simple"
NOT_RELEASED = "not released for this core release"
BATCH_WINDOW = timedelta(hours=1)


@dataclass(frozen=True)
class Release:
    """One release of a package as the registry describes it."""

    version: str
    uploaded: str  # ISO 8601 UTC time of its first uploaded file
    requires_core: str | None = None  # its specifier on agent-framework-core ("" = any release); None = none named
    yanked: bool = False


def pair_companions(core: str, core_releases: Sequence[Release],
                    companions: Mapping[str, Sequence[Release]]) -> dict[str, str | None]:
    """Per companion package, the release built for core release `core` (None: none was)."""
    return {package: _built_for(core, core_releases, releases)
            for package, releases in companions.items()}


def _built_for(core: str, core_releases: Sequence[Release], releases: Sequence[Release]) -> str | None:
    next_core = _next_upload(core, core_releases)
    deadline = None if next_core is None else _when(next_core) - BATCH_WINDOW
    candidates = [r for r in releases if not r.yanked and _accepts(r.requires_core, core)
                  and (deadline is None or _when(r.uploaded) < deadline)]
    finals = [r for r in candidates if not Version(r.version).is_prerelease]
    chosen = finals or candidates
    return max(chosen, key=lambda r: Version(r.version)).version if chosen else None


def _next_upload(core: str, core_releases: Sequence[Release]) -> str | None:
    """When the first final core release after `core` was uploaded; None when `core` is the newest."""
    current = Version(core)
    later = [r for r in core_releases if not r.yanked and not Version(r.version).is_prerelease
             and Version(r.version) > current]
    return min(later, key=lambda r: Version(r.version)).uploaded if later else None


def _when(uploaded: str) -> datetime:
    return datetime.fromisoformat(uploaded)


def _accepts(requirement: str | None, core: str) -> bool:
    if requirement is None:
        return False
    return SpecifierSet(requirement).contains(core, prereleases=True)


def core_requirement(requires_dist: Iterable[str]) -> str | None:
    """The specifier a release's `Requires-Dist` lines put on agent-framework-core (extras' lines aside)."""
    for line in requires_dist:
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        if requirement.name.lower().replace("_", "-") != CORE:
            continue
        if requirement.marker is not None and "extra" in str(requirement.marker):
            continue
        return str(requirement.specifier)
    return None


# Reading the registry (the sweep only; the tests use recorded metadata).

def fetch_releases(package: str, cache: dict[str, dict[str, Any]] | None = None, *,
                   requirements: bool = True) -> list[Release]:
    """Every release of `package` with its upload time, yanked flag and (with `requirements`) core requirement, from
    the package index's JSON listing and each release's wheel metadata. `cache` (version -> recorded release) spares
    the downloads of releases read before: a published release's metadata never changes."""
    listing = _get_json(f"{SIMPLE_INDEX}/{package}/")
    files_by_version: dict[str, list[dict[str, Any]]] = {}
    for file in cast(list[dict[str, Any]], listing["files"]):
        version = _file_version(str(file["filename"]))
        if version is not None:
            files_by_version.setdefault(version, []).append(file)
    releases: list[Release] = []
    for version, files in sorted(files_by_version.items(), key=lambda item: Version(item[0])):
        known = (cache or {}).get(version)
        if known is not None:
            releases.append(Release(**known))
            continue
        uploaded = min(str(f["upload-time"]) for f in files)
        yanked = all(bool(f.get("yanked")) for f in files)
        wheels = [f for f in files if str(f["filename"]).endswith(".whl")]
        read = requirements and bool(wheels)
        requires = core_requirement(_wheel_requires_dist(str(wheels[0]["url"]))) if read else None
        release = Release(version, uploaded, requires, yanked)
        releases.append(release)
        if cache is not None:
            cache[version] = asdict(release)
    return releases


def _file_version(filename: str) -> str | None:
    try:
        if filename.endswith(".whl"):
            return str(parse_wheel_filename(filename)[1])
        return str(parse_sdist_filename(filename)[1])
    except (InvalidWheelFilename, InvalidSdistFilename, InvalidVersion):
        return None


def _get_json(url: str) -> dict[str, Any]:
    request = urllib.request.Request(url, headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        return cast(dict[str, Any], json.load(response))


def _wheel_requires_dist(url: str) -> list[str]:
    with urllib.request.urlopen(url, timeout=120) as response:
        archive = zipfile.ZipFile(io.BytesIO(response.read()))
    metadata = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
    lines = archive.read(metadata).decode("utf-8").splitlines()
    return [line.split(":", 1)[1].strip() for line in lines if line.startswith("Requires-Dist:")]


def load_metadata(path: Path) -> tuple[list[Release], dict[str, list[Release]]]:
    """Core's releases and each companion's, as `save_metadata` wrote them."""
    data = cast(dict[str, list[dict[str, Any]]], json.loads(path.read_text(encoding="utf-8")))
    releases = {package: [Release(**entry) for entry in entries] for package, entries in data.items()}
    return releases.pop(CORE, []), releases


def save_metadata(path: Path, core_releases: Sequence[Release], companions: Mapping[str, Sequence[Release]]) -> None:
    data = {CORE: [asdict(r) for r in core_releases],
            **{package: [asdict(r) for r in releases] for package, releases in companions.items()}}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")

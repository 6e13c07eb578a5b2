"""Reading results files (``loop-conformance run --json``) back into typed results.

Reports, the gate and the diff all start from results files rather than from a live run, so that CI can render,
gate and compare runs made elsewhere (other machines, other framework releases). Parsing is strict about the
fields every report needs and lenient about the rest, so that older files still load.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from harness.data_files import load_json_file
from harness.errors import HarnessError
from harness.results import NEUTRAL_PROVIDER, PROFILES, VERDICTS, CheckResult, Profile, ScenarioResult, Verdict

# The `format` of a compact release file (harness.reporting.compact); a full results file has none.
COMPACT_FORMAT = "loop-conformance-compact-results/1"


class ResultsFileError(HarnessError):
    """A results file that cannot be read as a ``loop-conformance run --json`` document."""


@dataclass(frozen=True)
class ResultsDocument:
    results: tuple[ScenarioResult, ...]
    filtered: bool
    source: str = ""  # where it came from, for messages only
    # A release file of the version sweep: the release it is of, and its companion packages as the sweep recorded
    # them (package -> {"version", "installed", "reason"}). Empty for an ordinary results file.
    release: str = ""
    companions: Mapping[str, Any] = field(default_factory=lambda: {})
    # Implementation name -> the `module:factory` reference it was asked for by, for adapters not installed.
    references: Mapping[str, str] = field(default_factory=lambda: {})


def load_results_document(path: Path) -> ResultsDocument:
    # Bounded and located: size, depth, non-finite numbers, bad UTF-8 and lone surrogates are refused at their place.
    return parse_results_document(load_json_file(path, ResultsFileError), source=str(path))


def as_document(document: ResultsDocument | Mapping[str, Any], *, source: str = "") -> ResultsDocument:
    """Accept either an already parsed document or the raw JSON mapping."""
    if isinstance(document, ResultsDocument):
        return document
    return parse_results_document(document, source=source)


def parse_results_document(data: object, *, source: str = "") -> ResultsDocument:
    where = source or "results document"
    if isinstance(data, Mapping) and cast(Mapping[str, Any], data).get("format") == COMPACT_FORMAT:
        # A release file of the version sweep in its compact form. Imported here: the compact reader builds on the
        # parsers below.
        from harness.reporting.compact import expand_compact

        return expand_compact(cast(Mapping[str, Any], data), source=where)
    if not isinstance(data, Mapping) or "results" not in data:
        raise ResultsFileError(f"{where}: not a results document (expected an object with 'results')")
    mapping = cast(Mapping[str, Any], data)
    raw_results = mapping["results"]
    if not isinstance(raw_results, list):
        raise ResultsFileError(f"{where}: 'results' must be a list")
    results: list[ScenarioResult] = []
    for index, raw in enumerate(cast(list[object], raw_results)):
        try:
            results.append(_result(raw))
        except (KeyError, TypeError, ValueError) as error:
            raise ResultsFileError(f"{where}: results[{index}]: {error}") from None
    # A document without the flag predates it; it cannot prove it was unfiltered, so it counts as filtered.
    filtered = bool(mapping.get("filtered", True))
    references = cast(Mapping[str, object], mapping.get("references") or {})
    return ResultsDocument(tuple(results), filtered, source, release=str(mapping.get("release") or ""),
                           companions=cast(Mapping[str, Any], mapping.get("companions") or {}),
                           references={str(name): str(ref) for name, ref in references.items()})


def combine(documents: Sequence[ResultsDocument]) -> ResultsDocument:
    """Several documents as one: filtered when any part is."""
    results = tuple(result for document in documents for result in document.results)
    references = {name: ref for document in documents for name, ref in document.references.items()}
    return ResultsDocument(results, any(d.filtered for d in documents) or not documents,
                           ", ".join(d.source for d in documents if d.source), references=references)


def parse_verdict(value: object) -> Verdict:
    if value not in VERDICTS:
        raise ValueError(f"unknown verdict {value!r}")
    return value


def _result(raw: object) -> ScenarioResult:
    if not isinstance(raw, Mapping):
        raise TypeError("a result must be an object")
    data = cast(Mapping[str, Any], raw)
    checks = tuple(_check(c) for c in cast(list[object], data.get("checks") or []))
    return ScenarioResult(
        scenario=str(data["scenario"]),
        title=str(data.get("title", "")),
        spec_rows=tuple(str(row) for row in cast(list[object], data.get("spec_rows") or [])),
        section=str(data.get("section", "")),
        implementation=str(data["implementation"]),
        version=str(data.get("version", "")),
        mode=str(data["mode"]),
        verdict=parse_verdict(data["verdict"]),
        provider=str(data.get("provider") or NEUTRAL_PROVIDER),  # files from before providers ran in-process only
        provider_package=str(data.get("provider_package") or ""),
        provider_version=str(data.get("provider_version") or ""),
        checks=checks,
        path=str(data.get("path", "")),
        line=int(data.get("line") or 0),
        reason=str(data.get("reason") or ""),
        entries=_strings(data.get("entries")),
        seconds=float(data.get("seconds") or 0.0),
        log=tuple(str(line) for line in cast(list[object], data.get("log") or [])),
        claims=claims_of(data.get("claims"), str(data["implementation"])),
    )


def _check(raw: object) -> CheckResult:
    if not isinstance(raw, Mapping):
        raise TypeError("a check must be an object")
    data = cast(Mapping[str, Any], raw)
    turn = data.get("turn")
    expected = data.get("expected")
    actual = data.get("actual")
    return CheckResult(
        id=str(data["id"]),
        verdict=parse_verdict(data["verdict"]),
        message=str(data.get("message") or ""),
        turn=int(turn) if turn is not None else None,
        expected=str(expected) if expected is not None else None,
        actual=str(actual) if actual is not None else None,
        diff=tuple(str(line) for line in cast(list[object], data.get("diff") or [])),
        details=tuple(str(line) for line in cast(list[object], data.get("details") or [])),
        profile=parse_profile(data.get("profile")),
        cites=_strings(data.get("cites")),
    )


# What the built-in implementations claimed when their results files were written before profiles existed: the
# other frameworks' loops never claimed spec 004's mechanisms, so their old runs are judged as today's.
_CLAIMS_BEFORE_PROFILES: Mapping[str, tuple[str, ...]] = {
    "pydantic_ai": ("safety",),
    "openai_agents": ("safety",),
}


def claims_of(value: object, implementation: str) -> tuple[str, ...]:
    if isinstance(value, list | tuple):
        return tuple(str(c) for c in cast(list[object], value))
    return _CLAIMS_BEFORE_PROFILES.get(implementation, ("safety", "contract"))


def parse_profile(value: object) -> Profile | None:
    """A check's profile as a results file stores it: None in files older than profiles."""
    if value is None:
        return None
    if value not in PROFILES:
        raise ValueError(f"unknown profile {value!r}")
    return value


def _strings(value: object) -> tuple[str, ...]:
    return tuple(str(item) for item in cast(list[object], value or []))

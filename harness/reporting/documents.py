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

from harness.contract import MODES
from harness.data_files import data_path_text, load_json_file
from harness.errors import HarnessError
from harness.identity import shown, version_problem
from harness.results import NEUTRAL_PROVIDER, PROFILES, VERDICTS, CheckResult, Profile, ScenarioResult, Verdict

# The `format` of a compact release file (harness.reporting.compact); a full results file has none.
COMPACT_FORMAT = "loop-conformance-compact-results/1"


# No line number or turn the harness writes comes near this; a larger one is no results file of ours.
_MAX_COUNT = 10_000_000


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
        raise ResultsFileError(f"{where}: error[not-results]: not a results document (expected an object with "
                               "'results')")
    mapping = cast(Mapping[str, Any], data)
    try:
        document = _Fields(cast(Mapping[str, object], data), ())
        raw_results = document.items("results")
        results = tuple(_result(_Fields.of(raw, ("results", index))) for index, raw in enumerate(raw_results))
        # A document without the flag predates it; it cannot prove it was unfiltered, so it counts as filtered.
        filtered = document.flag("filtered", default=True)
        release = document.version("release")
    except _FieldError as error:
        raise ResultsFileError(f"{where}: error[invalid-field]: {data_path_text(error.place)}: {error.message}",
                               ) from None
    references = cast(Mapping[str, object], mapping.get("references") or {})
    return ResultsDocument(results, filtered, source, release=release,
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


class _FieldError(Exception):
    """A field that is missing or of the wrong type, at a data path of the document."""

    def __init__(self, place: tuple[str | int, ...], message: str) -> None:
        super().__init__(message)
        self.place = place
        self.message = message


class _Fields:
    """Typed reads of one JSON object's fields, each refusal naming the field's place in the document."""

    def __init__(self, data: Mapping[str, object], place: tuple[str | int, ...]) -> None:
        self._data = data
        self._place = place

    @classmethod
    def of(cls, raw: object, place: tuple[str | int, ...]) -> _Fields:
        if not isinstance(raw, Mapping):
            raise _FieldError(place, f"expected an object, got {_kind(raw)}")
        return cls(cast(Mapping[str, object], raw), place)

    def _get(self, key: str, required: bool) -> object:
        if key not in self._data or self._data[key] is None:
            if required:
                raise _FieldError(self._place, f"missing field '{key}'")
            return None
        return self._data[key]

    def text(self, key: str, *, required: bool = False) -> str:
        value = self._get(key, required)
        if value is None:
            return ""
        if not isinstance(value, str):
            raise _FieldError((*self._place, key), f"expected text, got {_kind(value)}")
        return value

    def optional_text(self, key: str) -> str | None:
        return self.text(key) if self._get(key, False) is not None else None

    def texts(self, key: str) -> tuple[str, ...]:
        values = self.items(key, required=False)
        for index, value in enumerate(values):
            if not isinstance(value, str):
                raise _FieldError((*self._place, key, index), f"expected text, got {_kind(value)}")
        return cast(tuple[str, ...], values)

    def items(self, key: str, *, required: bool = True) -> tuple[object, ...]:
        value = self._get(key, required)
        if value is None:
            return ()
        if not isinstance(value, list | tuple):  # a tuple: a document built in memory (`ScenarioResult.to_json`)
            raise _FieldError((*self._place, key), f"expected a list, got {_kind(value)}")
        return tuple(cast(list[object], value))

    def count(self, key: str, *, least: int = 0) -> int | None:
        value = self._get(key, False)
        if value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool) or not least <= value <= _MAX_COUNT:
            raise _FieldError((*self._place, key), f"expected a whole number from {least} to {_MAX_COUNT}, got "
                                                   f"{shown(value)}")
        return value

    def seconds(self, key: str) -> float:
        value = self._get(key, False)
        if value is None:
            return 0.0
        if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value <= _MAX_COUNT:
            raise _FieldError((*self._place, key), f"expected a duration in seconds, got {shown(value)}")
        return float(value)

    def flag(self, key: str, *, default: bool) -> bool:
        value = self._get(key, False)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise _FieldError((*self._place, key), f"expected true or false, got {_kind(value)}")
        return value

    def choice(self, key: str, allowed: Sequence[str], *, required: bool = True) -> str:
        value = self.text(key, required=required)
        if value not in allowed and (required or value):
            raise _FieldError((*self._place, key), f"{shown(value)} is not one of {', '.join(allowed)}")
        return value

    def name(self, key: str, *, required: bool = True) -> str:
        """Text that names something (an implementation, a provider): one line, not blank. Markup in it is the
        renderers' to escape, as in any other text of the file."""
        value = self.text(key, required=required)
        if (value or required) and (not value.strip() or "\n" in value or len(value) > 200):
            raise _FieldError((*self._place, key), f"expected a name (one line of at most 200 characters), got "
                                                   f"{shown(value)}")
        return value

    def version(self, key: str) -> str:
        value = self.text(key)
        problem = version_problem(value)
        if problem is not None:
            raise _FieldError((*self._place, key), problem)
        return value

    def at(self, *parts: str | int) -> tuple[str | int, ...]:
        return (*self._place, *parts)


def _kind(value: object) -> str:
    names: dict[type, str] = {dict: "an object", list: "a list", str: "text", bool: "true or false",
                              int: "a number", float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _result(data: _Fields) -> ScenarioResult:
    checks = tuple(_check(_Fields.of(raw, data.at("checks", index))) for index, raw in enumerate(data.items(
        "checks", required=False)))
    implementation = data.name("implementation")
    return ScenarioResult(
        scenario=data.text("scenario", required=True),
        title=data.text("title"),
        spec_rows=data.texts("spec_rows"),
        section=data.text("section"),
        implementation=implementation,
        version=data.version("version"),
        mode=data.choice("mode", MODES),
        verdict=cast(Verdict, data.choice("verdict", VERDICTS)),
        provider=data.name("provider", required=False) or NEUTRAL_PROVIDER,  # files from before providers ran
        provider_package=data.text("provider_package"),
        provider_version=data.version("provider_version"),
        checks=checks,
        path=data.text("path"),
        line=data.count("line") or 0,
        reason=data.text("reason"),
        entries=data.texts("entries"),
        seconds=data.seconds("seconds"),
        log=data.texts("log"),
        claims=claims_of(data.texts("claims") or None, implementation),
    )


def _check(data: _Fields) -> CheckResult:
    profile = data.choice("profile", PROFILES, required=False)
    return CheckResult(
        id=data.text("id", required=True),
        verdict=cast(Verdict, data.choice("verdict", VERDICTS)),
        message=data.text("message"),
        turn=data.count("turn", least=1),
        expected=data.optional_text("expected"),
        actual=data.optional_text("actual"),
        diff=data.texts("diff"),
        details=data.texts("details"),
        profile=cast(Profile, profile) if profile else None,
        cites=data.texts("cites"),
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


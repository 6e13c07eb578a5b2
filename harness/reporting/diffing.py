"""Regressions and fixes between two results files, as Markdown for a PR comment.

Checks are compared per (scenario, implementation, provider, mode, check id) — not per version, so the old and new
files may come from different releases of an implementation (the version change is shown beside the
implementation). The tables get a provider column only when some change is of a run over a provider's wire. A
check that fails on several turns counts once, with its worst verdict.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from harness.reporting.coverage import provider_key
from harness.reporting.documents import ResultsDocument, as_document
from harness.reporting.markdown import markdown_code, markdown_text
from harness.results import NEUTRAL_PROVIDER, ScenarioResult, Verdict

_BAD: frozenset[str] = frozenset({"fail", "error", "xfail"})
_SEVERITY: tuple[Verdict, ...] = ("error", "fail", "xfail", "differs", "pass", "n/a")
_RANK: dict[str, int] = {verdict: rank for rank, verdict in enumerate(_SEVERITY)}
ABSENT = "—"  # the check did not exist in that file (a new or removed scenario, or a check that did not run)
SCENARIO_CHECK = "(scenario)"  # a run without checks (n/a) compared as a whole

_Key = tuple[str, str, str, str, str]  # scenario, implementation, provider, mode, check


@dataclass(frozen=True)
class _Seen:
    verdict: str
    message: str
    versions: frozenset[str]


@dataclass(frozen=True)
class Change:
    scenario: str
    implementation: str
    provider: str
    mode: str
    check: str
    old: str
    new: str
    message: str  # the new message when the check now fails
    old_versions: frozenset[str]
    new_versions: frozenset[str]


@dataclass(frozen=True)
class ResultsDiff:
    regressions: tuple[Change, ...]  # a check that did not fail now fails (including new failing checks)
    fixes: tuple[Change, ...]  # a check that failed now passes
    other: tuple[Change, ...]  # failing differently (fail ↔ xfail ↔ error), or no longer run / applicable
    compared: int

    @property
    def empty(self) -> bool:
        return not (self.regressions or self.fixes or self.other)


def compare(old_document: ResultsDocument | Mapping[str, Any],
            new_document: ResultsDocument | Mapping[str, Any]) -> ResultsDiff:
    old = _index(as_document(old_document).results)
    new = _index(as_document(new_document).results)
    regressions: list[Change] = []
    fixes: list[Change] = []
    other: list[Change] = []
    for key in sorted(old.keys() | new.keys(), key=lambda k: (k[0], k[1], provider_key(k[2]), k[3], k[4])):
        before = old.get(key)
        after = new.get(key)
        old_verdict = before.verdict if before else ABSENT
        new_verdict = after.verdict if after else ABSENT
        if old_verdict == new_verdict:
            continue
        change = Change(*key, old=old_verdict, new=new_verdict, message=after.message if after else "",
                        old_versions=before.versions if before else frozenset(),
                        new_versions=after.versions if after else frozenset())
        if new_verdict in _BAD and old_verdict not in _BAD:
            regressions.append(change)
        elif old_verdict in _BAD and new_verdict == "pass":
            fixes.append(change)
        elif old_verdict in _BAD or new_verdict in _BAD or old_verdict == "pass":
            # Still failing but differently, or a check that used to be judged and no longer is: a reviewer
            # should see coverage disappear even though nothing regressed.
            other.append(change)
    return ResultsDiff(tuple(regressions), tuple(fixes), tuple(other), len(old.keys() | new.keys()))


def diff(old_document: ResultsDocument | Mapping[str, Any], new_document: ResultsDocument | Mapping[str, Any]) -> str:
    """The Markdown a PR comment shows: regressions, then fixes, then other changes."""
    result = compare(old_document, new_document)
    lines = ["## Conformance changes", ""]
    if as_document(new_document).filtered or as_document(old_document).filtered:
        lines += ["> ⚠️ At least one of the two results files comes from a filtered run; checks outside its "
                  "selection show as added or removed.", ""]
    lines.append(f"{len(result.regressions)} regression(s), {len(result.fixes)} fix(es), "
                 f"{len(result.other)} other change(s) over {result.compared} compared checks.")
    lines.append("")
    wire = any(c.provider != NEUTRAL_PROVIDER for c in (*result.regressions, *result.fixes, *result.other))
    lines += _table("Regressions", result.regressions, with_message=True, with_provider=wire)
    lines += _table("Fixes", result.fixes, with_message=False, with_provider=wire)
    if result.other:
        lines += _table("Other changes", result.other, with_message=False, with_provider=wire)
    return "\n".join(lines).rstrip() + "\n"


def _index(results: tuple[ScenarioResult, ...]) -> dict[_Key, _Seen]:
    seen: dict[_Key, _Seen] = {}
    for run in results:
        # A differs run fails only what its implementation does not claim: its failing checks differ, and a change
        # to differs is never a regression.
        checks = [(c.id, _differing(run.verdict, c.verdict), c.message) for c in run.checks] or [
            (SCENARIO_CHECK, run.verdict, run.reason)]
        for check_id, verdict, message in checks:
            key = (run.scenario, run.implementation, run.provider, run.mode, check_id)
            current = seen.get(key)
            if current is None:
                seen[key] = _Seen(verdict, message, frozenset({run.version}))
                continue
            versions = current.versions | {run.version}
            if _rank(verdict) < _rank(current.verdict):
                seen[key] = _Seen(verdict, message, versions)
            else:
                seen[key] = _Seen(current.verdict, current.message, versions)
    return seen


def _differing(run_verdict: str, check_verdict: str) -> str:
    return "differs" if run_verdict == "differs" and check_verdict in _BAD else check_verdict


def _rank(verdict: str) -> int:
    return _RANK.get(verdict, len(_RANK))


def _implementation(change: Change) -> str:
    if change.old_versions and change.new_versions and change.old_versions != change.new_versions:
        before = ", ".join(sorted(change.old_versions))
        after = ", ".join(sorted(change.new_versions))
        return f"{change.implementation} ({before} → {after})"
    return change.implementation


def _table(title: str, changes: tuple[Change, ...], *, with_message: bool, with_provider: bool) -> list[str]:
    lines = [f"### {title} ({len(changes)})", ""]
    if not changes:
        return [*lines, "None.", ""]
    header = ("| Scenario | Implementation | " + ("Provider | " if with_provider else "") + "Mode | Check | Verdict |"
              + (" Message |" if with_message else ""))
    rule = "|---|---|---|---|---|" + ("---|" if with_provider else "") + ("---|" if with_message else "")
    lines += [header, rule]
    for c in changes:
        message = " ".join(c.message.split())
        message = message if len(message) <= 200 else message[:199] + "…"
        provider = f"{markdown_text(c.provider)} | " if with_provider else ""
        row = (f"| {markdown_code(c.scenario)} | {markdown_text(_implementation(c))} | {provider}"
               f"{markdown_text(c.mode)} | {markdown_code(c.check)} | {markdown_text(c.old)} → "
               f"**{markdown_text(c.new)}** |")
        lines.append(row + (f" {markdown_text(message)} |" if with_message else ""))
    return [*lines, ""]

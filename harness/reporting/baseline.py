"""Known failures: implementation defects the suite documents instead of hiding.

A baseline entry names the scenario, implementation, release range, modes and (optionally) providers, the checks
that fail, a reason in the spec's words and a standalone reproduction. A run that fails exactly those checks is
reported `xfail`; a run that now passes is a failure of the baseline itself (a stale entry must be removed), so is a
run that fails only some of an entry's checks (the entry is partly stale: its passing checks must leave it, so a
fixed check never stays excused), and a run that fails other checks too stays a plain failure.

An entry that names no providers holds for every provider: a loop's own defect shows whatever wire carries its model
calls. One run cannot tell whether such an entry is stale, since the defect may still show over another provider:
a passing neutral run marks it stale, as it always did, and a passing run over a provider's wire does not. The gate,
which sees every provider's runs at once, holds it stale only when no provider's run fails its check.
Several entries may cover one run (a defect that shows on some runs only beside one that always does); the run is
then judged against all of them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.bundled import BUNDLED_BASELINE as BUNDLED_BASELINE
from harness.contract import Dialect
from harness.data_files import load_yaml_model
from harness.errors import HarnessError
from harness.reporting.design import DesignDifference, apply_profiles
from harness.results import NEUTRAL_PROVIDER, CheckResult, ScenarioResult, overall


class KnownFailure(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    scenario: str
    # One name, or several when variants of one implementation share the defect (a caller with and without a
    # session): the entry then reads once, with one reason and one reproduction.
    implementation: str | list[str] = Field(min_length=1)
    checks: list[str] = Field(min_length=1, description="Every check the defect makes fail.")
    modes: list[Literal["streaming", "non-streaming"]] = Field(default=["non-streaming", "streaming"])
    providers: list[Dialect] | None = Field(
        default=None, min_length=1,
        description="The providers (how the model is reached: neutral, openai-responses, openai-chat, gemini) the "
                    "failure shows over. Absent means every provider, since a loop's own defect shows whatever wire "
                    "carries its model calls; name providers only for a defect of one wire path, such as a provider "
                    "client's serialisation. Only a passing neutral run, or the gate when no provider's run fails "
                    "the check, finds an entry without providers stale.")
    versions_from: str | None = Field(default=None, description="First affected release (inclusive).")
    versions_until: str | None = Field(default=None, description="First fixed release (exclusive).")
    # A defect that shows on some runs and not on others, because the framework leaves an order to chance (which of
    # several tasks that finished together it reports first): a run where it did not show is no sign of a fix.
    intermittent: bool = Field(default=False, description="The checks fail on some runs only; a pass is not stale.")
    reason: str = Field(min_length=40)
    reproduction: str = Field(description="Path of a standalone reproduction, relative to the repository root.")

    @property
    def implementations(self) -> tuple[str, ...]:
        return (self.implementation,) if isinstance(self.implementation, str) else tuple(self.implementation)

    @property
    def key(self) -> str:
        """A short stable name for the entry: its scenario, its first implementation and its first release."""
        return f"{self.scenario}@{self.implementations[0]}@{self.versions_from or 'any'}"

    def matches(self, result: ScenarioResult) -> bool:
        return (
            result.scenario == self.scenario
            and result.implementation in self.implementations
            and result.mode in self.modes
            and (self.providers is None or result.provider in self.providers)
            and in_release_range(result.version, self.versions_from, self.versions_until)
        )


class Baseline(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    known_failures: list[KnownFailure] = Field(default_factory=list[KnownFailure])
    # Per-check entries are the gate's finer format (validated by `harness.reporting.gate`); `run` marks xfail from
    # `known_failures` only, so one file can serve both.
    check_failures: list[dict[str, Any]] = Field(default_factory=list[dict[str, Any]])


class BaselineError(HarnessError):
    """A baseline file that cannot be used."""


_PRE_RELEASE = {"dev": -4, "a": -3, "alpha": -3, "b": -2, "beta": -2, "rc": -1, "c": -1}


def release_key(text: str) -> tuple[int, ...]:
    """Ordering of release strings; every user of release ranges orders by it, so they agree on what is covered.
    The release numbers, then a pre-release's rank and number (`1.0.0rc7` before `1.0.0`, as PEP 440 orders them;
    a final release ranks 0)."""
    numbers: list[int] = []
    tail = (0, 0)
    for part in text.split("."):
        # ASCII digits only, and no more than any release has: a hand-written bound must never make `int` fail.
        digits = re.match(r"[0-9]{1,18}", part)
        numbers.append(int(digits.group()) if digits else 0)
        suffix = re.fullmatch(r"[0-9]*([a-z]+)([0-9]{0,18})", part.lower())
        if suffix is not None and suffix.group(1) in _PRE_RELEASE:
            tail = (_PRE_RELEASE[suffix.group(1)], int(suffix.group(2) or 0))
    return (*numbers, *tail)


def in_release_range(version: str, first: str | None, fixed: str | None) -> bool:
    """`first` <= `version` < `fixed`, either bound optional."""
    current = release_key(version)
    return (first is None or current >= release_key(first)) and (fixed is None or current < release_key(fixed))


def load_baseline(path: Path) -> Baseline:
    """The baseline file at `path`, read bounded (size, depth, aliases, UTF-8: `harness.data_files`);
    `BaselineError` with one located line for anything else."""
    return load_yaml_model(path, Baseline, BaselineError, "a baseline file")


def apply_baseline(result: ScenarioResult, entries: Sequence[KnownFailure],
                   design: Sequence[DesignDifference] | None = None) -> ScenarioResult:
    """The result as judged against its implementation's claimed profiles, the documented design differences
    (`design`, default: the bundled ones) and the known failures that match it."""
    result = apply_profiles(result, design)
    matching = [e for e in entries if e.matches(result)]
    if not matching or result.verdict in ("n/a", "error"):
        return result
    failed = {check.id for check in result.checks if check.verdict == "fail"}
    # A check that still fails but no longer gates (`differs`) still shows the defect: its entry is not stale.
    showing = failed | {check.id for check in result.checks if check.verdict == "differs"}
    known = {check for entry in matching for check in entry.checks}
    if not failed <= known:
        extra = ", ".join(sorted(failed - known))
        return replace(result, reason=f"fails beyond its known failure: {extra}")
    # An entry for every provider may still show over another provider when a wire run passes: the gate judges
    # the providers together.
    stale = next((e for e in matching if not e.intermittent and not showing & set(e.checks)
                  and (e.providers is not None or result.provider == NEUTRAL_PROVIDER)), None)
    if stale is not None:
        marker = CheckResult("baseline", "fail", f"known failure now passes; remove its baseline entry "
                                                 f"({stale.reproduction})")
        return replace(result, verdict="fail", checks=(*result.checks, marker))
    shown = [e for e in matching if showing & set(e.checks)]
    if not shown:  # only intermittent defects, none of which showed on this run
        return result
    # The ratchet: an entry whose defect still shows but some of whose checks now pass has been partly fixed. Its
    # passing checks would otherwise stay excused, and a regression of them would hide behind the entry.
    # A check the run did not judge (a stream order in non-streaming mode) says nothing either way.
    # A check judged once per turn may pass on some turns and fail on others: it still fails.
    judged = {check.id for check in result.checks if check.verdict == "pass"} - showing
    partly = [(e, sorted(set(e.checks) & judged)) for e in shown if not e.intermittent and set(e.checks) & judged
              and (e.providers is not None or result.provider == NEUTRAL_PROVIDER)]
    checks = tuple(replace(c, verdict="xfail") if c.verdict == "fail" else c for c in result.checks)
    if partly:
        markers = tuple(CheckResult("baseline", "fail", f"known failure now passes {', '.join(passing)}; remove "
                                                         f"{'it' if len(passing) == 1 else 'them'} from its "
                                                         f"baseline entry ({entry.reproduction})")
                        for entry, passing in partly)
        return replace(result, verdict="fail", checks=(*checks, *markers),
                       reason="known failure partly fixed: narrow its baseline entry")
    if not failed:  # every failure it shows is one that does not gate: the run differs, as judged before
        return result
    reason = " ".join(f"known failure: {' '.join(e.reason.split())} Reproduction: {e.reproduction}" for e in shown)
    keys = tuple(f"known:{e.key}" for e in shown)
    return replace(result, verdict="xfail", checks=checks, reason=reason, entries=(*result.entries, *keys))


def rejudge(result: ScenarioResult, entries: Sequence[KnownFailure]) -> ScenarioResult:
    """A stored result judged afresh against `entries`, as its run would judge it now: what an earlier baseline
    excused (`xfail`) or marked stale counts as the plain check again. A baseline changes more often than a release
    is swept, and a results file keeps the verdicts of the baseline it was swept with."""
    if result.verdict in ("n/a", "error"):
        return result
    checks = tuple(replace(c, verdict="fail") if c.verdict in ("xfail", "differs") else c for c in result.checks
                   if c.id != "baseline")
    return apply_baseline(replace(result, verdict=overall(list(checks)), checks=checks, reason="", entries=()),
                          entries)


"""Per implementation, how many runs fail which promise: safety failures, contract failures, differs, tentative.

A run counts under each profile of its failing checks (`CheckResult.profile`; a check of a results file older than
profiles has none and counts under contract, the spec as written). Failures are runs whose verdict is fail, error
or xfail (a known failure is still a failure of the promise); `differs` runs (they fail only what the implementation
does not claim) count under differs, and also under tentative when a tentative check is among their failures.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from harness.results import ScenarioResult

_FAILING = frozenset({"fail", "error", "xfail"})


@dataclass
class ProfileCounts:
    safety: int = 0
    contract: int = 0
    differs: int = 0
    tentative: int = 0

    def add(self, run: ScenarioResult) -> None:
        profiles = {check.profile or "contract" for check in run.checks if check.verdict not in ("pass", "n/a")}
        if run.verdict == "differs":
            self.differs += 1
        elif run.verdict in _FAILING:
            self.safety += "safety" in profiles
            # A failing run no check explains (the harness could not judge it) is counted against the contract.
            self.contract += "contract" in profiles or not profiles
        self.tentative += "tentative" in profiles and run.verdict in (*_FAILING, "differs")


def profile_counts(results: Iterable[ScenarioResult]) -> dict[str, ProfileCounts]:
    """Implementation (with its version) -> its counts, in name order."""
    counts: dict[str, ProfileCounts] = {}
    for run in results:
        counts.setdefault(f"{run.implementation} {run.version}".strip(), ProfileCounts()).add(run)
    return dict(sorted(counts.items()))

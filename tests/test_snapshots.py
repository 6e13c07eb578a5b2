"""Snapshots of every scenario × implementation × mode: any change in observable behaviour becomes a diff.

Update deliberately with `pytest tests/test_snapshots.py --snapshot-update` and review the diff like code.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.json import JSONSnapshotExtension

from harness import BUNDLED_SCENARIOS, MODES, Mode
from harness.contract import LoopAdapter
from harness.reporting.snapshot import transcript
from harness.run.registry import installed_adapters
from harness.run.runner import execute
from harness.run.suite import load_all
from harness.scenario.model import Scenario

SCENARIOS, _ = load_all([BUNDLED_SCENARIOS])
ADAPTERS, _ = installed_adapters()


@pytest.fixture
def snapshot_json(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.use_extension(JSONSnapshotExtension)


def _runnable(scenario: Scenario, adapter: LoopAdapter, mode: Mode) -> bool:
    """Runs over the neutral provider that are not n/a (a scenario about one provider's wire runs only over it)."""
    providers = scenario.spec.providers
    return (mode in scenario.modes() and set(scenario.spec.requires) <= set(adapter.capabilities)
            and (providers is None or "neutral" in providers.only))


CASES = [
    pytest.param(scenario, adapter, mode, id=f"{scenario.id}-{adapter.name}-{mode}")
    for scenario in SCENARIOS
    for adapter in ADAPTERS
    for mode in MODES
    if _runnable(scenario, adapter, mode)
]


@pytest.mark.parametrize(("scenario", "adapter", "mode"), CASES)
def test_observable_transcript(scenario: Scenario, adapter: LoopAdapter, mode: Mode,
                               snapshot_json: SnapshotAssertion) -> None:
    record = asyncio.run(execute(scenario, adapter, mode))
    observed: dict[str, Any] = transcript(record)
    assert observed == snapshot_json

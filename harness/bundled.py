"""Where the bundled suite lives: the scenarios and the default known-failure baseline shipped with the harness."""

from __future__ import annotations

from pathlib import Path

_CHECKOUT = Path(__file__).resolve().parent.parent


def _beside_or_cwd(relative: str) -> Path:
    """The checkout's copy (editable installs), else the same path under the working directory."""
    beside = _CHECKOUT / relative
    return beside if beside.exists() else Path.cwd() / relative


BUNDLED_SCENARIOS = _beside_or_cwd("scenarios")
BUNDLED_BASELINE = _beside_or_cwd("baselines/known-failures.yaml")

"""Wire providers: the scenario's script served in a real provider's HTTP format (a placeholder until they land).

They import only the value model, as every fake does.
"""

from __future__ import annotations

from fakes.provider import ScriptedProvider
from harness.contract import Dialect, WireEndpoint


def make_wire_endpoint(dialect: Dialect, provider: ScriptedProvider) -> WireEndpoint:
    """The endpoint serving `provider`'s script in `dialect`'s wire format; raises `ImportError` when the dialect's
    optional dependency is missing (the run is then n/a)."""
    raise NotImplementedError(f"the {dialect} wire endpoint is not written yet (issue #12)")

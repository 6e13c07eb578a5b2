"""Adapter for the loop behind Microsoft Agent Framework's AG-UI endpoint (`agent-framework-ag-ui`).

Install with ``pip install 'loop-conformance[ag-ui]'``. The packages are imported only when this adapter is asked
for, so a missing extra costs nothing until then.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.adapters.agent_framework_ag_ui.conversation import AgUiAdapter


def adapter() -> AgUiAdapter:
    """Entry point: the AG-UI adapter (raises ImportError when agent-framework-ag-ui is not installed)."""
    from harness.adapters.agent_framework_ag_ui.conversation import AgUiAdapter

    return AgUiAdapter()

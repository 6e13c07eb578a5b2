"""Adapter for Microsoft Agent Framework (`agent-framework-core`), driven through its function invocation layer.

Install with ``pip install 'loop-conformance[agent-framework]'``. The framework is imported only when this
adapter is asked for, so a missing extra costs nothing until then.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.adapters.agent_framework.conversation import AgentFrameworkAdapter


def adapter() -> AgentFrameworkAdapter:
    """Entry point: the Agent Framework adapter (raises ImportError when the framework is not installed)."""
    from harness.adapters.agent_framework.conversation import AgentFrameworkAdapter

    return AgentFrameworkAdapter()


def stateless_adapter() -> AgentFrameworkAdapter:
    """Entry point: the same framework driven by a caller that keeps its own history and holds no session."""
    from harness.adapters.agent_framework.conversation import AgentFrameworkAdapter

    return AgentFrameworkAdapter(stateless=True)

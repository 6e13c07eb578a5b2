"""Adapter for the OpenAI Agents SDK (`openai-agents`), driven through its `Runner` with a scripted `Model`.

Install with ``pip install 'loop-conformance[openai-agents]'``. The SDK is imported only when this adapter is asked
for, so a missing extra costs nothing until then. Like every adapter, its modules import the SDK and only the
harness's value model. `conversation` says how approvals, history and settings map onto the SDK; `convert` how
its items map onto the neutral vocabulary; `model`, `responses` and `events` carry model calls and streams; `tools`
the scripted tools.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.adapters.openai_agents.conversation import OpenAIAgentsAdapter


def adapter() -> OpenAIAgentsAdapter:
    """Entry point: the OpenAI Agents SDK adapter (raises ImportError when the SDK is not installed)."""
    from harness.adapters.openai_agents.conversation import OpenAIAgentsAdapter

    return OpenAIAgentsAdapter()
